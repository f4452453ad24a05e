/* libcalls.c - built with the plugin: direct calls to libc (fwrite, open,
 * close 5 times each; fflush, fork, waitpid once: 18 in the parent) and to
 * plain_helper(), which libcalls_plain.c defines without the plugin. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
int plain_helper(int x);
int main(void) {
  char line[] = "x\n";
  int s = 0;
  for (int i = 0; i < 5; i++) {
    fwrite(line, 1, 2, stdout);
    close(open("/dev/null", O_RDONLY));
    s += plain_helper(i);
  }
  fflush(stdout);
  pid_t p = fork();
  if (p == 0)
    _exit(0);
  int st;
  waitpid(p, &st, 0);
  return s == 10 ? 0 : 1;
}
