#!/bin/sh
# runtime_fork_file.sh - a fork child's trace file is made ahead by its
# parent: after a fork, the parent's forking thread, still inside fork,
# opens an unnamed file in the output directory, which the next child links
# under its own name (a child's start then creates no file).  A recorded
# program forks 20
# children, each making 20 000 calls (more than a buffer; its first 2 048
# events' pages faulted in before fork returns, the rest 5 ms later) and
# _exiting: the parent then holds exactly one unnamed file in the output
# directory (none before), every child's trace holds its 20 000 calls with
# nothing dropped, and when the program has exited the directory holds the
# 21 traces, the table file and the calibration, nothing else.
# The program's descriptor numbers are its own: a program that forks 300
# children and opens /dev/null 50 times after each fork gets the lowest
# free number every time (when a runtime thread opened that file, 1 342 of
# the 15 000 opens got another).
. "$INCLPROF_SRC/tests/lib.sh"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
cat >kids.c <<'SRC'
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>
__attribute__((noinline)) int work(int x) { return x + 1; }
int main(int argc, char **argv) {
  (void)argc;
  char dir[PATH_MAX];
  if (!realpath(argv[1], dir))
    return 1;
  for (int i = 0; i < 20; i++) {
    pid_t p = fork();
    if (p == 0) {
      int s = 0;
      for (int k = 0; k < 20000; k++)
        s += work(k);
      _exit(s == 0);
    }
    waitpid(p, 0, 0);
  }
  usleep(100000); /* the control thread's turn */
  unsigned unnamed = 0;
  DIR *d = opendir("/proc/self/fd");
  struct dirent *e;
  while (d && (e = readdir(d))) {
    char link[64], to[PATH_MAX + 32];
    snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
    ssize_t n = readlink(link, to, sizeof to - 1);
    if (n <= 0)
      continue;
    to[n] = 0;
    size_t l = strlen(dir);
    if (!strncmp(to, dir, l) && to[l] == '/' && strstr(to, " (deleted)"))
      unnamed++;
  }
  printf("%u\n", unnamed);
  return 0;
}
SRC
cc_plugin kids -O1 kids.c || { fail "build kids"; exit 1; }
"$INCLPROF" record -o out -- ./kids out >kids.out 2>record.txt
check_eq "the recorded program ran" 0 "$?"
check_eq "the parent holds one unnamed file in the output directory, the next child's (none before)" \
  1 "$(cat kids.out)"
check_eq "21 traces in the directory" 21 "$(ls -A out | grep -c '\.ipb$')"
check_eq "nothing else but the table file and the calibration" "" \
  "$(ls -A out | grep -v -e '\.ipb$' -e '\.ipt$' -e '^\.calibration-')"
whole=0
for f in out/*.ipb; do
  "$INCLPROF" info "$f" >info 2>/dev/null
  grep -q 'fork child of' info || continue
  "$INCLPROF" export --format csv -o child.csv "$f" >/dev/null 2>&1
  [ "$(q child.csv '^work$' calls)" = 20000 ] && grep -q ' 0 dropped$' info && whole=$((whole + 1))
done
check_eq "every child's trace holds its 20 000 work() calls, nothing dropped" 20 "$whole"

cat >fdnum.c <<'SRC'
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline)) static int open_null(void) { return open("/dev/null", O_RDONLY); }
int main(void) {
  int want = open_null(), other = 0;
  close(want);
  for (int i = 0; i < 300; i++) {
    pid_t p = fork();
    if (p == 0)
      _exit(0);
    for (int k = 0; k < 50; k++) {
      int fd = open_null();
      other += fd != want;
      close(fd);
    }
    waitpid(p, NULL, 0);
  }
  printf("%d of 15000 opens got another number than %d\n", other, want);
  return 0;
}
SRC
cc_plugin fdnum -O1 fdnum.c || { fail "build fdnum"; exit 1; }
"$INCLPROF" record -o fdn -- ./fdnum >fdnum.out 2>/dev/null
check "300 forks, 15 000 opens: each got the lowest free number ($(cat fdnum.out))" grep -q '^0 of 15000' fdnum.out
check_eq "301 traces" 301 "$(ls -A fdn | grep -c '\.ipb$')"
done_testing
