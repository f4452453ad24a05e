/* interpose.c - every libc function the runtime interposes, each a thin
 * entry point into the machinery that does the work:
 *   _exit, _Exit          complete the trace (lifecycle.c), then exit_group;
 *   syscall               the same for exit_group made through libc's
 *                         syscall() (any other number passes straight on);
 *   vfork, clone, _Fork   a child that runs on the caller's thread state or
 *                         a copy of it without fork's handlers records
 *                         nothing (children.c; syscall() does the same for
 *                         clone, clone3 and fork system calls);
 *   daemon                the same steps as libc's, the parent leaving
 *                         through _exit above (libc's leaves through an
 *                         internal _exit that no interposer sees);
 *   execve ... execle,    stop the sampler and complete the trace before the
 *   fexecve, execveat     exec (syscall() does the same for execve and
 *                         execveat system calls); a failed exec carries
 *                         on recording; an environment of the program's
 *                         choosing gets the runtime's settings
 *                         (env_carry.c);
 *   posix_spawn(p)        the same for the environment of the new process;
 *   sigaction, signal     the program's handlers, wrapped (signals.c);
 *   close, close_range,   pass over the runtime's own descriptors, as if
 *   closefrom, fstat      they were not open (fd_own.c);
 *   unshare               CLONE_NEWUSER (which the kernel refuses a process
 *                         of more than one thread): the runtime's threads
 *                         end first and start again after (syscall() does
 *                         the same for unshare system calls);
 *   prctl                 a seccomp filter (PR_SET_SECCOMP) stops the
 *                         runtime's perf_event_open calls (syscall() does
 *                         the same for seccomp and prctl system calls);
 *                         a thread disabling its TSC (PR_SET_TSC) stops
 *                         recording (tsc_off.c; syscall() the same), and
 *                         so does one entering seccomp's strict mode
 *                         (strict_mode.c; syscall() the same for seccomp
 *                         and prctl system calls);
 *   setrlimit, prlimit    a new file-size limit moves where the trace stops
 *                         (trace_write.c), a new address-space limit
 *                         bounds the runtime's spare buffers (mem_limits.c;
 *                         syscall() does the same for setrlimit and
 *                         prlimit64 system calls);
 *   mlockall, munlockall  MCL_FUTURE: the runtime unlocks its own new
 *                         mappings and bounds its spare buffers;
 *   dlclose               notes that the units its destructors unregister
 *                         are being unmapped (units.c).
 * Each passes on to libc's own definition (dlsym(RTLD_NEXT); libc_real.c
 * for those the runtime calls itself, which it reaches only through
 * libc_real.c, never through these).  Every function this file exports is
 * in section inclprof_interpose: a call of one is the program's call of
 * libc's function, and is reported in libc's module (objects.c). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <spawn.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "entry/entry.h"

#undef IP_EXPORT
#define IP_EXPORT __attribute__((visibility("default"), section("inclprof_interpose")))

static void *next_fn(const char *name) { return dlsym(RTLD_NEXT, name); }

/* ---- exits ---------------------------------------------------------------- */
IP_EXPORT void _exit(int status) {
  ip_finish("_exit", 1, 0);
  for (;;)
    ip_syscall(SYS_exit_group, status);
}

IP_EXPORT void _Exit(int status) {
  ip_finish("_exit", 1, 0);
  for (;;)
    ip_syscall(SYS_exit_group, status);
}

/* close_range made as a system call through libc's syscall(). */
static int raw_close_range(unsigned first, unsigned last, int flags) {
  return (int)ip_syscall(SYS_close_range, first, last, flags);
}

/* AddressSanitizer's start-up calls setrlimit before its shadow memory is
 * mapped: in a program built with it and linked with the runtime's static
 * library, the limits' wrappers (and the sanitized build of that library) must
 * not check their memory accesses. */
#define BEFORE_SANITIZERS __attribute__((no_sanitize_address, no_sanitize("undefined")))

/* After the program set one of its limits (rc: the call's result, pid: the
 * process whose, 0 for itself): a new file-size limit moves where the trace
 * stops, so that no write of the runtime's raises SIGXFSZ. */
BEFORE_SANITIZERS static void limit_set(long rc, pid_t pid, int resource, const void *new_limit) {
  if (rc != 0 || !new_limit || (resource != RLIMIT_FSIZE && resource != RLIMIT_AS))
    return; /* first: AddressSanitizer's start sets RLIMIT_CORE, before anything else may run */
  if ((pid != 0 && pid != getpid()) ||
      ip_process_is_child()) /* a vfork child's limit is not its parent's */
    return;
  if (resource == RLIMIT_FSIZE)
    ip_trace_fsize_changed();
  if (resource == RLIMIT_AS)
    ip_mem_limits_changed();
}

/* Before the program installs a seccomp filter: the runtime makes no more
 * perf_event_open calls (a thread goes without its counter, the sampler
 * uses its timer), which the filter may answer by killing the process; and
 * it makes the next fork child's trace file now, which the filter may
 * refuse the child (fork_file.c). */
static void filter_coming(void) {
  if (ip_process_is_child()) /* a vfork child's filter is not its parent's */
    return;
  int saved = errno;
  atomic_store(&ip_st.seccomp, 1);
  ip_fork_file_before_filter();
  errno = saved;
}

/* Whether the call puts the calling thread in seccomp's strict mode. */
static int strict_coming(long n, const long a[6]) {
  return (n == SYS_seccomp && a[0] == SECCOMP_SET_MODE_STRICT) ||
         (n == SYS_prctl && a[0] == PR_SET_SECCOMP && a[1] == SECCOMP_MODE_STRICT);
}

/* Before strict mode: the thread stops recording (strict_mode.c). */
static void strict_before(void) {
  int saved = errno;
  ip_strict_entering();
  errno = saved;
}

/* PR_SET_TSC: the thread stops recording before it disables its TSC
 * (tsc_off.c); after it enabled it again, the runtime's ticks read it. */
static void tsc_before(unsigned long how) {
  int saved = errno;
  if (how == PR_TSC_SIGSEGV)
    ip_tsc_disabling();
  errno = saved;
}

static long tsc_after(unsigned long how, long rc) {
  int saved = errno;
  if (rc == 0 && how == PR_TSC_ENABLE)
    ip_tsc_enabled();
  errno = saved;
  return rc;
}

/* unshare(CLONE_NEWUSER) needs a process of one thread: when the caller is
 * the program's only thread, the runtime's threads (the writer, once its
 * queued jobs are written, and the control thread) end, the call is made
 * once the kernel counts one thread, and they start again (the writer at
 * the next hand-off).  Each waits UNSHARE_WAIT_MS at most; what did not
 * end in time leaves the call to fail as it would have. */
#define UNSHARE_WAIT_MS 1000
static long unshare_alone(long flags) {
  if (!(flags & CLONE_NEWUSER) || !ip_process_is_ours() || ip_own_threads_live() == 0 ||
      ip_process_threads() != 1 + ip_own_threads_live())
    return ip_syscall(SYS_unshare, flags);
  uint64_t deadline = ip_tick() + (uint64_t)(ip_st.ticks_per_second * UNSHARE_WAIT_MS / 1000);
  int ctl = ip_ctl_stop(deadline);
  ip_writer_stop(deadline);
  struct timespec step = {0, 50000};
  while (ip_process_threads() > 1 && ip_tick() < deadline)
    nanosleep(&step, NULL);
  long rc = ip_syscall(SYS_unshare, flags);
  int saved = errno;
  if (ctl)
    ip_ctl_restart();
  errno = saved;
  return rc;
}

IP_EXPORT int unshare(int flags) { return (int)unshare_alone(flags); }

/* libc's syscall() takes the number and up to six word-sized arguments. */
IP_EXPORT long syscall(long n, ...) {
  va_list ap;
  va_start(ap, n);
  long a[6];
  for (int i = 0; i < 6; i++)
    a[i] = va_arg(ap, long);
  va_end(ap);
  if (n == SYS_exit_group)
    ip_finish("exit_group", 1, 0);
  if (n == SYS_execve) /* the trace completed first, as for libc's */
    return execve((const char *)a[0], (char *const *)a[1], (char *const *)a[2]);
  if (n == SYS_execveat)
    return execveat((int)a[0], (const char *)a[1], (char *const *)a[2], (char *const *)a[3],
                    (int)a[4]);
  if (n == SYS_close && ip_fd_is_own((int)a[0])) {
    errno = EBADF;
    return -1;
  }
  if (n == SYS_close_range)
    return ip_fd_close_range_around((unsigned)a[0], (unsigned)a[1], (int)a[2], raw_close_range);
  if (n == SYS_unshare)
    return unshare_alone(a[0]);
  if (strict_coming(n, a)) {
    strict_before();
    return ip_strict_entered(ip_syscall_args(n, a));
  }
  if (n == SYS_seccomp || (n == SYS_prctl && a[0] == PR_SET_SECCOMP))
    filter_coming();
  if (n == SYS_prctl && a[0] == PR_SET_TSC) {
    tsc_before((unsigned long)a[1]);
    return tsc_after((unsigned long)a[1], ip_syscall_args(n, a));
  }
  if (n == SYS_setrlimit || n == SYS_prlimit64) {
    long rc = ip_syscall_args(n, a);
    int saved = errno;
    if (n == SYS_setrlimit)
      limit_set(rc, 0, (int)a[0], (const void *)a[1]);
    else
      limit_set(rc, (pid_t)a[0], (int)a[1], (const void *)a[2]);
    errno = saved;
    return rc;
  }
  const char *how;
  if (!ip_syscall_forks(n, a, &how))
    return ip_syscall_args(n, a);
  long rc = ip_syscall_args(n, a);
  int saved = errno;
  ip_syscall_forked(rc, how);
  errno = saved;
  return rc;
}

/* Detaches from the terminal in a child, as libc's daemon() does: fork, the
 * parent leaves with status 0, the child starts a new session, moves to /
 * unless nochdir, and puts /dev/null on 0, 1 and 2 unless noclose. */
IP_EXPORT int daemon(int nochdir, int noclose) {
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid > 0)
    _exit(0);
  if (setsid() < 0)
    return -1;
  if (!nochdir && chdir("/") != 0) {
    /* as libc's: a failed chdir does not fail daemon() */
  }
  if (noclose)
    return 0;
  int fd = open("/dev/null", O_RDWR);
  struct stat st;
  if (fd < 0)
    return -1;
  if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3)) {
    close(fd);
    errno = ENODEV;
    return -1;
  }
  dup2(fd, STDIN_FILENO);
  dup2(fd, STDOUT_FILENO);
  dup2(fd, STDERR_FILENO);
  if (fd > STDERR_FILENO)
    close(fd);
  return 0;
}

/* ---- new processes without fork's handlers (children.c) ---------------------- */
/* vfork itself is in children.c, in assembly. */
IP_EXPORT int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...) {
  va_list ap;
  va_start(ap, arg); /* read as libc's clone reads them: whether passed or not */
  pid_t *ptid = va_arg(ap, pid_t *);
  void *tls = va_arg(ap, void *);
  pid_t *ctid = va_arg(ap, pid_t *);
  va_end(ap);
  return ip_clone(fn, stack, flags, arg, ptid, tls, ctid);
}

IP_EXPORT pid_t _Fork(void) { return ip_fork_bare(); }

/* ---- the exec family -------------------------------------------------------- */
typedef int (*execve_fn)(const char *, char *const[], char *const[]);

IP_EXPORT int execve(const char *path, char *const argv[], char *const envp[]) {
  execve_fn real = (execve_fn)next_fn("execve");
  IP_WITH_CARRIED_ENV(envp, env);
  int had = ip_before_exec();
  return ip_after_failed_exec(had, real ? real(path, argv, env)
                                        : (int)ip_syscall(SYS_execve, path, argv, env));
}

typedef int (*fexecve_fn)(int, char *const[], char *const[]);

IP_EXPORT int fexecve(int fd, char *const argv[], char *const envp[]) {
  fexecve_fn real = (fexecve_fn)next_fn("fexecve");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  IP_WITH_CARRIED_ENV(envp, env);
  int had = ip_before_exec();
  return ip_after_failed_exec(had, real(fd, argv, env));
}

typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);

IP_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
                       int flags) {
  execveat_fn real = (execveat_fn)next_fn("execveat");
  IP_WITH_CARRIED_ENV(envp, env);
  int had = ip_before_exec();
  return ip_after_failed_exec(had,
                              real ? real(dirfd, path, argv, env, flags)
                                   : (int)ip_syscall(SYS_execveat, dirfd, path, argv, env, flags));
}

IP_EXPORT int execv(const char *path, char *const argv[]) {
  extern char **environ;
  return execve(path, argv, environ);
}

IP_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[]) {
  execve_fn real = (execve_fn)next_fn("execvpe");
  IP_WITH_CARRIED_ENV(envp, env);
  int had = ip_before_exec();
  return ip_after_failed_exec(had, real ? real(file, argv, env) : -1);
}

IP_EXPORT int execvp(const char *file, char *const argv[]) {
  extern char **environ;
  return execvpe(file, argv, environ);
}

/* The list forms: gather the arguments, then the vector forms above. */
#define GATHER_ARGS(first, ap, argv)                                                               \
  size_t argc_ = 1;                                                                                \
  va_start(ap, first);                                                                             \
  while (va_arg(ap, char *))                                                                       \
    argc_++;                                                                                       \
  va_end(ap);                                                                                      \
  char *argv[argc_ + 1];                                                                           \
  argv[0] = (char *)(first);                                                                       \
  va_start(ap, first);                                                                             \
  for (size_t i_ = 1; i_ <= argc_; i_++)                                                           \
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

/* ---- posix_spawn ---------------------------------------------------------------- */
typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                        const posix_spawnattr_t *, char *const[], char *const[]);

IP_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *acts,
                          const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  spawn_fn real = (spawn_fn)next_fn("posix_spawn");
  if (!real)
    return ENOSYS;
  IP_WITH_CARRIED_ENV(envp, env);
  return real(pid, path, acts, attr, argv, env);
}

IP_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *acts,
                           const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  spawn_fn real = (spawn_fn)next_fn("posix_spawnp");
  if (!real)
    return ENOSYS;
  IP_WITH_CARRIED_ENV(envp, env);
  return real(pid, file, acts, attr, argv, env);
}

/* ---- signal handlers ---------------------------------------------------------- */
IP_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  return ip_signals_program_sigaction(sig, act, old);
}

IP_EXPORT __sighandler_t signal(int sig, __sighandler_t handler) {
  struct sigaction act, old;
  memset(&act, 0, sizeof act);
  act.sa_handler = handler;
  act.sa_flags = SA_RESTART; /* glibc's BSD semantics */
  sigemptyset(&act.sa_mask);
  sigaddset(&act.sa_mask, sig);
  if (ip_signals_program_sigaction(sig, &act, &old) != 0)
    return SIG_ERR;
  return old.sa_handler;
}

/* ---- descriptors ----------------------------------------------------------------- */
IP_EXPORT int close(int fd) { return ip_fd_program_close(fd); }

IP_EXPORT int close_range(unsigned first, unsigned last, int flags) {
  return ip_fd_close_range_around(first, last, flags, NULL);
}

IP_EXPORT void closefrom(int lowfd) { ip_fd_program_closefrom(lowfd); }

typedef int (*fstat_fn)(int, void *);

/* fstat of one of the runtime's numbers fails as on a closed one (a
 * program that asks every number of its range whether it is open). */
static int program_fstat(const char *name, int fd, void *st) {
  if (ip_fd_is_own(fd)) {
    errno = EBADF;
    return -1;
  }
  fstat_fn next = (fstat_fn)next_fn(name);
  return next ? next(fd, st) : fstatat(fd, "", st, AT_EMPTY_PATH);
}

IP_EXPORT int fstat(int fd, struct stat *st) { return program_fstat("fstat", fd, st); }
IP_EXPORT int fstat64(int fd, struct stat64 *st) { return program_fstat("fstat64", fd, st); }
/* ---- limits -------------------------------------------------------------------- */
typedef int (*setrlimit_fn)(__rlimit_resource_t, const void *);
typedef int (*prlimit_fn)(pid_t, __rlimit_resource_t, const void *, void *);

BEFORE_SANITIZERS static int program_setrlimit(const char *name, __rlimit_resource_t resource,
                                               const void *rl) {
  setrlimit_fn next = (setrlimit_fn)next_fn(name);
  if (!next) {
    errno = ENOSYS;
    return -1;
  }
  int rc = next(resource, rl);
  int saved = errno;
  limit_set(rc, 0, (int)resource, rl);
  errno = saved;
  return rc;
}

BEFORE_SANITIZERS static int program_prlimit(const char *name, pid_t pid,
                                             __rlimit_resource_t resource, const void *rl,
                                             void *old) {
  prlimit_fn next = (prlimit_fn)next_fn(name);
  if (!next) {
    errno = ENOSYS;
    return -1;
  }
  int rc = next(pid, resource, rl, old);
  int saved = errno;
  limit_set(rc, pid, (int)resource, rl);
  errno = saved;
  return rc;
}

BEFORE_SANITIZERS IP_EXPORT int setrlimit(__rlimit_resource_t resource, const struct rlimit *rl) {
  return program_setrlimit("setrlimit", resource, rl);
}
BEFORE_SANITIZERS IP_EXPORT int setrlimit64(__rlimit_resource_t resource,
                                            const struct rlimit64 *rl) {
  return program_setrlimit("setrlimit64", resource, rl);
}
BEFORE_SANITIZERS IP_EXPORT int prlimit(pid_t pid, __rlimit_resource_t resource,
                                        const struct rlimit *rl, struct rlimit *old) {
  return program_prlimit("prlimit", pid, resource, rl, old);
}
BEFORE_SANITIZERS IP_EXPORT int prlimit64(pid_t pid, __rlimit_resource_t resource,
                                          const struct rlimit64 *rl, struct rlimit64 *old) {
  return program_prlimit("prlimit64", pid, resource, rl, old);
}

/* ---- locked memory ------------------------------------------------------------- */
typedef int (*mlockall_fn)(int);
typedef int (*munlockall_fn)(void);

IP_EXPORT int mlockall(int flags) {
  mlockall_fn next = (mlockall_fn)next_fn("mlockall");
  if (!next) {
    errno = ENOSYS;
    return -1;
  }
  int rc = next(flags);
  int saved = errno;
  if (rc == 0 && (flags & MCL_FUTURE)) /* a vfork child's is its parent's too: one memory */
    ip_mem_future_locked(1);
  errno = saved;
  return rc;
}

IP_EXPORT int munlockall(void) {
  munlockall_fn next = (munlockall_fn)next_fn("munlockall");
  if (!next) {
    errno = ENOSYS;
    return -1;
  }
  int rc = next();
  int saved = errno;
  if (rc == 0)
    ip_mem_future_locked(0);
  errno = saved;
  return rc;
}

/* ---- seccomp ------------------------------------------------------------------- */
typedef int (*prctl_fn)(int, unsigned long, unsigned long, unsigned long, unsigned long);

/* prctl takes up to four word-sized arguments after the option. */
IP_EXPORT int prctl(int option, ...) {
  va_list ap;
  va_start(ap, option);
  unsigned long a[4];
  for (int i = 0; i < 4; i++)
    a[i] = va_arg(ap, unsigned long);
  va_end(ap);
  prctl_fn next = (prctl_fn)next_fn("prctl");
  if (!next) {
    errno = ENOSYS;
    return -1;
  }
  if (option == PR_SET_SECCOMP && a[0] == SECCOMP_MODE_STRICT) {
    strict_before();
    return (int)ip_strict_entered(next(option, a[0], a[1], a[2], a[3]));
  }
  if (option == PR_SET_SECCOMP)
    filter_coming();
  if (option == PR_SET_TSC) {
    tsc_before(a[0]);
    return (int)tsc_after(a[0], next(option, a[0], a[1], a[2], a[3]));
  }
  return next(option, a[0], a[1], a[2], a[3]);
}

/* ---- dlclose ------------------------------------------------------------------ */
typedef int (*dlclose_fn)(void *);

IP_EXPORT int dlclose(void *handle) {
  dlclose_fn real = (dlclose_fn)next_fn("dlclose");
  if (!real)
    return -1;
  if (atomic_load(&ip_st.exiting))
    ip_units_left_off();
  ip_unloading_begin();
  int rc = real(handle);
  ip_unloading_end();
  return rc;
}
