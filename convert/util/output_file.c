/* util/output_file.c - outputs written whole or not at all (see
 * util/output_file.h). */
#include "util/output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/must_alloc.h"

/* Where f's bytes go: stdio's error flag keeps no errno, and by the time
 * the output is closed the failed write's may be gone (a buffer already
 * drained leaves fflush nothing to fail on), so the first one is kept. */
struct ip_output_sink {
  int fd;
  int err;
};

static ssize_t sink_write(void *cookie, const char *buf, size_t n) {
  struct ip_output_sink *k = cookie;
  size_t done = 0;
  while (done < n) {
    ssize_t w = write(k->fd, buf + done, n - done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      if (!k->err)
        k->err = w < 0 ? errno : EIO;
      return done ? (ssize_t)done : -1;
    }
    done += (size_t)w;
  }
  return (ssize_t)n;
}

static int sink_close(void *cookie) {
  struct ip_output_sink *k = cookie;
  int r = close(k->fd);
  if (r && !k->err)
    k->err = errno;
  return r;
}

/* A stream writing to path (created or truncated), its errors kept in
 * out->sink; NULL with errno set. */
static FILE *open_sink(ip_output *out, const char *path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0)
    return NULL;
  out->sink = ip_must_realloc(NULL, 1, sizeof *out->sink);
  *out->sink = (struct ip_output_sink){.fd = fd};
  FILE *f = fopencookie(out->sink, "w",
                        (cookie_io_functions_t){.write = sink_write, .close = sink_close});
  if (!f) {
    int e = errno;
    close(fd);
    free(out->sink);
    out->sink = NULL;
    errno = e;
  }
  return f;
}

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
    out->f = open_sink(out, name);
    return out->f ? 0 : cannot_write(out);
  }
  out->part = ip_must_realloc(NULL, strlen(name) + sizeof ".part", 1);
  sprintf(out->part, "%s.part", name);
  out->f = open_sink(out, out->part);
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
    err = out->sink && out->sink->err ? out->sink->err : errno ? errno : EIO;
  if (out->f != stdout && fclose(out->f) && !err)
    err = out->sink && out->sink->err ? out->sink->err : errno ? errno : EIO;
  free(out->sink);
  out->sink = NULL;
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
