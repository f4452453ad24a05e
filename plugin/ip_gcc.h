// ip_gcc.h - the GCC-facing half of the inclprof plugin: GCC headers and the
// interfaces between plugin/*.cc files (C++ only; see ip_options.h and
// ip_names.h for the plain-C half).
#ifndef IP_GCC_H
#define IP_GCC_H

#include "gcc-plugin.h"
#include "tree.h"
#include "stringpool.h"
#include "tree-pass.h"
#include "context.h"
#include "function.h"
#include "basic-block.h"
#include "cfghooks.h"
#include "cfganal.h"
#include "cfgloop.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "ssa.h"
#include "tree-cfg.h"
#include "tree-eh.h"
#include "except.h"
#include "attribs.h"
#include "cgraph.h"
#include "varasm.h"
#include "output.h"
#include "stor-layout.h"
#include "fold-const.h"
#include "langhooks.h"
#include "builtins.h"
#include "tree-inline.h"
#include "diagnostic-core.h"
#include "toplev.h"
#include "options.h"
#include "gimplify.h"
#include "target.h"

#include "ip_compat.h"

#include "ip_options.h"

/* The parsed plugin arguments (ip_plugin.cc). */
extern struct ip_config ip_cfg;

/* True in lto1 (GIMPLE front end). */
bool ip_in_lto1(void);

/* --- ip_abi.cc: the runtime ABI types and the per-unit objects --- */
enum ip_hook { IP_HOOK_ENTER, IP_HOOK_EXIT, IP_HOOK_CALL, IP_HOOK_RET,
               IP_HOOK_CALL_INDIRECT, IP_HOOK_RET_INDIRECT, IP_HOOK_COROUTINE_FRAME,
               IP_HOOK_LANDING, IP_HOOK_COUNT };

/* Builds the ABI record types and stops the compilation with an error naming
 * the field when their layout differs from inclprof_abi.h. */
void ip_abi_check(void);

/* GC roots of the plugin (types, the unit's inclprof_tu, descriptors). */
extern const struct ggc_root_tab ip_ggc_roots[];

/* Statements loading tu.hooks.HOOK into an SSA name and calling it with ARG
 * (nothrow, never a tail call).  The call is noted for ip_guard_probes. */
gimple_seq ip_build_probe(enum ip_hook hook, tree arg);

/* A new static descriptor (struct inclprof_fn), recorded for the unit table.
 * FNDECL is the function whose address it holds, or NULL_TREE. */
tree ip_build_descriptor(uint64_t id, const char *name, const char *pretty, const char *file,
                         unsigned line, unsigned size, unsigned flags, tree fndecl);

/* At the end of the unit: the descriptor table, the inclprof_tu (hooks null)
 * and the constructor/destructor.  Emits nothing when no descriptor was
 * built. */
void ip_emit_unit(void);

/* True while ip_emit_unit builds its own functions (never instrumented or
 * reported). */
bool ip_emitting_unit(void);

/* --- ip_landing.cc: probes where a longjmp lands --- */
/* In FUN (if it calls setjmp), a landing probe with DESC (FUN's descriptor)
 * right after each returns_twice call but vfork; returns their count. */
unsigned ip_insert_landing_probes(function *fun, tree desc);

/* --- ip_guard.cc: probes that run only while their hook is set --- */
/* Notes a probe call built for the current function. */
void ip_guard_note(gcall *call);
/* Wraps every noted probe call (after all of them are in the CFG) in
 * `if (hook != 0)`, and forgets them. */
void ip_guard_probes(void);

/* --- ip_asm_probe.cc: x86-64 probes as a test and an out-of-line stub --- */
/* Can FUN's probes be asm statements (x86-64, small code model, AT&T syntax,
 * no -fnon-call-exceptions)? */
bool ip_asm_probes_usable(function *fun);
/* Replaces the probes CALLS (each [p = tu.hooks.K; p(arg)] as ip_build_probe
 * made it) by asm statements; adjacent probes share one. */
void ip_asm_probes_build(const vec<gcall *> &calls);
/* At the end of the unit: the trampoline the stubs call, if any was built. */
void ip_asm_emit_trampoline(void);

/* --- ip_known.cc: the program's instrumented functions, listed by one build
 * and read by the next --- */
/* Read known-instrumented's list (0; -1 after an error). */
int ip_known_read(void);
/* Does the list name NAME (a public function instrumented in the program)? */
bool ip_known_instrumented(const char *name);
/* Note FNDECL, just instrumented, for list-instrumented if public. */
void ip_known_list(tree fndecl);
/* Append the unit's names to list-instrumented's file. */
void ip_known_write(void);

/* --- ip_select.cc: which functions get probes, and the report --- */
struct ip_decision {
  bool instrument;
  bool has_loops;
  unsigned size;           /* estimated GIMPLE instructions */
  const char *reason;      /* why skipped (static or GC-stable storage) */
  const char *kind;        /* how the unit's skipped list names it, or NULL */
  const char *note;        /* instrumented over a skip rule: which include rule, over what */
};

/* Decide for FNDECL (cached: the same function always gets the same answer).
 * FN is its body, or NULL when it has none here. */
struct ip_decision ip_decide(tree fndecl, function *fn);

/* Would FNDECL get probes as far as its declaration tells (everything but
 * min-size)?  Usable before IPA, when its body is not final. */
bool ip_may_instrument(tree fndecl);

/* Is there a noinline rule?  Does one name FNDECL (never inline it)? */
bool ip_cfg_has_noinline(void);
bool ip_noinline(tree fndecl);

/* PLUGIN_OVERRIDE_GATE: keep GCC from folding calls of instrumented functions
 * away (ip_gates.cc). */
void ip_override_gate(void *gcc_data, void *user_data);

/* The normalised assembler name of FNDECL (clones named after the function
 * they were cloned from, the target's name encoding such as the '*' of an
 * asm label removed); owned by GCC's identifier table. */
const char *ip_function_name(tree fndecl);

/* Demangled name of NAME for FNDECL (malloc'd). */
char *ip_pretty_name(const char *name);

/* The name FNDECL is shown by (malloc'd): demangled with its parameters; a
 * coroutine's body and destroy function as "RAMP [coroutine body]" and
 * "RAMP [coroutine destroy]", a deleting destructor as "C::~C() [deleting
 * destructor]". */
char *ip_decl_pretty(tree fndecl);

/* One line in the report file and (verbose) on stderr. */
void ip_report(const char *fmt, ...) ATTRIBUTE_PRINTF_1;

/* Remember the functions that have a body before IPA (PLUGIN_ALL_IPA_PASSES_START),
 * with their callers, and each function as it is parsed (PLUGIN_PRE_GENERICIZE),
 * so that those inlined early are known too. */
void ip_note_functions(void *gcc_data, void *user_data);
void ip_note_parsed(void *gcc_data, void *user_data);

/* Is FNDECL one of the program's own functions (not code the compiler made
 * up, not from a system header unless system-headers=yes)? */
bool ip_program_function(tree fndecl);

/* --- ip_inlined.cc: where the program's functions were inlined --- */
/* Notes the functions inlined into FUN (after IPA inlining) and at how many
 * call sites. */
void ip_note_inlined(function *fun);
/* At the end of the unit: a report line and an "inlined-at" line of
 * .inclprof.skipped per function inlined in the unit. */
void ip_inlined_emit(void);

/* --- ip_skipped.cc: the unit's functions without probes, for the converter --- */
/* KIND: inlined, unused, excluded, small or inlined-at; DETAIL: callers, reason
 * or the functions it was inlined into. */
void ip_skipped_note(const char *kind, const char *pretty, const char *file, int line,
                     const char *detail);
/* At the end of the unit: the .inclprof.skipped section, if any was noted. */
void ip_skipped_emit(void);

/* Report the noted functions that never reached the pass: inlined into every
 * caller or removed as unused. */
void ip_report_vanished(void);

/* Open / close the report for this unit. */
void ip_report_open(void);
void ip_report_close(void);

/* --- ip_callsites.cc --- */
/* Wrap the calls of FUN (instrumented, descriptor DESC) in call-site probes
 * according to ip_cfg.callsites; returns how many call sites were wrapped. */
unsigned ip_instrument_callsites(function *fun);
/* Does an exclude-calls rule name CALLEE? */
bool ip_calls_excluded(tree callee);

/* The calls of FUN that GCC made tail calls: with tail-calls=jump those
 * followed by nothing but a return stay jumps (keep their flag); every other
 * call is made a call (the exit probe runs after it returns).  Returns how
 * many stay jumps. */
unsigned ip_settle_tail_calls(function *fun);
/* The exit probe of DESC before each tail call that stays a jump. */
void ip_tail_exit_probes(function *fun, tree desc);
/* Does BB end with a call that stays a jump? */
bool ip_tail_call_ends(basic_block bb);

/* --- ip_libcalls.cc: library calls that remain calls --- */
enum ip_libcall {
  IP_LIBCALL_NOT_BUILTIN, /* an ordinary function */
  IP_LIBCALL_NONE,        /* a builtin that is never a call: no probes */
  IP_LIBCALL_CALL,        /* a library function GCC leaves a call */
  IP_LIBCALL_MAYBE        /* a library function GCC may still expand inline */
};
/* How CALLEE, called at CALL, is compiled; *NAME: the function a MAYBE call
 * calls when it is not CALLEE's own (sincos for sin and cos), or NULL. */
enum ip_libcall ip_libcall_kind(tree callee, gcall *call, const char **name);
/* The library function (memcpy or memset) an aggregate copy or clear STMT
 * may become, or NULL_TREE. */
tree ip_aggregate_libcall(gimple *stmt);
/* A call site of CALLEE's name at STMT whose probes stay only if a call
 * remains there after expansion: the markers to put before its "before" and
 * after its "after" probe. */
unsigned ip_libcall_site(const char *callee, gimple *stmt, gimple **begin, gimple **end);
/* The RTL pass, right after "expand", that keeps those probes or deletes them. */
opt_pass *ip_make_libcall_pass(gcc::context *ctxt);

/* --- ip_pass.cc --- */
opt_pass *ip_make_pass(gcc::context *ctxt);

#endif
