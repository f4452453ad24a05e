/* peak_rss.c - peak_rss OUT CMD ARGS...: runs CMD with its stdout in OUT and
 * prints its peak resident set size in KB, from wait4() (a small launcher:
 * a launcher's own RSS, copied by its fork, is its floor, and Python's is
 * 14 MB). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s OUT CMD [ARGS...]\n", argv[0]);
    return 2;
  }
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    execvp(argv[2], argv + 2);
    _exit(127);
  }
  int st;
  struct rusage ru;
  wait4(pid, &st, 0, &ru);
  printf("%ld\n", ru.ru_maxrss);
  return 0;
}
