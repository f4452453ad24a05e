/* read/trace_paths.c - expands TRACE|DIR arguments into trace files (see read/trace_paths.h). */
#include "read/trace_paths.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/must_alloc.h"

#define TRACE_SUFFIX ".ipb"

static void push(ip_paths *p, char *s) {
  ip_must_grow((void **)&p->v, &p->cap, p->n + 1, sizeof *p->v);
  p->v[p->n++] = s;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_trace_name(const char *name) {
  size_t n = strlen(name), k = strlen(TRACE_SUFFIX);
  return n > k && !strcmp(name + n - k, TRACE_SUFFIX);
}

int ip_paths_add(ip_paths *p, const char *path, char *err, size_t errlen) {
  struct stat st;
  if (stat(path, &st)) {
    snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) {
    push(p, ip_must_strdup(path));
    return 0;
  }
  DIR *d = opendir(path);
  if (!d) {
    snprintf(err, errlen, "%s: cannot read directory: %s", path, strerror(errno));
    return -1;
  }
  size_t first = p->n;
  const struct dirent *e;
  while ((e = readdir(d))) {
    if (!is_trace_name(e->d_name))
      continue;
    size_t len = strlen(path) + strlen(e->d_name) + 2;
    char *full = ip_must_realloc(NULL, len, 1);
    snprintf(full, len, "%s/%s", path, e->d_name);
    push(p, full);
  }
  closedir(d);
  if (p->n == first) {
    snprintf(err, errlen,
             "%s: directory holds no trace files (*%s); record one with 'inclprof record -o %s "
             "-- PROG'",
             path, TRACE_SUFFIX, path);
    return -1;
  }
  qsort(p->v + first, p->n - first, sizeof *p->v, by_name);
  return 0;
}

void ip_paths_free(ip_paths *p) {
  for (size_t i = 0; i < p->n; i++)
    free(p->v[i]);
  free(p->v);
  p->v = NULL;
  p->n = p->cap = 0;
}
