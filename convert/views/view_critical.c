/* views/view_critical.c - `inclprof report --critical`: what the run's wall
 * time waited on.  A summary of the critical path (its time by kind: running,
 * waiting for a CPU, asleep with no traced waker, threads starting; the wake
 * edges it followed), then per function, module, thread or process its
 * Critical Exclusive and Inclusive time and their shares of the wall time,
 * sorted by Critical Exclusive; then the waits the path went through: per
 * pair of the sleeper's call and the waker's call at the wake, how often the
 * path jumped there and the time the path then spent behind the waker, and
 * all the sleeping such wake-ups ended, on the path or not; then, when the
 * trace has futex waits, the lock table: per synchronisation object the
 * time its holders spent on the path while others slept on it, and the
 * sleeping it caused (model/critical_locks.c). */
#include <stdlib.h>
#include <string.h>

#include "fnv1a.h"
#include "util/util.h"
#include "views/views.h"

static const char *const key_titles[] = {"Function", "Module", "Thread (pid/tid)", "Process"};

static void time_cell(ip_ttable *t, uint64_t ns) {
  char b[32];
  ip_fmt_ns(b, sizeof b, ns);
  ip_tt_add(t, "%s", b);
}

static void pct_cell(ip_ttable *t, uint64_t ns, uint64_t wall) {
  ip_tt_add(t, "%.1f%%", wall ? 100.0 * (double)ns / (double)wall : 0.0);
}

static void summary(FILE *out, const ip_critical *c) {
  char w[32], k[IP_CP_KINDS][32];
  ip_fmt_ns(w, sizeof w, c->wall_ns);
  for (int i = 0; i < IP_CP_KINDS; i++)
    ip_fmt_ns(k[i], sizeof k[i], c->kind_ns[i]);
  fprintf(out,
          "critical path: %s of wall time (%s)\n"
          "  running %s, waiting for a CPU %s, asleep with no traced waker %s, threads "
          "starting %s\n"
          "  wake edges followed: %llu (%llu of them a thread's exit ending a join); "
          "wake-ups of traced threads: %llu\n\n",
          w,
          c->snapshot ? "a snapshot: its slow call on its thread, from the call's start to its end"
                      : "each process from its main thread's first event to its last",
          k[IP_CP_RUN], k[IP_CP_RUNNABLE], k[IP_CP_EXTERNAL], k[IP_CP_START],
          (unsigned long long)c->jumps, (unsigned long long)c->exit_edges,
          (unsigned long long)c->edges);
}

static const char *node_name(const ip_session *s, const ip_thread *th, uint32_t node, char *buf,
                             size_t n) {
  return ip_call_site_name(s, th, node, buf, n);
}

/* One pair of the sleeper's call and the waker's call. */
typedef struct wait_row {
  uint64_t jumps, behind_ns, slept_ns, sleeps;
  char *key;     /* sleeper's call, tab, waker's call */
  uint32_t next; /* the previous row of the same key hash */
} wait_row;

static int cmp_wait(const void *a, const void *b) {
  const wait_row *x = a, *y = b;
  if (x->behind_ns != y->behind_ns)
    return x->behind_ns > y->behind_ns ? -1 : 1;
  if (x->slept_ns != y->slept_ns)
    return x->slept_ns > y->slept_ns ? -1 : 1;
  return strcmp(x->key, y->key);
}

/* The row of the pair named key, added if new (by: hash -> newest row of
 * that hash; rows of one hash chain through `next`). */
static wait_row *row_for(wait_row **rows, size_t *n, size_t *cap, ip_u64map *by, const char *key) {
  uint64_t h = ip_fnv1a64_str(IP_FNV1A64_BASIS, key);
  uint32_t first = ip_u64map_get(by, h);
  for (uint32_t i = first; i != UINT32_MAX; i = (*rows)[i].next)
    if (!strcmp((*rows)[i].key, key))
      return &(*rows)[i];
  ip_must_grow((void **)rows, cap, *n + 1, sizeof **rows);
  wait_row *r = &(*rows)[*n];
  memset(r, 0, sizeof *r);
  r->key = ip_must_strdup(key);
  r->next = first;
  ip_u64map_put(by, h, (uint32_t)(*n)++);
  return r;
}

/* The rows found so far, as the sleeps and jumps add to them. */
typedef struct wait_tally {
  const ip_session *s;
  wait_row *rows;
  size_t n, cap;
  ip_u64map by;
} wait_tally;

/* The row of a sleep of sleeper ended by waker's call (or its exit). */
static wait_row *pair_row(wait_tally *t, const ip_thread *sleeper, const ip_offcpu *o,
                          const ip_thread *waker) {
  char a[256], b[256], key[600];
  snprintf(key, sizeof key, "%s\t%s%s", node_name(t->s, sleeper, o->out_node, a, sizeof a),
           o->exit_edge ? "[thread exit] " : "",
           o->exit_edge ? waker->name ? waker->name : ""
                        : node_name(t->s, waker, o->wake_node, b, sizeof b));
  return row_for(&t->rows, &t->n, &t->cap, &t->by, key);
}

/* A sleep a traced thread ended: its pair's sleeps and time. */
static void on_sleep(void *ctx, uint32_t i, const ip_offcpu *o, uint32_t w) {
  wait_tally *t = ctx;
  if (!o->blocked || w == IP_NO_THREAD)
    return;
  wait_row *r = pair_row(t, &t->s->threads[i], o, &t->s->threads[w]);
  r->sleeps++;
  r->slept_ns += (uint64_t)((double)(o->in - o->out) * ip_critical_tick_ns(t->s, i));
}

/* A jump of the path from a woken thread to its waker: its pair's jumps and
 * the time the sleeper waited behind the wake-up. */
static void on_jump(void *ctx, const ip_cp_piece *p, const ip_offcpu *o) {
  wait_tally *t = ctx;
  wait_row *r = pair_row(t, &t->s->threads[p->woke], o, &t->s->threads[p->thread]);
  r->jumps++;
  r->behind_ns += (uint64_t)((double)(o->wake > o->out ? o->wake - o->out : 0) *
                             ip_critical_tick_ns(t->s, p->woke));
}

/* The waits: every sleep a traced thread ended, grouped by the sleeper's
 * and the waker's calls, with the path's jumps through them. */
static void waits(FILE *out, const ip_session *s, const ip_critical *c, size_t top, size_t width) {
  wait_tally tally = {.s = s};
  ip_critical_each_sleep(s, c, on_sleep, &tally);
  ip_critical_each_jump(c, on_jump, &tally);
  wait_row *rows = tally.rows;
  size_t n = tally.n;
  ip_u64map_free(&tally.by);
  if (!n)
    return;
  qsort(rows, n, sizeof *rows, cmp_wait);
  fprintf(out, "\nwaits ended by a traced thread (sleeper's call < its caller; waker's call at the "
               "wake-up):\n");
  ip_ttable t;
  ip_tt_init(&t, 6);
  ip_tt_add(&t, "On path");
  ip_tt_add(&t, "Behind waker");
  ip_tt_add(&t, "Sleeps");
  ip_tt_add(&t, "Slept");
  ip_tt_add(&t, "Sleeper");
  ip_tt_add(&t, "Woken by");
  for (size_t i = 0; i < n && (!top || i < top); i++) {
    ip_tt_add(&t, "%llu", (unsigned long long)rows[i].jumps);
    time_cell(&t, rows[i].behind_ns);
    ip_tt_add(&t, "%llu", (unsigned long long)rows[i].sleeps);
    time_cell(&t, rows[i].slept_ns);
    char *tab = strchr(rows[i].key, '\t');
    *tab = 0;
    ip_tt_add(&t, "%s", rows[i].key);
    ip_tt_add(&t, "%s", tab + 1);
  }
  ip_tt_print_fit(&t, out, 0, width);
  ip_tt_free(&t);
  for (size_t i = 0; i < n; i++)
    free(rows[i].key);
  free(rows);
}

/* What a lock-table row's object is: "lock1 0x5581...", "0x7f12..." (not a
 * global), "futex word 0x..." (its object's layout is not known), "thread
 * TID (NAME)" (a join). */
static void object_text(const ip_session *s, const ip_lock_row *r, char *buf, size_t n) {
  if (r->exit_thread != IP_NO_THREAD) {
    const ip_thread *t = &s->threads[r->exit_thread];
    snprintf(buf, n, "thread %u%s%s%s", t->tid, t->name ? " (" : "", t->name ? t->name : "",
             t->name ? ")" : "");
  } else if (r->how == IP_LOCK_WORD)
    snprintf(buf, n, "futex word 0x%llx%s%s", (unsigned long long)r->object,
             r->name[0] ? " in " : "", r->name);
  else
    snprintf(buf, n, "%s%s0x%llx", r->name, r->name[0] ? " " : "", (unsigned long long)r->object);
}

static void site_text(const ip_session *s, uint32_t thread, uint32_t node, uint32_t sites,
                      char *buf, size_t n) {
  char a[256];
  if (thread == IP_NO_THREAD) {
    snprintf(buf, n, "-");
    return;
  }
  node_name(s, &s->threads[thread], node, a, sizeof a);
  if (sites > 1)
    snprintf(buf, n, "%s (+%u more)", a, sites - 1);
  else
    snprintf(buf, n, "%s", a);
}

/* The lock table: per object, sorted by the holders' time on the path. */
static void locks(FILE *out, const ip_session *s, const ip_critical *c, size_t top, size_t width) {
  int any = 0;
  for (size_t p = 0; p < s->n_processes; p++)
    any |= s->processes[p].futex_waits;
  if (!any)
    return;
  ip_lock_row *rows;
  size_t n = ip_critical_locks(s, c, &rows);
  fprintf(out,
          "\nlock table (objects slept on in a futex wait: the holders' time on the path while "
          "others slept on it; the sleeping it caused):\n");
  if (!n) {
    fprintf(out, "  no thread slept in a futex wait\n");
    free(rows);
    return;
  }
  ip_ttable t;
  ip_tt_init(&t, 7);
  ip_tt_add(&t, "Held on path");
  ip_tt_add(&t, "On path");
  ip_tt_add(&t, "Waits");
  ip_tt_add(&t, "Waited");
  ip_tt_add(&t, "Object");
  ip_tt_add(&t, "Waited in");
  ip_tt_add(&t, "Released by");
  for (size_t i = 0; i < n && (!top || i < top); i++) {
    const ip_lock_row *r = &rows[i];
    char obj[256], a[320], b[320];
    time_cell(&t, r->crit_ns);
    ip_tt_add(&t, "%llu", (unsigned long long)r->jumps);
    ip_tt_add(&t, "%llu", (unsigned long long)r->waits);
    time_cell(&t, r->waited_ns);
    object_text(s, r, obj, sizeof obj);
    ip_tt_add(&t, "%s", obj);
    site_text(s, r->waiter_thread, r->waiter_node, r->n_waiter_sites, a, sizeof a);
    ip_tt_add(&t, "%s", a);
    if (r->exit_thread != IP_NO_THREAD)
      snprintf(b, sizeof b, "[thread exit]");
    else
      site_text(s, r->holder_thread, r->holder_node, r->n_holder_sites, b, sizeof b);
    ip_tt_add(&t, "%s", b);
  }
  ip_tt_print_fit(&t, out, 0, width);
  ip_tt_free(&t);
  free(rows);
}

void ip_view_critical(FILE *out, const ip_session *s, const ip_view_opts *o, const ip_critical *c) {
  summary(out, c);
  ip_row *rows;
  size_t n = ip_aggregate(s, o->by, &o->sel, &rows), kept = 0;
  for (size_t i = 0; i < n; i++)
    if (rows[i].v.crit_incl)
      rows[kept++] = rows[i];
  ip_rows_sort(s, o->by, rows, kept, o->sort);
  if (o->top && o->top < kept)
    kept = o->top;
  ip_ttable t;
  ip_tt_init(&t, 6);
  ip_tt_add(&t, "Crit Excl");
  ip_tt_add(&t, "%%Wall");
  ip_tt_add(&t, "Crit Incl");
  ip_tt_add(&t, "%%Wall");
  ip_tt_add(&t, "El Incl");
  ip_tt_add(&t, "%s", key_titles[o->by]);
  for (size_t i = 0; i < kept; i++) {
    const ip_values *v = &rows[i].v;
    time_cell(&t, v->crit_excl);
    pct_cell(&t, v->crit_excl, c->wall_ns);
    time_cell(&t, v->crit_incl);
    pct_cell(&t, v->crit_incl, c->wall_ns);
    time_cell(&t, v->el_incl);
    char buf[512];
    ip_tt_add(&t, "%s", ip_row_name(s, o->by, rows[i].key, buf, sizeof buf));
  }
  ip_tt_print_fit(&t, out, 0, o->width);
  ip_tt_free(&t);
  free(rows);
  waits(out, s, c, o->top, o->width);
  locks(out, s, c, o->top, o->width);
}

void ip_view_what_if(FILE *out, const ip_session *s, const ip_critical *c, const char *fn,
                     double factor) {
  uint64_t observed, predicted;
  ip_whatif_predict(s, c, factor, &observed, &predicted);
  char o[32], p[32], crit[32];
  ip_fmt_ns(o, sizeof o, observed);
  ip_fmt_ns(p, sizeof p, predicted);
  uint64_t on_path = 0;
  ip_row *rows;
  size_t n = ip_aggregate(s, IP_BY_FUNCTION, NULL, &rows);
  for (size_t i = 0; i < n; i++)
    if (c->n_whatif_target > rows[i].key && c->whatif_target[rows[i].key])
      on_path += rows[i].v.crit_incl;
  free(rows);
  ip_fmt_ns(crit, sizeof crit, on_path);
  fprintf(out,
          "what if %s ran %g times faster (an estimate: it keeps the observed order of the "
          "wake-ups and the machine's load):\n"
          "  wall time observed  %s\n"
          "  wall time predicted %s (%+.1f%%)\n"
          "  %s was on the critical path for %s (Critical Inclusive)\n",
          fn, factor, o, p,
          observed ? 100.0 * ((double)predicted - (double)observed) / (double)observed : 0.0, fn,
          crit);
}
