/* grant_server.c - the server of the grant socket (include/inclprof/
 * perf_grant.h): a privileged process (root, or CAP_PERFMON) that opens a
 * thread's kevents events for the runtime of a recording it runs, after
 * grant_check.c has verified who asks, and passes them over the socket.
 * It listens on an abstract unix socket of a random name, which the
 * recording learns from its environment; it writes no file.  While it runs
 * it holds two disabled events of its own on the tracepoint and on page
 * faults, so that the kernel keeps them registered and the recording's
 * threads pay neither the registration nor, at their exit, the
 * unregistration (the same reason as convert/cli/record_hold.c). */
#include "grant_server.h"

#include "pmu_attr.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int perf_open(struct perf_event_attr *a, pid_t tid) {
  return (int)syscall(SYS_perf_event_open, a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int grant_tracepoint_id(char *why, size_t len) {
  static const char *const paths[] = {IP_SYS_ENTER_ID_PATHS};
  const char *refused = NULL;
  int err = 0;
  for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
    int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if ((errno == EACCES || errno == EPERM) && !refused) {
        refused = paths[i];
        err = errno;
      }
      continue;
    }
    char buf[32];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    int id = n > 0 ? (buf[n] = 0, atoi(buf)) : 0;
    if (id > 0)
      return id;
  }
  if (refused)
    snprintf(why, len, "cannot read %s: %s", refused, strerror(err));
  else
    snprintf(why, len,
             "the tracepoint raw_syscalls:sys_enter is not in tracefs (not mounted: as root, "
             "mount -t tracefs nodev /sys/kernel/tracing)");
  return -1;
}

int grant_server_open(struct grant_server *s, uid_t uid, int tracepoint_id, char *why, size_t len) {
  memset(s, 0, sizeof *s);
  s->listener = s->keepers[0] = s->keepers[1] = -1;
  s->tracepoint_id = tracepoint_id;
  s->policy.uid = uid;
  s->policy.ancestor = getpid();
  struct perf_event_attr a;
  ip_pmu_sys_enter(&a, (uint64_t)tracepoint_id);
  a.disabled = 1;
  s->keepers[0] = perf_open(&a, 0);
  ip_pmu_page_faults(&a);
  a.disabled = 1;
  s->keepers[1] = perf_open(&a, 0);
  if (s->keepers[0] < 0 || s->keepers[1] < 0) {
    snprintf(why, len, "perf_event_open(raw_syscalls:sys_enter): %s", strerror(errno));
    grant_server_child(s);
    return -1;
  }
  s->listener = socket(AF_UNIX, IP_GRANT_SOCKET_TYPE | SOCK_CLOEXEC, 0);
  for (int tries = 0; s->listener >= 0 && tries < 8; tries++) {
    unsigned long long nonce = 0;
    if (getrandom(&nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce)
      break;
    snprintf(s->name, sizeof s->name, IP_GRANT_NAME_PREFIX "%d-%016llx", (int)getpid(), nonce);
    struct sockaddr_un sa;
    socklen_t sl = ip_grant_address(&sa, s->name);
    if (bind(s->listener, (struct sockaddr *)&sa, sl) == 0)
      return listen(s->listener, 64) == 0 ? 0 : (s->name[0] = 0, -1);
    if (errno != EADDRINUSE)
      break;
  }
  snprintf(why, len, "the grant socket: %s", strerror(errno));
  grant_server_child(s);
  return -1;
}

static void close_owned(int *fd) {
  if (*fd >= 0)
    close(*fd);
  *fd = -1;
}

void grant_server_child(struct grant_server *s) {
  close_owned(&s->listener);
  close_owned(&s->keepers[0]);
  close_owned(&s->keepers[1]);
}

static void reply(int conn, int status, const char *why, const int *fds, int nfds) {
  struct ip_grant_reply r;
  memset(&r, 0, sizeof r);
  r.magic = IP_GRANT_MAGIC;
  r.version = IP_GRANT_VERSION;
  r.status = (uint16_t)status;
  r.fds = (uint32_t)nfds;
  snprintf(r.why, sizeof r.why, "%s", why);
  struct iovec io = {&r, sizeof r};
  union {
    char buf[CMSG_SPACE(2 * sizeof(int))];
    struct cmsghdr align;
  } ctl;
  struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1};
  if (nfds) {
    m.msg_control = ctl.buf;
    m.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
    struct cmsghdr *h = CMSG_FIRSTHDR(&m);
    h->cmsg_level = SOL_SOCKET;
    h->cmsg_type = SCM_RIGHTS;
    h->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
    memcpy(CMSG_DATA(h), fds, (size_t)nfds * sizeof(int));
  }
  (void)!sendmsg(conn, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Opens the kevents events of the thread t, each removed from it at exec
 * (the runtime of the new image asks again).  IP_GRANT_OK, or the refusal. */
static int open_events(const struct grant_server *s, const struct grant_target *t, int fds[2],
                       char *why, size_t len) {
  struct perf_event_attr a;
  ip_pmu_kevents_ring(&a, (uint64_t)s->tracepoint_id);
  a.remove_on_exec = 1;
  fds[0] = perf_open(&a, t->tid);
  ip_pmu_kevents_faults(&a);
  a.remove_on_exec = 1;
  fds[1] = fds[0] < 0 ? -1 : perf_open(&a, t->tid);
  if (fds[0] >= 0 && fds[1] >= 0)
    return IP_GRANT_OK;
  snprintf(why, len, "perf_event_open(%s) for thread %d: %s",
           fds[0] < 0 ? "raw_syscalls:sys_enter" : "page faults", (int)t->tid, strerror(errno));
  for (int i = 0; i < 2; i++)
    if (fds[i] >= 0)
      close(fds[i]);
  return IP_GRANT_OPEN_FAILED;
}

/* One connection: one request, one reply. */
static void serve_one(const struct grant_server *s, int conn) {
  char why[IP_GRANT_WHY_MAX] = "";
  struct ucred cr;
  socklen_t cl = sizeof cr;
  /* Another user is refused before anything is read: it cannot hold the
   * server up for the read's timeout. */
  if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cr, &cl) != 0 || cr.uid != s->policy.uid) {
    snprintf(why, sizeof why, "the sender is not the recording's user (uid %lu)",
             (unsigned long)s->policy.uid);
    reply(conn, IP_GRANT_NOT_USER, why, NULL, 0);
    return;
  }
  struct timeval tv = {IP_GRANT_TIMEOUT_MS / 1000, IP_GRANT_TIMEOUT_MS % 1000 * 1000};
  setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  struct ip_grant_request req;
  ssize_t n = recv(conn, &req, sizeof req, MSG_TRUNC);
  if (n != (ssize_t)sizeof req || req.magic != IP_GRANT_MAGIC) {
    snprintf(why, sizeof why, "not a grant request (%zd bytes)", n);
    reply(conn, IP_GRANT_BAD_REQUEST, why, NULL, 0);
    return;
  }
  if (req.version != IP_GRANT_VERSION) {
    snprintf(why, sizeof why, "grant protocol version %u; this server speaks version %d",
             (unsigned)req.version, IP_GRANT_VERSION);
    reply(conn, IP_GRANT_BAD_VERSION, why, NULL, 0);
    return;
  }
  if (req.kind != IP_GRANT_KEVENTS || req.zero) {
    snprintf(why, sizeof why, "unknown request kind %u", (unsigned)req.kind);
    reply(conn, IP_GRANT_BAD_REQUEST, why, NULL, 0);
    return;
  }
  struct grant_target t;
  int fds[2] = {-1, -1};
  int status = grant_check(&s->policy, conn, req.tid, &t, why, sizeof why);
  if (status == IP_GRANT_OK)
    status = open_events(s, &t, fds, why, sizeof why);
  if (status == IP_GRANT_OK && (status = grant_recheck(&s->policy, &t, why, sizeof why)))
    for (int i = 0; i < 2; i++)
      close(fds[i]);
  grant_target_close(&t);
  reply(conn, status, status == IP_GRANT_OK ? "granted" : why, fds, status == IP_GRANT_OK ? 2 : 0);
  if (status == IP_GRANT_OK)
    for (int i = 0; i < 2; i++)
      close(fds[i]);
}

int grant_server_serve(struct grant_server *s, pid_t child) {
  int child_fd = (int)syscall(SYS_pidfd_open, child, 0);
  int status = 0, done = 0;
  while (!done) {
    struct pollfd p[2] = {{.fd = s->listener, .events = POLLIN},
                          {.fd = child_fd, .events = POLLIN}};
    if (poll(p, child_fd >= 0 ? 2 : 1, 1000) > 0 && (p[0].revents & POLLIN)) {
      int conn = accept4(s->listener, NULL, NULL, SOCK_CLOEXEC);
      if (conn >= 0) {
        serve_one(s, conn);
        close(conn);
      }
    }
    for (;;) {
      int st;
      pid_t w = waitpid(-1, &st, WNOHANG);
      if (w == child) {
        status = st;
        done = 1;
      }
      if (w < 0 && errno == ECHILD)
        done = 1; /* the child was reaped elsewhere: its status is lost */
      if (w <= 0)
        break;
    }
  }
  if (child_fd >= 0)
    close(child_fd);
  return status;
}

void grant_server_end(struct grant_server *s) {
  if (s->listener >= 0)
    close(s->listener);
  s->listener = -1;
  if (s->keepers[0] >= 0 && fork() == 0) {
    setsid();
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd = 0; fd < 3 && null >= 0; fd++)
      dup2(null, fd);
    int lo = s->keepers[0] < s->keepers[1] ? s->keepers[0] : s->keepers[1];
    int hi = s->keepers[0] ^ s->keepers[1] ^ lo;
    syscall(SYS_close_range, 3u, (unsigned)lo - 1, 0u);
    syscall(SYS_close_range, (unsigned)lo + 1, (unsigned)hi - 1, 0u);
    syscall(SYS_close_range, (unsigned)hi + 1, ~0u, 0u);
    struct timespec ts = {GRANT_LINGER_MS / 1000, GRANT_LINGER_MS % 1000 * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
      ;
    _exit(0);
  }
  grant_server_child(s);
}

int grant_exit_status(int st) {
  return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
}
