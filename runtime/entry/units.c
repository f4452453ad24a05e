/* units.c - the plugin's entry points: every instrumented translation unit
 * registers itself from its constructor (the first registration starts the
 * runtime) and unregisters from its destructor (at exit, or when dlclose
 * unloads it); the tables themselves are registry.c's. */
#include <errno.h>
#include <stdio.h>

#include "entry/entry.h"

/* Before the process is set up: are the first unit's probes calls, not
 * x86-64 stubs?  The probe-cost calibration times the kind the program has. */
static void note_probe_form(const struct inclprof_tu *tu) {
  if (atomic_load(&ip_st.init_state) != 0 || !ip_abi_known(tu))
    return;
  for (uint32_t i = 0; i < tu->n_fns; i++) {
    const struct inclprof_fn *fn = tu->fns[i];
    if (fn && (fn->flags & INCLPROF_FN_INSTRUMENTED)) {
      ip_st.probe_calls = !(fn->flags & INCLPROF_FN_STUB_PROBES);
      return;
    }
  }
}

static void register_tu(struct inclprof_tu *tu) {
  if (tu)
    note_probe_form(tu);
  if (!tu || !ip_init_once())
    return;
  if (!ip_abi_known(tu)) {
    static atomic_int said;
    if (!atomic_exchange(&said, 1))
      ip_say("inclprof: %s was built for runtime ABI %u, this runtime has ABI %u to %u: not "
             "profiled\n",
             tu->path ? tu->path : "a unit", tu->abi_version, INCLPROF_ABI_OLDEST,
             INCLPROF_ABI_VERSION);
    return;
  }
  ip_units_add(tu);
}

/* The program's errno as it was: C starts main with errno 0 (a program may
 * check it after calls that succeeded), and starting the runtime makes
 * system calls that fail by design (a calibration file not there yet, a
 * trace descriptor asked for its perf event id). */
IP_EXPORT void __inclprof_register_tu(struct inclprof_tu *tu) {
  int saved = errno;
  register_tu(tu);
  errno = saved;
}

/* Inside dlclose on this thread (interpose.c): the units unregistering now
 * are being unmapped.  A unit that unregisters outside it does so at exit
 * (its object stays mapped to the end), or, before exit began, in a dlclose
 * the interposer did not see (libc's own). */
static __thread unsigned unloading __attribute__((tls_model("initial-exec")));

void ip_unloading_begin(void) { unloading++; }
void ip_unloading_end(void) { unloading--; }

/* The trace ends when the last unit leaves after exit began (lifecycle.c's
 * ip_exit_begun). */
IP_EXPORT void __inclprof_unregister_tu(struct inclprof_tu *tu) {
  if (!tu || ip_tls.strict || atomic_load(&ip_st.init_state) == 0)
    return; /* strict mode: no system call (strict_mode.c) */
  /* A vfork or clone child's exit() finds its parent's tables: it leaves
   * them alone.  Once the process's own exit has begun (ip_st.exiting, which
   * a child never sets) the check costs no getpid per unit: only a child
   * made during that exit that then called exit() could get here - a clone
   * child with a copy of the tables, or a vfork child, which may only exec
   * or _exit. */
  int exiting = atomic_load(&ip_st.exiting), unmapped = unloading || !exiting;
  if (!exiting && ip_process_is_child())
    return;
  /* as in __inclprof_register_tu: the caller of a destructor may read it */
  int saved = errno;
  /* the unit's events written while its tables are there (bounded: dlclose
   * holds the loader's lock); at exit the object stays mapped, and the
   * final flush writes them */
  if (unmapped)
    ip_thread_flush_bounded(&ip_tls);
  if (ip_units_remove(tu, unmapped) && exiting)
    ip_finish("exit", 1, 0);
  errno = saved;
}
