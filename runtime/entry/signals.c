/* signals.c - fatal signals and the program's own handlers.
 * For every signal whose default action ends the process (SIGSEGV,
 * SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE:
 * the writer of a pipeline whose reader is gone, SIGALRM, SIGUSR1, SIGUSR2,
 * SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT and the
 * real-time signals but the sampler's while it samples) left at that action, our handler
 * completes the trace (clean=false, "signal N"), restores the default
 * action and re-raises.  SIGTRAP and SIGSYS are left alone: a debugger's
 * breakpoints and a seccomp filter's traps raise them, the latter at a
 * system call of our handler too.
 * The program's sigaction() and signal() calls arrive here from their
 * interposers (interpose.c): a handler the program installs is wrapped, so
 * that (1) it keeps working, chained in place of the default, and (2) probes
 * inside it never encode a buffer: a full one goes to the writer thread,
 * and only where the signal interrupted no probe (else they use the
 * buffer's headroom, which keeps the probe it interrupted intact).  Queries
 * report the program's own handlers, never ours.  The runtime's own
 * installs go to libc's sigaction directly.
 * A thread in seccomp's strict mode may make no system call but read,
 * write, exit and sigreturn: it hands its fatal signal to the runtime's
 * threads (ip_signals_watch), which complete the trace, restore the
 * default action and raise the signal at it, and waits for them.
 * In a child running on the parent's memory (vfork) or a copy of it without
 * fork's handlers (clone, _Fork), sigaction() is libc's and touches none of
 * the tables here: a vfork child resetting its handlers before exec leaves
 * the parent's as they were. */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "entry/entry.h"

static const int fatal_signals[] = {
    SIGSEGV, SIGBUS,  SIGFPE,  SIGILL,  SIGABRT, SIGTERM,   SIGINT,  SIGHUP, SIGQUIT, SIGPIPE,
    SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO,  SIGPWR,  SIGSTKFLT};

static struct sigaction prog_act[NSIG]; /* what the program installed (or had at start) */
static volatile sig_atomic_t
    managed[NSIG]; /* 1: prog_act is authoritative, our dispatcher is installed */

static int is_fatal(int sig) {
  if (sig >= SIGRTMIN && sig <= SIGRTMAX)
    return !(ip_st.sample_hz && sig == ip_sampling_signal());
  for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
    if (fatal_signals[i] == sig)
      return 1;
  return 0;
}

static int is_handler(const struct sigaction *a) {
  return a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN;
}

/* The trace is completed by the first fatal signal; a second one in another
 * thread gives it time to finish. */
static void finish_trace(int sig) {
  if (atomic_load(&ip_st.dying)) {
    struct timespec ts = {0, 1000000};
    for (int i = 0;
         i < 200 && atomic_load(&ip_st.trailer_written) == 1 && atomic_load(&ip_st.init_state) == 1;
         i++)
      nanosleep(&ts, NULL);
  } else {
    atomic_store(&ip_st.dying, 1);
    ip_finish_from_signal(sig);
  }
}

/* A fatal signal handed over by a thread in strict mode: its tid << 8 |
 * the signal (0: none), and whether the runtime's thread raised it. */
static atomic_llong handed;
static atomic_int handed_done;

/* A strict thread's spins, each a pause, before it gives up waiting for
 * the runtime's threads (which look every IP_WATCH_MS). */
#define HAND_OVER_SPINS (1ul << 27) /* 3.2 s on this VM's EPYC */

static void spin_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* On a thread in strict mode: 1 once a runtime thread raised sig at it
 * (delivered when the handler returns), 0 when none did. */
static int hand_over(int sig) {
  if (ip_own_threads_live() == 0)
    return 0;
  long long none = 0;
  atomic_compare_exchange_strong(&handed, &none, (long long)ip_tls.strict << 8 | sig);
  for (unsigned long i = 0; i < HAND_OVER_SPINS; i++) {
    if (atomic_load(&handed_done))
      return 1;
    spin_pause();
  }
  return 0;
}

void ip_signals_watch(void) {
  long long h = atomic_load(&handed);
  if (!h || atomic_load(&handed_done))
    return;
  int sig = (int)(h & 0xff);
  finish_trace(sig);
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  ip_real_sigaction(sig, &dfl, NULL);
  ip_syscall(SYS_tgkill, getpid(), (pid_t)(h >> 8), sig);
  atomic_store(&handed_done, 1);
}

/* A child that is not recorded (vfork, clone) just dies. */
static void die_by(int sig) {
  if (ip_tls.strict && hand_over(sig))
    return;
  if (!ip_process_is_child())
    finish_trace(sig);
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  ip_real_sigaction(sig, &dfl, NULL);
  ip_syscall(SYS_tgkill, getpid(), gettid(), sig); /* delivered when we return */
}

static void dispatch(int sig, siginfo_t *si, void *uc) {
  struct sigaction a = prog_act[sig];
  if (is_handler(&a)) {
    if ((a.sa_flags & SA_RESETHAND) && !ip_process_is_child()) {
      prog_act[sig].sa_handler = SIG_DFL;
      prog_act[sig].sa_flags &= ~SA_SIGINFO;
    }
    /* Restored rather than decremented: a fork child made inside the
     * handler starts outside any handler (thread.c), and returns to this
     * depth. */
    int depth = ip_tls.sig_depth, handoff = ip_tls.sig_handoff;
    /* A probe the signal interrupted (this handler's or an outer one's) holds
     * a slot of the buffer: the buffer stays until the probe is done. */
    ip_tls.sig_handoff = (!depth || handoff) && !ip_in_probe_code(ip_interrupted_pc(uc));
    ip_tls.sig_depth = depth + 1;
    if (a.sa_flags & SA_SIGINFO)
      a.sa_sigaction(sig, si, uc);
    else
      a.sa_handler(sig);
    ip_tls.sig_depth = depth;
    ip_tls.sig_handoff = handoff;
    return;
  }
  if (a.sa_handler == SIG_DFL && is_fatal(sig)) {
    int saved = errno;
    die_by(sig);
    errno = saved;
  }
}

/* Installs our dispatcher for sig with the program's flags and mask. */
static int install(int sig, const struct sigaction *prog) {
  struct sigaction ours = *prog;
  ours.sa_sigaction = dispatch;
  ours.sa_flags = (prog->sa_flags & ~SA_RESETHAND) | SA_SIGINFO;
  if (!is_handler(prog))
    ours.sa_flags |= SA_RESTART | SA_ONSTACK;
  return ip_real_sigaction(sig, &ours, NULL);
}

void ip_signals_install(void) {
  for (int sig = 1; sig < NSIG; sig++) {
    if (!is_fatal(sig))
      continue;
    struct sigaction cur;
    if (ip_real_sigaction(sig, NULL, &cur) != 0 || cur.sa_handler == SIG_IGN)
      continue; /* ignored (e.g. nohup): leave it so */
    prog_act[sig] = cur;
    if (install(sig, &cur) == 0)
      managed[sig] = 1;
  }
}

/* In a child not recorded: libc's sigaction; a query answers with the
 * program's handler where the dispatcher is still installed. */
static int child_sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  struct sigaction prev;
  if (ip_real_sigaction(sig, act, &prev) != 0)
    return -1;
  if (old)
    *old = managed[sig] && (prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction == dispatch
               ? prog_act[sig]
               : prev;
  return 0;
}

/* The sampler's signal (sampling.c) until the program installs a handler
 * there: it sees the disposition it set (SIG_DFL at first) as without the
 * runtime, never the sampler's handler (gdb's signals-state-child aborts on
 * a handler it did not install), and its SIG_DFL or SIG_IGN is kept as its
 * view only: the sampler's handler stays, or the next sample would end the
 * program.  A handler it installs replaces the sampler's. */
static struct sigaction sampler_view;
static atomic_int sampler_signal_taken;

static int sampler_signal_hidden(int sig) {
  return ip_st.sample_hz && sig == ip_sampling_signal() && !atomic_load(&sampler_signal_taken);
}

static int program_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

int ip_signals_program_sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  if (atomic_load(&ip_st.init_state) != 1 || sig <= 0 || sig >= NSIG || sig == SIGKILL ||
      sig == SIGSTOP)
    return ip_real_sigaction(sig, act, old);
  if (ip_process_is_child())
    return child_sigaction(sig, act, old);
  if (!sampler_signal_hidden(sig))
    return program_sigaction(sig, act, old);
  struct sigaction view = sampler_view;
  if (act && is_handler(act)) {
    struct sigaction sampler;
    if (program_sigaction(sig, act, &sampler) != 0)
      return -1;
    atomic_store(&sampler_signal_taken, 1);
  } else if (act) {
    sampler_view = *act;
  }
  if (old)
    *old = view;
  return 0;
}

static int program_sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  if (!managed[sig]) {
    if (!act || !is_handler(act))
      return ip_real_sigaction(sig, act, old);
    struct sigaction prev;
    if (ip_real_sigaction(sig, NULL, &prev) != 0)
      return -1;
    prog_act[sig] = *act;
    if (install(sig, act) != 0)
      return -1;
    managed[sig] = 1;
    if (old)
      *old = prev;
    return 0;
  }
  struct sigaction prev = prog_act[sig];
  if (act) {
    if (!is_handler(act) && !(act->sa_handler == SIG_DFL && is_fatal(sig))) {
      /* SIG_IGN, or SIG_DFL of a signal we do not complete traces for. */
      if (ip_real_sigaction(sig, act, NULL) != 0)
        return -1;
      managed[sig] = 0;
    } else if (install(sig, act) != 0) {
      return -1;
    }
    prog_act[sig] = *act;
  }
  if (old)
    *old = prev;
  return 0;
}
