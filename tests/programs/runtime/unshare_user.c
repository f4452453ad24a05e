/* unshare_user.c - a process of one thread that enters a user namespace of
 * its own: unshare_user libc|syscall N calls work() N times,
 * unshare(CLONE_NEWUSER) (or syscall(SYS_unshare, CLONE_NEWUSER)), then
 * work() N times more.  Prints the call's result ("0" or the errno's name)
 * and the work() calls made. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile long work_calls;

__attribute__((noinline)) void work(void) { work_calls++; }

static void works(long n) {
  for (long i = 0; i < n; i++)
    work();
}

static const char *result(long rc) {
  return rc == 0 ? "0" : errno == EINVAL ? "EINVAL" : errno == EPERM ? "EPERM" : strerror(errno);
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  long n = atol(argv[2]);
  works(n);
  long rc =
      strcmp(argv[1], "syscall") ? unshare(CLONE_NEWUSER) : syscall(SYS_unshare, CLONE_NEWUSER);
  printf("unshare: %s\n", result(rc));
  works(n);
  printf("work %ld\n", work_calls);
  return 0;
}
