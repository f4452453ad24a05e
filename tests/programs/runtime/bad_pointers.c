/* bad_pointers.c - system calls given addresses the kernel refuses (as
 * strace's own tests make them): clone3 with its arguments on an unmapped
 * page or running into one, execve of /bin/true with an environment holding
 * an address that is not mapped or with no NULL before an unmapped page.
 * Each must fail with EFAULT (and exec nothing); prints one line for each.
 * Usage: bad_pointers */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static void show(const char *what, long rc, int err) {
  printf("%s: %ld %s\n", what, rc, rc < 0 ? strerrorname_np(err) : "");
  fflush(stdout);
}

/* the call's result and its errno, read before any other call */
#define SHOW(what, call)                                                                           \
  do {                                                                                             \
    long rc_ = (call);                                                                             \
    show(what, rc_, errno);                                                                        \
  } while (0)

int main(void) {
  long page = sysconf(_SC_PAGESIZE);
  char *mem = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED)
    return 2;
  munmap(mem + page, page); /* mem's second page is not mapped */
  char *hole = mem + page;
  memset(mem, 0, page);

  SHOW("clone3, arguments on an unmapped page", syscall(SYS_clone3, hole, 64L));
  SHOW("clone3, arguments running into an unmapped page", syscall(SYS_clone3, hole - 16, 64L));

  char *argv[] = {"true", NULL};
  char *bad_string[] = {"A=1", (char *)-1L, NULL};
  SHOW("execve, an environment string not mapped", execve("/bin/true", argv, bad_string));
  char **unterminated = (char **)hole - 2; /* two strings, then the hole */
  unterminated[0] = "A=1";
  unterminated[1] = "B=2";
  SHOW("execve, an environment with no NULL before an unmapped page",
       execve("/bin/true", argv, unterminated));
  SHOW("execve, an environment on an unmapped page", execve("/bin/true", argv, (char **)hole));
  return 0;
}
