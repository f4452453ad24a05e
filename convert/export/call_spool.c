/* export/call_spool.c - records in the order they were put, in memory up to
 * a bound and then in a temporary file (see export/call_spool.h).  When the
 * memory buffer is full it is appended to the file; reading back drains the
 * buffer to the file too and reads the file from its start, a buffer at a
 * time. */
#include "export/call_spool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

struct ip_spool {
  char *buf;
  size_t len, cap;  /* bytes in buf; its size (the memory bound) */
  size_t pos;       /* reading: the next byte of buf */
  int fd;           /* -1 until the first spill */
  int spill_failed; /* keep everything in memory from then on */
  int reading;
  off_t end, next; /* the file's length; reading: the next byte of it */
};

static const char *temp_dir(void) {
  const char *dir = getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

int ip_temp_fd(void) {
  const char *dir = temp_dir();
  size_t len = strlen(dir) + sizeof "/inclprof-XXXXXX";
  char *path = ip_must_calloc(len, 1);
  snprintf(path, len, "%s/inclprof-XXXXXX", dir);
  int fd = mkstemp(path);
  if (fd >= 0)
    unlink(path);
  free(path);
  return fd;
}

int ip_spool_temp_file(void) {
  int fd = ip_temp_fd();
  if (fd < 0)
    fprintf(stderr,
            "inclprof export: cannot create a temporary file in %s (%s); keeping every call in "
            "memory (set TMPDIR to a writable directory with room)\n",
            temp_dir(), strerror(errno));
  return fd;
}

ip_spool *ip_spool_new(size_t max_in_memory) {
  ip_spool *sp = ip_must_calloc(1, sizeof *sp);
  sp->cap = max_in_memory ? max_in_memory : 1;
  sp->buf = ip_must_realloc(NULL, sp->cap, 1);
  sp->fd = -1;
  return sp;
}

/* Appends the buffer to the file; on a failure everything stays in memory. */
static void spill(ip_spool *sp) {
  if (sp->fd < 0 && (sp->fd = ip_spool_temp_file()) < 0) {
    sp->spill_failed = 1;
    return;
  }
  for (size_t done = 0; done < sp->len;) {
    ssize_t w = pwrite(sp->fd, sp->buf + done, sp->len - done, sp->end);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      fprintf(stderr,
              "inclprof export: cannot write the temporary file of calls (%s); keeping every "
              "call in memory (set TMPDIR to a directory with room)\n",
              w < 0 ? strerror(errno) : "disk full");
      sp->spill_failed = 1;
      memmove(sp->buf, sp->buf + done, sp->len - done);
      sp->len -= done;
      return;
    }
    done += (size_t)w;
    sp->end += w;
  }
  sp->len = 0;
}

void *ip_spool_room(ip_spool *sp, size_t most) {
  if (sp->len + most > sp->cap && !sp->spill_failed)
    spill(sp);
  if (sp->len + most > sp->cap)
    sp->buf = ip_must_realloc(sp->buf, sp->cap = 2 * (sp->len + most), 1);
  return sp->buf + sp->len;
}

void ip_spool_commit(ip_spool *sp, size_t n) { sp->len += n; }

void ip_spool_put(ip_spool *sp, const void *rec, size_t n) {
  memcpy(ip_spool_room(sp, n), rec, n);
  ip_spool_commit(sp, n);
}

/* Reading back what this process wrote fails only on an I/O error. */
static void read_back_failed(void) {
  fprintf(stderr,
          "inclprof export: cannot read back the temporary file of calls (%s); "
          "set TMPDIR to a directory on a sound disk\n",
          errno ? strerror(errno) : "file shorter than written");
  exit(1);
}

void ip_spool_read_back(int fd, void *p, size_t n, off_t at) {
  for (size_t got = 0; got < n;) {
    ssize_t r = pread(fd, (char *)p + got, n - got, at + (off_t)got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      read_back_failed();
    got += (size_t)r;
  }
}

/* Refills the buffer from the file's unread part. */
static void refill(ip_spool *sp) {
  size_t want = sp->end - sp->next < (off_t)sp->cap ? (size_t)(sp->end - sp->next) : sp->cap;
  size_t rest = sp->len - sp->pos;
  memmove(sp->buf, sp->buf + sp->pos, rest);
  if (want > sp->cap - rest)
    want = sp->cap - rest;
  ip_spool_read_back(sp->fd, sp->buf + rest, want, sp->next);
  sp->next += (off_t)want;
  sp->pos = 0, sp->len = rest + want;
}

const void *ip_spool_next(ip_spool *sp, size_t n) {
  if (!sp->reading) {
    sp->reading = 1;
    if (sp->fd >= 0) {
      spill(sp); /* the whole spool is then in the file, read from its start */
      if (sp->spill_failed)
        read_back_failed();
    }
  }
  if (sp->len - sp->pos < n && sp->fd >= 0 && sp->next < sp->end)
    refill(sp);
  if (sp->len - sp->pos < n)
    return NULL;
  sp->pos += n;
  return sp->buf + sp->pos - n;
}

int ip_spool_get(ip_spool *sp, void *rec, size_t n) {
  const void *p = ip_spool_next(sp, n);
  if (p)
    memcpy(rec, p, n);
  return p != NULL;
}

void ip_spool_free(ip_spool *sp) {
  if (!sp)
    return;
  if (sp->fd >= 0)
    close(sp->fd);
  free(sp->buf);
  free(sp);
}
