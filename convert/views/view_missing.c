/* views/view_missing.c - `report --missing`: the program's own functions
 * that have no row, and why (inlined into their callers, unused, excluded by
 * a rule or attribute, below min-size), and those whose row misses the calls
 * GCC inlined at some call sites, with how to count them all; and the
 * header's one-line count of them. */
#include <string.h>

#include "util/util.h"
#include "views/views.h"

static const char *why(const ip_skipped_fn *f) {
  switch (f->kind) {
  case IP_SKIP_INLINED:
    return "inlined into";
  case IP_SKIP_UNUSED:
    return "removed as unused";
  case IP_SKIP_EXCLUDED:
    return "not instrumented:";
  default:
    return "not instrumented:";
  }
}

/* The partly inlined functions: where the calls their rows miss went. */
static void partly_table(FILE *out, const ip_skipped *k, size_t width) {
  fprintf(out,
          "%sPartly inlined: these functions have a row, but GCC also inlined them at the "
          "call sites below; the calls made there are counted in those functions, not "
          "in the row.\n",
          k->n > k->count[IP_SKIP_PARTLY] ? "\n" : "");
  ip_ttable t;
  ip_tt_init(&t, 3);
  ip_tt_names(&t, 1, 0);
  ip_tt_add(&t, "Defined at");
  ip_tt_add(&t, "Function");
  ip_tt_add(&t, "Also inlined into");
  for (size_t i = 0; i < k->n; i++) {
    const ip_skipped_fn *f = &k->v[i];
    if (f->kind != IP_SKIP_PARTLY)
      continue;
    const char *base = strrchr(f->file, '/');
    ip_tt_add(&t, "%s:%u", base ? base + 1 : f->file, f->line);
    ip_tt_add(&t, "%s", f->pretty);
    ip_tt_add(&t, "%s", f->detail);
  }
  ip_tt_print_fit(&t, out, 2, width);
  ip_tt_free(&t);
}

void ip_view_missing(FILE *out, const ip_skipped *k, size_t width) {
  if (!k || !k->n) {
    fprintf(out, "every function the plugin saw in the program's files has a row with all its "
                 "calls\n");
    return;
  }
  if (k->n == k->count[IP_SKIP_PARTLY]) {
    fprintf(out, "every function the plugin saw in the program's files has a row\n");
    partly_table(out, k, width);
    fprintf(out, "\nTo count every call in the row, keep the function out of line everywhere: "
                 "-fplugin-arg-inclprof-noinline=NAME (or noinline=NAME in a filter file).\n");
    return;
  }
  ip_ttable t;
  ip_tt_init(&t, 3);
  ip_tt_names(&t, 1, 0);
  ip_tt_add(&t, "Defined at");
  ip_tt_add(&t, "Function");
  ip_tt_add(&t, "Why it has no row");
  for (int kind = 0; kind < IP_SKIP_PARTLY; kind++)
    for (size_t i = 0; i < k->n; i++) {
      const ip_skipped_fn *f = &k->v[i];
      if ((int)f->kind != kind)
        continue;
      const char *base = strrchr(f->file, '/');
      ip_tt_add(&t, "%s:%u", base ? base + 1 : f->file, f->line);
      ip_tt_add(&t, "%s", f->pretty);
      ip_tt_add(&t, "%s%s%s", why(f), f->detail[0] ? " " : "", f->detail);
    }
  ip_tt_print_fit(&t, out, 2, width);
  ip_tt_free(&t);
  if (k->count[IP_SKIP_PARTLY])
    partly_table(out, k, width);
  if (k->count[IP_SKIP_INLINED] || k->count[IP_SKIP_PARTLY])
    fprintf(out,
            "\nAn inlined call's time is its caller's. To count every call of a function in a "
            "row of its own, keep it out of line everywhere: -fplugin-arg-inclprof-noinline=NAME "
            "(or noinline=NAME in a filter file), or mark it __attribute__((noinline)); or "
            "rebuild with -fno-inline-functions-called-once -fno-inline-small-functions (or "
            "-fno-inline for all of them, at some cost in speed).\n");
  if (k->count[IP_SKIP_SMALL] || k->count[IP_SKIP_EXCLUDED])
    fprintf(out, "An excluded or small function is left out by the plugin's keys (exclude=, "
                 "include=, min-size=, filter=): change them and rebuild to record it.\n");
}

void ip_view_missing_line(FILE *out, const ip_skipped *k) {
  if (!k || !k->n)
    return;
  size_t inl = k->count[IP_SKIP_INLINED], partly = k->count[IP_SKIP_PARTLY];
  size_t other = k->n - inl - partly;
  fprintf(out, "no row:       ");
  if (inl)
    fprintf(out,
            "%zu of the program's functions were inlined into their callers (their time is "
            "their callers')%s",
            inl, other || partly ? "; " : "");
  if (other)
    fprintf(out, "%zu %sexcluded, below min-size or unused%s", other,
            inl ? "" : "of its functions ", partly ? "; " : "");
  if (partly)
    fprintf(out, "%zu %spartly inlined (%s row counts only the calls of its out-of-line copy)",
            partly, inl || other ? "" : "of the program's functions ",
            partly == 1 ? "its" : "each");
  fprintf(out, ": 'inclprof report --missing' lists them\n");
}
