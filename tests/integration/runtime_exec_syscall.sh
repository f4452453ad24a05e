#!/bin/sh
# runtime_exec_syscall.sh - exec by system call through libc's syscall()
# (execve and execveat, the second through a descriptor of the program as
# fexecve does), as a program does where libc has no wrapper: the runtime
# completes the trace first, as for libc's exec functions.  A program that
# execs itself three times each way, and once through a path that does not
# exist (ENOENT, after which it goes on), leaves one trace per image, each
# with its Trailer (exit reason exec, the last exit), and every call of
# every image (before, the images' buffered calls were lost and their
# traces had no Trailer).
. "$INCLPROF_SRC/tests/lib.sh"
cat >reexec.c <<'SRC'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
static volatile long sink;
__attribute__((noinline)) void work(int i) { sink += i; }
int main(int argc, char **argv) {
  extern char **environ;
  int depth = argc > 2 ? atoi(argv[2]) : 0;
  for (int i = 0; i < 50000; i++)
    work(i);
  char d[16];
  snprintf(d, sizeof d, "%d", depth - 1);
  char *next[] = {argv[0], argv[1], d, NULL};
  if (depth > 0 && !strcmp(argv[1], "execve"))
    syscall(SYS_execve, "/proc/self/exe", next, environ);
  if (depth > 0 && !strcmp(argv[1], "execveat"))
    syscall(SYS_execveat, open("/proc/self/exe", O_PATH | O_CLOEXEC), "", next, environ,
            AT_EMPTY_PATH);
  if (depth > 0)
    return 9;
  char *none[] = {"/no/such/program", NULL};
  long rc = syscall(SYS_execve, none[0], none, environ);
  for (int i = 0; i < 50000; i++)
    work(i);
  printf("%s: exec of a missing program %ld, went on\n", argv[1], rc);
  return 0;
}
SRC
gcc -O2 -fplugin="$INCLPROF_PLUGIN" -o reexec reexec.c || { fail "build reexec"; exit 1; }
for how in execve execveat; do
  plain=$(./reexec $how 3)
  rec=$("$INCLPROF" record -o $how -- ./reexec $how 3 2>/dev/null)
  check_eq "$how: the program's output" "$plain" "$rec"
  "$INCLPROF" info $how >info 2>&1
  check_eq "$how: three images ended by exec, each with its Trailer" 3 \
    "$(grep -c '^trailer:      clean shutdown, exit reason: exec;' info)"
  check_eq "$how: the last image ended by exit" 1 \
    "$(grep -c '^trailer:      clean shutdown, exit reason: exit;' info)"
  "$INCLPROF" report $how --by function >report 2>/dev/null
  check "$how: every call of the four images and after the failed exec (250000)" \
    awk '$NF == "work" && $1 == 250000 { found = 1 } END { exit !found }' report
done
done_testing
