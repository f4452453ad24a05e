/* views/fields.c - the columns of the report's value tables (the table per
 * level, --tree, --callers, --callees, --wait), by the names --fields takes:
 * each one's title and cell, and what a row must be for it (a thread for
 * its wall time, a function for its module).  A % column is the share of
 * the session's Inclusive total of its kind; a wait column is Inclusive
 * unless its name ends in -excl. */
#include <string.h>

#include "util/util.h"
#include "views/views.h"

enum { ANY, THREADS, FUNCTIONS }; /* the rows a field needs */

static const struct {
  const char *name, *title;
  int rows;
} fields[IP_F_N] = {
    [IP_F_CALLS] = {"calls", "Calls", ANY},
    [IP_F_EL_INCL] = {"el-incl", "El Incl", ANY},
    [IP_F_EL_INCL_PCT] = {"el-incl%", "El Incl%", ANY},
    [IP_F_EL_EXCL] = {"el-excl", "El Excl", ANY},
    [IP_F_EL_EXCL_PCT] = {"el-excl%", "El Excl%", ANY},
    [IP_F_APP_INCL] = {"app-incl", "App Incl", ANY},
    [IP_F_APP_INCL_PCT] = {"app-incl%", "App Incl%", ANY},
    [IP_F_APP_EXCL] = {"app-excl", "App Excl", ANY},
    [IP_F_APP_EXCL_PCT] = {"app-excl%", "App Excl%", ANY},
    [IP_F_SMP_INCL] = {"smp-incl", "Smp Incl", ANY},
    [IP_F_SMP_INCL_PCT] = {"smp-incl%", "Smp Incl%", ANY},
    [IP_F_SMP_EXCL] = {"smp-excl", "Smp Excl", ANY},
    [IP_F_SMP_EXCL_PCT] = {"smp-excl%", "Smp Excl%", ANY},
    [IP_F_AVG] = {"avg", "Avg Incl", ANY},
    [IP_F_MIN] = {"min", "Min Incl", ANY},
    [IP_F_MAX] = {"max", "Max Incl", ANY},
    [IP_F_WALL] = {"wall", "Wall", THREADS},
    [IP_F_EL_WALL] = {"el/wall", "El/Wall", THREADS},
    [IP_F_APP_WALL] = {"app/wall", "App/Wall", THREADS},
    [IP_F_NON_APP] = {"non-app", "Non-App Incl", ANY},
    [IP_F_PREEMPTED] = {"preempted", "Preempted", ANY},
    [IP_F_BLOCKED] = {"blocked", "Blocked", ANY},
    [IP_F_SYSCALLS] = {"syscalls", "Syscalls", ANY},
    [IP_F_FAULTS] = {"faults", "Faults", ANY},
    [IP_F_FAULT_COUNT] = {"faults#", "Faults #", ANY},
    [IP_F_OTHER] = {"other", "Other", ANY},
    [IP_F_NON_APP_EXCL] = {"non-app-excl", "Non-App Excl", ANY},
    [IP_F_PREEMPTED_EXCL] = {"preempted-excl", "Preempted", ANY},
    [IP_F_BLOCKED_EXCL] = {"blocked-excl", "Blocked", ANY},
    [IP_F_SYSCALLS_EXCL] = {"syscalls-excl", "Syscalls", ANY},
    [IP_F_FAULTS_EXCL] = {"faults-excl", "Faults", ANY},
    [IP_F_FAULT_COUNT_EXCL] = {"faults#-excl", "Faults #", ANY},
    [IP_F_OTHER_EXCL] = {"other-excl", "Other", ANY},
    [IP_F_MODULE] = {"module", "Module", FUNCTIONS},
};

const char *ip_field_title(ip_field f) { return fields[f].title; }

int ip_fields_parse(const char *list, ip_fields *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ",");
    size_t f = 0;
    while (f < IP_F_N && (strlen(fields[f].name) != len || strncmp(fields[f].name, p, len)))
      f++;
    if (f == IP_F_N || !len) {
      snprintf(err, errlen, "no field '%.*s'", (int)len, p);
      return -1;
    }
    for (size_t k = 0; k < out->n; k++)
      if (out->f[k] == (ip_field)f) {
        snprintf(err, errlen, "field '%.*s' given twice", (int)len, p);
        return -1;
      }
    out->f[out->n++] = (ip_field)f;
    p += len + (p[len] == ',');
  }
  if (!out->n) {
    snprintf(err, errlen, "no field named");
    return -1;
  }
  return 0;
}

int ip_fields_check(const ip_fields *f, ip_level rows, char *err, size_t errlen) {
  for (size_t k = 0; k < f->n; k++) {
    int need = fields[f->f[k]].rows;
    if ((need == THREADS && rows != IP_BY_THREAD) ||
        (need == FUNCTIONS && rows != IP_BY_FUNCTION)) {
      snprintf(err, errlen, "field '%s' goes with %s rows", fields[f->f[k]].name,
               need == THREADS ? "thread (--by thread)" : "function");
      return -1;
    }
  }
  return 0;
}

static void time_cell(ip_ttable *t, uint64_t ns) {
  char b[32];
  ip_fmt_ns(b, sizeof b, ns);
  ip_tt_add(t, "%s", b);
}

static void pct_cell(ip_ttable *t, uint64_t v, uint64_t total) {
  char b[32];
  ip_fmt_pct(b, sizeof b, ip_pct(v, total));
  ip_tt_add(t, "%s", b);
}

/* Elapsed - Application of one kind, and what none of the causes explains. */
static uint64_t non_app(uint64_t el, uint64_t app) { return el > app ? el - app : 0; }
uint64_t ip_field_other(uint64_t el, uint64_t app, const uint64_t *w) {
  uint64_t known = w[IP_W_PREEMPTED] + w[IP_W_BLOCKED] + w[IP_W_SYSCALL] + w[IP_W_FAULT];
  return non_app(el, app) > known ? non_app(el, app) - known : 0;
}

void ip_field_cell(ip_ttable *t, ip_field f, const ip_session *s, const ip_values *v,
                   const ip_thread *th) {
  const ip_values *tot = &s->total;
  uint64_t wall = th && th->end_ns > th->start_ns ? th->end_ns - th->start_ns : 0;
  switch (f) {
  case IP_F_CALLS:
    ip_tt_add(t, "%llu", (unsigned long long)v->calls);
    return;
  case IP_F_EL_INCL:
    return time_cell(t, v->el_incl);
  case IP_F_EL_INCL_PCT:
    return pct_cell(t, v->el_incl, tot->el_incl);
  case IP_F_EL_EXCL:
    return time_cell(t, v->el_excl);
  case IP_F_EL_EXCL_PCT:
    return pct_cell(t, v->el_excl, tot->el_incl);
  case IP_F_APP_INCL:
    return time_cell(t, v->app_incl);
  case IP_F_APP_INCL_PCT:
    return pct_cell(t, v->app_incl, tot->app_incl);
  case IP_F_APP_EXCL:
    return time_cell(t, v->app_excl);
  case IP_F_APP_EXCL_PCT:
    return pct_cell(t, v->app_excl, tot->app_incl);
  case IP_F_SMP_INCL:
  case IP_F_SMP_EXCL:
    ip_tt_add(t, "%llu", (unsigned long long)(f == IP_F_SMP_INCL ? v->smp_incl : v->smp_excl));
    return;
  case IP_F_SMP_INCL_PCT:
    return pct_cell(t, v->smp_incl, tot->smp_incl);
  case IP_F_SMP_EXCL_PCT:
    return pct_cell(t, v->smp_excl, tot->smp_incl);
  case IP_F_AVG:
    return time_cell(t, v->calls ? v->el_incl / v->calls : 0);
  case IP_F_MIN:
    return time_cell(t, v->min_call);
  case IP_F_MAX:
    return time_cell(t, v->max_call);
  case IP_F_WALL:
    return time_cell(t, wall);
  case IP_F_EL_WALL:
    return pct_cell(t, v->el_incl, wall);
  case IP_F_APP_WALL:
    return pct_cell(t, v->app_incl, wall);
  case IP_F_NON_APP:
    return time_cell(t, non_app(v->el_incl, v->app_incl));
  case IP_F_NON_APP_EXCL:
    return time_cell(t, non_app(v->el_excl, v->app_excl));
  case IP_F_PREEMPTED:
    return time_cell(t, v->wait_incl[IP_W_PREEMPTED]);
  case IP_F_PREEMPTED_EXCL:
    return time_cell(t, v->wait_excl[IP_W_PREEMPTED]);
  case IP_F_BLOCKED:
    return time_cell(t, v->wait_incl[IP_W_BLOCKED]);
  case IP_F_BLOCKED_EXCL:
    return time_cell(t, v->wait_excl[IP_W_BLOCKED]);
  case IP_F_SYSCALLS:
    return time_cell(t, v->wait_incl[IP_W_SYSCALL]);
  case IP_F_SYSCALLS_EXCL:
    return time_cell(t, v->wait_excl[IP_W_SYSCALL]);
  case IP_F_FAULTS:
    return time_cell(t, v->wait_incl[IP_W_FAULT]);
  case IP_F_FAULTS_EXCL:
    return time_cell(t, v->wait_excl[IP_W_FAULT]);
  case IP_F_FAULT_COUNT:
  case IP_F_FAULT_COUNT_EXCL:
    ip_tt_add(
        t, "%llu",
        (unsigned long long)(f == IP_F_FAULT_COUNT ? v->wait_incl : v->wait_excl)[IP_W_FAULTS]);
    return;
  case IP_F_OTHER:
    return time_cell(t, ip_field_other(v->el_incl, v->app_incl, v->wait_incl));
  case IP_F_OTHER_EXCL:
    return time_cell(t, ip_field_other(v->el_excl, v->app_excl, v->wait_excl));
  default: /* the module is filled in when the table is printed */
    ip_tt_add(t, "%s", "");
  }
}
