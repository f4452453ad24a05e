/* mem_read.c - reads of memory whose address the program passed to a
 * system call it makes through an interposer (clone3's arguments, an
 * exec's environment): the kernel answers EFAULT for an address that is
 * not mapped or not readable, and so must the runtime's read, never a
 * SIGSEGV.  A copy is made by process_vm_readv on the process itself,
 * which fails where a load would fault; where the kernel refuses that call
 * (a seccomp filter, a kernel without cross-memory attach) the copy is a
 * plain one.  errno is kept. */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/base.h"

static int refused; /* process_vm_readv is not allowed here */

int ip_mem_copy(void *dst, const void *src, size_t n) {
  if (refused) {
    memcpy(dst, src, n);
    return 0;
  }
  int saved = errno;
  struct iovec local = {dst, n}, remote = {(void *)(uintptr_t)src, n};
  long got = ip_syscall(SYS_process_vm_readv, (long)getpid(), &local, 1L, &remote, 1L, 0L);
  int fault = got < 0 && errno == EFAULT;
  errno = saved;
  if (got == (long)n)
    return 0;
  if (got >= 0 || fault)
    return -1; /* a part or all of it is not readable */
  refused = 1;
  memcpy(dst, src, n);
  return 0;
}

/* Is the string at s readable up to its NUL? Read by pieces that end at a
 * page's end, where the next page may be unmapped. */
static int string_readable(const char *s) {
  char piece[256];
  for (;;) {
    size_t to_page_end = 4096 - ((uintptr_t)s & 4095);
    size_t n = to_page_end < sizeof piece ? to_page_end : sizeof piece;
    if (ip_mem_copy(piece, s, n) != 0)
      return 0;
    if (strnlen(piece, n) < n) /* its end is in this piece (the runtime's own strnlen) */
      return 1;
    s += n;
  }
}

int ip_mem_strings_readable(char *const list[]) {
  for (size_t i = 0;; i++) {
    char *s;
    if (ip_mem_copy(&s, &list[i], sizeof s) != 0)
      return 0;
    if (!s)
      return 1;
    if (!string_readable(s))
      return 0;
  }
}
