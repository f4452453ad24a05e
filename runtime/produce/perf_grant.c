/* perf_grant.c - a thread's kevents events from the grant server of its
 * recording (INCLPROF_GRANT; the contract: include/inclprof/perf_grant.h),
 * for a process that may not open them itself: one connection per thread,
 * one request naming the calling thread, one reply with the two events'
 * descriptors.  The server must be root or this process's own user (another
 * user could bind the name once the recording's server has gone), every
 * wait is bounded (IP_GRANT_TIMEOUT_MS), and a descriptor is taken only if
 * the kernel calls it a perf event: a reply that is not exactly a grant
 * leaves the thread without a counter, never with something else mapped. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "perf_grant.h"
#include "produce/produce.h"

/* Whether fd is a perf event's descriptor. */
static int is_perf_event(int fd) {
  char path[40], target[32];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(path, target, sizeof target - 1);
  if (n <= 0)
    return 0;
  target[n] = 0;
  return !strcmp(target, "anon_inode:[perf_event]");
}

/* The descriptors attached to m into fds (at most 2 kept; any other is
 * closed); how many came. */
static int take_fds(struct msghdr *m, int fds[2]) {
  int got = 0;
  for (struct cmsghdr *h = CMSG_FIRSTHDR(m); h; h = CMSG_NXTHDR(m, h)) {
    if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
      continue;
    size_t n = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < n; i++) {
      int fd;
      memcpy(&fd, CMSG_DATA(h) + i * sizeof(int), sizeof fd);
      if (got < 2)
        fds[got] = fd;
      else
        ip_close(fd);
      got++;
    }
  }
  return got;
}

static int ask(int s, const char *name, int fds[2], char *why, size_t len) {
  struct sockaddr_un sa;
  socklen_t sl = ip_grant_address(&sa, name);
  struct timeval tv = {IP_GRANT_TIMEOUT_MS / 1000, IP_GRANT_TIMEOUT_MS % 1000 * 1000};
  setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv); /* bounds connect too */
  setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (!sl || connect(s, (struct sockaddr *)&sa, sl) != 0) {
    snprintf(why, len, "grant server %.64s: %s (it ends with its recording)", name,
             sl ? ip_errno_text(errno) : "bad name");
    return -1;
  }
  struct ucred cr;
  socklen_t cl = sizeof cr;
  if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &cl) != 0 ||
      (cr.uid != 0 && cr.uid != geteuid())) {
    snprintf(why, len, "grant server %.64s runs as another user: not used", name);
    return -1;
  }
  struct ip_grant_request req = {IP_GRANT_MAGIC, IP_GRANT_VERSION, IP_GRANT_KEVENTS,
                                 (int32_t)ip_syscall(SYS_gettid), 0};
  /* A refusal may come before the request is read (the server answers
   * another user at once): the reply is read even when the send failed. */
  int sent = send(s, &req, sizeof req, MSG_NOSIGNAL) == (ssize_t)sizeof req;
  struct ip_grant_reply rep;
  struct iovec io = {&rep, sizeof rep};
  union {
    char buf[CMSG_SPACE(4 * sizeof(int))];
    struct cmsghdr align;
  } ctl;
  struct msghdr m = {
      .msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
  ssize_t n;
  while ((n = recvmsg(s, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
    ;
  int got = n > 0 ? take_fds(&m, fds) : 0;
  int ok = sent && n == (ssize_t)sizeof rep && rep.magic == IP_GRANT_MAGIC && got == 2 &&
           rep.status == IP_GRANT_OK && !(m.msg_flags & MSG_CTRUNC) && is_perf_event(fds[0]) &&
           is_perf_event(fds[1]);
  if (ok)
    return 0;
  for (int i = 0; i < got && i < 2; i++)
    ip_close(fds[i]);
  if (n == (ssize_t)sizeof rep && rep.magic == IP_GRANT_MAGIC && rep.status != IP_GRANT_OK) {
    rep.why[sizeof rep.why - 1] = 0;
    snprintf(why, len, "grant server refused: %s", rep.why);
  } else
    snprintf(why, len, "grant server: %s", n < 0 ? ip_errno_text(errno) : "not a grant reply");
  return -1;
}

int ip_grant_kevents(int fds[2], char *why, size_t len) {
  const char *name = ip_set.grant;
  fds[0] = fds[1] = -1;
  if (!name || !*name) {
    snprintf(why, len, "no grant server (" IP_GRANT_ENV " unset)");
    return -1;
  }
  int s = socket(AF_UNIX, IP_GRANT_SOCKET_TYPE | SOCK_CLOEXEC, 0);
  if (s < 0) {
    snprintf(why, len, "grant server: socket: %s", ip_errno_text(errno));
    return -1;
  }
  int r = ask(s, name, fds, why, len);
  ip_close(s);
  return r;
}
