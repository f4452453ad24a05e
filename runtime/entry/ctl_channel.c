/* ctl_channel.c - the control thread (`inclprof-ctl`): it binds the
 * process's control socket, INCLPROF_OUTPUT/<pid>.ctl (a unix seqpacket
 * socket, mode 0600; the protocol: ctl_protocol.h), answers `inclprof ctl`
 * (start, stop, mark TEXT, flush, status) from the process's own user or
 * root (SO_PEERCRED), and runs the
 * deadlines of windows.c (the timed window, the periodic flush).  It blocks
 * every signal and waits in poll(): the probes never see it.  A fork child
 * starts a thread of its own, which binds the child's socket BIND_DELAY_MS
 * later (creating it takes the file system 0.1-0.3 ms, not to be spent
 * before the child's first line; a child that ends or execs before then
 * binds none); the socket is removed when the trace ends.  After a fork of
 * a program with a seccomp filter, the thread also opens the next child's
 * trace file ahead (fork_file.c).  INCLPROF_CTL=0
 * leaves the socket out.  A program that defines its own allocator gets no
 * socket and no thread unless INCLPROF_CTL=1 or a deadline asks for them:
 * creating a thread calls that allocator (glibc allocates the thread's TLS
 * vector with it). */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl_protocol.h"
#include "entry/entry.h"

#define SNAPSHOT_POLL_MS 50   /* how often ended snapshot windows are looked for */
#define LIVE_FLUSH_MS    500u /* how long a flush waits for threads flushing themselves */

#define BIND_DELAY_MS 5  /* how long a fork child runs before its socket is bound */
#define BIND_WAIT_MS  20 /* the longest a fork or the end waits for a bind under way */

static int listen_fd = -1;
static struct ip_fd_id listen_id;
static int made_fd = -1; /* a fork child's socket, made at the fork, bound by the thread */
static struct ip_fd_id made_id;
/* A fork child's socket: BIND_PENDING until its thread binds it (then
 * BIND_BUSY until bound), or until the trace ends first (BIND_NONE: none is
 * bound).  closed: the trace has ended; a bind that finishes later removes
 * its socket itself. */
enum { BIND_NONE, BIND_PENDING, BIND_BUSY };
static atomic_int bind_state, closed;
static int deadlines; /* the thread runs deadlines too: it binds at once */
static char sock_path[1200];
/* The thread's id once it is SCHED_BATCH (the first fork's wake-up), else 0. */
static _Atomic pid_t batch_tid;
static void watch_nothing(void) {}
static void (*watch)(void) = watch_nothing; /* called every IP_WATCH_MS (ip_ctl_start) */
static atomic_int stop_asked;               /* the thread ends at its next wake-up (ip_ctl_stop) */
static atomic_int running;                  /* the thread has not yet ended */

/* Woken by a fork (of a program with a seccomp filter), the thread makes
 * the next child's file (fork_file.c):
 * as SCHED_BATCH from then on, so that its wake-up does not preempt the
 * forking thread for as long as the file takes (0.1-0.3 ms; a program of a
 * real-time policy keeps its own).  Back to the ordinary policy when the
 * trace ends: the process's end waits for the thread to run once more. */
static void woken_by_fork(void) {
  ip_fork_file_woken();
  if (!atomic_load(&batch_tid) && (sched_getscheduler(0) & ~SCHED_RESET_ON_FORK) == SCHED_OTHER &&
      sched_setscheduler(0, SCHED_BATCH, &(struct sched_param){.sched_priority = 0}) == 0)
    atomic_store(&batch_tid, gettid());
}

/* The control socket, not yet bound, above the program's numbers (not
 * below its last 64 free descriptors): made by the thread that starts the
 * control thread, never by that thread, whose descriptor would hold the
 * lowest free number for a moment while the program's thread opens its
 * own (fork_file.c).  -1 when none. */
static int make_socket(struct ip_fd_id *id) {
  if (!ip_fd_room_begin(1))
    return -1;
  int fd = ip_fd_own(socket(AF_UNIX, IP_CTL_SOCKET_TYPE | SOCK_CLOEXEC, 0));
  ip_fd_room_end(1);
  ip_fd_identify(fd, id);
  return fd;
}

/* Binds fd (make_socket's) as the process's socket: listen_fd then, else
 * it is closed.  A path too long for an address goes through the output
 * directory's descriptor. */
static void bind_socket(int fd, const struct ip_fd_id *id) {
  ip_ctl_path(sock_path, sizeof sock_path, ip_st.dir, (int)getpid());
  struct sockaddr_un a;
  if (fd >= 0 && ip_ctl_address(&a, sock_path, ip_st.dir_fd, (int)getpid()) == 0) {
    unlink(a.sun_path); /* a process of the same pid before an exec, or long gone */
    if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && chmod(a.sun_path, 0600) == 0 &&
        listen(fd, 8) == 0) {
      listen_fd = fd;
      listen_id = *id;
      fd = -1;
    } else {
      unlink(a.sun_path);
    }
  }
  ip_fd_release(fd, id);
  if (listen_fd < 0)
    sock_path[0] = 0;
}

static int peer_allowed(int c, char *why, size_t len) {
  struct ucred cr;
  socklen_t n = sizeof cr;
  if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &n) != 0) {
    snprintf(why, len, IP_CTL_REFUSED "the sender's credentials are not known");
    return 0;
  }
  if (cr.uid == 0 || cr.uid == geteuid() || cr.uid == getuid())
    return 1;
  snprintf(why, len,
           IP_CTL_REFUSED "uid %u may not control pid %d (uid %u); run as that user or root",
           (unsigned)cr.uid, (int)getpid(), (unsigned)geteuid());
  return 0;
}

static void flush_reply(char *out, size_t len) {
  unsigned left = 0;
  unsigned n = ip_threads_flush_live(LIVE_FLUSH_MS, &left, 0);
  if (left)
    snprintf(out, len, IP_CTL_OK "flushed %u thread%s; %u %s busy for %u ms and %s left out",
             n - left, n - left == 1 ? "" : "s", left, left == 1 ? "was" : "were", LIVE_FLUSH_MS,
             left == 1 ? "is" : "are");
  else
    snprintf(out, len, IP_CTL_OK "flushed %u thread%s", n, n == 1 ? "" : "s");
}

static void command(const char *cmd, char *out, size_t len) {
  const size_t mark = sizeof IP_CTL_MARK - 1;
  if (atomic_load(&ip_st.init_state) != 1) {
    snprintf(out, len, IP_CTL_ERROR "the trace has ended");
  } else if (!strcmp(cmd, IP_CTL_START) || !strcmp(cmd, IP_CTL_STOP)) {
    int on = !strcmp(cmd, IP_CTL_START);
    int rc = ip_recording_set(on, on ? "ctl start" : "ctl stop");
    snprintf(out, len, IP_CTL_OK "recording %s%s", rc == 0 ? "was already " : "",
             on ? "on" : "off");
  } else if (!strncmp(cmd, IP_CTL_MARK, mark) && cmd[mark]) {
    uint32_t id = ip_mark_id(cmd + mark); /* as inclprof_mark: an event of this thread */
    if (id)
      ip_append_private(((uint64_t)id << 3 | INCLPROF__EVENT_KIND__EV_MARK) << 3 | IP_K_CONTROL);
    snprintf(out, len,
             id ? IP_CTL_OK "marked '%s'" : IP_CTL_ERROR "the mark '%s' could not be named",
             cmd + mark);
  } else if (!strcmp(cmd, IP_CTL_FLUSH)) {
    flush_reply(out, len);
  } else if (!strcmp(cmd, IP_CTL_STATUS)) {
    snprintf(out, len, IP_CTL_OK "recording %s, trace %s", ip_recording_on() ? "on" : "off",
             ip_st.path);
  } else {
    snprintf(out, len, IP_CTL_ERROR "unknown command '%s' (" IP_CTL_COMMANDS ")", cmd);
  }
}

/* The command is read first, whoever sent it, so that the answer (a
 * refusal too) reaches a sender that is still sending. */
static void serve(int c) {
  char cmd[IP_CTL_COMMAND_MAX];
  struct timeval tv = {.tv_sec = 2};
  setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ssize_t n = recv(c, cmd, sizeof cmd - 1, 0);
  if (n > 0) {
    cmd[n] = 0;
    cmd[strcspn(cmd, "\n")] = 0;
    char reply[1400];
    if (peer_allowed(c, reply, sizeof reply))
      command(cmd, reply, sizeof reply);
    send(c, reply, strlen(reply), MSG_NOSIGNAL);
  }
  ip_close(c);
}

static void unlink_socket(void) {
  struct sockaddr_un a;
  if (ip_ctl_address(&a, sock_path, ip_st.dir_fd, (int)getpid()) == 0)
    unlink(a.sun_path);
}

/* Waits, BIND_WAIT_MS at most, while a bind is under way
 * (async-signal-safe). */
static void bind_wait(void) {
  struct timespec step = {0, 100000};
  for (int i = 0; atomic_load(&bind_state) == BIND_BUSY && i < BIND_WAIT_MS * 10; i++)
    nanosleep(&step, NULL);
}

/* A fork child's pending bind: after BIND_DELAY_MS unless the trace ended
 * meanwhile. */
static void bind_later(void) {
  struct timespec delay = {0, BIND_DELAY_MS * 1000000L};
  if (!deadlines)
    nanosleep(&delay, NULL);
  int pending = BIND_PENDING;
  if (!atomic_compare_exchange_strong(&bind_state, &pending, BIND_BUSY))
    return;
  bind_socket(made_fd, &made_id);
  made_fd = -1;
  atomic_store(&bind_state, BIND_NONE);
  if (atomic_load(&closed) && listen_fd >= 0)
    unlink_socket();
}

static void *ctl_main(void *arg) {
  (void)arg;
  ip_syscall(SYS_prctl, PR_SET_NAME, "inclprof-ctl");
  if (atomic_load(&bind_state) == BIND_PENDING)
    bind_later();
  ip_buffer_child_settle(); /* a fork child's buffer: nothing to do in a parent */
  while (atomic_load(&ip_st.init_state) == 1 && !atomic_load(&stop_asked)) {
    int flush;
    int64_t ms = ip_windows_due(&flush);
    if (flush & IP_DUE_FLUSH)
      ip_threads_flush_live(LIVE_FLUSH_MS, &(unsigned){0}, 0);
    if (flush & IP_DUE_INTERVAL)
      ip_threads_flush_live(LIVE_FLUSH_MS, &(unsigned){0}, 1);
    if (ip_snapshots_ripe()) { /* every thread's events of the window are written first */
      ip_threads_flush_live(LIVE_FLUSH_MS, &(unsigned){0}, 0);
      ip_snapshots_save(0);
    }
    if (ip_snapshots_on() && (ms < 0 || ms > SNAPSHOT_POLL_MS))
      ms = SNAPSHOT_POLL_MS;
    ip_fork_file_make(); /* the next fork child's file, after a fork */
    struct pollfd p[2] = {{.fd = listen_fd, .events = POLLIN},
                          {.fd = ip_fork_file_wake_fd(), .events = POLLIN}};
    if (listen_fd < 0 && ms < 0)
      break; /* nothing left to wait for */
    if (ms < 0 || ms > IP_WATCH_MS)
      ms = IP_WATCH_MS;
    int ready = poll(p, 2, (int)ms);
    watch();
    if (ready <= 0 || atomic_load(&stop_asked))
      continue;
    if (p[1].revents)
      woken_by_fork();
    if (!(p[0].revents & POLLIN))
      continue;
    int c = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (c >= 0)
      serve(c);
  }
  watch(); /* the trace ended: perhaps by the program's last thread */
  ip_own_thread_end();
  atomic_store(&running, 0);
  return NULL;
}

/* in_child: a fork child's thread binds the socket (bind_later); else it
 * is bound here first. */
static void start_thread(int in_child) {
  const char *ctl = ip_set.ctl;
  int asked = ctl && !strcmp(ctl, "1");
  int wanted = ip_windows_wanted() || ip_snapshots_on();
  int socket = (!ctl || strcmp(ctl, "0")) && (!ip_st.program_allocator || asked || wanted);
  if (socket && !in_child) {
    struct ip_fd_id id;
    bind_socket(make_socket(&id), &id);
  }
  /* under a seccomp filter, which may kill for socket(), a fork child
   * makes none: the fork must not end it */
  if (socket && in_child && !atomic_load(&ip_st.seccomp))
    made_fd = make_socket(&made_id);
  if (listen_fd < 0 && !wanted && made_fd < 0) {
    ip_buffer_child_settle();
    return;
  }
  deadlines = wanted;
  atomic_store(&bind_state, made_fd >= 0 ? BIND_PENDING : BIND_NONE);
  atomic_store(&running, 1);
  /* its eventfd made here, by the starting thread: a descriptor the control
   * thread made would hold the lowest free number for a moment while the
   * program's thread opens its own */
  (void)ip_fork_file_wake_fd();
  if (ip_own_thread_start(ctl_main, 64 * 1024) != 0) {
    atomic_store(&running, 0);
    atomic_store(&bind_state, BIND_NONE);
    ip_buffer_child_settle();
    ip_ctl_close();
  }
}

void ip_ctl_start(void (*watch_fn)(void)) {
  watch = watch_fn;
  ip_windows_start();
  start_thread(0);
}

int ip_ctl_stop(uint64_t deadline) {
  if (!atomic_load(&running))
    return 0;
  bind_wait();
  atomic_store(&stop_asked, 1);
  uint64_t one = 1;
  if (write(ip_fork_file_wake_fd(), &one, sizeof one) < 0) {
    /* the thread sees stop_asked within IP_WATCH_MS */
  }
  struct timespec step = {0, 100000};
  while (atomic_load(&running) && ip_tick() < deadline)
    nanosleep(&step, NULL);
  if (atomic_load(&running))
    return -1;
  ip_fork_file_woken(); /* the wake-up meant for it */
  return 1;
}

void ip_ctl_restart(void) {
  atomic_store(&stop_asked, 0);
  if (atomic_load(&running) || atomic_load(&ip_st.init_state) != 1 || atomic_load(&closed))
    return;
  atomic_store(&running, 1);
  if (ip_own_thread_start(ctl_main, 64 * 1024) != 0)
    atomic_store(&running, 0);
}

void ip_ctl_fork_prepare(void) { bind_wait(); }

void ip_ctl_after_fork_child(void) {
  atomic_store(&batch_tid, 0);          /* the parent's thread */
  ip_fd_release(listen_fd, &listen_id); /* the parent's */
  listen_fd = -1;
  ip_fd_release(made_fd, &made_id);
  made_fd = -1;
  atomic_store(&closed, 0);
  atomic_store(&running, 0);
  atomic_store(&stop_asked, 0);
  ip_windows_after_fork_child();
  start_thread(1);
}

void ip_ctl_close(void) {
  atomic_store(&closed, 1);
  pid_t tid = atomic_exchange(&batch_tid, 0);
  if (tid)
    sched_setscheduler(tid, SCHED_OTHER, &(struct sched_param){.sched_priority = 0});
  int pending = BIND_PENDING;
  if (atomic_compare_exchange_strong(&bind_state, &pending, BIND_NONE)) {
    ip_fd_release(made_fd, &made_id); /* never bound */
    made_fd = -1;
  } else {
    bind_wait();
  }
  if (listen_fd >= 0)
    unlink_socket();
}
