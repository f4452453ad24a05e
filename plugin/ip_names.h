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

/* 64-bit FNV-1a of LEN bytes, continuing from HASH (start with
 * IP_FNV_OFFSET). */
#define IP_FNV_OFFSET 0xcbf29ce484222325ull
uint64_t ip_fnv1a64(uint64_t hash, const void *data, size_t len);

/* Length of NAME once GCC's clone and LTO suffixes (".constprop.N",
 * ".isra.N", ".part.N", ".lto_priv.N", in any combination) are stripped. */
size_t ip_normalized_len(const char *name);

/* Id of an instrumented function: FNV-1a 64 of its normalised assembler name,
 * a '\0', and its source file. */
uint64_t ip_function_id(const char *asm_name, const char *file);

/* Id of a call-site callee: FNV-1a 64 of its normalised name alone. */
uint64_t ip_callee_id(const char *asm_name);

#ifdef __cplusplus
}
#endif

#endif
