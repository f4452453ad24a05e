/* views/view_table.c - the report's flat table: one row per function, module,
 * thread or process with its values (views/fields.c: calls, Elapsed and
 * Application Inclusive / Exclusive with their percentages, samples, the
 * per-call columns with --per-call, each thread's wall time). */
#include <stdlib.h>

#include "util/util.h"
#include "views/views.h"

static const char *const key_titles[] = {"Function", "Module", "Thread (pid/tid)", "Process"};

/* One row per key of o->by, sorted and cut to --top; wait: the wait
 * breakdown's columns (report --wait). */
static void level_table(FILE *out, const ip_session *s, const ip_view_opts *o, int wait) {
  ip_row *rows;
  size_t n = ip_aggregate(s, o->by, &o->sel, &rows);
  ip_rows_sort(s, o->by, rows, n, o->sort);
  if (o->top && o->top < n)
    n = o->top;
  ip_vtable v;
  ip_vtable_init(&v, s, o, o->by, wait, key_titles[o->by]);
  for (size_t i = 0; i < n; i++) {
    char buf[1024];
    const char *name = ip_row_name(s, o->by, rows[i].key, buf, sizeof buf);
    const ip_thread *th = o->by == IP_BY_THREAD ? &s->threads[rows[i].key] : NULL;
    char marked[1100];
    if (th && th->no_transitions) {
      snprintf(marked, sizeof marked, "%s [no transition counter]", name);
      name = marked;
    }
    ip_vtable_row(&v, &rows[i].v, th, o->by == IP_BY_FUNCTION ? rows[i].key : UINT32_MAX, 0, name);
  }
  ip_vtable_print(&v, out, 0);
  ip_vtable_free(&v);
  free(rows);
}

void ip_view_table(FILE *out, const ip_session *s, const ip_view_opts *o) {
  level_table(out, s, o, 0);
}

void ip_view_wait(FILE *out, const ip_session *s, const ip_view_opts *o) {
  if (!ip_session_has_wait(s))
    fprintf(out, "note: no kernel-event records in this profile (recorded with transition mode "
                 "other than kevents, or by an older runtime): the wait columns are 0\n\n");
  level_table(out, s, o, 1);
}
