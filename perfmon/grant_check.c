/* grant_check.c - what the grant server verifies before it opens a
 * thread's kernel events, from the kernel and never from the request:
 *   - the sender: the connection's peer credentials (SO_PEERCRED) say the
 *     recording's uid; its process is pinned by a pidfd (SO_PEERPIDFD, or
 *     pidfd_open of the peer's pid before Linux 6.5), and its /proc
 *     directory is opened and taken as the same process only if the pidfd
 *     still shows it alive afterwards: a pid number cannot be reused while
 *     its process lives, so every later read through that directory is
 *     about that process (or fails when it has ended);
 *   - the user: the process's real, effective, saved and filesystem uids
 *     are the recording's user, its gids are unchanged (not a setgid
 *     program's) and it is dumpable (the files of /proc/PID are then owned by it): what
 *     ptrace and perf themselves require before a user may watch a process;
 *   - the recording: the process descends from the server, parent by
 *     parent; each parent's directory is opened and taken only if the
 *     child still names it as its parent afterwards (a live process's
 *     parent is alive, so that pid is the parent's);
 *   - the thread: tid is a thread of that process (/proc/PID/task/TID),
 *     pinned by a thread pidfd (Linux 6.9), else by its start time.
 * After the events are opened (grant_server.c), grant_recheck confirms that
 * the process and the thread are still alive and the same (so the tid the
 * kernel resolved was the thread checked) and still the user's (no setuid
 * exec in between).  Anything that cannot be read is refused. */
#include "grant_check.h"

#include "perf_grant.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* Linux 6.5 */
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9 */
#endif

/* Parents followed at most from a process up to the server. */
enum { MAX_DEPTH = 4096 };

static int pidfd_open_flags(pid_t pid, unsigned flags) {
  return (int)syscall(SYS_pidfd_open, pid, flags);
}

/* Whether the process or thread of pidfd has not exited. */
static int alive(int pidfd) {
  struct pollfd p = {.fd = pidfd, .events = POLLIN};
  return poll(&p, 1, 0) == 0;
}

/* The file name under the directory dir_fd into buf (NUL-terminated); its
 * length, or -1. */
static ssize_t read_at(int dir_fd, const char *name, char *buf, size_t len) {
  int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  size_t n = 0;
  for (;;) {
    ssize_t r = read(fd, buf + n, len - 1 - n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    n += (size_t)r;
    if (n == len - 1)
      break;
  }
  close(fd);
  buf[n] = 0;
  return n ? (ssize_t)n : -1;
}

static int open_proc(pid_t pid) {
  char path[32];
  snprintf(path, sizeof path, "/proc/%d", (int)pid);
  return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* The text after "PID (COMM) ": COMM ends at the last ')'. */
static const char *after_comm(const char *stat) {
  const char *e = strrchr(stat, ')');
  return e && e[1] == ' ' ? e + 2 : NULL;
}

pid_t grant_stat_ppid(const char *stat) {
  const char *s = after_comm(stat);
  char state;
  int ppid;
  if (!s || sscanf(s, "%c %d", &state, &ppid) != 2 || ppid < 0)
    return -1;
  return ppid;
}

unsigned long long grant_stat_start(const char *stat) {
  const char *s = after_comm(stat);
  /* s starts at field 3; the start time is field 22. */
  for (int field = 3; s && field < 22; field++) {
    s = strchr(s, ' ');
    if (s)
      s++;
  }
  return s ? strtoull(s, NULL, 10) : 0;
}

int grant_status_ids(const char *status, const char *key, unsigned long ids[4]) {
  size_t k = strlen(key);
  for (const char *l = status; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
    if (!strncmp(l, key, k))
      return sscanf(l + k, "%lu %lu %lu %lu", &ids[0], &ids[1], &ids[2], &ids[3]) == 4 ? 0 : -1;
  return -1;
}

/* The parent pid of the process of dir_fd, or -1 when it has ended. */
static pid_t ppid_at(int dir_fd) {
  char stat[1024];
  return read_at(dir_fd, "stat", stat, sizeof stat) < 0 ? -1 : grant_stat_ppid(stat);
}

static int refuse(int status, char *why, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int refuse(int status, char *why, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, len, fmt, ap);
  va_end(ap);
  return status;
}

/* The process of proc_fd runs as the policy's user, with its own gids, and
 * is dumpable. */
static int users_process(const struct grant_policy *p, const struct grant_target *t, char *why,
                         size_t len) {
  char status[4096];
  unsigned long uid[4], gid[4];
  struct stat st;
  /* A file of /proc/PID (not the directory itself) is owned by root when
   * its process is not dumpable. */
  if (read_at(t->proc_fd, "status", status, sizeof status) < 0 ||
      fstatat(t->proc_fd, "stat", &st, 0) != 0)
    return refuse(IP_GRANT_VANISHED, why, len, "process %d ended while checked", (int)t->pid);
  if (grant_status_ids(status, "Uid:", uid) || grant_status_ids(status, "Gid:", gid))
    return refuse(IP_GRANT_UNVERIFIABLE, why, len, "/proc/%d/status has no Uid and Gid lines",
                  (int)t->pid);
  for (int i = 0; i < 4; i++)
    if (uid[i] != (unsigned long)p->uid)
      return refuse(IP_GRANT_NOT_USER, why, len,
                    "process %d runs as uids %lu/%lu/%lu/%lu, the recording's user is %lu",
                    (int)t->pid, uid[0], uid[1], uid[2], uid[3], (unsigned long)p->uid);
  for (int i = 1; i < 4; i++)
    if (gid[i] != gid[0])
      return refuse(IP_GRANT_NOT_USER, why, len,
                    "process %d runs with gids %lu/%lu/%lu/%lu (a setgid program's)", (int)t->pid,
                    gid[0], gid[1], gid[2], gid[3]);
  if (st.st_uid != p->uid)
    return refuse(IP_GRANT_NOT_USER, why, len,
                  "process %d is not dumpable (PR_SET_DUMPABLE 0, or it changed identity): "
                  "its own user may not watch it",
                  (int)t->pid);
  return IP_GRANT_OK;
}

/* The process of t descends from the policy's ancestor. */
static int descends(const struct grant_policy *p, const struct grant_target *t, char *why,
                    size_t len) {
  int cur = t->proc_fd, status = -1;
  for (int depth = 0; status < 0; depth++) {
    pid_t ppid = ppid_at(cur);
    if (ppid < 0)
      status = refuse(IP_GRANT_VANISHED, why, len,
                      "a process between %d and the server ended while checked", (int)t->pid);
    else if (ppid == p->ancestor)
      status = IP_GRANT_OK;
    else if (ppid <= 1 || depth == MAX_DEPTH)
      status = refuse(IP_GRANT_OUTSIDE, why, len,
                      "process %d does not descend from the server (pid %d): it is not part of "
                      "this recording",
                      (int)t->pid, (int)p->ancestor);
    else {
      int parent = open_proc(ppid);
      if (parent < 0 || ppid_at(cur) != ppid) {
        if (parent >= 0)
          close(parent);
        status = refuse(IP_GRANT_VANISHED, why, len,
                        "the parents of process %d changed while checked", (int)t->pid);
      } else {
        if (cur != t->proc_fd)
          close(cur);
        cur = parent;
      }
    }
  }
  if (cur != t->proc_fd)
    close(cur);
  return status;
}

/* The thread start time of tid in the process of t, or 0. */
static unsigned long long thread_start(const struct grant_target *t) {
  char path[48], stat[1024];
  snprintf(path, sizeof path, "task/%d/stat", (int)t->tid);
  return read_at(t->proc_fd, path, stat, sizeof stat) < 0 ? 0 : grant_stat_start(stat);
}

/* tid is a thread of the process of t, pinned. */
static int pin_thread(struct grant_target *t, char *why, size_t len) {
  char path[32];
  snprintf(path, sizeof path, "task/%d", (int)t->tid);
  t->tid_pidfd = pidfd_open_flags(t->tid, PIDFD_THREAD);
  if (t->tid_pidfd < 0 && errno == ESRCH)
    return refuse(IP_GRANT_VANISHED, why, len, "thread %d does not exist", (int)t->tid);
  if (t->tid_pidfd < 0 && errno != EINVAL)
    return refuse(IP_GRANT_UNVERIFIABLE, why, len, "pidfd_open(thread %d): %s", (int)t->tid,
                  strerror(errno));
  if (t->tid_pidfd < 0)
    t->tid_start = thread_start(t);
  struct stat st;
  if (fstatat(t->proc_fd, path, &st, 0) != 0)
    return refuse(IP_GRANT_NOT_THREAD, why, len, "thread %d is not a thread of process %d",
                  (int)t->tid, (int)t->pid);
  if (t->tid_pidfd >= 0 ? !alive(t->tid_pidfd) : !t->tid_start || thread_start(t) != t->tid_start)
    return refuse(IP_GRANT_VANISHED, why, len, "thread %d ended while checked", (int)t->tid);
  return IP_GRANT_OK;
}

int grant_check(const struct grant_policy *p, int conn, pid_t tid, struct grant_target *t,
                char *why, size_t len) {
  *t = (struct grant_target){.pidfd = -1, .proc_fd = -1, .tid_pidfd = -1, .tid = tid};
  struct ucred cr;
  socklen_t cl = sizeof cr;
  if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cr, &cl) != 0 || cr.pid <= 0)
    return refuse(IP_GRANT_UNVERIFIABLE, why, len, "the sender's credentials are unknown");
  if (cr.uid != p->uid)
    return refuse(IP_GRANT_NOT_USER, why, len,
                  "the sender runs as uid %lu, the recording's "
                  "user is %lu",
                  (unsigned long)cr.uid, (unsigned long)p->uid);
  if (tid <= 0)
    return refuse(IP_GRANT_BAD_REQUEST, why, len, "thread id %d", (int)tid);
  t->pid = cr.pid;
  socklen_t fl = sizeof t->pidfd;
  if (getsockopt(conn, SOL_SOCKET, SO_PEERPIDFD, &t->pidfd, &fl) != 0) {
    t->pidfd = -1;
    if (errno != ENOPROTOOPT && errno != EINVAL)
      return refuse(IP_GRANT_VANISHED, why, len, "the sender (pid %d) has ended", (int)cr.pid);
    t->pidfd = pidfd_open_flags(cr.pid, 0);
  }
  if (t->pidfd < 0)
    return refuse(IP_GRANT_VANISHED, why, len, "the sender (pid %d) has ended", (int)cr.pid);
  t->proc_fd = open_proc(t->pid);
  if (t->proc_fd < 0 || !alive(t->pidfd))
    return refuse(IP_GRANT_VANISHED, why, len, "the sender (pid %d) has ended", (int)cr.pid);
  int status = users_process(p, t, why, len);
  if (status == IP_GRANT_OK)
    status = descends(p, t, why, len);
  if (status == IP_GRANT_OK)
    status = pin_thread(t, why, len);
  return status;
}

int grant_recheck(const struct grant_policy *p, const struct grant_target *t, char *why,
                  size_t len) {
  if (!alive(t->pidfd))
    return refuse(IP_GRANT_VANISHED, why, len, "process %d ended while its events were opened",
                  (int)t->pid);
  if (t->tid_pidfd >= 0 ? !alive(t->tid_pidfd) : thread_start(t) != t->tid_start)
    return refuse(IP_GRANT_VANISHED, why, len, "thread %d ended while its events were opened",
                  (int)t->tid);
  return users_process(p, t, why, len);
}

void grant_target_close(struct grant_target *t) {
  if (t->pidfd >= 0)
    close(t->pidfd);
  if (t->proc_fd >= 0)
    close(t->proc_fd);
  if (t->tid_pidfd >= 0)
    close(t->tid_pidfd);
  t->pidfd = t->proc_fd = t->tid_pidfd = -1;
}
