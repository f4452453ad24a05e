#!/bin/sh
# runtime_fork_ctl_late.sh - a fork child binds its control socket 5 ms after
# the fork, from its control thread, not before its first line: creating the
# socket file takes the file system 0.1-0.3 ms.  A recorded program watches
# its output directory with inotify while 20 children make one call and
# _exit at once and 5 exec /bin/true at once: no child creates a socket
# file (each would, before), every child has a complete trace, and a child
# that lives 300 ms answers `inclprof ctl PID status` on its own socket.
# On a machine busy enough to hold a child for 5 ms between its fork and its
# exit, that child binds: at most 3 of the 25 may.
. "$INCLPROF_SRC/tests/lib.sh"
cat >kids.c <<'SRC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline)) int work(int x) { return x + 1; }
int main(int argc, char **argv) {
  int in = inotify_init1(IN_NONBLOCK);
  inotify_add_watch(in, argv[1], IN_CREATE);
  work(0);
  for (int i = 0; i < 25; i++) {
    pid_t p = fork();
    if (p == 0 && i < 20)
      _exit(work(i) & 0);
    if (p == 0) {
      execl("/bin/true", "true", (char *)0);
      _exit(1);
    }
    waitpid(p, 0, 0);
  }
  unsigned created = 0;
  char buf[65536];
  ssize_t n;
  while ((n = read(in, buf, sizeof buf)) > 0)
    for (char *e = buf; e < buf + n; e += sizeof(struct inotify_event) + ((struct inotify_event *)e)->len) {
      const char *name = ((struct inotify_event *)e)->name;
      size_t l = strlen(name);
      if (l > 4 && !strcmp(name + l - 4, ".ctl"))
        created++;
    }
  printf("%u\n", created);
  pid_t p = fork();
  if (p == 0) {
    work(1);
    usleep(300000);
    _exit(0);
  }
  fflush(stdout);
  usleep(150000);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "\"%s\" ctl -o %s %d status >status.txt 2>&1", argv[2], argv[1], (int)p);
  if (system(cmd) != 0)
    printf("ctl failed\n");
  waitpid(p, 0, 0);
  return 0;
}
SRC
cc_plugin kids -O1 kids.c || { fail "build kids"; exit 1; }
mkdir out
"$INCLPROF" record -o out -- ./kids out "$INCLPROF" >kids.out 2>record.txt
check_eq "the recorded program ran" 0 "$?"
made=$(head -n1 kids.out)
check "children that _exit or exec at once created no control socket file ($made of 25; each did before)" \
  test "$made" -le 3
check_eq "27 traces: the program, 25 children, the one that lives" 27 "$(ls out | grep -c '\.ipb$')"
whole=0
for f in out/*.ipb; do
  "$INCLPROF" info "$f" 2>/dev/null | grep -q '^trailer: *clean shutdown' && whole=$((whole + 1))
done
check_eq "every trace ends with a clean Trailer" 27 "$whole"
check "the child that lives answers ctl status on its own socket" grep -q 'recording on' status.txt
check_eq "no control socket is left" 0 "$(ls out | grep -c '\.ctl$')"
done_testing
