/* read/trace_paths.c - expands TRACE|DIR arguments into trace files (see read/trace_paths.h). */
#include "read/trace_paths.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/util.h"

#define TRACE_SUFFIX ".ipb"
#define TABLE_SUFFIX ".ipt"

static ip_file_id file_id(const struct stat *st) {
  return (ip_file_id){(unsigned long long)st->st_dev, (unsigned long long)st->st_ino};
}

static void push(ip_paths *p, char *s, ip_file_id id) {
  for (size_t i = 0; i < p->n; i++)
    if (p->id[i].dev == id.dev && p->id[i].ino == id.ino) {
      if (!p->n_repeated++)
        p->repeated = s;
      else
        free(s);
      return;
    }
  ip_must_grow((void **)&p->v, &p->cap, p->n + 1, sizeof *p->v);
  ip_must_grow((void **)&p->id, &p->id_cap, p->n + 1, sizeof *p->id);
  p->id[p->n] = id;
  p->v[p->n++] = s;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_suffix(const char *name, const char *suffix) {
  size_t n = strlen(name), k = strlen(suffix);
  return n > k && !strcmp(name + n - k, suffix);
}

static int is_trace_name(const char *name) { return has_suffix(name, TRACE_SUFFIX); }

/* Whether directory dir holds trace files. */
static int holds_traces(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  const struct dirent *e;
  int found = 0;
  while (!found && (e = readdir(d)))
    found = is_trace_name(e->d_name);
  closedir(d);
  return found;
}

/* The names of path's subdirectories that hold trace files, as
 * "a, b, c" (then ", ..."), into buf.  Returns how many were named. */
static int trace_subdirs(const char *path, char *buf, size_t len) {
  DIR *d = opendir(path);
  if (!d)
    return 0;
  int named = 0;
  size_t used = 0;
  buf[0] = 0;
  const struct dirent *e;
  while ((e = readdir(d)) && used < len) {
    if (e->d_name[0] == '.')
      continue;
    size_t n = strlen(path) + strlen(e->d_name) + 2;
    char *sub = ip_must_realloc(NULL, n, 1);
    snprintf(sub, n, "%s/%s", path, e->d_name);
    if (holds_traces(sub)) {
      int w = snprintf(buf + used, len - used, "%s%s", named ? ", " : "",
                       named < 3 ? e->d_name : "...");
      used += w > 0 ? (size_t)w : 0;
      named++;
    }
    free(sub);
    if (named > 3)
      break;
  }
  closedir(d);
  return named;
}

int ip_paths_add(ip_paths *p, const char *path, char *err, size_t errlen) {
  struct stat st;
  if (stat(path, &st)) {
    if (errno == ENOENT)
      snprintf(err, errlen,
               "%s: cannot open: No such file or directory; name a trace file or directory, "
               "or record one with 'inclprof record -o %s -- PROG'",
               path, path);
    else
      snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  if (!S_ISDIR(st.st_mode) && has_suffix(path, TABLE_SUFFIX)) {
    if (!p->table)
      p->table = ip_must_strdup(path);
    return 0;
  }
  if (!S_ISDIR(st.st_mode)) {
    push(p, ip_must_strdup(path), file_id(&st));
    return 0;
  }
  DIR *d = opendir(path);
  if (!d) {
    snprintf(err, errlen, "%s: cannot read directory: %s", path, strerror(errno));
    return -1;
  }
  size_t first = p->n, repeated = p->n_repeated;
  const struct dirent *e;
  while ((e = readdir(d))) {
    if (!is_trace_name(e->d_name))
      continue;
    size_t len = strlen(path) + strlen(e->d_name) + 2;
    char *full = ip_must_realloc(NULL, len, 1);
    snprintf(full, len, "%s/%s", path, e->d_name);
    struct stat fst;
    /* a file that cannot be looked at is like no other (reading it will say why) */
    ip_file_id id = stat(full, &fst) ? (ip_file_id){~0ull, p->n} : file_id(&fst);
    push(p, full, id);
  }
  closedir(d);
  if (p->n == first && p->n_repeated == repeated) {
    char subdirs[256];
    if (trace_subdirs(path, subdirs, sizeof subdirs))
      snprintf(err, errlen,
               "%s: directory holds no trace files (*%s), but its subdirectories %s do; give "
               "those instead, e.g. %s/%.*s",
               path, TRACE_SUFFIX, subdirs, path, (int)strcspn(subdirs, ","), subdirs);
    else
      snprintf(err, errlen,
               "%s: directory holds no trace files (*%s); record one with 'inclprof record -o "
               "%s -- PROG'",
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
  free(p->id);
  free(p->repeated);
  free(p->table);
  *p = (ip_paths){0};
}
