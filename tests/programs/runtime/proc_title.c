/* proc_title.c - a server that sets its process title as nginx does: the
 * master writes "proc_title: master process" over its argv, then forks a
 * worker, which writes "proc_title: worker process N" over the copy it
 * inherited and names its thread with prctl(PR_SET_NAME).  Each process does
 * instrumented work, then prints what ps shows for it at the end (its
 * /proc/self/cmdline, NULs as blanks): "title PID TEXT" - the truth the test
 * compares with. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static char *area;
static size_t area_len;

/* Writes title over argv (the whole area the arguments occupy). */
static void set_title(const char *title) {
  memset(area, 0, area_len);
  snprintf(area, area_len, "%s", title);
}

__attribute__((noinline)) static unsigned long work(unsigned long n) {
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; i++)
    s += i ^ (s >> 3);
  return s;
}

static void print_title(void) {
  char buf[4096];
  FILE *f = fopen("/proc/self/cmdline", "r");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f)
    fclose(f);
  for (size_t i = 0; i < n; i++)
    if (!buf[i])
      buf[i] = ' ';
  while (n && buf[n - 1] == ' ')
    n--;
  buf[n] = 0;
  printf("title %d %s\n", (int)getpid(), buf);
  fflush(stdout);
}

int main(int argc, char **argv) {
  area = argv[0];
  area_len = (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) - argv[0]);
  work(1000);
  set_title("proc_title: master process");
  work(1000);
  pid_t pid = fork();
  if (pid == 0) {
    work(1000);
    set_title("proc_title: worker process 1");
    prctl(PR_SET_NAME, "worker-1");
    work(1000);
    print_title();
    return 0;
  }
  int st;
  waitpid(pid, &st, 0);
  work(1000);
  print_title();
  return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
