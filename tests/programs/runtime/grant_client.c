/* grant_client.c - speaks the grant socket (include/inclprof/perf_grant.h)
 * for the refusal tests: sends one request and prints the server's answer,
 * "status N: WHY" and "fds N"; when granted, maps the ring event and prints
 * "records yes" if a system call of the thread named lands in it.
 *   grant_client [WHAT] [NAME]
 * NAME: the socket's abstract name (default: $INCLPROF_GRANT).  WHAT:
 *   self        this thread (the default)
 *   thread      a second thread of this process
 *   tid=N       thread N, another process's
 *   version=N   this thread, with protocol version N
 *   short       a request one byte short
 *   kind=N      this thread, with request kind N
 *   orphan      connects, then forks: the connecting process exits and its
 *               child sends the request (naming its own thread) once it has
 *               gone: the sender the kernel knows has vanished
 *   dumpable0   this thread, after prctl(PR_SET_DUMPABLE, 0)
 *   exec        this thread, granted, then exec of itself with "after-exec"
 *               (prints whether the ring still receives records there)
 *   hold=FILE   this thread; once granted, waits until FILE exists (the test
 *               makes it when the server has ended), then prints "later:
 *               records yes" if the events still record. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "perf_grant.h"

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
    ;
}

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static pid_t second_tid;
static void *second(void *arg) {
  (void)arg;
  second_tid = (pid_t)syscall(SYS_gettid);
  pthread_mutex_lock(&gate); /* held by main until the request is answered */
  pthread_mutex_unlock(&gate);
  return NULL;
}

/* Whether a system call of this thread lands in the ring of fd. */
static int records(int fd) {
  size_t len = 2 * (size_t)sysconf(_SC_PAGESIZE);
  void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) {
    printf("mmap: %s\n", strerror(errno));
    return 0;
  }
  const volatile struct perf_event_mmap_page *pg = m;
  uint64_t h0 = pg->data_head;
  syscall(SYS_getppid);
  uint64_t h1 = pg->data_head;
  munmap(m, len);
  return h1 > h0;
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "self";
  const char *name = argc > 2 ? argv[2] : getenv(IP_GRANT_ENV);
  if (!strcmp(what, "after-exec")) { /* the ring fd survived exec (not close-on-exec) */
    int fd = atoi(argv[2]);
    printf("after exec: records %s\n", records(fd) ? "yes" : "no");
    return 0;
  }
  if (!name || !*name) {
    printf("no socket name\n");
    return 2;
  }
  struct ip_grant_request req = {IP_GRANT_MAGIC, IP_GRANT_VERSION, IP_GRANT_KEVENTS,
                                 (int32_t)syscall(SYS_gettid), 0};
  size_t size = sizeof req;
  const char *hold = NULL;
  pthread_t th;
  if (!strcmp(what, "thread")) {
    pthread_mutex_lock(&gate);
    pthread_create(&th, NULL, second, NULL);
    while (!__atomic_load_n(&second_tid, __ATOMIC_SEQ_CST))
      sleep_ms(1);
    req.tid = second_tid;
  } else if (!strncmp(what, "tid=", 4))
    req.tid = atoi(what + 4);
  else if (!strncmp(what, "version=", 8))
    req.version = (uint16_t)atoi(what + 8);
  else if (!strncmp(what, "kind=", 5))
    req.kind = (uint16_t)atoi(what + 5);
  else if (!strcmp(what, "short"))
    size--;
  else if (!strncmp(what, "hold=", 5))
    hold = what + 5;
  else if (!strcmp(what, "dumpable0"))
    prctl(PR_SET_DUMPABLE, 0);
  int c = socket(AF_UNIX, IP_GRANT_SOCKET_TYPE | SOCK_CLOEXEC, 0);
  struct sockaddr_un sa;
  socklen_t sl = ip_grant_address(&sa, name);
  if (!sl || connect(c, (struct sockaddr *)&sa, sl) != 0) {
    printf("connect: %s\n", strerror(errno));
    return 2;
  }
  if (!strcmp(what, "orphan")) {
    pid_t parent = getpid();
    if (fork() != 0)
      _exit(0);
    while (getppid() == parent)
      sleep_ms(1);
    req.tid = (int32_t)syscall(SYS_gettid);
  }
  /* A sender of another user is answered before it sends: the send fails,
   * the answer is there to read. */
  if (send(c, &req, size, MSG_NOSIGNAL) != (ssize_t)size)
    printf("send: %s\n", strerror(errno));
  struct ip_grant_reply rep;
  int fds[2] = {-1, -1};
  struct iovec io = {&rep, sizeof rep};
  union {
    char buf[CMSG_SPACE(2 * sizeof(int))];
    struct cmsghdr align;
  } ctl;
  struct msghdr m = {
      .msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
  ssize_t n = recvmsg(c, &m, 0);
  if (n != (ssize_t)sizeof rep) {
    printf("recv: %zd bytes (%s)\n", n, n < 0 ? strerror(errno) : "short");
    return 2;
  }
  int nfds = 0;
  for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h))
    if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) {
      nfds = (int)((h->cmsg_len - CMSG_LEN(0)) / sizeof(int));
      memcpy(fds, CMSG_DATA(h), (size_t)(nfds > 2 ? 2 : nfds) * sizeof(int));
    }
  rep.why[sizeof rep.why - 1] = 0;
  printf("status %u: %s\nfds %d\n", (unsigned)rep.status, rep.why, nfds);
  if (!strcmp(what, "thread"))
    pthread_mutex_unlock(&gate);
  if (nfds == 2 && !strcmp(what, "self"))
    printf("records %s\n", records(fds[0]) ? "yes" : "no");
  if (hold && nfds == 2) {
    fflush(stdout);
    for (int i = 0; i < 10000 && access(hold, F_OK) != 0; i++)
      sleep_ms(1);
    printf("later: records %s\n", records(fds[0]) ? "yes" : "no");
  }
  if (!strcmp(what, "exec") && nfds == 2) {
    fflush(stdout);
    char arg[16];
    int fd = dup(fds[0]); /* without close-on-exec */
    snprintf(arg, sizeof arg, "%d", fd);
    execl("/proc/self/exe", argv[0], "after-exec", arg, (char *)NULL);
  }
  return 0;
}
