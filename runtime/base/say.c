/* say.c - the runtime's one-line messages (a setting it does not
 * understand, a profile it cannot write), on stderr or under `inclprof
 * record` in its notes (notes.c): formatted on the stack and written
 * with write(), never through stdio, whose stderr the program may have made
 * buffered (its buffer then comes from malloc, and the line would land in
 * the middle of the program's own pending output).  Error numbers are named
 * by glibc's untranslated descriptions (strerrordesc_np, through
 * libc_real.c), not strerror or %m: the program may define strerror, and
 * the translation behind both allocates through the program's malloc
 * (glibc 2.43's gettext). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
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
  int saved = errno;
  ip_notes_line(line, 1);
  errno = saved;
}

/* Whether n bytes written to fd would pass the process's file-size limit
 * (a regular file only): the kernel's SIGXFSZ for that write goes to the
 * whole process, and kills the program. */
static int past_fsize(int fd, size_t n) {
  struct rlimit rl;
  struct stat st;
  if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || ip_fstat(fd, &st) != 0 ||
      !S_ISREG(st.st_mode))
    return 0;
  off_t pos = lseek(fd, 0, SEEK_CUR);
  uint64_t at = (uint64_t)(pos > st.st_size ? pos : st.st_size);
  return at + n > (uint64_t)rl.rlim_cur;
}

int ip_write_all(int fd, const char *p, size_t n) {
  if (past_fsize(fd, n))
    return EFBIG;
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return w < 0 ? errno : ENOSPC;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

const char *ip_errno_text(int e) {
  static __thread char text[128];
  const char *desc = ip_real_errno_desc(e);
  if (desc)
    snprintf(text, sizeof text, "%s", desc);
  else
    snprintf(text, sizeof text, "Unknown error %d", e);
  return text;
}
