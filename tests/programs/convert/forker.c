/* forker.c - with arguments, overwrites its argv with a title padded by
 * blanks and NULs (as servers do), then forks; the child execs this program
 * again as "forker child", which only computes. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline)) static int spin(int n) {
  volatile int s = 0;
  for (int i = 0; i < n; i++)
    s += i;
  return s;
}
int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "child"))
    return spin(1000) < 0;
  if (argc > 2) {
    size_t room = (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) - argv[0]);
    memset(argv[0], 0, room);
    snprintf(argv[0], room, "forker: main   ");
  }
  spin(1000);
  pid_t p = fork();
  if (p == 0) {
    spin(100);
    execl("/proc/self/exe", "forker", "child", (char *)0);
    _exit(1);
  }
  int st;
  waitpid(p, &st, 0);
  return 0;
}
