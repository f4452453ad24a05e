/* test_export_fixture.h - a hand-built ip_session for the export tests, so
 * the writers are checked against values known in advance rather than
 * against the replay's output.
 *
 * Process 100 "/usr/bin/demo", modules "/usr/bin/demo" and "/lib/libc.so.6".
 * Thread 100 "main" (a three-level example): Elapsed excl / app excl / samples
 *   main                                     50 / 40 / 0     (1 call)
 *   main;foo                                200 / 150 / 1    (1 call)
 *   main;foo;bar                            250 / 250 / 3    (2 calls)
 * Thread 101 "worker" (recursion, a library callee, time outside functions):
 *   (no function)                             7 / 7 / 0
 *   fact                                     10 / 10 / 0     (1 call)
 *   fact;fact                                20 / 20 / 0     (1 call)
 *   fact;fact;fact                           30 / 30 / 2     (1 call)
 *   fact;fact;fact;write                     40 / 0 / 0      (1 call)
 *   fact;fact;fact;ns::Box<...>              5 / 5 / 0       (3 calls)
 * Per function: main 500/50, foo 450/200, bar 250/250, fact 105/60,
 * write 40/40, Box 5/5 (Elapsed Inclusive / Exclusive).  Totals: thread
 * 100: 500, thread 101: 112, session 612. */
#ifndef INCLPROF_TEST_EXPORT_FIXTURE_H
#define INCLPROF_TEST_EXPORT_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "model/profile.h"

enum { FX_MAIN, FX_FOO, FX_BAR, FX_FACT, FX_WRITE, FX_BOX, FX_NFUNCS };
#define FX_BOX_NAME "ns::Box<int, \"q\\\\\">::get() const"

static char *fx_dup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (!d)
    abort();
  memcpy(d, s, n);
  return d;
}

static void fx_func(ip_session *s, int i, const char *name, const char *pretty, const char *file,
                    uint32_t line, uint32_t module) {
  s->funcs[i] =
      (ip_func){fx_dup(name), fx_dup(pretty), fx_dup(file), line, module, 1, (uint64_t)i + 1000};
}

/* Adds a node under parent with the given exclusive values. */
static uint32_t fx_node(ip_thread *t, uint32_t parent, uint32_t func, uint64_t calls, uint64_t el,
                        uint64_t app, uint64_t smp) {
  uint32_t k = (uint32_t)t->n_nodes++;
  t->nodes = realloc(t->nodes, t->n_nodes * sizeof *t->nodes);
  if (!t->nodes)
    abort();
  ip_node *n = &t->nodes[k];
  memset(n, 0, sizeof *n);
  n->func = func;
  n->parent = parent;
  n->first_child = IP_NO_NODE;
  n->next_sibling = IP_NO_NODE;
  n->v.calls = calls;
  n->v.el_excl = el;
  n->v.app_excl = app;
  n->v.smp_excl = smp;
  if (parent != IP_NO_NODE) {
    /* append as the last child, so walks follow insertion order */
    uint32_t *link = &t->nodes[parent].first_child;
    while (*link != IP_NO_NODE)
      link = &t->nodes[*link].next_sibling;
    *link = k;
  }
  return k;
}

/* Inclusive values of every node, per-function values (inclusive once per
 * path even under recursion) and the thread and session totals. */
static void fx_finish_thread(ip_session *s, ip_thread *t) {
  t->n_fn = s->n_funcs;
  t->fn = calloc(s->n_funcs, sizeof *t->fn);
  for (size_t f = 0; f < s->n_funcs; f++)
    t->fn[f].func = (uint32_t)f;
  for (size_t k = 0; k < t->n_nodes; k++) {
    const ip_values *x = &t->nodes[k].v;
    int seen[FX_NFUNCS] = {0};
    for (uint32_t a = (uint32_t)k; a != IP_NO_NODE; a = t->nodes[a].parent) {
      ip_node *anc = &t->nodes[a];
      anc->v.el_incl += x->el_excl;
      anc->v.app_incl += x->app_excl;
      anc->v.smp_incl += x->smp_excl;
      if (anc->func == UINT32_MAX || seen[anc->func]++)
        continue;
      t->fn[anc->func].v.el_incl += x->el_excl;
      t->fn[anc->func].v.app_incl += x->app_excl;
      t->fn[anc->func].v.smp_incl += x->smp_excl;
    }
    if (t->nodes[k].func != UINT32_MAX) {
      ip_values *f = &t->fn[t->nodes[k].func].v;
      f->calls += x->calls;
      f->el_excl += x->el_excl;
      f->app_excl += x->app_excl;
      f->smp_excl += x->smp_excl;
    }
  }
  t->total = t->nodes[0].v;
  s->total.el_incl += t->total.el_incl;
  s->total.app_incl += t->total.app_incl;
  s->total.smp_incl += t->total.smp_incl;
  if (t->end_ns < t->total.el_incl)
    t->end_ns = t->start_ns + t->total.el_incl;
}

static ip_thread *fx_thread(ip_session *s, uint32_t tid, const char *name, uint64_t root_el) {
  ip_thread *t = &s->threads[s->n_threads++];
  memset(t, 0, sizeof *t);
  t->tid = tid;
  t->name = fx_dup(name);
  fx_node(t, IP_NO_NODE, UINT32_MAX, 0, root_el, root_el, 0);
  return t;
}

/* The session described above; free it with ip_session_free. */
static void fx_session(ip_session *s) {
  memset(s, 0, sizeof *s);
  s->n_modules = 2;
  s->modules = calloc(2, sizeof *s->modules);
  s->modules[0].path = fx_dup("/usr/bin/demo");
  s->modules[1].path = fx_dup("/lib/libc.so.6");
  s->n_funcs = FX_NFUNCS;
  s->funcs = calloc(FX_NFUNCS, sizeof *s->funcs);
  fx_func(s, FX_MAIN, "main", "main", "demo.c", 30, 0);
  fx_func(s, FX_FOO, "foo", "foo", "demo.c", 20, 0);
  fx_func(s, FX_BAR, "bar", "bar", "demo.c", 10, 0);
  fx_func(s, FX_FACT, "_Z4facti", "fact(int)", "demo.c", 40, 0);
  fx_func(s, FX_WRITE, "write", "write", "", 0, 1);
  fx_func(s, FX_BOX, "_ZNK2ns3BoxIiE3getEv", FX_BOX_NAME, "box.hpp", 7, 0);
  s->n_processes = 1;
  s->processes = calloc(1, sizeof *s->processes);
  s->processes[0].pid = 100;
  s->processes[0].executable = fx_dup("/usr/bin/demo");
  s->processes[0].cmdline = fx_dup("/usr/bin/demo --fast");
  s->processes[0].start_unix_ns = 1700000000000000000ull;
  s->processes[0].sample_hz = 1000;
  s->threads = calloc(2, sizeof *s->threads);
  s->compensated = 1;

  ip_thread *t = fx_thread(s, 100, "main", 0);
  uint32_t m = fx_node(t, 0, FX_MAIN, 1, 50, 40, 0);
  uint32_t f = fx_node(t, m, FX_FOO, 1, 200, 150, 1);
  fx_node(t, f, FX_BAR, 2, 250, 250, 3);
  fx_finish_thread(s, t);

  t = fx_thread(s, 101, "worker", 7);
  t->start_ns = 100;
  uint32_t a = fx_node(t, 0, FX_FACT, 1, 10, 10, 0);
  uint32_t b = fx_node(t, a, FX_FACT, 1, 20, 20, 0);
  uint32_t c = fx_node(t, b, FX_FACT, 1, 30, 30, 2);
  fx_node(t, c, FX_WRITE, 1, 40, 0, 0);
  fx_node(t, c, FX_BOX, 3, 5, 5, 0);
  fx_finish_thread(s, t);
}

#endif
