/* ring_fds.c - the descriptors that the ring policy holds open for a while
 * besides the trace's own: a new segment while it rotates, the segment
 * files read back and the snapshot files written by the snapshots' writer.
 * Each is opened and closed under fds_lock, which fork takes: a fork child
 * closes its copies of those open, so that none is left open in it by a
 * rotation or a snapshot of the parent's under way at the fork. */
#include <errno.h>
#include <fcntl.h>

#include "sink/sink.h"

#define MAX_FDS (IP_SNAPSHOTS_WANTED + 4) /* every window written at once, 3 segments read, 1 new */

static pthread_mutex_t fds_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static int fds[MAX_FDS];
static unsigned n_fds;

int ip_ring_fd_open(const char *path, int flags, unsigned mode) {
  if (!ip_lock(&fds_lock, 0)) {
    errno = EDEADLK;
    return -1;
  }
  int fd = -1;
  if (n_fds == MAX_FDS)
    errno = EMFILE;
  else
    fd = open(path, flags | O_CLOEXEC, mode);
  if (fd >= 0)
    fds[n_fds++] = fd;
  ip_unlock(&fds_lock);
  return fd;
}

void ip_ring_fd_close(int fd) {
  if (fd < 0 || !ip_lock(&fds_lock, 0))
    return;
  for (unsigned i = 0; i < n_fds; i++)
    if (fds[i] == fd) {
      fds[i] = fds[--n_fds];
      ip_close(fd);
      break;
    }
  ip_unlock(&fds_lock);
}

void ip_ring_fds_fork_prepare(void) { ip_lock(&fds_lock, 0); }

void ip_ring_fds_fork_parent(void) { ip_unlock(&fds_lock); }

void ip_ring_fds_fork_child(void) {
  for (unsigned i = 0; i < n_fds; i++)
    ip_close(fds[i]);
  n_fds = 0;
  ip_mutex_init(&fds_lock);
}
