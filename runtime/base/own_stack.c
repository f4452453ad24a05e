/* own_stack.c - runs a function of the runtime's on a stack of the
 * runtime's (the tail of each thread's scratch mapping): encoding a batch,
 * with the object lookups and table writes it makes, takes 12 KB of stack
 * and more, which a thread the program started with a small stack
 * (PTHREAD_STACK_MIN, 16 KB, TLS included) or a handler on a small
 * alternate signal stack does not have left.  The two contexts of the
 * switch lie at the bottom of the area, the stack above them. */
#include <signal.h>
#include <stdint.h>
#include <ucontext.h>

#include "base/base.h"

IP_HIDDEN int ip_real_swapcontext(ucontext_t *oucp, const ucontext_t *ucp); /* libc_real.c */

struct own_call {
  ucontext_t back, there;
  void (*fn)(void *);
  void *arg;
};

/* Where the current thread's switch keeps its contexts: the function that
 * makecontext starts takes no pointer. */
static __thread struct own_call *current __attribute__((tls_model("initial-exec")));

static void trampoline(void) {
  struct own_call *c = current;
  c->fn(c->arg);
}

/* fn(arg) on the area's stack with the program's signals blocked: a
 * handler of the program's would otherwise run on that stack, which it may
 * overflow into the contexts below.  The mask is set and restored here, on
 * the caller's stack, and both contexts carry the blocked one: the
 * ucontext calls that switch back restore their context's mask before its
 * stack pointer, and a signal that came meanwhile would be delivered at
 * that moment, still on the area's stack (a handler with a 256 KB array
 * of its own, fine on the thread's stack, returned through a c->back it had
 * overwritten).  Faults stay deliverable: blocked, the kernel would end the
 * process without the runtime's fatal handler. */
void ip_on_stack(void *area, size_t len, void (*fn)(void *), void *arg) {
  struct own_call *c = area;
  if (!area || len < sizeof *c + 16384u) {
    fn(arg);
    return;
  }
  sigset_t block, old;
  sigfillset(&block);
  static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS};
  for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
    sigdelset(&block, faults[i]);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  if (getcontext(&c->there) != 0) {
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    fn(arg);
    return;
  }
  uintptr_t lo = ((uintptr_t)(c + 1) + 15u) & ~(uintptr_t)15u;
  c->there.uc_stack.ss_sp = (void *)lo;
  c->there.uc_stack.ss_size = ((uintptr_t)area + len - lo) & ~(uintptr_t)15u;
  c->there.uc_link = &c->back;
  c->fn = fn;
  c->arg = arg;
  makecontext(&c->there, trampoline, 0);
  struct own_call *outer = current; /* another thread's area, a handler's flush of it */
  current = c;
  int failed = ip_real_swapcontext(&c->back, &c->there) != 0;
  current = outer;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (failed)
    fn(arg);
}
