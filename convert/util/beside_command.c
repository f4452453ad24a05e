/* util/beside_command.c - finds the files installed with the inclprof
 * command (see util/beside_command.h). */
#include "util/beside_command.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int ip_find_beside_command(const char *const *rel, size_t n, char *out, size_t len) {
  char self[PATH_MAX];
  ssize_t got = readlink("/proc/self/exe", self, sizeof self - 1);
  if (got <= 0)
    return -1;
  self[got] = 0;
  char *slash = strrchr(self, '/');
  if (!slash)
    return -1;
  *slash = 0;
  for (size_t i = 0; i < n; i++) {
    snprintf(out, len, "%.4000s%s", self, rel[i]);
    if (access(out, R_OK) == 0)
      return 0;
  }
  return -1;
}
