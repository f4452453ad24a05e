/* say.c - the runtime's one-line messages on stderr (a setting it does not
 * understand, a size limit reached): formatted on the stack and written
 * with write(), never through stdio, whose stderr the program may have made
 * buffered (its buffer then comes from malloc, and the line would land in
 * the middle of the program's own pending output).  Error numbers are named
 * with glibc's %m, not strerror, which the program may define. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "base/base.h"

void ip_say(const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n <= 0)
    return;
  size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
  int saved = errno;
  ip_write_all(2, line, len);
  errno = saved;
}

void ip_write_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return;
    p += w;
    n -= (size_t)w;
  }
}

const char *ip_errno_text(int e) {
  static __thread char text[128];
  int saved = errno;
  errno = e;
  snprintf(text, sizeof text, "%m"); /* glibc's own text, as strerror's */
  errno = saved;
  return text;
}
