/* views/view_wait.c - `inclprof report --wait`: per function, module, thread
 * or process, Elapsed and Non-Application time (Elapsed - Application) and
 * the Non-Application time by cause: Off-CPU preempted, Off-CPU blocked,
 * System calls, Page faults (time and count), and Other (the Non-Application
 * time none of them explains), inclusive, then exclusive with --exclusive. */
#include <stdlib.h>

#include "util/util.h"
#include "views/views.h"

static const char *const key_titles[] = {"Function", "Module", "Thread (pid/tid)", "Process"};

static void time_cell(ip_ttable *t, uint64_t ns) {
  char b[32];
  ip_fmt_ns(b, sizeof b, ns);
  ip_tt_add(t, "%s", b);
}

/* One group of columns: Non-App, the four causes, the fault count, Other. */
static void group(ip_ttable *t, uint64_t el, uint64_t app, const uint64_t *w) {
  uint64_t non_app = el > app ? el - app : 0;
  uint64_t known = w[IP_W_PREEMPTED] + w[IP_W_BLOCKED] + w[IP_W_SYSCALL] + w[IP_W_FAULT];
  time_cell(t, non_app);
  time_cell(t, w[IP_W_PREEMPTED]);
  time_cell(t, w[IP_W_BLOCKED]);
  time_cell(t, w[IP_W_SYSCALL]);
  time_cell(t, w[IP_W_FAULT]);
  ip_tt_add(t, "%llu", (unsigned long long)w[IP_W_FAULTS]);
  time_cell(t, non_app > known ? non_app - known : 0);
}

static void titles(ip_ttable *t, const char *which) {
  ip_tt_add(t, "Non-App %s", which);
  ip_tt_add(t, "Preempted");
  ip_tt_add(t, "Blocked");
  ip_tt_add(t, "Syscalls");
  ip_tt_add(t, "Faults");
  ip_tt_add(t, "Faults #");
  ip_tt_add(t, "Other");
}

void ip_view_wait(FILE *out, const ip_session *s, const ip_view_opts *o) {
  if (!ip_session_has_wait(s))
    fprintf(out, "note: no kernel-event records in this profile (recorded with transition mode "
                 "other than kevents, or by an older runtime): the wait columns are 0\n\n");
  ip_row *rows;
  size_t n = ip_aggregate(s, o->by, &o->sel, &rows);
  ip_rows_sort(s, o->by, rows, n, o->sort);
  if (o->top && o->top < n)
    n = o->top;
  ip_ttable t;
  ip_tt_init(&t, 10 + (o->exclusive ? 7 : 0));
  ip_tt_add(&t, "Calls");
  ip_tt_add(&t, "El Incl");
  titles(&t, "Incl");
  if (o->exclusive)
    titles(&t, "Excl");
  ip_tt_add(&t, "%s", key_titles[o->by]);
  for (size_t i = 0; i < n; i++) {
    const ip_values *v = &rows[i].v;
    ip_tt_add(&t, "%llu", (unsigned long long)v->calls);
    time_cell(&t, v->el_incl);
    group(&t, v->el_incl, v->app_incl, v->wait_incl);
    if (o->exclusive)
      group(&t, v->el_excl, v->app_excl, v->wait_excl);
    char buf[512];
    ip_tt_add(&t, "%s", ip_row_name(s, o->by, rows[i].key, buf, sizeof buf));
  }
  ip_tt_print_fit(&t, out, 0, o->width);
  ip_tt_free(&t);
  free(rows);
}
