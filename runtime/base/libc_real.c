/* libc_real.c - the runtime's one way to the functions it both interposes
 * (interpose.c) and calls itself: libc's own syscall, close, close_range,
 * closefrom, setrlimit and sigaction (fstat through fstatat), libc's vsnprintf, which own_stdio.c's
 * snprintf and vsnprintf call (a program may define those two), and
 * strerrordesc_np, which names error numbers (say.c).  The rest
 * of the runtime calls ip_syscall and ip_close, never syscall() or close():
 * inside libinclprof.so those names bind to its own interposers.  Found with
 * dlsym(RTLD_NEXT) when the library is loaded (dlsym is not safe in a signal
 * handler; close and syscall are), and lazily for calls made by constructors
 * that run before that. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include "base/base.h"

static void *next_fn(const char *name) { return dlsym(RTLD_NEXT, name); }

void *ip_libc_next(const char *name) { return next_fn(name); }

typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);
typedef int close_fn(int);
typedef int setrlimit_fn(__rlimit_resource_t, const struct rlimit *);

static sigaction_fn *real_sigaction;
static ip_syscall_fn *real_syscall;
static close_fn *real_close;
static ip_close_range_fn *real_close_range;
static ip_closefrom_fn *real_closefrom;
static setrlimit_fn *real_setrlimit;
typedef int swapcontext_fn(ucontext_t *, const ucontext_t *);
static swapcontext_fn *real_swapcontext;
static _Atomic(ip_vsnprintf_fn *) real_vsnprintf;
typedef const char *errno_desc_fn(int);
static _Atomic(errno_desc_fn *) real_errno_desc;

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

/* glibc's untranslated description of error number e (found on the first
 * call, as vsnprintf), or NULL where the C library has none. */
const char *ip_real_errno_desc(int e) {
  errno_desc_fn *f = atomic_load_explicit(&real_errno_desc, memory_order_relaxed);
  if (!f) {
    f = (errno_desc_fn *)next_fn("strerrordesc_np");
    atomic_store_explicit(&real_errno_desc, f, memory_order_relaxed);
  }
  return f ? f(e) : NULL;
}

__attribute__((constructor)) void ip_libc_init(void) {
  if (!real_syscall)
    real_syscall = (ip_syscall_fn *)next_fn("syscall");
  if (!real_sigaction)
    real_sigaction = (sigaction_fn *)next_fn("sigaction");
  if (!real_close)
    real_close = (close_fn *)next_fn("close");
  if (!real_close_range)
    real_close_range = (ip_close_range_fn *)next_fn("close_range");
  if (!real_closefrom)
    real_closefrom = (ip_closefrom_fn *)next_fn("closefrom");
  if (!real_setrlimit)
    real_setrlimit = (setrlimit_fn *)next_fn("setrlimit");
  if (!real_swapcontext)
    real_swapcontext = (swapcontext_fn *)next_fn("swapcontext");
  (void)ip_real_vsnprintf();
  (void)ip_real_errno_desc(0);
}

/* libc's swapcontext, not a sanitizer's: AddressSanitizer's prints a
 * warning on the program's stderr at its first call (own_stack.c). */
int ip_real_swapcontext(ucontext_t *oucp, const ucontext_t *ucp) {
  return real_swapcontext ? real_swapcontext(oucp, ucp) : swapcontext(oucp, ucp);
}

int ip_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  if (!real_sigaction)
    ip_libc_init();
  if (!real_sigaction) {
    errno = ENOSYS;
    return -1;
  }
  return real_sigaction(sig, act, old);
}

ip_syscall_fn *ip_real_syscall(void) {
  if (!real_syscall)
    ip_libc_init();
  return real_syscall;
}

/* libc's syscall() takes the number and up to six word-sized arguments. */
long ip_syscall_args(long n, const long a[6]) {
  ip_syscall_fn *f = ip_real_syscall();
  if (!f) {
    errno = ENOSYS;
    return -1;
  }
  return f(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int ip_close(int fd) {
  if (!real_close)
    ip_libc_init();
  return real_close ? real_close(fd) : (int)ip_syscall(SYS_close, fd);
}

int ip_fstat(int fd, struct stat *st) { return fstatat(fd, "", st, AT_EMPTY_PATH); }

int ip_close_range(unsigned first, unsigned last, int flags) {
  if (!real_close_range)
    ip_libc_init();
  if (real_close_range)
    return real_close_range(first, last, flags);
  return (int)ip_syscall(SYS_close_range, first, last, flags);
}

ip_closefrom_fn *ip_real_closefrom(void) {
  if (!real_closefrom)
    ip_libc_init();
  return real_closefrom;
}

int ip_setrlimit(int resource, const struct rlimit *rl) {
  if (!real_setrlimit)
    ip_libc_init();
  if (!real_setrlimit) {
    errno = ENOSYS;
    return -1;
  }
  return real_setrlimit((__rlimit_resource_t)resource, rl);
}
