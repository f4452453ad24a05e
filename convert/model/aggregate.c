/* model/aggregate.c - per-level sums of the data values, filters and sorting (see
 * model/aggregate.h).  Function and module values are kept per thread by the
 * replay; summing threads gives the session, process or filtered values. */
#include "model/aggregate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static const char *const level_names[] = {"function", "module", "thread", "process"};

int ip_level_parse(const char *s, ip_level *out) {
  for (size_t i = 0; i < sizeof level_names / sizeof *level_names; i++)
    if (!strcmp(s, level_names[i])) {
      *out = (ip_level)i;
      return 0;
    }
  return -1;
}

const char *ip_level_name(ip_level l) { return level_names[l]; }

static int has_values(const ip_values *v) { return v->calls || v->el_incl || v->smp_incl; }

size_t ip_aggregate(const ip_session *s, ip_level l, const ip_selection *sel, ip_row **rows) {
  size_t nkeys = l == IP_BY_FUNCTION ? s->n_funcs
                 : l == IP_BY_MODULE ? s->n_modules
                 : l == IP_BY_THREAD ? s->n_threads
                                     : s->n_processes;
  ip_values *sum = ip_must_calloc(nkeys, sizeof *sum);
  if (s->sums_folded && (l == IP_BY_FUNCTION || l == IP_BY_MODULE)) { /* no thread has its own */
    const ip_values *from = l == IP_BY_FUNCTION ? s->fn_sums : s->mod_sums;
    size_t n = l == IP_BY_FUNCTION ? s->n_fn_sums : s->n_mod_sums;
    for (size_t k = 0; k < n && k < nkeys; k++)
      ip_values_add(&sum[k], &from[k]);
  }
  for (size_t i = 0; i < s->n_threads; i++) {
    const ip_thread *t = &s->threads[i];
    if (!ip_selected_thread(s, sel, t))
      continue;
    if (l == IP_BY_FUNCTION)
      for (size_t f = 0; f < t->n_fn; f++)
        ip_values_add(&sum[t->fn[f].func], &t->fn[f].v);
    else if (l == IP_BY_MODULE)
      for (size_t m = 0; m < t->n_mod; m++)
        ip_values_add(&sum[m], &t->mod[m]);
    else
      ip_values_add(&sum[l == IP_BY_THREAD ? i : t->process], &t->total);
  }
  ip_row *r = ip_must_calloc(nkeys, sizeof *r);
  size_t n = 0;
  for (size_t k = 0; k < nkeys; k++)
    if (has_values(&sum[k])) {
      r[n].key = (uint32_t)k;
      r[n++].v = sum[k];
    }
  free(sum);
  *rows = r;
  return n;
}

const char *ip_row_name(const ip_session *s, ip_level l, uint32_t key, char *buf, size_t n) {
  switch (l) {
  case IP_BY_FUNCTION:
    return s->funcs[key].pretty;
  case IP_BY_MODULE:
    return s->modules[key].path;
  case IP_BY_THREAD: {
    const ip_thread *t = &s->threads[key];
    snprintf(buf, n, "%u/%u%s%s%s", s->processes[t->process].pid, t->tid, t->name ? " (" : "",
             t->name ? t->name : "", t->name ? ")" : "");
    return buf;
  }
  default:
    return ip_process_label(s, key, buf, n);
  }
}

static const struct {
  const char *name, *alias;
  ip_sort by;
} sort_names[] = {
    {"elapsed-inclusive", "elapsed_inclusive_ns", IP_SORT_ELAPSED_INCL},
    {"elapsed-exclusive", "elapsed_exclusive_ns", IP_SORT_ELAPSED_EXCL},
    {"application-inclusive", "application_inclusive_ns", IP_SORT_APP_INCL},
    {"application-exclusive", "application_exclusive_ns", IP_SORT_APP_EXCL},
    {"calls", "calls", IP_SORT_CALLS},
    {"inclusive-samples", "inclusive_samples", IP_SORT_SAMPLES_INCL},
    {"exclusive-samples", "exclusive_samples", IP_SORT_SAMPLES_EXCL},
    {"avg", "average", IP_SORT_AVG},
    {"max", "maximum", IP_SORT_MAX},
    {"name", "function", IP_SORT_NAME},
    {"non-application-inclusive", "non_application_inclusive_ns", IP_SORT_NON_APP_INCL},
    {"offcpu-preempted", "offcpu_preempted_inclusive_ns", IP_SORT_PREEMPTED},
    {"offcpu-blocked", "offcpu_blocked_inclusive_ns", IP_SORT_BLOCKED},
    {"syscall", "syscall_inclusive_ns", IP_SORT_SYSCALL},
    {"page-fault", "page_fault_inclusive_ns", IP_SORT_FAULT},
    {"critical-exclusive", "critical_exclusive_ns", IP_SORT_CRIT_EXCL},
    {"critical-inclusive", "critical_inclusive_ns", IP_SORT_CRIT_INCL},
};

int ip_sort_parse(const char *s, ip_sort *out) {
  for (size_t i = 0; i < sizeof sort_names / sizeof *sort_names; i++)
    if (!strcmp(s, sort_names[i].name) || !strcmp(s, sort_names[i].alias)) {
      *out = sort_names[i].by;
      return 0;
    }
  return -1;
}

static uint64_t sort_value(const ip_values *v, ip_sort by) {
  switch (by) {
  case IP_SORT_ELAPSED_INCL:
    return v->el_incl;
  case IP_SORT_ELAPSED_EXCL:
    return v->el_excl;
  case IP_SORT_APP_INCL:
    return v->app_incl;
  case IP_SORT_APP_EXCL:
    return v->app_excl;
  case IP_SORT_CALLS:
    return v->calls;
  case IP_SORT_SAMPLES_INCL:
    return v->smp_incl;
  case IP_SORT_SAMPLES_EXCL:
    return v->smp_excl;
  case IP_SORT_AVG:
    return v->calls ? v->el_incl / v->calls : 0;
  case IP_SORT_MAX:
    return v->max_call;
  case IP_SORT_NON_APP_INCL:
    return v->el_incl > v->app_incl ? v->el_incl - v->app_incl : 0;
  case IP_SORT_PREEMPTED:
  case IP_SORT_BLOCKED:
  case IP_SORT_SYSCALL:
  case IP_SORT_FAULT:
    return v->wait_incl[IP_W_PREEMPTED + (by - IP_SORT_PREEMPTED)];
  case IP_SORT_CRIT_EXCL:
    return v->crit_excl;
  case IP_SORT_CRIT_INCL:
    return v->crit_incl;
  default:
    return 0;
  }
}

typedef struct sort_ctx {
  const ip_session *s;
  ip_level l;
  ip_sort by;
} sort_ctx;

static int compare_rows(const void *pa, const void *pb, void *pc) {
  const ip_row *a = pa, *b = pb;
  const sort_ctx *c = pc;
  uint64_t x = sort_value(&a->v, c->by), y = sort_value(&b->v, c->by);
  if (x != y)
    return x > y ? -1 : 1;
  char ba[256], bb[256];
  int d = strcmp(ip_row_name(c->s, c->l, a->key, ba, sizeof ba),
                 ip_row_name(c->s, c->l, b->key, bb, sizeof bb));
  return d ? d : (a->key > b->key) - (a->key < b->key);
}

void ip_rows_sort(const ip_session *s, ip_level l, ip_row *rows, size_t n, ip_sort by) {
  sort_ctx c = {s, l, by};
  qsort_r(rows, n, sizeof *rows, compare_rows, &c);
}
