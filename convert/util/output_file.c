/* util/output_file.c - outputs written whole or not at all (see
 * util/output_file.h). */
#include "util/output_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/must_alloc.h"

static int cannot_write(const ip_output *out) {
  fprintf(stderr, "inclprof %s: %s: cannot write: %s; give a writable path with %s\n", out->cmd,
          out->name, strerror(errno), out->option);
  return -1;
}

int ip_output_open(ip_output *out, const char *cmd, const char *option, const char *name) {
  *out = (ip_output){.cmd = cmd, .option = option, .name = name};
  if (!strcmp(name, "-")) {
    out->f = stdout;
    return 0;
  }
  struct stat st;
  if (stat(name, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    out->f = fopen(name, "wb");
    return out->f ? 0 : cannot_write(out);
  }
  out->part = ip_must_realloc(NULL, strlen(name) + sizeof ".part", 1);
  sprintf(out->part, "%s.part", name);
  out->f = fopen(out->part, "wb");
  if (!out->f) {
    cannot_write(out);
    free(out->part);
    out->part = NULL;
    return -1;
  }
  return 0;
}

int ip_output_close(ip_output *out, int ok) {
  int err = 0;
  errno = 0;
  if (fflush(out->f) || ferror(out->f))
    err = errno ? errno : EIO;
  if (out->f != stdout && fclose(out->f) && !err)
    err = errno ? errno : EIO;
  if (ok && err)
    fprintf(stderr, "inclprof %s: %s: write failed: %s\n", out->cmd, out->name, strerror(err));
  if (out->part) {
    if (ok && !err && rename(out->part, out->name)) {
      err = errno;
      fprintf(stderr, "inclprof %s: %s: cannot rename %s to it: %s\n", out->cmd, out->name,
              out->part, strerror(err));
    }
    if (!ok || err)
      unlink(out->part);
    free(out->part);
  }
  return ok && !err ? 0 : -1;
}
