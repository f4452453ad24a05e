/* fd_own.c - the runtime's own long-lived descriptors (the trace, its
 * reserve, the control socket, the kevents keepers and each thread's perf
 * events) live above the numbers the program uses: each is moved to 900 or
 * above, and above the soft RLIMIT_NOFILE (the range a program that checks
 * every number it may hold walks), close-on-exec, and noted in a set.  A
 * number above the soft limit is taken by raising that limit for the one
 * fcntl() and setting it back (a descriptor above the limit stays valid);
 * where the hard limit forbids it, the highest room below the soft limit
 * is used (900, or half the limit when that is 900 or less).  The program's close(), close_range() and closefrom()
 * (interpose.c) skip the numbers in the set, as if they were not open, so a
 * program that closes every descriptor (a daemon, a child before exec)
 * closes only its own.  The runtime closes one of its own only while the
 * number still holds what it opened (device and inode, and a perf event's
 * id), so a number the program took over after closing it behind libc's
 * back is left alone.  Transient descriptors (a /proc file read at once)
 * are opened and closed where they are used and are not in the set. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"

#define HIGH_BASE  900   /* where the runtime's descriptors go */
#define OWN_MAX    65536 /* numbers the set can hold; above, the program's close reaches them */
#define RAISE_ROOM 1024  /* numbers above the soft limit the runtime may use */
/* a soft limit from which a few descriptors more are a small part of it */
#define SPARE_LIMIT 1024

static _Atomic uint64_t own_bits[OWN_MAX / 64];
static atomic_flag raising = ATOMIC_FLAG_INIT; /* a thread has the soft limit raised */

static void mark(int fd, int on) {
  if (fd < 0 || fd >= OWN_MAX)
    return;
  uint64_t bit = 1ull << (fd & 63);
  if (on)
    atomic_fetch_or(&own_bits[fd >> 6], bit);
  else
    atomic_fetch_and(&own_bits[fd >> 6], ~bit);
}

int ip_fd_is_own(int fd) {
  return fd >= 0 && fd < OWN_MAX && (atomic_load(&own_bits[fd >> 6]) >> (fd & 63) & 1);
}

/* The first number of the runtime's own at or above from, or -1. */
static long next_own(unsigned long from) {
  for (unsigned long w = from >> 6; w < OWN_MAX / 64; w++) {
    uint64_t bits = atomic_load(&own_bits[w]);
    if (w == from >> 6)
      bits &= ~0ull << (from & 63);
    if (bits)
      return (long)(w * 64 + (unsigned long)__builtin_ctzll(bits));
  }
  return -1;
}

/* Where a descriptor of the runtime's goes under the limit rl: at or above
 * the soft limit and 900 (*raise set to the soft limit to take it), else 900
 * or half the soft limit (*raise 0). */
static int high_base(const struct rlimit *rl, rlim_t *raise) {
  *raise = 0;
  if (rl->rlim_cur == RLIM_INFINITY)
    return HIGH_BASE;
  rlim_t above = rl->rlim_cur > HIGH_BASE ? rl->rlim_cur : HIGH_BASE;
  if (above + RAISE_ROOM < OWN_MAX &&
      (rl->rlim_max == RLIM_INFINITY || above + RAISE_ROOM <= rl->rlim_max)) {
    *raise = above + RAISE_ROOM;
    return (int)above;
  }
  return rl->rlim_cur > HIGH_BASE ? HIGH_BASE : (int)(rl->rlim_cur / 2);
}

int ip_fd_spare_room(void) {
  struct rlimit rl;
  rlim_t raise;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
    return 0;
  if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= SPARE_LIMIT)
    return 1;
  high_base(&rl, &raise);
  return raise != 0;
}

/* A close-on-exec copy of fd at the runtime's height, or -1. */
static int dup_high(int fd) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
    return fcntl(fd, F_DUPFD_CLOEXEC, HIGH_BASE);
  rlim_t raise;
  int base = high_base(&rl, &raise);
  if (fd >= base)
    return -1;
  int below = rl.rlim_cur > HIGH_BASE ? HIGH_BASE : (int)(rl.rlim_cur / 2);
  if (!raise)
    return fcntl(fd, F_DUPFD_CLOEXEC, base);
  /* One raise at a time (another thread's would be read as the limit); a
   * thread that finds it taken, or a fork child that inherited it taken,
   * stays below the limit rather than wait. */
  if (atomic_flag_test_and_set(&raising))
    return fcntl(fd, F_DUPFD_CLOEXEC, below);
  int high = -1;
  struct rlimit wide = {raise, rl.rlim_max};
  if (ip_setrlimit(RLIMIT_NOFILE, &wide) == 0) {
    high = fcntl(fd, F_DUPFD_CLOEXEC, base);
    ip_setrlimit(RLIMIT_NOFILE, &rl);
  }
  atomic_flag_clear(&raising);
  return high >= 0 ? high : fcntl(fd, F_DUPFD_CLOEXEC, below);
}

int ip_fd_own(int fd) {
  if (fd < 0)
    return fd;
  int high = dup_high(fd);
  if (high >= 0) {
    ip_close(fd); /* not in the set yet */
    fd = high;
  } else {
    fcntl(fd, F_SETFD, FD_CLOEXEC); /* no room up there: stays where it is */
  }
  mark(fd, 1);
  return fd;
}

void ip_fd_identify(int fd, struct ip_fd_id *id) {
  struct stat st;
  id->dev = id->ino = id->perf = 0;
  if (fd < 0 || ip_fstat(fd, &st) != 0)
    return;
  id->dev = (uint64_t)st.st_dev;
  id->ino = (uint64_t)st.st_ino;
  uint64_t perf = 0;
  if (ioctl(fd, PERF_EVENT_IOC_ID, &perf) == 0)
    id->perf = perf;
}

/* Whether fd still holds what id describes.  The perf event's id is asked
 * only of a descriptor of the same (anonymous) inode as the event's. */
static int still_ours(int fd, const struct ip_fd_id *id) {
  struct stat st;
  if (ip_fstat(fd, &st) != 0 || (uint64_t)st.st_dev != id->dev || (uint64_t)st.st_ino != id->ino)
    return 0;
  if (!id->perf)
    return 1;
  uint64_t perf = 0;
  return ioctl(fd, PERF_EVENT_IOC_ID, &perf) == 0 && perf == id->perf;
}

void ip_fd_release(int fd, const struct ip_fd_id *id) {
  if (fd < 0)
    return;
  int ours = still_ours(fd, id);
  mark(fd, 0);
  if (ours)
    ip_close(fd);
}

void ip_fd_forget(int fd) { mark(fd, 0); }

/* ---- the program's close calls ------------------------------------------ */
int ip_fd_program_close(int fd) {
  if (ip_fd_is_own(fd)) {
    errno = EBADF;
    return -1;
  }
  return ip_close(fd);
}

/* One piece of a range: close_range, or, on a kernel without it, close
 * each (flags then asked only to close). */
static int close_piece(unsigned first, unsigned last, int flags, ip_close_range_fn *range) {
  int rc = range(first, last, flags);
  if (rc == 0 || errno != ENOSYS || flags)
    return rc;
  struct rlimit rl;
  unsigned long end = last;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur - 1 < end)
    end = (unsigned long)rl.rlim_cur - 1;
  for (unsigned long fd = first; fd <= end; fd++)
    ip_fd_program_close((int)fd);
  return 0;
}

int ip_fd_close_range_around(unsigned first, unsigned last, int flags, ip_close_range_fn *range) {
  if (!range)
    range = ip_close_range;
  if (first > last)
    return range(first, last, flags); /* EINVAL, as libc's */
  unsigned long from = first;
  for (;;) {
    long own = next_own(from);
    if (own < 0 || (unsigned long)own > last)
      break;
    if ((unsigned long)own > from && close_piece((unsigned)from, (unsigned)own - 1, flags, range))
      return -1;
    from = (unsigned long)own + 1;
  }
  if (from > last)
    return 0;
  return close_piece((unsigned)from, last, flags, range);
}

void ip_fd_program_closefrom(int lowfd) {
  if (lowfd < 0)
    lowfd = 0;
  long last_own = -1;
  for (long fd = next_own((unsigned long)lowfd); fd >= 0; fd = next_own((unsigned long)fd + 1))
    last_own = fd;
  ip_closefrom_fn *real_closefrom = ip_real_closefrom();
  if (last_own < 0 || !real_closefrom) {
    if (last_own < 0 && real_closefrom)
      real_closefrom(lowfd);
    else
      ip_fd_close_range_around((unsigned)lowfd, ~0u, 0, NULL);
    return;
  }
  if (last_own > lowfd)
    ip_fd_close_range_around((unsigned)lowfd, (unsigned)last_own - 1, 0, NULL);
  real_closefrom((int)last_own + 1);
}
