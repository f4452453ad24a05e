/* own_threads.c - the runtime's own threads (the writer, the control
 * thread) do not keep the program's process alive.  glibc ends a process
 * when the last thread it counts ends (pthread_exit from the last thread,
 * or a fork child's only thread returning from its start routine): its
 * count is __nptl_nthreads, which it exports for debuggers
 * (GLIBC_PRIVATE).  A thread of the runtime is taken off that count as soon
 * as pthread_create has counted it, by the thread that created it, and put
 * back just before it ends, so the program's last thread still ends the
 * process with exit(0), as without the runtime.  Where the count is not
 * found (another C library), the runtime's threads count as glibc counts
 * them.  The threads block every signal: a signal meant for the process
 * goes to one of the program's threads.  Under a low limit on the user's
 * threads and processes (RLIMIT_NPROC below NPROC_ROOM, for a user the
 * kernel holds to it) none is started: it could take the one the program
 * creates last. */
#include <dlfcn.h>
#include <errno.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/base.h"

static _Atomic unsigned *nthreads;
static atomic_int looked;

static _Atomic unsigned *count(void) {
  if (!atomic_load(&looked)) {
    atomic_store(&nthreads, (_Atomic unsigned *)dlsym(RTLD_NEXT, "__nptl_nthreads"));
    atomic_store(&looked, 1);
  }
  return atomic_load(&nthreads);
}

#define NPROC_ROOM 4096 /* a limit below this is one a program may run up to */

/* Whether RLIMIT_NPROC, which counts every thread and process of the real
 * user, is low enough for the program to reach: the kernel holds every user
 * but root to it. */
static int nproc_low(void) {
  struct rlimit rl;
  return getuid() != 0 && getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
         rl.rlim_cur < NPROC_ROOM;
}

int ip_own_thread_start(void *(*fn)(void *), size_t stack) {
  if (nproc_low())
    return EAGAIN;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old); /* inherited: the thread takes no signal */
  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
  if (stack)
    pthread_attr_setstacksize(&a, stack);
  _Atomic unsigned *n = count();
  pthread_t th;
  int rc = pthread_create(&th, &a, fn, NULL);
  if (rc == 0 && n)
    atomic_fetch_sub(n, 1);
  pthread_attr_destroy(&a);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}

void ip_own_thread_end(void) {
  _Atomic unsigned *n = count();
  if (n)
    atomic_fetch_add(n, 1);
}

long ip_program_threads(void) {
  _Atomic unsigned *n = count();
  return n ? (long)atomic_load(n) : -1;
}
