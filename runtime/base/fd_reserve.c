/* fd_reserve.c - keeps file descriptors for the program.  The runtime's
 * per-thread descriptors (the kevents page-fault event, the perf sampler),
 * the kevents keepers and the control socket are
 * opened only while, after opening them, at least IP_FD_RESERVE descriptors
 * below RLIMIT_NOFILE stay free; otherwise the thread goes without (its
 * Thread record says why).  Open descriptors are counted in /proc/self/fd
 * (without /proc, after a chroot, by a poll() over the numbers below the
 * limit);
 * descriptors other threads are about to open are counted as taken. */
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/base.h"

static atomic_uint in_flight; /* descriptors other threads are opening now */

/* Without /proc (a process that changed its root): the open descriptors
 * below the soft limit, by one poll() over them (a closed number answers
 * POLLNVAL); -1 above 65536 numbers. */
static long open_fds_polled(rlim_t limit) {
  if (limit > 65536)
    return -1;
  struct pollfd *p = ip_alloc((size_t)limit * sizeof *p);
  if (!p)
    return -1;
  for (rlim_t i = 0; i < limit; i++)
    p[i] = (struct pollfd){.fd = (int)i};
  long n = -1;
  if (poll(p, (nfds_t)limit, 0) >= 0) {
    n = 0;
    for (rlim_t i = 0; i < limit; i++)
      n += !(p[i].revents & POLLNVAL);
  }
  ip_free(p);
  return n;
}

/* Open descriptors of the process, or -1 when they cannot be counted. */
static long open_fds(rlim_t limit) {
  /* thread-self: /proc/self/fd is gone once the main thread has called
   * pthread_exit, while the other threads run on. */
  int dir = open("/proc/thread-self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0)
    dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0)
    return open_fds_polled(limit);
  char buf[8192] __attribute__((aligned(8)));
  long n = 0;
  for (;;) {
    long got = ip_syscall(SYS_getdents64, dir, buf, sizeof buf);
    if (got <= 0) {
      if (got < 0)
        n = -1;
      break;
    }
    for (long at = 0; at < got;) {
      const struct dirent64 *d = (const struct dirent64 *)(buf + at);
      if (d->d_name[0] != '.')
        n++;
      at += d->d_reclen;
    }
  }
  ip_close(dir);
  return n < 0 ? -1 : n - 1; /* not the directory's own descriptor */
}

int ip_fd_room_begin(unsigned need) {
  unsigned others = atomic_fetch_add(&in_flight, need);
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
    return 1;
  long used = open_fds(rl.rlim_cur);
  if (used >= 0 &&
      (unsigned long long)used + others + need + IP_FD_RESERVE <= (unsigned long long)rl.rlim_cur)
    return 1;
  atomic_fetch_sub(&in_flight, need);
  return 0;
}

void ip_fd_room_end(unsigned need) { atomic_fetch_sub(&in_flight, need); }
