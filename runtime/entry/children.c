/* children.c - processes started without fork's handlers.
 *   vfork, clone(CLONE_VM|CLONE_VFORK): the child runs on the calling
 *     thread's memory and thread pointer, so on its runtime state too, while
 *     that thread waits; the thread lends its state for that time
 *     (thread.c): the child's probes record nothing, and the runtime's calls
 *     in it (sigaction, exec, _exit, ...) pass straight to libc.  vfork is
 *     interposed in assembly: the child returns from it on the caller's
 *     stack before the parent does, so the return address waits in a
 *     register, as in libc's own vfork, never on the stack.  Its code is in
 *     section inclprof_interpose with interpose.c's: a call of it is the
 *     program's call of libc's vfork, reported in libc's module.
 *   clone without CLONE_VM, a clone or clone3 system call made through
 *     syscall() with no stack of its own, _Fork: the child has a copy of the
 *     parent's memory, but no fork handler made it a state of its own
 *     (its kevents ring and perf events are not in the copy, other threads'
 *     locks may be held for good, and its stack may be a few pages).  It
 *     records nothing and runs as without the runtime; the parent writes
 *     the child's trace, a Header and a Trailer saying so.
 *   clone(CLONE_VM) without CLONE_VFORK or CLONE_SETTLS: the child and the
 *     calling thread run at once on the same thread state; that thread
 *     stops recording (its state stays lent). */
#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "entry/entry.h"

#define IP_STR_(x) #x
#define IP_STR(x)  IP_STR_(x)

/* ---- vfork ------------------------------------------------------------- */
void ip_vfork_prepare(void) { ip_thread_lend(&ip_tls); }

/* In the parent once the child has exec'd or exited: rc is the system
 * call's result; returns vfork's (-1 with errno on failure). */
long ip_vfork_resume(long rc) {
  ip_thread_take_back(&ip_tls);
  if (rc < 0 && rc > -4096) {
    errno = (int)-rc;
    return -1;
  }
  return rc;
}

#if defined(__x86_64__) && !defined(__ILP32__)
#define VFORK_NR IP_STR(SYS_vfork)
__asm__(".pushsection inclprof_interpose, \"ax\", @progbits\n"
        ".globl vfork\n"
        ".type vfork, @function\n"
        "vfork:\n"
        "  endbr64\n"
        "  sub $8, %rsp\n"
        "  call ip_vfork_prepare\n"
        "  add $8, %rsp\n"
        "  pop %rdi\n" /* the return address, kept in a register */
        "  mov $" VFORK_NR ", %eax\n"
        "  syscall\n"
        "  test %rax, %rax\n"
        "  jz 1f\n"
        "  push %rdi\n" /* the parent, after the child: the stack is its own again */
        "  push %rax\n"
        "  mov %rax, %rdi\n"
        "  call ip_vfork_resume\n"
        "  add $8, %rsp\n"
        "  ret\n"
        "1:\n"
        "  push %rdi\n" /* the child: returns 0 */
        "  ret\n"
        ".size vfork, .-vfork\n"
        ".popsection");
#elif defined(__aarch64__)
#define CLONE_NR IP_STR(SYS_clone)
__asm__(".pushsection inclprof_interpose, \"ax\", %progbits\n"
        ".globl vfork\n"
        ".type vfork, %function\n"
        "vfork:\n"
        "  hint #34\n" /* bti c */
        "  stp x29, x30, [sp, #-16]!\n"
        "  mov x29, sp\n"
        "  bl ip_vfork_prepare\n"
        "  ldp x29, x30, [sp], #16\n" /* the return address, kept in x30 */
        "  mov x0, #0x4111\n"         /* CLONE_VM | CLONE_VFORK | SIGCHLD */
        "  mov x1, #0\n"
        "  mov x2, #0\n"
        "  mov x3, #0\n"
        "  mov x4, #0\n"
        "  mov x8, #" CLONE_NR "\n"
        "  svc #0\n"
        "  cbz x0, 1f\n"
        "  stp x29, x30, [sp, #-16]!\n"
        "  mov x29, sp\n"
        "  bl ip_vfork_resume\n"
        "  ldp x29, x30, [sp], #16\n"
        "1:\n"
        "  ret\n"
        ".size vfork, .-vfork\n"
        ".popsection");
#endif

/* ---- children with a copy of the memory ---------------------------------- */
/* In the child: the calling thread's state is declined (thread.c), and the
 * process's: a fork in it gives a child that is not recorded either
 * (lifecycle.c). */
static void child_declines(void) {
  ip_thread_decline(&ip_tls);
  ip_st.declined = 1;
}

/* In the parent: the child's trace says why it is not recorded. */
static void parent_notes(long pid, const char *how) {
  if (pid > 0 && ip_process_is_ours())
    ip_write_child_trace((uint32_t)pid, how);
}

struct clone_start {
  int (*fn)(void *);
  void *arg;
};

/* cppcheck-suppress constParameterCallback ; clone's fn type */
static int declined_child(void *p) {
  struct clone_start s = *(const struct clone_start *)p; /* the child's copy */
  child_declines();
  return s.fn(s.arg);
}

typedef int clone_fn(int (*)(void *), void *, int, void *, ...);

int ip_clone(int (*fn)(void *), void *stack, int flags, void *arg, pid_t *ptid, void *tls,
             pid_t *ctid) {
  static clone_fn *real;
  if (!real)
    real = (clone_fn *)ip_libc_next("clone");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  if (!fn || !stack) /* libc's answer: EINVAL */
    return real(fn, stack, flags, arg, ptid, tls, ctid);
  if (flags & CLONE_VM) {
    if (flags & CLONE_SETTLS)
      return real(fn, stack, flags, arg, ptid, tls, ctid); /* a thread of its own */
    ip_thread_lend(&ip_tls);
    int pid = real(fn, stack, flags, arg, ptid, tls, ctid);
    if ((flags & CLONE_VFORK) || pid < 0)
      ip_thread_take_back(&ip_tls);
    return pid;
  }
  struct clone_start s = {fn, arg};
  int pid = real(declined_child, stack, flags, &s, ptid, tls, ctid);
  parent_notes(pid, "clone()");
  return pid;
}

pid_t ip_fork_bare(void) {
  static pid_t (*real)(void);
  if (!real)
    real = (pid_t(*)(void))ip_libc_next("_Fork");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  pid_t pid = real();
  if (pid == 0)
    child_declines();
  parent_notes(pid, "_Fork()");
  return pid;
}

/* A fork-like system call made through syscall(): no CLONE_VM and no stack
 * of its own, so the child returns through the interposer on a copy of the
 * caller's stack.  1 when n with these arguments is one; *how names it. */
int ip_syscall_forks(long n, const long a[6], const char **how) {
  if (n == SYS_clone && !(a[0] & CLONE_VM) && !a[1]) {
    *how = "a clone system call";
    return 1;
  }
  /* the arguments' first 64 bytes (flags ... tls) are in every version of
   * struct clone_args; where they cannot be read the call fails (EFAULT) */
  struct clone_args ca;
  if (n == SYS_clone3 && a[0] && (size_t)a[1] >= 64 &&
      ip_mem_copy(&ca, (const void *)a[0], 64) == 0) {
    if (!(ca.flags & CLONE_VM) && !ca.stack) {
      *how = "a clone3 system call";
      return 1;
    }
  }
#ifdef SYS_fork
  if (n == SYS_fork) {
    *how = "a fork system call";
    return 1;
  }
#endif
  return 0;
}

/* After such a system call: rc is its result in the child (0) or parent. */
void ip_syscall_forked(long rc, const char *how) {
  if (rc == 0)
    child_declines();
  else
    parent_notes(rc, how);
}
