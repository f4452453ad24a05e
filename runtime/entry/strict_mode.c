/* strict_mode.c - a thread entering seccomp's strict mode (prctl
 * PR_SET_SECCOMP with SECCOMP_MODE_STRICT, or a seccomp system call with
 * SECCOMP_SET_MODE_STRICT) may then make only read, write, exit and
 * sigreturn system calls, and rdtsc raises SIGSEGV in it.  It stops
 * recording just before, for good: its events so far are written, its
 * ThreadEnd says why, and its probes record nothing from then on.  Marked
 * strict, it runs no more of the runtime's work that makes system calls:
 * its exit handlers, units' destructors and _exit leave the trace to the
 * other threads, or to the runtime's own threads once it was the program's
 * last (lifecycle.c); a fatal signal on it is handed to them (signals.c).
 * The mode is the calling thread's alone: the others record on. */
#include <stdio.h>
#include <unistd.h>

#include "entry/entry.h"

void ip_strict_entering(void) {
  if (ip_process_is_child())
    return; /* a vfork child's mode is not its parent's thread's */
  struct ip_rt_thread *t = &ip_tls;
  char why[96] = "the program put the thread in seccomp strict mode";
  if (t->state == IP_TS_READY) {
    double ms = (double)(ip_tick_cold() - ip_st.start_tick) * 1e3 / ip_st.ticks_per_second;
    snprintf(why, sizeof why, "the program put the thread in seccomp strict mode at %.3f ms", ms);
  }
  pid_t tid = gettid();
  ip_thread_stop(t, why); /* one never set up stays lent: it is never set up */
  t->strict = tid;
}

long ip_strict_entered(long rc) {
  if (rc != 0)
    ip_tls.strict = 0; /* refused: the thread stays stopped */
  return rc;
}
