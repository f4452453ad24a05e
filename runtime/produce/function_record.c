/* function_record.c - a descriptor's Function record fields (names cut to
 * IP_NAME_MAX bytes, so that a record fits a stack frame; the demangled name
 * only when it differs), for the trace and for a shared table alike. */
#include <stdio.h>
#include <string.h>

#include "produce/produce.h"

static const char *str(const char *s) { return s ? s : ""; }

void ip_function_fill(Inclprof__Function *f, struct ip_fn_text *t, const struct inclprof_fn *fn,
                      const char *name) {
  /* cppcheck-suppress ctuuninitvar ; t is where the text is written */
  snprintf(t->name, sizeof t->name, "%s", fn ? str(fn->name) : name);
  f->name = t->name;
  snprintf(t->pretty, sizeof t->pretty, "%s",
           fn ? str(fn->pretty && *fn->pretty ? fn->pretty : fn->name) : name);
  f->pretty = strcmp(t->pretty, t->name) ? t->pretty : NULL;
  if (!fn)
    return;
  snprintf(t->file, sizeof t->file, "%s", str(fn->file));
  f->file = t->file;
  f->has_id = f->has_line = f->has_size = 1;
  f->id = fn->id;
  f->line = fn->line;
  f->size = fn->size;
}
