/* views/view_tree.c - the report's call tree: per thread, one line per call path
 * with that path's values (a function called from two places appears twice),
 * children sorted by the tree's value, indented by depth.  The tree's value is
 * Elapsed Inclusive; Application Inclusive or Inclusive samples with a --sort
 * of that kind, Application Inclusive with --value application.  --depth N
 * and --min-percent P leave out the paths deeper than N levels and the
 * subtrees whose value is under P % of the session's total; one line per
 * thread says what was left out.  --hot expands only the hottest path: from
 * each call path its child of most value, down to a path with no callee (or
 * to where --depth or --min-percent cut it); --top N shows the next N-1
 * children of each level beside it, collapsed; a line under the table names
 * where the path ends. */
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "views/views.h"

/* What a thread's tree left out: the subtrees cut and the paths in them. */
typedef struct hidden {
  uint64_t roots, paths, value;
} hidden;

/* The value the tree sorts by, its threshold and --hot apply to. */
typedef enum tree_kind { TREE_ELAPSED, TREE_APPLICATION, TREE_SAMPLES } tree_kind;

typedef struct tree_ctx {
  const ip_session *s;
  const ip_thread *th;
  const ip_view_opts *o;
  tree_kind kind;
  ip_vtable *v;       /* the values' table, or ... */
  ip_ttable *t;       /* ... --latency's */
  uint64_t min_value; /* a subtree under this value is left out */
  uint64_t *paths;    /* per node: the call paths of its subtree, itself included */
  hidden deep, small;
  uint32_t hot_end,
      hot_excl; /* --hot: the path's last node shown, and its node of most Exclusive */
  size_t hot_levels;
  int hot_cut; /* --hot: the path's next level was left out by --depth or --min-percent */
} tree_ctx;

static tree_kind kind_of(const ip_view_opts *o) {
  switch (o->sort) {
  case IP_SORT_APP_INCL:
  case IP_SORT_APP_EXCL:
    return TREE_APPLICATION;
  case IP_SORT_SAMPLES_INCL:
  case IP_SORT_SAMPLES_EXCL:
    return TREE_SAMPLES;
  default:
    return o->app_value ? TREE_APPLICATION : TREE_ELAPSED;
  }
}

static uint64_t tree_value(const ip_values *v, tree_kind k) {
  return k == TREE_APPLICATION ? v->app_incl : k == TREE_SAMPLES ? v->smp_incl : v->el_incl;
}

static uint64_t tree_excl(const ip_values *v, tree_kind k) {
  return k == TREE_APPLICATION ? v->app_excl : k == TREE_SAMPLES ? v->smp_excl : v->el_excl;
}

static const char *excl_name(tree_kind k) {
  return k == TREE_APPLICATION ? "Application Exclusive"
         : k == TREE_SAMPLES   ? "Exclusive samples"
                               : "Elapsed Exclusive";
}

static const char *tree_value_name(tree_kind k) {
  return k == TREE_APPLICATION ? "Application Inclusive"
         : k == TREE_SAMPLES   ? "Inclusive samples"
                               : "Elapsed Inclusive";
}

/* The value in the unit of its kind: a time or a sample count. */
static void fmt_value(char *buf, size_t len, uint64_t v, tree_kind k) {
  if (k == TREE_SAMPLES)
    snprintf(buf, len, "%llu samples", (unsigned long long)v);
  else
    ip_fmt_ns(buf, len, v);
}

typedef struct sort_ctx {
  const ip_node *nodes;
  tree_kind kind;
} sort_ctx;

static int by_value(const void *a, const void *b, void *c) {
  const sort_ctx *k = c;
  uint64_t x = tree_value(&k->nodes[*(const uint32_t *)a].v, k->kind),
           y = tree_value(&k->nodes[*(const uint32_t *)b].v, k->kind);
  return (x < y) - (x > y);
}

/* Per node, the call paths of its subtree (a child's index is above its
 * parent's, so one backward pass adds them up). */
static uint64_t *subtree_paths(const ip_thread *th) {
  uint64_t *n = ip_must_calloc(th->n_nodes, sizeof *n);
  for (size_t i = th->n_nodes; i-- > 1;) {
    n[i]++;
    n[th->nodes[i].parent] += n[i];
  }
  return n;
}

static void leave_out(tree_ctx *c, hidden *h, uint32_t node) {
  h->roots++;
  h->paths += c->paths[node];
  h->value += tree_value(&c->th->nodes[node].v, c->kind);
}

#define MAX_SHOWN_DEPTH 200

static void row(tree_ctx *c, uint32_t node, int depth) {
  const ip_node *nodes = c->th->nodes;
  const ip_func *f = &c->s->funcs[nodes[node].func];
  if (c->o->latency) {
    ip_view_latency_cells(c->t, c->o->app_value ? &c->th->lat[node].app : &c->th->lat[node].el);
    ip_tt_add_level(c->t, (unsigned)depth - 1, "%s", f->pretty);
  } else {
    ip_vtable_row(c->v, &nodes[node].v, NULL, nodes[node].func, (unsigned)depth - 1, f->pretty);
  }
}

/* Whether node's subtree is left out by --depth or --min-percent (and
 * counted as such). */
static int left_out(tree_ctx *c, uint32_t node, int depth) {
  if (node == 0)
    return 0;
  if (c->o->depth && (size_t)depth > c->o->depth) {
    leave_out(c, &c->deep, node);
    return 1;
  }
  if (tree_value(&c->th->nodes[node].v, c->kind) < c->min_value) {
    leave_out(c, &c->small, node);
    return 1;
  }
  return 0;
}

/* Shows node at depth; expand: its children too (--hot collapses all but
 * the hottest). */
static void emit(tree_ctx *c, uint32_t node, int depth, int expand) {
  const ip_node *nodes = c->th->nodes;
  if (depth > MAX_SHOWN_DEPTH) {
    char note[96];
    snprintf(note, sizeof note, "... (paths deeper than %d not shown)", MAX_SHOWN_DEPTH);
    if (c->o->latency) {
      for (int i = 0; i < 6; i++)
        ip_tt_add(c->t, "%s", "");
      ip_tt_add_level(c->t, (unsigned)depth - 1, "%s", note);
    } else {
      ip_vtable_note(c->v, (unsigned)depth - 1, note);
    }
    return;
  }
  if (node != 0)
    row(c, node, depth);
  if (!expand)
    return;
  size_t n = 0;
  for (uint32_t k = nodes[node].first_child; k != IP_NO_NODE; k = nodes[k].next_sibling)
    n++;
  uint32_t *kids = ip_must_calloc(n, sizeof *kids);
  n = 0;
  for (uint32_t k = nodes[node].first_child; k != IP_NO_NODE; k = nodes[k].next_sibling)
    kids[n++] = k;
  sort_ctx k = {nodes, c->kind};
  qsort_r(kids, n, sizeof *kids, by_value, &k);
  if (c->o->hot) {
    if (node != 0) {
      c->hot_end = node;
      c->hot_levels = (size_t)depth;
      if (tree_excl(&nodes[node].v, c->kind) > tree_excl(&nodes[c->hot_excl].v, c->kind))
        c->hot_excl = node;
    }
    size_t shown = c->o->top ? c->o->top : 1;
    for (size_t i = 0; i < n && i < shown; i++) {
      if (left_out(c, kids[i], depth + 1)) {
        c->hot_cut |= i == 0;
        continue;
      }
      emit(c, kids[i], depth + 1, i == 0);
    }
  } else {
    if (c->o->top && c->o->top < n)
      n = c->o->top;
    for (size_t i = 0; i < n; i++)
      if (!left_out(c, kids[i], depth + 1))
        emit(c, kids[i], depth + 1, 1);
  }
  free(kids);
}

/* fn, cut so that a line of prefix, fn and suffix fits width (at least
 * 16 characters of it), into buf. */
static const char *fit(const char *fn, size_t width, const char *prefix, const char *suffix,
                       char *buf, size_t len) {
  size_t other = strlen(prefix) + strlen(suffix);
  if (!width) {
    snprintf(buf, len, "%s", fn);
    return buf;
  }
  size_t room = width > other + 16 ? width - other : 16;
  ip_name_cut(fn, room < len ? room : len - 1, 0, 0, 0, buf, len);
  return buf;
}

/* Under a thread's --hot table: where the path ends (or where --depth or
 * --min-percent cut it) and where on it most of its own value went. */
static void hot_line(FILE *out, const tree_ctx *c) {
  if (!c->hot_end)
    return;
  const ip_node *nodes = c->th->nodes;
  char end[32], excl[32], total[32], prefix[160], suffix[128], name[1024];
  fmt_value(end, sizeof end, tree_value(&nodes[c->hot_end].v, c->kind), c->kind);
  fmt_value(excl, sizeof excl, tree_excl(&nodes[c->hot_excl].v, c->kind), c->kind);
  fmt_value(total, sizeof total, tree_value(&c->th->total, c->kind), c->kind);
  fprintf(out, "  hot path: %zu level%s by %s%s\n", c->hot_levels, c->hot_levels == 1 ? "" : "s",
          tree_value_name(c->kind), c->hot_cut ? ", cut there (see hidden:)" : "");
  snprintf(prefix, sizeof prefix, "  %s: ", c->hot_cut ? "its last level shown" : "its end");
  snprintf(suffix, sizeof suffix, " (%s of the thread's %s)", end, total);
  fprintf(out, "%s%s%s\n", prefix,
          fit(c->s->funcs[nodes[c->hot_end].func].pretty, c->o->width, prefix, suffix, name,
              sizeof name),
          suffix);
  snprintf(prefix, sizeof prefix, "  most %s on it: ", excl_name(c->kind));
  snprintf(suffix, sizeof suffix, " (%s)", excl);
  fprintf(out, "%s%s%s\n", prefix,
          fit(c->s->funcs[nodes[c->hot_excl].func].pretty, c->o->width, prefix, suffix, name,
              sizeof name),
          suffix);
}

static void hidden_line(FILE *out, const tree_ctx *c) {
  const ip_view_opts *o = c->o;
  char v[32];
  if (c->deep.roots) {
    fmt_value(v, sizeof v, c->deep.value, c->kind);
    fprintf(out,
            "  hidden: %llu call path%s deeper than %zu level%s (%llu subtree%s, %s of %s at their "
            "tops)\n",
            (unsigned long long)c->deep.paths, c->deep.paths == 1 ? "" : "s", o->depth,
            o->depth == 1 ? "" : "s", (unsigned long long)c->deep.roots,
            c->deep.roots == 1 ? "" : "s", v, tree_value_name(c->kind));
  }
  if (c->small.roots) {
    fmt_value(v, sizeof v, c->small.value, c->kind);
    fprintf(out,
            "  hidden: %llu call path%s in %llu subtree%s under %g%% of the session's %s (%s "
            "at their tops)\n",
            (unsigned long long)c->small.paths, c->small.paths == 1 ? "" : "s",
            (unsigned long long)c->small.roots, c->small.roots == 1 ? "" : "s", o->min_percent,
            tree_value_name(c->kind), v);
  }
}

/* Thread k's tree (of s, or th: the same thread read again into a session
 * whose functions are numbered as s's). */
static void thread_tree(FILE *out, const ip_session *s, size_t k, const ip_thread *th,
                        const ip_view_opts *o) {
  tree_kind kind = kind_of(o);
  uint64_t total = tree_value(&s->total, kind);
  if (!ip_selected_thread(s, &o->sel, &s->threads[k]) || th->nodes[0].first_child == IP_NO_NODE)
    return;
  char name[1024];
  fprintf(out, "thread %s:\n", ip_thread_title(s, (uint32_t)k, name, sizeof name));
  ip_ttable t;
  ip_vtable v;
  tree_ctx c = {s, th, o, kind, &v, &t, 0, NULL, {0, 0, 0}, {0, 0, 0}, 0, 0, 0, 0};
  if (o->latency) {
    ip_tt_init(&t, 7);
    ip_view_latency_titles(&t);
    ip_tt_add(&t, "Call path");
  } else {
    ip_vtable_init(&v, s, o, IP_BY_FUNCTION, 0, "Call path");
  }
  /* a value under P % of the total; with P > 0 a value of 0 is always under */
  if (o->min_percent > 0) {
    double mv = o->min_percent / 100.0 * (double)total;
    c.min_value = mv < 1 ? 1 : (uint64_t)mv + ((double)(uint64_t)mv < mv);
  }
  if (o->depth || o->min_percent > 0)
    c.paths = subtree_paths(th);
  emit(&c, 0, 0, 1);
  free(c.paths);
  if (o->latency) {
    ip_tt_print_fit(&t, out, 2, o->width);
    ip_tt_free(&t);
  } else {
    ip_vtable_print(&v, out, 2);
    ip_vtable_free(&v);
  }
  hidden_line(out, &c);
  hot_line(out, &c);
  fputc('\n', out);
}

void ip_view_tree(FILE *out, const ip_session *s, const ip_view_opts *o) {
  for (size_t i = 0; i < s->n_threads; i++)
    thread_tree(out, s, i, &s->threads[i], o);
}

void ip_view_tree_file(void *ctx, ip_session *again, size_t first_thread) {
  ip_tree_stream *ts = ctx;
  const ip_session *s = ts->s;
  if (again->n_funcs > s->n_funcs || again->n_modules > s->n_modules)
    ts->changed = 1;
  for (size_t i = first_thread; i < again->n_threads && !ts->changed; i++) {
    const ip_thread *th = &again->threads[i];
    if (i >= s->n_threads || th->tid != s->threads[i].tid ||
        again->processes[th->process].pid != s->processes[s->threads[i].process].pid) {
      ts->changed = 1;
      break;
    }
    thread_tree(ts->out, s, i, th, ts->o);
  }
}
