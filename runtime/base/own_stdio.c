/* own_stdio.c - hidden snprintf and vsnprintf inside libinclprof.so: the
 * runtime formats its messages, paths and records' texts with libc's own
 * vsnprintf (libc_real.c finds it), never with a program's definition of
 * these two (GCC's builtins tests define both, in lib/chk.c, and would
 * count the runtime's calls as theirs).  Only in the shared runtime
 * (runtime/build.mk), like own_string.c. */
#include <stdarg.h>
#include <stdio.h>

#include "base/base.h"

__attribute__((visibility("hidden"))) int snprintf(char *restrict s, size_t n,
                                                   const char *restrict fmt, ...);
__attribute__((visibility("hidden"))) int vsnprintf(char *restrict s, size_t n,
                                                    const char *restrict fmt, va_list ap);

int vsnprintf(char *restrict s, size_t n, const char *restrict fmt, va_list ap) {
  ip_vsnprintf_fn *real = ip_real_vsnprintf();
  if (real)
    return real(s, n, fmt, ap);
  if (n)
    s[0] = 0;
  return -1;
}

int snprintf(char *restrict s, size_t n, const char *restrict fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vsnprintf(s, n, fmt, ap);
  va_end(ap);
  return r;
}
