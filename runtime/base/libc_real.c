/* libc_real.c - libc's own definitions of the functions the runtime both
 * interposes (interpose.c) and calls itself: sigaction, for the runtime's
 * own handler installs, and syscall.  Found with dlsym(RTLD_NEXT) at
 * start-up, before the runtime installs a signal handler (dlsym is not
 * safe in one). */
#include <dlfcn.h>
#include <errno.h>

#include "rt.h"

static void *next_fn(const char *name) { return dlsym(RTLD_NEXT, name); }

void *ip_libc_next(const char *name) { return next_fn(name); }

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

static ip_syscall_fn *real_syscall;

void ip_libc_init(void) {
  if (!real_syscall)
    real_syscall = (ip_syscall_fn *)next_fn("syscall");
  ip_fd_libc_init();
}

ip_syscall_fn *ip_real_syscall(void) {
  ip_libc_init(); /* called before the runtime's start-up: no signal handler of ours yet */
  return real_syscall;
}
