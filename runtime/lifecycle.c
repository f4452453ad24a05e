/* lifecycle.c - start-up and every way out of a process.  Nothing happens at
 * load time: the first __inclprof_register_tu (or inclprof.h call) runs
 * ip_init_once.  The trace is completed (all threads flushed, Trailer) at
 * exit/return from main (atexit + destructor), _exit/_Exit and exec*
 * (interposed; a failed exec carries on recording), and fatal signals
 * (signals.c).  fork gives the child a file of its own.  In a vfork child
 * (pid differs, no fork handler ran) the interposers only pass through. */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt.h"

struct ip_state ip_st = {.fd = -1, .threads_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP};

static pthread_once_t once = PTHREAD_ONCE_INIT;

static int ours(void) { return atomic_load(&ip_st.init_state) == 1 && getpid() == ip_st.pid; }

/* Flushes every thread and writes the Trailer, once.  keep_going: the
 * process may continue (a failed exec): recording goes on.  The flush waits
 * for locks and busy buffers at most IP_EXIT_FLUSH_MS; what it could not
 * take by then is left out and counted in the Trailer. */
static void finish(const char *reason, int clean, int keep_going) {
  if (!ours() || atomic_exchange(&ip_st.trailer_written, 1))
    return;
  ip_exit_deadline_start(IP_EXIT_FLUSH_MS);
  atomic_store(&ip_st.final_flush, 1);
  ip_threads_flush_all(0);
  ip_write_trailer(clean, reason);
  ip_exit_deadline_end();
  if (keep_going)
    atomic_store(&ip_st.trailer_written, 0);
  else
    atomic_store(&ip_st.init_state, 2);
}

/* From a fatal-signal handler: no waiting, no allocation. */
void ip_finish_from_signal(int sig) {
  if (!ours() || atomic_exchange(&ip_st.trailer_written, 1))
    return;
  ip_threads_flush_all(1);
  char reason[24] = "signal ";
  char digits[8];
  int n = 0;
  for (unsigned v = (unsigned)sig; n == 0 || v; v /= 10)
    digits[n++] = (char)('0' + v % 10);
  size_t at = strlen(reason);
  while (n)
    reason[at++] = digits[--n];
  reason[at] = 0;
  ip_write_trailer(0, reason);
  atomic_store(&ip_st.init_state, 2);
}

static void at_exit(void) { finish("exit", 1, 0); }
__attribute__((destructor)) static void at_unload(void) { finish("exit", 1, 0); }

/* fork takes every runtime lock in their order (docs/runtime.md, "Locks"),
 * so the child starts with consistent tables and makes the locks anew. */
static void fork_prepare(void) {
  ip_lock(&ip_st.threads_lock, 0);
  ip_registry_fork_prepare();
  ip_output_lock_log();
}
static void fork_parent(void) {
  ip_output_unlock_log();
  ip_registry_fork_parent();
  ip_unlock(&ip_st.threads_lock);
}
static void fork_child(void) {
  ip_mutex_init(&ip_st.threads_lock);
  ip_registry_fork_child();
  ip_output_fork_child_locks();
  if (atomic_load(&ip_st.init_state) == 1) {
    ip_output_fork_child();
    if (atomic_load(&ip_st.init_state) == 1)
      ip_thread_after_fork_child();
  }
}

static void init(void) {
  ip_st.pid = getpid();
  const char *hz = getenv("INCLPROF_SAMPLE_HZ");
  if (hz && *hz) {
    char *end;
    unsigned long v = strtoul(hz, &end, 10);
    if (*end || v > 100000)
      fprintf(stderr, "inclprof: INCLPROF_SAMPLE_HZ='%s' is not a rate in 1..100000; sampling off\n",
              hz);
    else
      ip_st.sample_hz = (unsigned)v;
  }
  ip_clock_calibrate();
  ip_transitions_choose();
  ip_st.probe_cost_ticks = ip_probe_calibrate();
  char err[1200];
  if (ip_output_open(err, sizeof err) != 0) {
    fprintf(stderr, "inclprof: %s; the program continues unprofiled\n", err);
    atomic_store(&ip_st.init_state, 2);
    return;
  }
  ip_st.start_tick = ip_tick();
  ip_write_header(0);
  ip_thread_key_init();
  pthread_atfork(fork_prepare, fork_parent, fork_child);
  atexit(at_exit);
  atomic_store(&ip_st.init_state, 1);
  ip_signals_install();
  ip_sampling_init();
}

int ip_init_once(void) {
  pthread_once(&once, init);
  return atomic_load(&ip_st.init_state) == 1;
}

/* ---- interposed exits ---------------------------------------------------- */
IP_EXPORT void _exit(int status) {
  finish("_exit", 1, 0);
  for (;;)
    syscall(SYS_exit_group, status);
}

IP_EXPORT void _Exit(int status) {
  finish("_exit", 1, 0);
  for (;;)
    syscall(SYS_exit_group, status);
}

/* ---- interposed exec family --------------------------------------------- */
static void *next_fn(const char *name) { return dlsym(RTLD_NEXT, name); }

/* Before an exec: the calling thread's sampler stops first, so that no
 * sampling signal is still pending when exec resets our handler (the new
 * program would die of it); the trace is completed.  Returns whether a
 * sampler ran, for restart_sampler_after_failed_exec. */
static int before_exec(void) {
  if (!ours())
    return 0;
  int had = ip_tls.has_timer != IP_SAMPLER_NONE;
  ip_sampling_thread_stop(&ip_tls);
  finish("exec", 1, 1);
  return had;
}

/* The final flush's flag stays up until exec returns: no other thread may
 * start a flush that the exec would cut in half. */
static int restart_sampler_after_failed_exec(int had, int rc) {
  int saved = errno;
  atomic_store(&ip_st.final_flush, 0);
  if (had)
    ip_sampling_thread_start(&ip_tls);
  errno = saved;
  return rc;
}

IP_EXPORT int execve(const char *path, char *const argv[], char *const envp[]) {
  int (*real)(const char *, char *const[], char *const[]) =
      (int (*)(const char *, char *const[], char *const[]))next_fn("execve");
  int had = before_exec();
  return restart_sampler_after_failed_exec(
      had, real ? real(path, argv, envp) : (int)syscall(SYS_execve, path, argv, envp));
}

IP_EXPORT int execv(const char *path, char *const argv[]) {
  extern char **environ;
  return execve(path, argv, environ);
}

IP_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[]) {
  int (*real)(const char *, char *const[], char *const[]) =
      (int (*)(const char *, char *const[], char *const[]))next_fn("execvpe");
  int had = before_exec();
  return restart_sampler_after_failed_exec(had, real ? real(file, argv, envp) : -1);
}

IP_EXPORT int execvp(const char *file, char *const argv[]) {
  extern char **environ;
  return execvpe(file, argv, environ);
}

/* The list forms: gather the arguments, then the vector forms above. */
#define GATHER_ARGS(first, ap, argv)                                                              \
  size_t argc_ = 1;                                                                               \
  va_start(ap, first);                                                                            \
  while (va_arg(ap, char *))                                                                      \
    argc_++;                                                                                      \
  va_end(ap);                                                                                     \
  char *argv[argc_ + 1];                                                                          \
  argv[0] = (char *)(first);                                                                      \
  va_start(ap, first);                                                                            \
  for (size_t i_ = 1; i_ <= argc_; i_++)                                                          \
    argv[i_] = va_arg(ap, char *);

IP_EXPORT int execl(const char *path, const char *arg, ...) {
  va_list ap;
  GATHER_ARGS(arg, ap, argv);
  va_end(ap);
  return execv(path, argv);
}

IP_EXPORT int execlp(const char *file, const char *arg, ...) {
  va_list ap;
  GATHER_ARGS(arg, ap, argv);
  va_end(ap);
  return execvp(file, argv);
}

IP_EXPORT int execle(const char *path, const char *arg, ...) {
  va_list ap;
  GATHER_ARGS(arg, ap, argv);
  char *const *envp = va_arg(ap, char *const *);
  va_end(ap);
  return execve(path, argv, envp);
}
