/* cli/record_hold.c - keeps the kernel's registration of the kevents
 * tracepoints (raw_syscalls:sys_enter, and where the kernel has them the
 * wake-up edges' sched:sched_waking and sched:sched_wakeup_new and the futex
 * waits' syscalls:sys_enter_futex) and of the page-fault event while
 * `record` runs.  The kernel registers a tracepoint with its first perf user
 * and unregisters it with its last, and unregistering waits for RCU grace
 * periods: 25-50 ms per tracepoint, which a traced process otherwise pays in
 * its exit (and up to a few ms more at its start).  So a small holder process keeps one
 * disabled event open on each: the traced processes are then neither the
 * first user nor the last.  One holder serves every `record` of the user
 * running at once in one root (an abstract Unix socket,
 * "inclprof-hold-<euid>-<root's device>-<root's inode>", that
 * each joins and stays connected to) and stays RECORD_HOLD_LINGER_MS after
 * the last has gone, so that records run one after another share it too;
 * then it exits and the kernel unregisters in its exit, which nobody waits
 * for.  The holder is detached (its own session, stdio on /dev/null, no
 * other descriptor, cwd /): nothing waits for it, and `record`'s subreaper
 * count does not see it.  It runs this command again (/proc/self/exe) with
 * a command line of its own, "inclprof-hold (holds the kevents tracepoints
 * for the inclprof records of uid N; ...)": `ps` shows what it is, not the
 * `record` that started it. */
#include "cli/record_hold.h"

#include "pmu_attr.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define HOLD_FD 3 /* the start-up pipe in the holder run again */

/* What the holder says on its start-up pipe. */
enum { HOLD_READY = 'H', HOLD_ELSEWHERE = 'B', HOLD_REFUSED = 'X' };

/* The holder's abstract socket address (its name after a NUL byte): the
 * user's, and the root directory's device and inode, as the abstract names
 * are shared by every root of the machine (a chroot's records have a holder
 * of their own, started from that root). */
static socklen_t hold_address(struct sockaddr_un *sa) {
  memset(sa, 0, sizeof *sa);
  sa->sun_family = AF_UNIX;
  struct stat root;
  if (stat("/", &root) != 0)
    memset(&root, 0, sizeof root);
  snprintf(sa->sun_path + 1, sizeof sa->sun_path - 1, "inclprof-hold-%ld-%llu-%llu",
           (long)geteuid(), (unsigned long long)root.st_dev, (unsigned long long)root.st_ino);
  return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(sa->sun_path + 1));
}

/* The event of a, opened disabled (held, never read). */
static int open_disabled(struct perf_event_attr *a) {
  a->disabled = 1;
  return (int)syscall(SYS_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The id tracefs gives in the first of paths[0..n) that has one, or -1. */
static int id_at(const char *const *paths, size_t n) {
  for (size_t i = 0; i < n; i++) {
    FILE *f = fopen(paths[i], "re");
    int id = -1;
    if (f && fscanf(f, "%d", &id) != 1)
      id = -1;
    if (f)
      fclose(f);
    if (id > 0)
      return id;
  }
  return -1;
}

/* The id of raw_syscalls:sys_enter from tracefs, or -1. */
static int tracepoint_id(void) {
  static const char *const paths[] = {IP_SYS_ENTER_ID_PATHS};
  return id_at(paths, sizeof paths / sizeof paths[0]);
}

/* Disabled events on the other tracepoints the runtime may use (wake-up
 * edges, futex waits), each where the kernel has it; kept open for the
 * holder's life (an event that cannot be opened is left out). */
static void hold_others(void) {
  static const char *const sched[] = {IP_SCHED_TRACEPOINT_DIRS};
  static const char *const futex[] = {IP_FUTEX_TRACEPOINT_DIRS};
  static const char *const waking[] = {"sched_waking", "sched_wakeup_new"};
  char paths[2][256];
  const char *p[2] = {paths[0], paths[1]};
  for (size_t k = 0; k < 2; k++) {
    for (size_t i = 0; i < 2; i++)
      snprintf(paths[i], sizeof paths[i], "%s/%s/id", sched[i], waking[k]);
    int id = id_at(p, 2);
    struct perf_event_attr a;
    ip_pmu_sys_enter(&a, (uint64_t)id);
    if (id > 0)
      (void)open_disabled(&a);
  }
  for (size_t i = 0; i < 2; i++)
    snprintf(paths[i], sizeof paths[i], "%s/id", futex[i]);
  int id = id_at(p, 2);
  struct perf_event_attr a;
  ip_pmu_sys_enter(&a, (uint64_t)id);
  if (id > 0)
    (void)open_disabled(&a);
}

/* Whether the runtime will choose kevents for mode (INCLPROF_TRANSITIONS;
 * NULL or another word: auto, which takes the PMU first when the kernel
 * gives a kernel-mode instruction counter). */
static int kevents_likely(const char *mode) {
  if (mode && !strcmp(mode, "kevents"))
    return 1;
  if (mode && (!strcmp(mode, "none") || !strcmp(mode, "pmu")))
    return 0;
  struct perf_event_attr a;
  ip_pmu_kernel_instructions(&a);
  int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd >= 0)
    close(fd);
  return fd < 0;
}

/* Serves the joined records until none has been connected for
 * RECORD_HOLD_LINGER_MS.  A record never writes: its socket turns readable
 * when it closes. */
static void serve(int listener) {
  size_t n = 1, cap = 16;
  struct pollfd *p = malloc(cap * sizeof *p);
  if (!p)
    return;
  p[0] = (struct pollfd){.fd = listener, .events = POLLIN};
  for (;;) {
    int r = poll(p, (nfds_t)n, n == 1 ? RECORD_HOLD_LINGER_MS : -1);
    if (r == 0)
      break;
    if (r < 0 && errno != EINTR)
      break;
    for (size_t i = n; r > 0 && i-- > 1;)
      if (p[i].revents) {
        close(p[i].fd);
        p[i] = p[--n];
      }
    if (r <= 0 || !(p[0].revents & POLLIN))
      continue;
    int c = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
    if (c < 0)
      continue;
    if (n == cap) {
      struct pollfd *more = realloc(p, 2 * cap * sizeof *p);
      if (!more) {
        close(c);
        continue;
      }
      p = more;
      cap *= 2;
    }
    p[n++] = (struct pollfd){.fd = c, .events = POLLIN};
  }
  free(p);
}

/* The holder process: registers, listens, says so on ready, serves. */
static void hold(int ready, int tp_id) {
  prctl(PR_SET_NAME, RECORD_HOLD_NAME);
  char said = HOLD_REFUSED;
  struct perf_event_attr a;
  ip_pmu_sys_enter(&a, (uint64_t)tp_id);
  int tp = open_disabled(&a);
  ip_pmu_page_faults(&a);
  int pf = open_disabled(&a);
  hold_others();
  int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un sa;
  socklen_t len = hold_address(&sa);
  if (tp >= 0 && pf >= 0 && listener >= 0) {
    if (bind(listener, (struct sockaddr *)&sa, len) == 0 && listen(listener, 128) == 0)
      said = HOLD_READY;
    else if (errno == EADDRINUSE)
      said = HOLD_ELSEWHERE; /* another record started one meanwhile */
  }
  (void)!write(ready, &said, 1);
  close(ready);
  if (said == HOLD_READY)
    serve(listener);
  close(listener); /* no new record joins while the kernel unregisters */
  _exit(0);
}

/* The forked holder: detaches (cwd /, stdio on /dev/null, no descriptor
 * but the start-up pipe, moved to HOLD_FD), then runs this command again as
 * the holder alone (record_hold_main), with a command line saying what it
 * is and an empty environment; where that exec fails, it holds as it is. */
static void hold_start(int ready, int tp_id) {
  int fd = fcntl(ready, F_DUPFD, HOLD_FD + 1); /* above stdio and HOLD_FD */
  if (fd < 0 || chdir("/") != 0)
    _exit(0);
  int null = open("/dev/null", O_RDWR);
  for (int i = 0; i < 3 && null >= 0; i++)
    dup2(null, i);
  if (dup2(fd, HOLD_FD) != HOLD_FD)
    _exit(0);
  syscall(SYS_close_range, (unsigned)HOLD_FD + 1, ~0u, 0u);
  char what[160];
  snprintf(what, sizeof what,
           "(holds the kevents tracepoints for the inclprof records of uid %ld; exits %d s "
           "after the last)",
           (long)geteuid(), RECORD_HOLD_LINGER_MS / 1000);
  char *argv[] = {RECORD_HOLD_NAME, what, NULL}, *envp[] = {NULL};
  execve("/proc/self/exe", argv, envp);
  fcntl(HOLD_FD, F_SETFD, FD_CLOEXEC);
  hold(HOLD_FD, tp_id);
}

int record_hold_main(void) {
  struct stat st;
  if (fstat(HOLD_FD, &st) != 0 || !S_ISFIFO(st.st_mode)) {
    fprintf(stderr, "inclprof: %s is started by 'inclprof record' only\n", RECORD_HOLD_NAME);
    return 2;
  }
  fcntl(HOLD_FD, F_SETFD, FD_CLOEXEC);
  hold(HOLD_FD, tracepoint_id()); /* a tracepoint without an id: the holder refuses */
  return 0;
}

/* Starts a holder, detached: what it said (HOLD_*), or 0. */
static char start_holder(int tp_id) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0)
    return 0;
  pid_t child = fork();
  if (child == 0) {
    setsid();
    if (fork() == 0) {
      close(pipe_fds[0]);
      hold_start(pipe_fds[1], tp_id);
    }
    _exit(0);
  }
  close(pipe_fds[1]);
  char said = 0;
  if (child > 0) {
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
      ;
    struct pollfd p = {.fd = pipe_fds[0], .events = POLLIN};
    if (poll(&p, 1, 2000) == 1 && read(pipe_fds[0], &said, 1) != 1)
      said = 0;
  }
  close(pipe_fds[0]);
  return said;
}

/* A connection to this user's running holder, or -1. */
static int join(void) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  struct sockaddr_un sa;
  socklen_t len = hold_address(&sa);
  struct ucred peer;
  socklen_t peer_len = sizeof peer;
  if (connect(fd, (struct sockaddr *)&sa, len) == 0 &&
      getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &peer_len) == 0 && peer.uid == geteuid())
    return fd;
  close(fd);
  return -1;
}

int record_hold_join(const char *mode) {
  if (!kevents_likely(mode))
    return -1;
  int fd = join();
  if (fd >= 0)
    return fd;
  int tp_id = tracepoint_id();
  if (tp_id < 0)
    return -1;
  char said = start_holder(tp_id);
  return said == HOLD_READY || said == HOLD_ELSEWHERE ? join() : -1;
}
