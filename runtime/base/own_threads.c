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
 * creates last.
 * A program thread that ends without libc (a raw SYS_exit, a seccomp kill of
 * one thread) leaves glibc's count as it was: the runtime's threads look for
 * the end of the program's last one themselves (ip_program_gone). */
#include <dlfcn.h>
#include <fcntl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/base.h"

static _Atomic unsigned *nthreads;
static atomic_int looked;
static atomic_int live; /* the runtime's threads started and not yet ending */

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

/* /proc/self/stat, kept open (a descriptor of the runtime's own) by the
 * thread that starts a runtime thread and read again with pread: opened
 * by the runtime's threads each time, it would hold the lowest free number
 * for a moment while the program's thread opens its own.  -1: not open (no
 * /proc, a tight descriptor limit): opened for each look then. */
static int stat_fd = -1;

static void stat_open(void) {
  if (stat_fd >= 0 || !ip_fd_spare_room())
    return;
  int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  stat_fd = fd >= 0 ? ip_fd_own(fd) : -1;
}

int ip_own_thread_start(void *(*fn)(void *), size_t stack) {
  stat_open();
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
  if (rc == 0)
    atomic_fetch_add(&live, 1);
  pthread_attr_destroy(&a);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}

void ip_own_thread_end(void) {
  atomic_fetch_sub(&live, 1);
  _Atomic unsigned *n = count();
  if (n)
    atomic_fetch_add(n, 1);
}

void ip_own_thread_quit(void) {
  atomic_fetch_sub(&live, 1);
  for (;;)
    ip_syscall(SYS_exit, 0);
}

void ip_own_threads_end_like(int exit_code) {
  int sig = exit_code & 0x7f;
  if (sig) {                    /* its default action, from this thread: the process ends so */
    unsigned long dfl[4] = {0}; /* the kernel's sigaction: SIG_DFL, no flags, restorer, mask */
    uint64_t set = 1ull << (sig - 1);
    ip_syscall(SYS_rt_sigaction, sig, &dfl, 0L, sizeof set);
    ip_syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &set, 0L, sizeof set);
    ip_syscall(SYS_tgkill, getpid(), gettid(), sig);
  }
  for (;;)
    ip_syscall(SYS_exit_group, sig ? 128 + sig : (exit_code >> 8) & 0xff);
}

void ip_own_threads_after_fork_child(void) {
  atomic_store(&live, 0);
  if (stat_fd >= 0) { /* the parent's /proc/PID/stat: the child's own is opened anew */
    ip_fd_forget(stat_fd);
    ip_close(stat_fd);
    stat_fd = -1;
  }
}

/* /proc/self/stat is the thread group leader's: its state, the group's
 * threads (the leader counts until the last one ends) and the leader's
 * exit code.  The leader is always a program thread: while it runs, the
 * program has one; once it is a zombie, the group's other threads are
 * the runtime's and the program's.  A thread starting or ending makes the
 * count higher than this one for a moment: never gone too early. */
/* Fields 3 to 52 of /proc/self/stat (field[3]: the state's letter); 0
 * when it cannot be read. */
static int stat_fields(long field[53]) {
  char buf[1024];
  ssize_t got = stat_fd >= 0 ? pread(stat_fd, buf, sizeof buf - 1, 0)
                             : ip_read_small("/proc/self/stat", 0, buf, sizeof buf);
  if (got <= 0)
    return 0;
  buf[got] = 0;
  char *p = strrchr(buf, ')'); /* after the name, which may hold anything */
  if (!p || p[1] != ' ')
    return 0;
  p += 2; /* field 3, the state */
  field[3] = *p;
  for (int i = 4; i <= 52; i++) {
    p = p ? strchr(p, ' ') : NULL;
    field[i] = p ? strtol(++p, NULL, 10) : 0;
  }
  return 1;
}

int ip_program_gone(int *exit_code) {
  long field[53] = {0};
  if (!stat_fields(field) || field[3] != 'Z' || field[20] - 1 != atomic_load(&live))
    return 0;
  *exit_code = (int)field[52];
  return 1;
}

long ip_process_threads(void) {
  long field[53] = {0};
  return stat_fields(field) ? field[20] : -1;
}

long ip_own_threads_live(void) { return atomic_load(&live); }

long ip_program_threads(void) {
  _Atomic unsigned *n = count();
  return n ? (long)atomic_load(n) : -1;
}
