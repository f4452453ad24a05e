/* interpose.c - every libc function the runtime interposes, each a thin
 * entry point into the machinery that does the work:
 *   _exit, _Exit          complete the trace (lifecycle.c), then exit_group;
 *   execve ... execle     stop the sampler and complete the trace before the
 *                         exec; a failed exec carries on recording;
 *   sigaction, signal     the program's handlers, wrapped (signals.c).
 * It also finds libc's own definitions (dlsym(RTLD_NEXT)); the runtime's
 * own handler installs call ip_real_sigaction, never the interposer. */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt.h"

static void *next_fn(const char *name) { return dlsym(RTLD_NEXT, name); }

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

int ip_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  static sigaction_fn real;
  if (!real)
    real = (sigaction_fn)next_fn("sigaction");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  return real(sig, act, old);
}

/* ---- exits ---------------------------------------------------------------- */
IP_EXPORT void _exit(int status) {
  ip_finish("_exit", 1, 0);
  for (;;)
    syscall(SYS_exit_group, status);
}

IP_EXPORT void _Exit(int status) {
  ip_finish("_exit", 1, 0);
  for (;;)
    syscall(SYS_exit_group, status);
}

/* ---- the exec family -------------------------------------------------------- */
typedef int (*execve_fn)(const char *, char *const[], char *const[]);

IP_EXPORT int execve(const char *path, char *const argv[], char *const envp[]) {
  execve_fn real = (execve_fn)next_fn("execve");
  int had = ip_before_exec();
  return ip_after_failed_exec(had, real ? real(path, argv, envp)
                                        : (int)syscall(SYS_execve, path, argv, envp));
}

IP_EXPORT int execv(const char *path, char *const argv[]) {
  extern char **environ;
  return execve(path, argv, environ);
}

IP_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[]) {
  execve_fn real = (execve_fn)next_fn("execvpe");
  int had = ip_before_exec();
  return ip_after_failed_exec(had, real ? real(file, argv, envp) : -1);
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
