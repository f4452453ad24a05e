/* views/view_table.c - the report's flat table: one row per function, module,
 * thread or process with its values (views/fields.c: calls, Elapsed and
 * Application Inclusive / Exclusive with their percentages, samples, the
 * per-call columns with --per-call, each thread's wall time); a function GCC
 * also inlined at some call sites is marked, and a note under the table says
 * where those calls went (within the terminal's width). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "views/views.h"

static const char *const key_titles[] = {"Function", "Module", "Thread (pid/tid)", "Process"};

/* Was the function of row KEY also inlined (its row misses those calls)? */
static const ip_skipped_fn *partly_inlined(const ip_session *s, const ip_view_opts *o,
                                           uint32_t key) {
  return ip_skipped_partly(o->skipped, s->funcs[key].pretty, s->funcs[key].file);
}

/* Note NUMBER of the notes under the table: where the calls of a function
 * also inlined went.  Within width (0: whole), the function's name cut to
 * at most half of it and the list of places to what the line leaves, its
 * end written "...". */
static void partly_note(FILE *out, size_t number, const ip_skipped_fn *f, size_t width) {
  static const char tail[] = ": those calls are counted there, not in its row";
  char head[32], name[512], places[2048];
  int head_len = snprintf(head, sizeof head, "%zu. ", number);
  const char *end = tail; /* left out on a terminal too narrow for it */
  size_t fixed = (size_t)head_len + strlen(": also inlined into ") + strlen(tail);
  if (width && width < fixed + 40) {
    end = "";
    fixed -= strlen(tail);
  }
  size_t name_room = !width ? sizeof name - 1 : width > fixed + 40 ? width - fixed - 20 : 20;
  if (width && name_room > width / 2)
    name_room = width / 2;
  if (name_room > sizeof name - 1)
    name_room = sizeof name - 1;
  size_t name_len = ip_name_cut(f->pretty, name_room, 0, 0, 0, name, sizeof name);
  const char *list = f->detail;
  if (width) {
    size_t room = width > fixed + name_len + 20 ? width - fixed - name_len : 20;
    if (room > sizeof places - 1)
      room = sizeof places - 1;
    if (strlen(list) > room) {
      size_t keep = room - 3;
      while (keep && ((unsigned char)list[keep] & 0xc0) == 0x80)
        keep--; /* never split a UTF-8 character */
      snprintf(places, sizeof places, "%.*s...", (int)keep, list);
      list = places;
    }
  }
  fprintf(out, "%s%s%.*s: also inlined into %s%s\n", number == 1 ? "\nnotes:\n" : "", head,
          (int)name_len, name, list, end);
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
    const char *name = ip_row_name(s, o->by, rows[i].key, buf, sizeof buf);
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
  for (size_t i = 0; i < n && o->by == IP_BY_FUNCTION; i++) {
    const ip_skipped_fn *f = partly_inlined(s, o, rows[i].key);
    if (f)
      partly_note(out, ++partly, f, o->width);
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
