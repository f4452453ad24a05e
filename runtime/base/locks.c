/* locks.c - how the runtime takes its locks.  Every runtime mutex is
 * error-checking, so a thread that already holds one (a signal handler that
 * interrupted the holder and then calls exit, say) is refused at once
 * instead of deadlocking.  A signal handler only ever tries a lock.  The
 * thread that writes the final flush at exit, _exit or exec waits for a lock
 * only until its exit deadline: past it the flush gives up on whatever that
 * lock guards, so a process's exit is never held hostage by the profiler.
 * The locks, their order and who may hold them: docs/runtime.md, "Locks". */
#include <errno.h>
#include <time.h>

#include "base/base.h"

/* The calling thread's exit deadline (CLOCK_MONOTONIC ns), 0 when none. */
static __thread uint64_t exit_deadline __attribute__((tls_model("initial-exec")));

void ip_mutex_init(pthread_mutex_t *m) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_init(m, &a);
  pthread_mutexattr_destroy(&a);
}

int ip_lock(pthread_mutex_t *m, int in_signal) {
  if (in_signal)
    return pthread_mutex_trylock(m) == 0;
  if (!exit_deadline)
    return pthread_mutex_lock(m) == 0;
  struct timespec ts = {.tv_sec = (time_t)(exit_deadline / 1000000000ull),
                        .tv_nsec = (long)(exit_deadline % 1000000000ull)};
  return pthread_mutex_clocklock(m, CLOCK_MONOTONIC, &ts) == 0;
}

void ip_unlock(pthread_mutex_t *m) { pthread_mutex_unlock(m); }

void ip_exit_deadline_start(unsigned ms) {
  exit_deadline = ip_monotonic_ns() + (uint64_t)ms * 1000000ull;
}

void ip_exit_deadline_end(void) { exit_deadline = 0; }

int ip_exit_deadline_passed(void) { return exit_deadline && ip_monotonic_ns() >= exit_deadline; }
