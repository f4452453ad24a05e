/* fork_longjmp.c - a fork child that jumps back to a sigsetjmp its parent
 * made before the fork, as a shell's subshell jumps to its top level after
 * an error: serve() sets the jump and forks; the child calls fail(3), which
 * computes for about 20 ms three frames down and siglongjmps to serve(),
 * then sleeps 300 ms in linger() and leaves serve() and main().  The child
 * prints what it measured: "child fail_ns NS linger_ns NS" (fail's span,
 * from its call to the landing; linger's).  The parent waits for it and
 * exits with its status.  Usage: fork_longjmp */
#include <setjmp.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static sigjmp_buf top;
static volatile unsigned long sink;
static long long fail_start;

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

__attribute__((noinline)) static void fail(int depth) {
  if (depth > 0) {
    fail(depth - 1);
    sink++; /* not a tail call: every level keeps its frame */
    return;
  }
  long long end = now_ns() + 20000000;
  while (now_ns() < end)
    sink++;
  siglongjmp(top, 1);
}

__attribute__((noinline)) static void linger(void) {
  struct timespec t = {0, 300000000};
  while (nanosleep(&t, &t) != 0)
    ;
}

__attribute__((noinline)) static int serve(void) {
  if (sigsetjmp(top, 1)) { /* the child, after the jump */
    long long landed = now_ns();
    linger();
    printf("child fail_ns %lld linger_ns %lld\n", landed - fail_start, now_ns() - landed);
    return 0;
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0)
    return 3;
  if (pid == 0) {
    fail_start = now_ns();
    fail(3);
    return 4; /* not reached */
  }
  int st;
  if (waitpid(pid, &st, 0) != pid)
    return 5;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 6;
}

int main(void) { return serve(); }
