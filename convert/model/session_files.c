/* model/session_files.c - the files of a session read in parallel: each on
 * one of several threads (largest first), into a session and tables of its
 * own, with its warnings kept; this thread merges them into the session in
 * file order (model/session_merge.c) as they are done, so the session, the
 * warnings and the first error are those of reading them one after another.
 * A file that fails stops the reading of the files after it.  At most
 * `readers + 1` files are held read and not yet merged (or being read): when
 * that many are, a reader takes only the file to be merged next, so that
 * memory holds a few files' call trees at once, however many files there
 * are. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/loader.h"
#include "read/read.h"
#include "util/util.h"

typedef struct part {
  ip_session s;
  ip_tables t;
  ip_warnings w;
  char err[512];
  int rc, done;
} part;

typedef struct run {
  pthread_mutex_t mu;
  pthread_cond_t done; /* a file was read */
  pthread_cond_t room; /* a file was merged */
  const ip_paths *files;
  ip_load_opts o;    /* the caller's, with the jobs of one file */
  size_t *order;     /* file indices, largest file first */
  size_t next;       /* order[next] is the next file to read */
  size_t failed;     /* the first file that failed so far, or files->n */
  char *taken;       /* per file: a reader took it */
  size_t left;       /* files no reader took */
  size_t held;       /* files being read, or read and not yet merged */
  size_t limit;      /* the most held at once */
  size_t merged;     /* the file merged next */
  uint64_t start_ns; /* the session's start_unix_ns */
  part *parts;
} run;

static uint64_t file_size(const char *path) {
  struct stat st;
  return stat(path, &st) ? 0 : (uint64_t)st.st_size;
}

unsigned ip_files_readers(const ip_paths *files, unsigned jobs, uint64_t min_average) {
  uint64_t total = 0, largest = 0;
  for (size_t i = 0; i < files->n; i++) {
    uint64_t n = file_size(files->v[i]);
    total += n;
    largest = n > largest ? n : largest;
  }
  if (jobs < 2 || files->n < 2 || largest > total / 2 || total / files->n < min_average)
    return 0;
  return files->n < jobs ? (unsigned)files->n : jobs;
}

#define NONE SIZE_MAX

/* Caller holds r->mu.  The next file to read: the largest left, or when
 * `limit` files are held, the one to be merged next if no reader took it;
 * NONE for none now. */
static size_t pick(run *r) {
  if (r->held < r->limit) {
    while (r->taken[r->order[r->next]])
      r->next++;
    return r->order[r->next];
  }
  return r->taken[r->merged] ? NONE : r->merged;
}

/* File `merged` was merged: room for another. */
static void merged_one(run *r, size_t merged) {
  pthread_mutex_lock(&r->mu);
  r->held--;
  r->merged = merged + 1;
  pthread_cond_broadcast(&r->room);
  pthread_mutex_unlock(&r->mu);
}

/* A file failed: the readers pass over the files left. */
static void stop_reading(run *r) {
  pthread_mutex_lock(&r->mu);
  r->limit = NONE;
  pthread_cond_broadcast(&r->room);
  pthread_mutex_unlock(&r->mu);
}

static void *reader(void *arg) {
  run *r = arg;
  pthread_mutex_lock(&r->mu);
  while (r->left) {
    size_t i = pick(r);
    if (i == NONE) {
      pthread_cond_wait(&r->room, &r->mu);
      continue;
    }
    r->taken[i] = 1;
    r->left--;
    if (i > r->failed)
      continue;
    r->held++;
    pthread_mutex_unlock(&r->mu);
    part *pt = &r->parts[i];
    ip_load_opts o = r->o;
    o.keep = IP_KEEP_PATHS; /* the paths are summed again when merged */
    o.error = pt->err;
    o.error_len = sizeof pt->err;
    pt->s.compensated = !o.raw;
    pt->s.start_unix_ns = r->start_ns;
    ip_tables_module(&pt->s, &pt->t, IP_UNKNOWN_MODULE);
    int rc = ip_load_file(&pt->s, &pt->t, r->files->v[i], &o, &pt->w);
    pthread_mutex_lock(&r->mu);
    pt->rc = rc;
    pt->done = 1;
    if (rc && i < r->failed)
      r->failed = i;
    pthread_cond_broadcast(&r->done);
  }
  pthread_mutex_unlock(&r->mu);
  return NULL;
}

typedef struct sized {
  uint64_t size;
  size_t i;
} sized;

static int by_size(const void *a, const void *b) {
  const sized *x = a, *y = b;
  if (x->size != y->size)
    return x->size < y->size ? 1 : -1;
  return x->i < y->i ? -1 : x->i > y->i;
}

int ip_session_load_files(ip_session *s, ip_tables *t, const ip_paths *files, const ip_load_opts *o,
                          unsigned readers, char *err, size_t errlen) {
  size_t n = files->n;
  run r = {.files = files,
           .o = *o,
           .failed = n,
           .start_ns = s->start_unix_ns,
           .left = n,
           .limit = readers + 1};
  r.taken = ip_must_calloc(n, 1);
  r.o.jobs = o->jobs / readers > 1 ? o->jobs / readers : 1;
  r.parts = ip_must_calloc(n, sizeof *r.parts);
  r.order = ip_must_calloc(n, sizeof *r.order);
  sized *by = ip_must_calloc(n, sizeof *by);
  for (size_t i = 0; i < n; i++)
    by[i] = (sized){file_size(files->v[i]), i};
  qsort(by, n, sizeof *by, by_size);
  for (size_t i = 0; i < n; i++)
    r.order[i] = by[i].i;
  free(by);
  pthread_mutex_init(&r.mu, NULL);
  pthread_cond_init(&r.done, NULL);
  pthread_cond_init(&r.room, NULL);
  pthread_t *id = ip_must_calloc(readers, sizeof *id);
  unsigned started = 0;
  while (started < readers && !pthread_create(&id[started], NULL, reader, &r))
    started++;
  if (!started) {
    r.limit = NONE; /* this thread reads them all first */
    reader(&r);
  }
  ip_warnings noted = {0};
  int rc = 0;
  size_t merged = 0;
  for (; merged < n; merged++) {
    part *pt = &r.parts[merged];
    pthread_mutex_lock(&r.mu);
    while (!pt->done)
      pthread_cond_wait(&r.done, &r.mu);
    pthread_mutex_unlock(&r.mu);
    ip_warnings_flush(&pt->w, &noted);
    if (pt->rc) {
      snprintf(err, errlen, "%s", pt->err);
      rc = -1;
      stop_reading(&r);
      break;
    }
    size_t first = s->n_threads;
    ip_session_merge(s, t, &pt->s, o->file_done ? IP_KEEP_PATHS : o->keep);
    ip_file_done(s, o, first);
    ip_tables_free(&pt->t);
    merged_one(&r, merged);
  }
  for (unsigned i = 0; i < started; i++)
    pthread_join(id[i], NULL);
  for (size_t i = merged; i < n; i++) {
    ip_session_free(&r.parts[i].s);
    ip_tables_free(&r.parts[i].t);
    ip_warnings_free(&r.parts[i].w);
  }
  ip_warnings_free(&noted);
  pthread_cond_destroy(&r.done);
  pthread_cond_destroy(&r.room);
  free(r.taken);
  pthread_mutex_destroy(&r.mu);
  free(id);
  free(r.order);
  free(r.parts);
  return rc;
}
