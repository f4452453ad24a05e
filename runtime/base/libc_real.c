/* libc_real.c - libc's own definitions of the functions the runtime both
 * interposes (interpose.c) and calls itself: sigaction, for the runtime's
 * own handler installs, and syscall; and libc's vsnprintf, which
 * own_stdio.c's snprintf and vsnprintf call (a program may define those
 * two).  Found with dlsym(RTLD_NEXT) at start-up, before the runtime
 * installs a signal handler (dlsym is not safe in one). */
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
static _Atomic(ip_vsnprintf_fn *) real_vsnprintf;

/* Found on the first call: the runtime formats text before its start-up
 * reaches ip_libc_init (the settings' messages, the calibration file). */
ip_vsnprintf_fn *ip_real_vsnprintf(void) {
  ip_vsnprintf_fn *f = atomic_load_explicit(&real_vsnprintf, memory_order_relaxed);
  if (!f) {
    f = (ip_vsnprintf_fn *)next_fn("vsnprintf");
    atomic_store_explicit(&real_vsnprintf, f, memory_order_relaxed);
  }
  return f;
}

void ip_libc_init(void) {
  if (!real_syscall)
    real_syscall = (ip_syscall_fn *)next_fn("syscall");
  (void)ip_real_vsnprintf();
  ip_fd_libc_init();
}

ip_syscall_fn *ip_real_syscall(void) {
  ip_libc_init(); /* called before the runtime's start-up: no signal handler of ours yet */
  return real_syscall;
}
