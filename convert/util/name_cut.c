/* util/name_cut.c - names shortened to a width, still telling functions apart
 * (see util/name_cut.h).  A name is read as C++'s demangler writes it:
 * brackets ( < [ { matched (an operator's own symbols, as in operator<<, are
 * not brackets), the parameter list is the last top-level ( ) group not
 * followed by "::", the own name starts after the last top-level "::" before
 * it (or at its operator keyword), and a top-level blank before the own name
 * ends a return type.  The pieces that can go are listed with the class that
 * orders them; the largest of a class goes first, until the name fits. */
#include "util/name_cut.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/must_alloc.h"

#define MARK     "..."
#define MARK_LEN 3
#define NONE     SIZE_MAX

/* The classes of pieces, in the order they are given up. */
enum { C_RETURN, C_SCOPE_ARGS, C_SCOPE_NS, C_PARAM_ARGS, C_PARAM_NS, C_SCOPE_CLASS, C_OWN };

typedef struct piece {
  size_t a, b;      /* [a, b) of the name ... */
  const char *with; /* ... is written as this */
  int cls;
} piece;

typedef struct shape {
  const char *s;
  size_t len;
  size_t *close;      /* per byte: where the bracket opened there closes (NONE: not one) */
  unsigned char *lit; /* per byte: part of an operator's symbol, not a bracket */
  size_t own;         /* the own name's first byte */
  size_t params;      /* the parameter list's '(' (NONE: no list) */
  size_t params_end;  /* its ')' */
  size_t ret_end;     /* the blank after a return type (0: none) */
  piece *p;
  size_t n, cap;
} shape;

static int ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c == '~' || c == '.' || (unsigned char)c >= 0x80;
}

static int opens(char c) { return c == '(' || c == '<' || c == '[' || c == '{'; }
static int closes(char c) { return c == ')' || c == '>' || c == ']' || c == '}'; }
static char pair_of(char c) { return c == ')' ? '(' : c == '>' ? '<' : c == ']' ? '[' : '{'; }

/* At s[i], the keyword operator: marks its symbol (<<, (), [], new[] ...)
 * as literal; *conversion says it names a type instead (operator int). */
static size_t operator_at(shape *sh, size_t i, int *conversion) {
  const char *s = sh->s;
  if ((i && ident(s[i - 1])) || strncmp(s + i, "operator", 8) || ident(s[i + 8]))
    return 0;
  size_t j = i + 8;
  *conversion = 0;
  if ((s[j] == '(' && s[j + 1] == ')') || (s[j] == '[' && s[j + 1] == ']'))
    j += 2;
  else if (!strncmp(s + j, " new", 4) || !strncmp(s + j, " delete", 7)) {
    j += s[j + 1] == 'n' ? 4 : 7;
    if (s[j] == '[' && s[j + 1] == ']')
      j += 2;
  } else if (s[j] == ' ')
    *conversion = 1;
  else
    while (s[j] && strchr("<>=!+-*/%^&|~,\"", s[j]))
      j++;
  memset(sh->lit + i, 1, j - i);
  return j - i;
}

/* Matches the brackets; -1 when they do not pair up (no structure then). */
static int match_brackets(shape *sh) {
  size_t *stack = ip_must_calloc(sh->len + 1, sizeof *stack), depth = 0;
  int conversion, bad = 0;
  for (size_t i = 0; i < sh->len && !bad; i++) {
    size_t op = operator_at(sh, i, &conversion);
    if (op) {
      i += op - 1;
      continue;
    }
    char c = sh->s[i];
    if (opens(c))
      stack[depth++] = i;
    else if (closes(c) && !(c == '>' && i && sh->s[i - 1] == '-')) {
      if (!depth || sh->s[stack[depth - 1]] != pair_of(c))
        bad = 1;
      else
        sh->close[stack[--depth]] = i;
    }
  }
  free(stack);
  return bad || depth ? -1 : 0;
}

/* The next top-level byte after i (a bracket group is skipped whole). */
static size_t next_top(const shape *sh, size_t i) {
  return sh->close[i] != NONE && !sh->lit[i] ? sh->close[i] + 1 : i + 1;
}

/* The parameter list, the own name and the return type. */
static void find_parts(shape *sh) {
  const char *s = sh->s;
  sh->params = NONE;
  for (size_t i = 0; i < sh->len; i = next_top(sh, i))
    if (s[i] == '(' && !sh->lit[i] && sh->close[i] != NONE &&
        strncmp(s + sh->close[i] + 1, "::", 2))
      sh->params = i, sh->params_end = sh->close[i];
  size_t end = sh->params == NONE ? sh->len : sh->params;
  size_t after_scope = 0, op = NONE, blank = 0;
  int conversion = 0;
  for (size_t i = 0; i < end; i = next_top(sh, i)) {
    if (sh->lit[i] && (!i || !sh->lit[i - 1]) && !strncmp(s + i, "operator", 8)) {
      op = i;
      operator_at(sh, i, &conversion); /* a conversion's type is part of the own name */
    } else if (s[i] == '(' && !sh->lit[i])
      conversion = 0;
    else if (s[i] == ':' && s[i + 1] == ':' && !conversion)
      after_scope = i + 2;
    else if (s[i] == ' ' && !sh->lit[i] && op == NONE)
      blank = i;
  }
  sh->own = op != NONE && op >= after_scope ? op : after_scope;
  sh->ret_end = blank && blank < sh->own ? blank : 0;
}

static int class_at(const shape *sh, size_t a, int args) {
  if (a < sh->own)
    return args ? C_SCOPE_ARGS : C_SCOPE_NS;
  if (sh->params == NONE || a < sh->params)
    return C_OWN;
  if (a < sh->params_end)
    return args ? C_PARAM_ARGS : C_PARAM_NS;
  return -1; /* after the parameter list: the end of the signature stays */
}

static void add_piece(shape *sh, size_t a, size_t b, const char *with, int cls) {
  if (cls < 0 || b - a <= strlen(with))
    return;
  ip_must_grow((void **)&sh->p, &sh->cap, sh->n + 1, sizeof *sh->p);
  sh->p[sh->n++] = (piece){a, b, with, cls};
}

/* The pieces inside [a, b): template arguments, and the scopes of each
 * qualified name (a::b::c::d loses a::b::, then a::b::c:: too), then those
 * of nested groups.  top: the name's own level, where the scopes before the
 * own name keep their last one (its class) longest. */
static void scan_region(shape *sh, size_t a, size_t b, int top) {
  const char *s = sh->s;
  size_t run = NONE, prev = NONE, last = NONE; /* the qualified name, its last two parts */
  for (size_t i = a;;) {
    int end = i >= b;
    if (!end && s[i] == ':' && s[i + 1] == ':' && !sh->lit[i]) {
      if (run == NONE)
        run = i;
      prev = last == NONE ? run : last;
      last = i + 2;
      i += 2;
      continue;
    }
    if (end || (!sh->lit[i] && strchr(" ,*&", s[i]))) {
      if (last != NONE) {
        int cls = class_at(sh, run, 0);
        if (prev > run)
          add_piece(sh, run, prev, MARK "::", cls);
        if (!(top && s[prev] == '{')) /* a lambda's scope names it: it stays */
          add_piece(sh, run, last, MARK "::", top && cls == C_SCOPE_NS ? C_SCOPE_CLASS : cls);
      }
      run = prev = last = NONE;
      if (end)
        break;
      i++;
      continue;
    }
    if (run == NONE)
      run = i;
    if (opens(s[i]) && !sh->lit[i] && sh->close[i] != NONE) {
      if (s[i] == '<' || (i < sh->own && s[i] == '(')) /* and a local scope's parameters */
        add_piece(sh, i + 1, sh->close[i], MARK, class_at(sh, i, 1));
      scan_region(sh, i + 1, sh->close[i], 0);
    }
    i = next_top(sh, i);
  }
}

/* Pieces in the order they go: by class, then the largest first. */
static int by_order(const void *x, const void *y) {
  const piece *a = x, *b = y;
  if (a->cls != b->cls)
    return a->cls - b->cls;
  size_t sa = a->b - a->a - strlen(a->with), sb = b->b - b->a - strlen(b->with);
  if (sa != sb)
    return sa > sb ? -1 : 1;
  return (a->a > b->a) - (a->a < b->a);
}

static size_t saving(const piece *p) { return p->b - p->a - strlen(p->with); }

/* Chooses pieces (into on[], their count returned) until the name fits
 * width, leaving [kf, kt) whole. */
static size_t choose(const shape *sh, size_t width, size_t kf, size_t kt, const piece **on) {
  size_t n_on = 0, len = sh->len;
  for (size_t k = 0; k < sh->n && len > width; k++) {
    const piece *p = &sh->p[k];
    if (kt > kf && p->a < kt && p->b > kf)
      continue;
    int inside = 0;
    for (size_t j = 0; j < n_on && !inside; j++)
      inside = on[j]->a <= p->a && p->b <= on[j]->b;
    if (inside)
      continue;
    size_t kept = 0;
    for (size_t j = 0; j < n_on; j++) {
      if (p->a <= on[j]->a && on[j]->b <= p->b)
        len += saving(on[j]);
      else
        on[kept++] = on[j];
    }
    n_on = kept;
    on[n_on++] = p;
    len -= saving(p);
  }
  return n_on;
}

static int by_start(const void *x, const void *y) {
  const piece *a = *(const piece *const *)x, *b = *(const piece *const *)y;
  return (a->a > b->a) - (a->a < b->a);
}

/* Where byte pos of the name lands once the pieces are replaced. */
static size_t map_pos(const piece *const *on, size_t n_on, size_t pos) {
  size_t m = pos;
  for (size_t j = 0; j < n_on; j++)
    if (on[j]->b <= pos)
      m -= saving(on[j]);
  return m;
}

/* r[0, len) cut to width by replacing [x, end) with "..." (out: len + 1). */
static size_t splice(const char *r, size_t len, size_t x, size_t end, char *out) {
  while (x && ((unsigned char)r[x] & 0xC0) == 0x80)
    x--;
  while (end < len && (((unsigned char)r[end] & 0xC0) == 0x80 || r[end] == ':'))
    end++; /* no half of a "::" after the mark */
  memcpy(out, r, x);
  memcpy(out + x, MARK, MARK_LEN);
  memmove(out + x + MARK_LEN, r + end, len - end);
  out[x + MARK_LEN + len - end] = 0;
  return x + MARK_LEN + len - end;
}

static size_t cut_run(const char *r, size_t len, size_t width, size_t o, size_t po, size_t pc,
                      size_t kf, size_t kt, char *out);

/* "...", the part kept [kf, kt) (before the own name), then the rest cut. */
static size_t keep_first(const char *r, size_t len, size_t width, size_t o, size_t po, size_t pc,
                         size_t kf, size_t kt, char *out) {
  size_t n = 0, rest = width - (kt - kf) - (kf ? MARK_LEN : 0);
  if (kf)
    memcpy(out, MARK, MARK_LEN), n = MARK_LEN;
  memcpy(out + n, r + kf, kt - kf);
  n += kt - kf;
  return n + cut_run(r + kt, len - kt, rest, o - kt, po == NONE ? NONE : po - kt,
                     po == NONE ? NONE : pc - kt, 0, 0, out + n);
}

/* A head, "...", the part kept [kf, kt), "...", a tail. */
static size_t keep_between(const char *r, size_t len, size_t width, size_t kf, size_t kt,
                           char *out) {
  size_t room = width - 2 * MARK_LEN;
  size_t head = (room - (kt - kf)) / 3, tail = room - (kt - kf) - head;
  if (head > kf)
    tail += head - kf, head = kf;
  if (tail > len - kt)
    head += tail - (len - kt), tail = len - kt;
  while (head && ((unsigned char)r[head] & 0xC0) == 0x80)
    head--;
  while (tail && ((unsigned char)r[len - tail] & 0xC0) == 0x80)
    tail--;
  size_t n = 0;
  memcpy(out, r, head);
  n += head;
  if (head < kf)
    memcpy(out + n, MARK, MARK_LEN), n += MARK_LEN;
  memcpy(out + n, r + kf, kt - kf);
  n += kt - kf;
  if (kt < len - tail)
    memcpy(out + n, MARK, MARK_LEN), n += MARK_LEN;
  memcpy(out + n, r + len - tail, tail);
  n += tail;
  out[n] = 0;
  return n;
}

/* Whether removing gone bytes at x leaves the own name's start (o) and the
 * part kept [kf, kt). */
static int leaves(size_t x, size_t len, size_t gone, size_t o, size_t kf, size_t kt) {
  return x + gone <= len && (kt <= kf || x + gone <= kf || x >= kt) &&
         (o == 0 || x > o || x + gone <= o);
}

/* r[0, len) cut to width, in the first of these ways that leaves the own
 * name's start (o) and the part kept [kf, kt): one run of bytes replaced by
 * "..." at the start of the scopes before the own name; "..." and the part
 * kept, then the rest cut, when it comes before the own name; one run at
 * the start of the parameters (po, pc), a third in, or either side of the
 * part kept; a head, the part kept and a tail; a run a third in. */
static size_t cut_run(const char *r, size_t len, size_t width, size_t o, size_t po, size_t pc,
                      size_t kf, size_t kt, char *out) {
  if (len <= width) {
    memcpy(out, r, len);
    out[len] = 0;
    return len;
  }
  if (width < MARK_LEN + 2) {
    size_t n = width;
    while (n && ((unsigned char)r[n] & 0xC0) == 0x80)
      n--;
    memcpy(out, r, n);
    out[n] = 0;
    return n;
  }
  int keep = kt > kf;
  size_t gone = len - width + MARK_LEN, at[5], n_at = 0;
  if (o >= gone && leaves(0, len, gone, o, kf, kt))
    return splice(r, len, 0, gone, out); /* the start of the scopes goes, their end stays */
  if (keep && kt <= o && kt - kf + MARK_LEN + 4 < width)
    return keep_first(r, len, width, o, po, pc, kf, kt, out);
  if (po != NONE && po + 1 + gone <= pc)
    at[n_at++] = po + 1;
  at[n_at++] = (width - MARK_LEN) / 3;
  if (keep && kf >= gone)
    at[n_at++] = kf - gone;
  if (keep && kt + gone <= len)
    at[n_at++] = kt;
  for (size_t k = 0; k < n_at; k++)
    if (leaves(at[k], len, gone, o, kf, kt))
      return splice(r, len, at[k], at[k] + gone, out);
  if (keep && kt - kf <= width - 2 * MARK_LEN && kf > 0 && kt < len)
    return keep_between(r, len, width, kf, kt, out);
  return splice(r, len, (width - MARK_LEN) / 3, (width - MARK_LEN) / 3 + gone, out);
}

/* A mark next to another reads as one: runs of more than three dots become
 * three. */
static size_t fewer_dots(char *s, size_t n) {
  size_t w = 0;
  for (size_t i = 0; i < n; i++)
    if (!(s[i] == '.' && w >= MARK_LEN && !strncmp(s + w - MARK_LEN, MARK, MARK_LEN)))
      s[w++] = s[i];
  s[w] = 0;
  return w;
}

size_t ip_name_cut(const char *name, size_t width, size_t keep_from, size_t keep_to, unsigned flags,
                   char *out, size_t out_len) {
  size_t len = strlen(name);
  if (len <= width || !out_len) {
    size_t n = len < out_len ? len : out_len ? out_len - 1 : 0;
    memcpy(out, name, n);
    if (out_len)
      out[n] = 0;
    return n;
  }
  if (width >= out_len)
    width = out_len - 1;
  shape sh = {.s = name, .len = len};
  sh.close = ip_must_calloc(len + 1, sizeof *sh.close);
  sh.lit = ip_must_calloc(len + 1, 1);
  for (size_t i = 0; i <= len; i++)
    sh.close[i] = NONE;
  if (!(flags & IP_CUT_PLAIN) && match_brackets(&sh) == 0) {
    find_parts(&sh);
    if (sh.ret_end) /* a return type goes without a mark: the name does not need it */
      add_piece(&sh, 0, sh.ret_end + 1, "", C_RETURN);
    scan_region(&sh, sh.ret_end ? sh.ret_end + 1 : 0, len, 1);
    if (sh.n)
      qsort(sh.p, sh.n, sizeof *sh.p, by_order);
  } else { /* no structure; a path keeps its last part whole where it can */
    const char *slash = name[0] == '/' ? strrchr(name, '/') : NULL;
    sh.own = slash ? (size_t)(slash - name) : 0;
    sh.params = NONE;
  }
  const piece **on = ip_must_calloc(sh.n + 1, sizeof *on);
  size_t n_on = choose(&sh, width, keep_from, keep_to, on);
  if (n_on)
    qsort(on, n_on, sizeof *on, by_start);
  char *r = ip_must_calloc(len + 1, 1);
  size_t rl = 0, at = 0;
  for (size_t j = 0; j < n_on; j++) {
    memcpy(r + rl, name + at, on[j]->a - at);
    rl += on[j]->a - at;
    memcpy(r + rl, on[j]->with, strlen(on[j]->with));
    rl += strlen(on[j]->with);
    at = on[j]->b;
  }
  memcpy(r + rl, name + at, len - at);
  rl += len - at;
  size_t n;
  if (rl <= width) {
    memcpy(out, r, rl);
    out[rl] = 0;
    n = rl;
  } else {
    size_t kf = keep_to > keep_from ? map_pos(on, n_on, keep_from) : 0;
    size_t kt = keep_to > keep_from ? map_pos(on, n_on, keep_to) : 0;
    n = cut_run(r, rl, width, map_pos(on, n_on, sh.own),
                sh.params == NONE ? NONE : map_pos(on, n_on, sh.params),
                sh.params == NONE ? NONE : map_pos(on, n_on, sh.params_end), kf, kt, out);
  }
  n = fewer_dots(out, n);
  free(r);
  free(on);
  free(sh.p);
  free(sh.close);
  free(sh.lit);
  return n;
}

/* ---- a table's names, cut so that different names stay different ---- */

typedef struct cuts {
  unsigned flags;
  const char *const *names;
  const size_t *widths;
  char **out;
  size_t *kf, *kt; /* per name: the part kept whole */
} cuts;

static void cut_one(cuts *c, size_t i, const char *tag) {
  size_t len = strlen(c->names[i]), tl = strlen(tag), w = c->widths[i];
  if (!w || w >= len) {
    free(c->out[i]);
    c->out[i] = ip_must_strdup(c->names[i]);
    return;
  }
  w = w > tl ? w - tl : 0;
  char *buf = ip_must_calloc(w + tl + 2, 1);
  size_t n = ip_name_cut(c->names[i], w, c->kf[i], c->kt[i], c->flags, buf, w + 1);
  memcpy(buf + n, tag, tl + 1);
  free(c->out[i]);
  c->out[i] = buf;
}

static int by_cut(const void *x, const void *y, void *ctx) {
  const cuts *c = ctx;
  size_t a = *(const size_t *)x, b = *(const size_t *)y;
  int d = strcmp(c->out[a], c->out[b]);
  if (!d)
    d = strcmp(c->names[a], c->names[b]);
  return d ? d : (a > b) - (a < b);
}

static int by_name_width(const void *x, const void *y, void *ctx) {
  const cuts *c = ctx;
  size_t a = *(const size_t *)x, b = *(const size_t *)y;
  int d = strcmp(c->names[a], c->names[b]);
  if (!d)
    d = (c->widths[a] > c->widths[b]) - (c->widths[a] < c->widths[b]);
  return d ? d : (a > b) - (a < b);
}

/* [f, t) of s widened to whole words, and to the name of a template whose
 * arguments it starts (Policy<2>, not 2). */
static void widen(const char *s, size_t len, size_t *f, size_t *t) {
  size_t a = *f, b = *t;
  while (a && ident(s[a - 1]))
    a--;
  size_t arg = a;
  if (a >= 2 && s[a - 1] == '<' && ident(s[a - 2]))
    for (a--; a && ident(s[a - 1]);)
      a--;
  int args = a < arg; /* the template's name taken: its '>' too */
  while (b < len && ident(s[b]))
    b++;
  if (args && b < len && s[b] == '>')
    b++;
  *f = a, *t = b;
}

/* The names of idx[from, to) (cut alike) share a prefix and a suffix:
 * each keeps the rest whole.  Returns whether a keep changed. */
static int keep_difference(cuts *c, const size_t *idx, size_t from, size_t to) {
  const char *first = c->names[idx[from]];
  size_t p = strlen(first), q = p, shortest = p;
  for (size_t k = from + 1; k < to; k++) {
    const char *s = c->names[idx[k]];
    size_t len = strlen(s), i = 0;
    while (i < p && s[i] == first[i])
      i++;
    p = i;
    size_t fl = strlen(first);
    i = 0;
    while (i < q && i < len && i < fl && s[len - 1 - i] == first[fl - 1 - i])
      i++;
    q = i;
    if (len < shortest)
      shortest = len;
  }
  if (p + q > shortest)
    q = shortest - p;
  int changed = 0;
  for (size_t k = from; k < to; k++) {
    size_t i = idx[k], len = strlen(c->names[i]);
    size_t f = p, t = len - q;
    widen(c->names[i], len, &f, &t);
    if (c->kt[i] > c->kf[i]) {
      f = f < c->kf[i] ? f : c->kf[i];
      t = t > c->kt[i] ? t : c->kt[i];
    }
    if (f != c->kf[i] || t != c->kt[i]) {
      c->kf[i] = f, c->kt[i] = t;
      cut_one(c, i, "");
      changed = 1;
    }
  }
  return changed;
}

/* Runs of idx (sorted by cut) whose cuts are equal and names not: each
 * keeps where its names differ (tags = 0), or each name of them gets a tag:
 * ~1, ~2... numbered within the run when *tag is 0 (the first round: *tag
 * becomes the highest number given), else numbers above any given before
 * (*tag, the last).  Returns how many runs changed. */
static size_t collisions(cuts *c, const size_t *idx, size_t n, unsigned *tag) {
  size_t found = 0;
  int first = tag && !*tag;
  unsigned most = 0;
  for (size_t from = 0, to; from < n; from = to) {
    to = from + 1;
    int differ = 0;
    while (to < n && !strcmp(c->out[idx[to]], c->out[idx[from]])) {
      differ |= strcmp(c->names[idx[to]], c->names[idx[from]]) != 0;
      to++;
    }
    if (!differ)
      continue;
    if (!tag) {
      found += keep_difference(c, idx, from, to) != 0;
      continue;
    }
    found++;
    unsigned number = 0;
    for (size_t j = from; j < to; j++) {
      if (j == from || strcmp(c->names[idx[j]], c->names[idx[j - 1]]))
        number = first ? number + 1 : ++*tag;
      if (first && number > most)
        most = number;
      char text[24];
      snprintf(text, sizeof text, "~%u", number);
      cut_one(c, idx[j], text);
    }
  }
  if (first)
    *tag = most;
  return found;
}

void ip_names_cut(const char *const *names, const size_t *widths, size_t n, unsigned flags,
                  char **out) {
  cuts c = {flags,
            names,
            widths,
            out,
            ip_must_calloc(n + 1, sizeof(size_t)),
            ip_must_calloc(n + 1, sizeof(size_t))};
  size_t *idx = ip_must_calloc(n + 1, sizeof *idx);
  for (size_t i = 0; i < n; i++) {
    idx[i] = i;
    out[i] = NULL;
  }
  /* a name repeated at one width is cut once */
  qsort_r(idx, n, sizeof *idx, by_name_width, &c);
  for (size_t k = 0; k < n; k++) {
    size_t i = idx[k], prev = k ? idx[k - 1] : 0;
    if (k && widths[i] == widths[prev] && !strcmp(names[i], names[prev]))
      out[i] = ip_must_strdup(out[prev]);
    else
      cut_one(&c, i, "");
  }
  for (int round = 0; round < 3; round++) {
    qsort_r(idx, n, sizeof *idx, by_cut, &c);
    if (!collisions(&c, idx, n, NULL))
      break;
  }
  /* tags until no two names read the same (a name that ends in ~N itself
     can take a second round) */
  unsigned tag = 0;
  for (size_t round = 0; round <= n; round++) {
    qsort_r(idx, n, sizeof *idx, by_cut, &c);
    if (!collisions(&c, idx, n, &tag))
      break;
  }
  free(idx);
  free(c.kf);
  free(c.kt);
}
