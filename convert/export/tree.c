/* export/tree.c - selecting, merging and walking the threads' call trees. */
#include "export/tree.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "util/util.h"

void ip_thread_label(const ip_thread *t, char *buf, size_t len) {
  if (t->name && *t->name)
    snprintf(buf, len, "thread %" PRIu32 " (%s)", t->tid, t->name);
  else
    snprintf(buf, len, "thread %" PRIu32, t->tid);
}

void ip_tree_walk(const ip_tree_view *v, ip_path_fn fn, void *ctx) {
  size_t cap = 64, depth = 0;
  uint32_t *path = ip_must_realloc(NULL, cap, sizeof *path);
  uint32_t next = v->n_nodes ? v->nodes[0].first_child : IP_NO_NODE;
  for (;;) {
    if (next != IP_NO_NODE && next < v->n_nodes) {
      if (depth == cap)
        path = ip_must_realloc(path, cap *= 2, sizeof *path);
      path[depth++] = next;
      fn(ctx, v, path, depth);
      next = v->nodes[next].first_child;
      continue;
    }
    if (!depth)
      break;
    next = v->nodes[path[--depth]].next_sibling;
  }
  free(path);
}

uint32_t ip_tree_view_node(const ip_tree_view *v, const ip_thread *t, uint32_t node) {
  if (v->thread == t)
    return node;
  size_t depth = 0, cap = 64;
  uint32_t *chain = ip_must_realloc(NULL, cap, sizeof *chain); /* node's frames, innermost first */
  for (uint32_t k = node; k && k != IP_NO_NODE && k < t->n_nodes; k = t->nodes[k].parent) {
    if (depth == cap)
      chain = ip_must_realloc(chain, cap *= 2, sizeof *chain);
    chain[depth++] = k;
  }
  uint32_t at = 0;
  while (depth && at != IP_NO_NODE) {
    uint32_t func = t->nodes[chain[--depth]].func, c = v->nodes[at].first_child;
    while (c != IP_NO_NODE && v->nodes[c].func != func)
      c = v->nodes[c].next_sibling;
    at = c;
  }
  free(chain);
  return at;
}

static size_t slot_of(const ip_tree_merger *m, uint32_t parent, uint32_t func) {
  uint64_t h =
      ((uint64_t)parent * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)func * 0xC2B2AE3D27D4EB4Full);
  size_t mask = m->n_slots - 1, i = (size_t)(h ^ (h >> 29)) & mask;
  while (m->slots[i]) {
    const ip_node *x = &m->nodes[m->slots[i] - 1];
    if (x->parent == parent && x->func == func)
      break;
    i = (i + 1) & mask;
  }
  return i;
}

static void merger_grow(ip_tree_merger *m) {
  free(m->slots);
  m->n_slots = m->n_slots ? 2 * m->n_slots : 256;
  m->slots = ip_must_calloc(m->n_slots, sizeof *m->slots);
  for (size_t k = 1; k < m->n; k++) /* the root (0) is never looked up */
    m->slots[slot_of(m, m->nodes[k].parent, m->nodes[k].func)] = (uint32_t)k + 1;
}

static uint32_t merger_child(ip_tree_merger *m, uint32_t parent, uint32_t func) {
  if (2 * (m->n + 1) > m->n_slots)
    merger_grow(m);
  size_t i = slot_of(m, parent, func);
  if (m->slots[i])
    return m->slots[i] - 1;
  if (m->n == m->cap)
    m->nodes = ip_must_realloc(m->nodes, m->cap = 2 * m->cap, sizeof *m->nodes);
  uint32_t k = (uint32_t)m->n++;
  ip_node *x = &m->nodes[k];
  memset(x, 0, sizeof *x);
  x->func = func;
  x->parent = parent;
  x->first_child = IP_NO_NODE;
  x->next_sibling = m->nodes[parent].first_child;
  m->nodes[parent].first_child = k;
  m->slots[i] = k + 1;
  return k;
}

static void merge_node(void *ctx, const ip_tree_view *v, const uint32_t *path, size_t depth) {
  ip_tree_merger *m = ctx;
  if (depth > m->cap_mapped)
    m->mapped = ip_must_realloc(m->mapped, m->cap_mapped = 2 * depth, sizeof *m->mapped);
  uint32_t parent = depth > 1 ? m->mapped[depth - 2] : 0;
  const ip_node *src = &v->nodes[path[depth - 1]];
  uint32_t k = merger_child(m, parent, src->func);
  ip_values_add(&m->nodes[k].v, &src->v);
  m->mapped[depth - 1] = k;
  if (m->map)
    m->map[path[depth - 1]] = k;
}

void ip_tree_merger_init(ip_tree_merger *m) {
  memset(m, 0, sizeof *m);
  m->cap = 256;
  m->nodes = ip_must_calloc(m->cap, sizeof *m->nodes);
  m->n = 1;
  m->nodes[0].func = UINT32_MAX;
  m->nodes[0].parent = m->nodes[0].first_child = m->nodes[0].next_sibling = IP_NO_NODE;
}

void ip_tree_merger_add(ip_tree_merger *m, const ip_tree_view *v) {
  m->added++;
  if (v->n_nodes)
    ip_values_add(&m->nodes[0].v, &v->nodes[0].v);
  ip_tree_walk(v, merge_node, m);
}

void ip_tree_merger_add_mapped(ip_tree_merger *m, const ip_tree_view *v, uint32_t *map) {
  for (size_t k = 0; k < v->n_nodes; k++)
    map[k] = k ? IP_NO_NODE : 0;
  m->map = map;
  ip_tree_merger_add(m, v);
  m->map = NULL;
}

void ip_tree_merger_finish(ip_tree_merger *m, ip_export_trees *tr) {
  memset(tr, 0, sizeof *tr);
  tr->views = ip_must_calloc(1, sizeof *tr->views);
  if (m->added) {
    tr->merged = m->nodes;
    tr->n_views = 1;
    tr->views[0] = (ip_tree_view){m->nodes, m->n, NULL};
  } else {
    free(m->nodes);
  }
  free(m->slots);
  free(m->mapped);
  memset(m, 0, sizeof *m);
}

static void merge_views(ip_export_trees *tr) {
  ip_tree_merger m;
  ip_tree_merger_init(&m);
  for (size_t i = 0; i < tr->n_views; i++)
    ip_tree_merger_add(&m, &tr->views[i]);
  free(tr->views);
  ip_tree_merger_finish(&m, tr);
}

void ip_export_trees_build(ip_export_trees *tr, const ip_session *s, int merge,
                           const ip_selection *sel) {
  memset(tr, 0, sizeof *tr);
  tr->views = ip_must_calloc(s->n_threads, sizeof *tr->views);
  for (size_t i = 0; i < s->n_threads; i++) {
    const ip_thread *t = &s->threads[i];
    if (ip_selected_thread(s, sel, t))
      tr->views[tr->n_views++] = (ip_tree_view){t->nodes, t->n_nodes, t};
  }
  if (merge && tr->n_views)
    merge_views(tr);
}

void ip_export_trees_free(ip_export_trees *tr) {
  free(tr->views);
  free(tr->merged);
  memset(tr, 0, sizeof *tr);
}
