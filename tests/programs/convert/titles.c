/* titles.c - a server whose processes name themselves, as PostgreSQL's do:
 * the parent writes "titles: postmaster" over its argv, then forks three
 * workers: the first writes "titles: checkpointer" over the copy it
 * inherited, the second only renames its thread with prctl(PR_SET_NAME,
 * "walwriter"), the third keeps its parent's title.  Each does instrumented
 * work and prints what ps shows for it at the end ("title PID CMDLINE" from
 * /proc/self/cmdline, NULs as blanks; "comm PID NAME" from
 * /proc/self/comm). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static char *area;
static size_t area_len;

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

static void show(const char *file, const char *what) {
  char path[64], buf[4096];
  snprintf(path, sizeof path, "/proc/self/%s", file);
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f)
    fclose(f);
  for (size_t i = 0; i < n; i++)
    if (!buf[i] || buf[i] == '\n')
      buf[i] = ' ';
  while (n && buf[n - 1] == ' ')
    n--;
  buf[n] = 0;
  printf("%s %d %s\n", what, (int)getpid(), buf);
  fflush(stdout);
}

int main(int argc, char **argv) {
  area = argv[0];
  area_len = (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) - argv[0]);
  work(1000);
  set_title("titles: postmaster");
  pid_t kids[3];
  for (int k = 0; k < 3; k++) {
    kids[k] = fork();
    if (kids[k] == 0) {
      if (k == 0)
        set_title("titles: checkpointer");
      else if (k == 1)
        prctl(PR_SET_NAME, "walwriter");
      work(2000);
      show("cmdline", "title");
      show("comm", "comm");
      return 0;
    }
  }
  int ok = 1;
  for (int k = 0; k < 3; k++) {
    int st;
    waitpid(kids[k], &st, 0);
    ok &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
  }
  work(1000);
  show("cmdline", "title");
  return ok ? 0 : 1;
}
