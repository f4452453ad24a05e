/* small_file.c - reads a small file whole in one read(): the /proc and
 * /sys files the runtime looks at (its status, its stat, a tracepoint's id,
 * perf_event_paranoid, the boot id) and its calibration cache. */
#include <fcntl.h>
#include <unistd.h>

#include "base/base.h"

ssize_t ip_read_small(const char *path, int flags, char *buf, size_t size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | flags);
  if (fd < 0)
    return -1;
  ssize_t n = read(fd, buf, size - 1);
  ip_close(fd);
  if (n >= 0)
    buf[n] = 0;
  return n;
}
