/* function_record.c - a descriptor's Function record fields (names cut to
 * IP_NAME_MAX bytes, so that a record fits a stack frame; the demangled name
 * only when it differs), for the trace and for a shared table alike. */
#include <string.h>

#include "produce/produce.h"

static const char *str(const char *s) { return s ? s : ""; }

/* s, or its first cap - 1 bytes copied into out when it is longer; *len
 * its length.  Not snprintf: a table of 115 000 functions spent 212 M
 * instructions in three of them per record.  Each string is measured here
 * once (the record's encoder takes the lengths). */
static const char *cut(char *out, size_t cap, const char *s, size_t *len) {
  size_t n = 0;
  while (n < cap - 1 && s[n])
    n++;
  *len = n;
  if (!s[n])
    return s;
  memcpy(out, s, n);
  out[n] = 0;
  return out;
}

void ip_function_fill(Inclprof__Function *f, struct ip_fn_text *t, const struct inclprof_fn *fn,
                      const char *name) {
  ip_function_lens *l = &t->lens;
  /* cppcheck-suppress ctuuninitvar ; t is where the text is written */
  const char *n = cut(t->name, sizeof t->name, fn ? str(fn->name) : str(name), &l->name);
  const char *p =
      cut(t->pretty, sizeof t->pretty,
          fn ? str(fn->pretty && *fn->pretty ? fn->pretty : fn->name) : str(name), &l->pretty);
  f->name = (char *)n;
  f->pretty = l->pretty != l->name || memcmp(p, n, l->name) ? (char *)p : NULL;
  if (!f->pretty)
    l->pretty = 0;
  l->file = 0;
  if (!fn)
    return;
  f->file = (char *)cut(t->file, sizeof t->file, str(fn->file), &l->file);
  f->has_id = f->has_line = f->has_size = 1;
  f->id = fn->id;
  f->line = fn->line;
  f->size = fn->size;
}
