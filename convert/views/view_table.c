/* views/view_table.c - the report's flat table: one row per function, module,
 * thread or process with its values (views/fields.c: calls, Elapsed and
 * Application Inclusive / Exclusive with their percentages, samples, the
 * per-call columns with --per-call, each thread's wall time); a function GCC
 * also inlined at some call sites is marked, and a note under the table says
 * where those calls went; fitted to a width, a process is named by its
 * title and its executable's base name. */
#include <stdlib.h>

#include "util/util.h"
#include "views/views.h"

static const char *const key_titles[] = {"Function", "Module", "Thread (pid/tid)", "Process"};

/* Was the function of row KEY also inlined (its row misses those calls)? */
static const ip_skipped_fn *partly_inlined(const ip_session *s, const ip_view_opts *o,
                                           uint32_t key) {
  return ip_skipped_partly(o->skipped, s->funcs[key].pretty, s->funcs[key].file);
}

/* Row KEY's name.  Fitted to a terminal's width, a process is "PID TITLE
 * (EXECUTABLE'S BASE NAME, fork of PID)": its whole executable's path
 * would leave its title too little room (PostgreSQL's backends and
 * workers share one long path). */
static const char *row_name(const ip_session *s, const ip_view_opts *o, uint32_t key, char *buf,
                            size_t n) {
  if (o->by != IP_BY_PROCESS || !o->width)
    return ip_row_name(s, o->by, key, buf, n);
  int len = snprintf(buf, n, "%u ", s->processes[key].pid);
  if (len > 0 && (size_t)len < n)
    ip_process_viewer_name(s, key, buf + len, n - (size_t)len);
  return buf;
}

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
  size_t partly = 0;
  for (size_t i = 0; i < n; i++) {
    char buf[1024];
    const char *name = row_name(s, o, rows[i].key, buf, sizeof buf);
    const ip_thread *th = o->by == IP_BY_THREAD ? &s->threads[rows[i].key] : NULL;
    ip_vtable_row(&v, &rows[i].v, th, o->by == IP_BY_FUNCTION ? rows[i].key : UINT32_MAX, 0, name);
    if (th && th->no_transitions)
      ip_tt_add_tail(&v.t, " [no transition counter]");
    else if (o->by == IP_BY_FUNCTION && partly_inlined(s, o, rows[i].key))
      ip_tt_add_tail(&v.t, " [also inlined: note %zu]", ++partly);
  }
  ip_vtable_print(&v, out, 0);
  ip_vtable_free(&v);
  partly = 0;
  char *notes = NULL;
  size_t size = 0;
  FILE *mem = open_memstream(&notes, &size);
  FILE *to = mem ? mem : out;
  for (size_t i = 0; i < n && o->by == IP_BY_FUNCTION; i++) {
    const ip_skipped_fn *f = partly_inlined(s, o, rows[i].key);
    if (f) {
      partly++;
      fprintf(to,
              "%s%zu. %s: also inlined into %s: those calls are counted there, not in its row\n",
              partly == 1 ? "\nnotes:\n" : "", partly, f->pretty, f->detail);
    }
  }
  if (mem) {
    fclose(mem);
    ip_view_wrap(out, notes, o->width, 3);
    free(notes);
  }
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
