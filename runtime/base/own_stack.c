/* own_stack.c - runs a function of the runtime's on a stack of the
 * runtime's (the tail of each thread's scratch mapping): encoding a batch,
 * with the object lookups and table writes it makes, takes 12 KB of stack
 * and more, which a thread the program started with a small stack
 * (PTHREAD_STACK_MIN, 16 KB, TLS included) or a handler on a small
 * alternate signal stack does not have left.  The two contexts of the
 * switch lie at the bottom of the area, the stack above them. */
#include <stdint.h>
#include <ucontext.h>

#include "base/base.h"

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

void ip_on_stack(void *area, size_t len, void (*fn)(void *), void *arg) {
  struct own_call *c = area;
  if (!area || len < sizeof *c + 16384u || getcontext(&c->there) != 0) {
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
  if (swapcontext(&c->back, &c->there) != 0) {
    current = outer;
    fn(arg);
    return;
  }
  current = outer;
}
