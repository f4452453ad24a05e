/* model/load_warnings.c - what loading tells the user: warnings on stderr
 * (unless quiet), the error that stops a load (to the caller's buffer or
 * stderr), and the warnings of a file read apart, kept until its session is
 * merged and then printed in file order, a note about a module file once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/loader.h"
#include "util/util.h"

void ip_load_warn(const ip_load_opts *o, const char *msg) {
  if (!o || !o->quiet)
    fprintf(stderr, "inclprof: warning: %s\n", msg);
}

void ip_file_warn(const ip_file *f, const char *noted, const char *msg) {
  ip_warnings *w = f->defer;
  if (!w) {
    ip_load_warn(f->o, msg);
    return;
  }
  if (f->o && f->o->quiet)
    return;
  ip_must_grow((void **)&w->v, &w->cap, w->n + 1, sizeof *w->v);
  w->v[w->n++] = (ip_warning){ip_must_strdup(msg), noted ? ip_must_strdup(noted) : NULL};
}

void ip_load_fail(const ip_load_opts *o, const char *msg) {
  if (o && o->error)
    snprintf(o->error, o->error_len, "%s", msg);
  else
    fprintf(stderr, "inclprof: %s\n", msg);
}

/* Whether an earlier file printed a note about this module file. */
static int noted_before(const ip_warnings *noted, const char *path) {
  for (size_t i = 0; i < noted->n; i++)
    if (!strcmp(noted->v[i].noted, path))
      return 1;
  return 0;
}

void ip_warnings_flush(ip_warnings *w, ip_warnings *noted) {
  for (size_t i = 0; i < w->n; i++) {
    ip_warning *x = &w->v[i];
    if (x->noted) {
      if (noted_before(noted, x->noted))
        continue;
      ip_must_grow((void **)&noted->v, &noted->cap, noted->n + 1, sizeof *noted->v);
      noted->v[noted->n++] = (ip_warning){NULL, x->noted};
      x->noted = NULL;
    }
    fprintf(stderr, "inclprof: warning: %s\n", x->msg);
  }
  ip_warnings_free(w);
}

void ip_warnings_free(ip_warnings *w) {
  for (size_t i = 0; i < w->n; i++) {
    free(w->v[i].msg);
    free(w->v[i].noted);
  }
  free(w->v);
  memset(w, 0, sizeof *w);
}
