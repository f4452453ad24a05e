/* inclprof_abi.h - the binary interface between code compiled with the
 * inclprof GCC plugin and the inclprof runtime.  The plugin emits exactly
 * these structures; the runtime reads them.  Bump INCLPROF_ABI_VERSION on any
 * incompatible change: the runtime refuses (and ignores) units with another
 * version, so an old binary never crashes a new runtime.
 *
 * How an instrumented translation unit (TU) works:
 *   - Every instrumented function F gets a static descriptor `struct
 *     inclprof_fn` (flags INCLPROF_FN_INSTRUMENTED).  Every direct callee C
 *     that gets call-site probes gets one too (flags INCLPROF_FN_CALLEE),
 *     one per distinct callee and call line per TU, whose file and line
 *     are the call's (flag INCLPROF_FN_CALL_SITE; a plugin before it made
 *     one per callee, file "" and line 0).
 *   - The TU has one static `struct inclprof_tu` whose `hooks` are null
 *     until a runtime registers the unit.
 *   - A constructor (priority 101) calls __inclprof_register_tu(&tu) if that
 *     (weakly referenced) symbol is present; the runtime then points the
 *     hooks at its probes.  A destructor calls __inclprof_unregister_tu(&tu).
 *   - Probes call the TU's hooks, each only when the hook is not null (so a
 *     binary without the runtime, or paused, pays a test and a branch per
 *     probe).  A hook is an ordinary C function; on x86-64 the plugin calls
 *     it through a trampoline (probe_x86.h) that saves the general
 *     registers, and flags the function INCLPROF_FN_STUB_PROBES.  A runtime sets a TU's hooks all non-null or all null:
 *     adjacent probes test the first one's hook only (and skip any other
 *     found null).  The probes are:
 *       entry of F:                 tu.hooks.enter(&desc_F)
 *       every exit of F (return,
 *        exception landing pad):    tu.hooks.exit(&desc_F)
 *       around a direct call to C:  tu.hooks.call(&desc_C) ... tu.hooks.ret(&desc_C)
 *       around an indirect call:    tu.hooks.call_indirect(target) ... tu.hooks.ret_indirect(target)
 *       entry of a coroutine body (INCLPROF_FN_COROUTINE_BODY), before the
 *        entry probe:               tu.hooks.coroutine_frame(frame | INCLPROF_CORO_*)
 *       right after each call of a returns_twice function (setjmp,
 *        sigsetjmp, getcontext...; not vfork) in F: tu.hooks.landing(&desc_F)
 *     (no `ret` after a noreturn call; no call-site probes in functions that
 *     call setjmp or vfork.)  A call to a function of another TU gets
 *     call-site probes too (the plugin cannot see that it is instrumented);
 *     the runtime then marks the callee descriptor and its call/ret hooks
 *     return at once, leaving the callee's own entry/exit probes.  The
 *     call_indirect/ret_indirect hooks likewise record nothing when the
 *     target is the address of an instrumented function of a registered unit,
 *     or of one whose calls are excluded (INCLPROF_FN_CALLS_EXCLUDED).
 */
#ifndef INCLPROF_ABI_H
#define INCLPROF_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define INCLPROF_ABI_VERSION 4u
/* The oldest ABI a runtime still registers: a unit of ABI 2 has no
 * coroutine_frame hook, one of ABI 3 no landing hook (its inclprof_hooks
 * ends before them), and the runtime writes only the hooks it has. */
#define INCLPROF_ABI_OLDEST 2u

/* inclprof_fn.flags */
#define INCLPROF_FN_INSTRUMENTED 0x1u  /* a function body with entry/exit probes */
#define INCLPROF_FN_CALLEE       0x2u  /* a callee named at call-site probes */
#define INCLPROF_FN_LOCAL        0x4u  /* not TREE_PUBLIC (static / anonymous namespace) */
#define INCLPROF_FN_HAS_LOOPS    0x8u  /* kept despite min-size because it has loops */
#define INCLPROF_FN_STUB_PROBES  0x10u /* its probes are x86-64 stubs (probe_x86.h), not calls */
/* a callee descriptor of one call line: file and line are the call's (older plugins: "" and 0) */
#define INCLPROF_FN_CALL_SITE 0x20u
/* a coroutine's body (GCC's "actor", run at every resumption): its entry
 * probe follows a coroutine_frame probe that passes the frame it runs */
#define INCLPROF_FN_COROUTINE_BODY 0x40u
/* a function of the unit with no probes whose calls an exclude-calls rule
 * leaves out: only its address counts (an indirect call to it records
 * nothing, as a direct call gets no probes); no name in the tables */
#define INCLPROF_FN_CALLS_EXCLUDED 0x80u

/* The value of a coroutine_frame probe: the frame's address (at least
 * 8-aligned: it begins with a function pointer) with these bits: */
#define INCLPROF_CORO_START   0x1u /* the ramp starts the body (frame just made) */
#define INCLPROF_CORO_DESTROY 0x2u /* the body runs to destroy the frame */
#define INCLPROF_CORO_BITS    0x7u

/* inclprof_fn.runtime_flags, written by the runtime (callee descriptors only,
 * which the plugin therefore keeps in writable memory) */
#define INCLPROF_RT_CALLEE_INSTRUMENTED                                                            \
  0x1u /* the callee has entry/exit probes of its
                                               own: its call-site probes record nothing */

/* One per instrumented function, per call-site callee, or per function
 * whose calls are excluded (INCLPROF_FN_CALLS_EXCLUDED).  8-byte aligned
 * (the runtime uses the three low bits of its address as tags). */
struct inclprof_fn {
  uint64_t id;            /* stable: FNV-1a 64 of normalised assembler name, '\0',
                           DECL_SOURCE_FILE (callees: of the name alone) */
  const char *name;       /* assembler (mangled) name */
  const char *pretty;     /* demangled / printable name */
  const char *file;       /* DECL_SOURCE_FILE; callees: the call's file (INCLPROF_FN_CALL_SITE) */
  uint32_t line;          /* DECL_SOURCE_LINE; callees: the call's line (INCLPROF_FN_CALL_SITE) */
  uint32_t size;          /* estimated GIMPLE instructions, 0 for callees */
  uint32_t flags;         /* INCLPROF_FN_* */
  uint32_t runtime_flags; /* 0; INCLPROF_RT_* set by the runtime */
  const void *addr;       /* address of the function (callees: NULL) */
};

struct inclprof_hooks {
  void (*enter)(const struct inclprof_fn *fn);
  void (*exit)(const struct inclprof_fn *fn);
  void (*call)(const struct inclprof_fn *callee);
  void (*ret)(const struct inclprof_fn *callee);
  void (*call_indirect)(const void *target);
  void (*ret_indirect)(const void *target);
  void (*coroutine_frame)(const void *frame);    /* ABI 3 on */
  void (*landing)(const struct inclprof_fn *fn); /* ABI 4 on */
};

struct inclprof_tu {
  uint32_t abi_version;                 /* INCLPROF_ABI_VERSION */
  uint32_t n_fns;                       /* entries in fns */
  const struct inclprof_fn *const *fns; /* instrumented functions, callees, calls excluded */
  const char *path;                     /* main input file of the TU */
  struct inclprof_hooks hooks;          /* written by the runtime */
};

/* Provided by the runtime (libinclprof); referenced weakly by the plugin. */
void __inclprof_register_tu(struct inclprof_tu *tu);
void __inclprof_unregister_tu(struct inclprof_tu *tu);

#ifdef __cplusplus
}
#endif

#endif
