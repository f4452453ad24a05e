/* ip_names.h - GCC-independent function identity: name normalisation and the
 * stable 64-bit ids written into inclprof_fn descriptors (plain C, unit-tested
 * without GCC). */
#ifndef IP_NAMES_H
#define IP_NAMES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ip_fnv1a64 and its basis: fnv1a.h */
#include "fnv1a.h"

/* Length of NAME once GCC's clone and LTO suffixes (".constprop.N",
 * ".isra.N", ".part.N", ".lto_priv.N", in any combination) are stripped. */
size_t ip_normalized_len(const char *name);

/* Id of an instrumented function: FNV-1a 64 of its normalised assembler name,
 * a '\0', and its source file. */
uint64_t ip_function_id(const char *asm_name, const char *file);

/* Id of a call-site callee: FNV-1a 64 of its normalised name alone. */
uint64_t ip_callee_id(const char *asm_name);

/* The parts GCC compiles a C++ coroutine into besides its ramp (the
 * function as declared, which allocates the frame): the body, resumed at
 * every resumption ("actor"), and the destroy function. */
enum ip_coro_part { IP_CORO_NONE, IP_CORO_BODY, IP_CORO_DESTROY };

/* Which coroutine part NAME (an assembler name, clone suffixes allowed) is,
 * as GCC names them: the ramp's mangled name, e.g. _Z14handle_requesti, is
 * the name of the frame type, _Z14handle_requesti.Frame, which is the
 * parameter of the part, e.g.
 * _Z14handle_requestPZ14handle_requestiE25_Z14handle_requesti.Frame.actor.
 * For a part, [*ramp, *ramp + *ramp_len) is the ramp's assembler name. */
enum ip_coro_part ip_coroutine_part(const char *name, const char **ramp, size_t *ramp_len);

#ifdef __cplusplus
}
#endif

#endif
