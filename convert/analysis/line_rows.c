/* analysis/line_rows.c - the samples by source line or instruction (see
 * analysis/line_rows.h): the threads' (address, call path) counts gathered per
 * (process, address, function), thread by thread, each distinct address
 * located once, then merged into rows by line or instruction. */
#include <stdlib.h>
#include <string.h>

#include "analysis/line_rows.h"
#include "util/util.h"

typedef struct ip_line_hit {
  uint32_t process, func;
  uint64_t pc, count;
} hit;

static int cmp_hit(const void *a, const void *b) {
  const hit *x = a, *y = b;
  if (x->process != y->process)
    return x->process < y->process ? -1 : 1;
  if (x->pc != y->pc)
    return x->pc < y->pc ? -1 : 1;
  return (x->func > y->func) - (x->func < y->func);
}

/* Rows of the same function and place sort together. */
static int same_place(const ip_line_row *a, const ip_line_row *b, int by_address) {
  if (by_address)
    return a->where.module == b->where.module && a->where.offset == b->where.offset;
  const ip_src_frame *x = &a->where.frame[0], *y = &b->where.frame[0];
  return x->line == y->line && !strcmp(x->file, y->file) &&
         (a->where.n_frames > 1) == (b->where.n_frames > 1) &&
         (a->where.n_frames < 2 || !strcmp(x->func, y->func));
}

/* by_address points to an int: 1 by instruction, 0 by line. */
static int cmp_place(const void *a, const void *b, void *by_address) {
  const ip_line_row *x = a, *y = b;
  if (x->func != y->func)
    return x->func < y->func ? -1 : 1;
  if (*(const int *)by_address) {
    if (x->where.module != y->where.module)
      return x->where.module < y->where.module ? -1 : 1;
    return (x->where.offset > y->where.offset) - (x->where.offset < y->where.offset);
  }
  const ip_src_frame *p = &x->where.frame[0], *q = &y->where.frame[0];
  int c = strcmp(p->file, q->file);
  if (c)
    return c;
  if (p->line != q->line)
    return p->line < q->line ? -1 : 1;
  int xi = x->where.n_frames > 1, yi = y->where.n_frames > 1;
  if (xi != yi)
    return xi - yi;
  return xi ? strcmp(p->func, q->func) : 0;
}

static int cmp_samples(const void *a, const void *b, void *by_address) {
  const ip_line_row *x = a, *y = b;
  if (x->samples != y->samples)
    return x->samples > y->samples ? -1 : 1;
  return cmp_place(a, b, by_address);
}

/* Hits of one (process, pc, func) summed into one, sorted by them. */
static size_t merge_hits(hit *h, size_t n) {
  if (n)
    qsort(h, n, sizeof *h, cmp_hit);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (m && !cmp_hit(&h[m - 1], &h[i]))
      h[m - 1].count += h[i].count;
    else
      h[m++] = h[i];
  }
  return m;
}

void ip_line_hits_add(ip_line_hits *h, const ip_session *s, const ip_thread *th, const char *fn) {
  for (size_t k = 0; k < th->n_pcs; k++) {
    uint32_t func = th->nodes[th->pcs[k].node].func;
    if (fn && !ip_func_named(&s->funcs[func], fn))
      continue;
    ip_must_grow((void **)&h->v, &h->cap, h->n + 1, sizeof *h->v);
    h->v[h->n++] = (hit){th->process, func, th->pcs[k].pc, th->pcs[k].count};
  }
  if (h->n > 2 * h->merged) /* what is kept stays bounded by the distinct addresses */
    h->n = h->merged = merge_hits(h->v, h->n);
}

void ip_line_rows_from_hits(const ip_session *s, ip_line_hits *hits, int by_address, ip_locator loc,
                            void *loc_ctx, ip_line_rows *out) {
  memset(out, 0, sizeof *out);
  hit *h = hits->v;
  size_t n = merge_hits(h, hits->n);
  memset(hits, 0, sizeof *hits);
  ip_line_row *rows = n ? ip_must_calloc(n, sizeof *rows) : NULL;
  for (size_t i = 0; i < n; i++) {
    if (i && h[i].process == h[i - 1].process && h[i].pc == h[i - 1].pc)
      rows[i].where = rows[i - 1].where; /* one address, several functions */
    else
      loc(loc_ctx, s, h[i].process, h[i].pc, &rows[i].where);
    rows[i].func = h[i].func;
    rows[i].samples = h[i].count;
    out->total += h[i].count;
  }
  free(h);
  if (n)
    qsort_r(rows, n, sizeof *rows, cmp_place, &by_address);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (m && rows[m - 1].func == rows[i].func && same_place(&rows[m - 1], &rows[i], by_address))
      rows[m - 1].samples += rows[i].samples;
    else
      rows[m++] = rows[i];
  }
  for (size_t i = 0, j; i < m; i = j) { /* each function's total */
    uint64_t t = 0;
    for (j = i; j < m && rows[j].func == rows[i].func; j++)
      t += rows[j].samples;
    for (size_t k = i; k < j; k++)
      rows[k].fn_total = t;
  }
  if (m)
    qsort_r(rows, m, sizeof *rows, cmp_samples, &by_address);
  out->v = rows;
  out->n = m;
}

void ip_line_rows_build(const ip_session *s, const ip_selection *sel, const char *fn,
                        int by_address, ip_locator loc, void *loc_ctx, ip_line_rows *out) {
  ip_line_hits h = {0};
  for (size_t i = 0; i < s->n_threads; i++)
    if (ip_selected_thread(s, sel, &s->threads[i]))
      ip_line_hits_add(&h, s, &s->threads[i], fn);
  ip_line_rows_from_hits(s, &h, by_address, loc, loc_ctx, out);
}

void ip_line_rows_free(ip_line_rows *r) {
  free(r->v);
  memset(r, 0, sizeof *r);
}
