/* export/call_log.c - the calls of the selected threads, kept per thread and
 * replayed as nested opens and closes in time order (see export/call_log.h).
 * Past the memory bound, the thread holding the most calls has them sorted
 * into a run appended to an unlinked temporary file, each call encoded in
 * about 12 bytes; a thread's replay then merges its runs and what is still
 * in memory. */
#include "export/call_log.h"

#include "export/call_spool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

/* A spilled call: varints of its start's difference to the previous call's
 * (a run is in begin order: never negative), its duration, Elapsed less
 * Application (zigzag), seq's difference to the previous call's (zigzag),
 * the function and the depth: about 12 bytes where the call takes 40, so
 * a third of the bytes go to the file and back. */
enum {
  SPILLED_MAX = 6 * 10,
  RUN_READ_CALLS = 4096,     /* calls decoded at once from one run */
  RUN_READ_BYTES = 64 << 10, /* bytes read at once from one run */
  SPILL_BYTES = 1 << 20      /* bytes encoded before each write */
};

typedef struct call_run {
  off_t offset; /* in the spill file */
  size_t n, bytes;
} call_run;

/* A slot's seq while its call is open (a placeholder its callees' slots
 * follow), and once it was left out. */
#define SLOT_OPEN UINT64_MAX
#define SLOT_HOLE (UINT64_MAX - 1)

typedef struct thread_calls {
  ip_logged_call *calls; /* in memory: slots in the order the calls began */
  size_t n, cap;
  size_t *open_slot; /* by depth: the slot of the open call there, for depths < n_open */
  size_t n_open, cap_open;
  uint64_t ended;   /* calls logged so far: the next one's seq */
  uint64_t dropped; /* calls counted but not kept (ip_call_log_drop) */
  call_run *runs;   /* spilled, each sorted */
  size_t n_runs, cap_runs;
} thread_calls;

struct ip_call_log {
  const ip_export_opts *o;
  ip_call_visitor visitor;
  thread_calls *threads; /* by thread index of the session */
  size_t n_threads;
  size_t in_memory, max_in_memory;
  int spill_fd; /* -1 until the first spill */
  off_t spill_end;
  int spill_failed;      /* keep everything in memory from then on */
  uint8_t *spill_buf;    /* SPILL_BYTES: calls encoded for the file */
  ip_logged_call *spare; /* the array of the last thread spilled (spare_cap calls), or NULL */
  size_t spare_cap;
};

/* Begin order: earlier start first; at the same start the caller (smaller
 * depth) first; calls of equal start and depth (empty siblings) in the order
 * they ended, which is the order they ran. */
static int by_begin(const void *a, const void *b) {
  const ip_logged_call *x = a, *y = b;
  if (x->start_ns != y->start_ns)
    return x->start_ns < y->start_ns ? -1 : 1;
  if (x->depth != y->depth)
    return x->depth < y->depth ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The calls tc->calls[0..tc->n) of one thread, in begin order as the slots
 * were taken (nearly by_begin's order: calls at equal starts may differ),
 * without the slots of calls that were left out or are still open, and
 * sorted by by_begin: a pass of insertion moves the few out of place, and a
 * log that is not nearly in order (more than n moves) is sorted by qsort.
 * The open calls' slots (open_slot[0..n_open)) are returned in hold, their
 * order kept, when hold is not NULL; else they are dropped too. */
static size_t settle(thread_calls *tc, ip_logged_call *hold) {
  ip_logged_call *c = tc->calls;
  size_t n = 0, held = 0, moves = 0;
  for (size_t i = 0; i < tc->n; i++) {
    if (__builtin_expect(c[i].seq >= SLOT_HOLE, 0)) {
      if (c[i].seq == SLOT_OPEN && hold)
        hold[held++] = c[i];
      continue;
    }
    if (n != i)
      c[n] = c[i];
    for (size_t j = n++; j > 0 && by_begin(&c[j - 1], &c[j]) > 0; j--) {
      ip_logged_call tmp = c[j];
      c[j] = c[j - 1], c[j - 1] = tmp;
      moves++;
    }
    if (__builtin_expect(moves > tc->n, 0)) { /* far from in order */
      for (i++; i < tc->n; i++)
        if (c[i].seq < SLOT_HOLE)
          c[n++] = c[i];
        else if (c[i].seq == SLOT_OPEN && hold)
          hold[held++] = c[i];
      qsort(c, n, sizeof *c, by_begin);
      break;
    }
  }
  tc->n = n;
  return held;
}

/* The previous call of a run, which the next one is encoded against. */
typedef struct run_last {
  uint64_t start, seq;
} run_last;

static uint8_t *encode_call(uint8_t *p, const ip_logged_call *c, run_last *last) {
  p = ip_spool_put_varint(p, c->start_ns - last->start);
  p = ip_spool_put_varint(p, c->dur_ns);
  p = ip_spool_put_varint(p, ip_spool_zigzag(c->dur_ns - c->app_ns));
  p = ip_spool_put_varint(p, ip_spool_zigzag(c->seq - last->seq));
  p = ip_spool_put_varint(p, c->func);
  p = ip_spool_put_varint(p, c->depth);
  *last = (run_last){c->start_ns, c->seq};
  return p;
}

static const uint8_t *decode_call(const uint8_t *p, ip_logged_call *c, run_last *last) {
  uint64_t v;
  p = ip_spool_get_varint(p, &v);
  c->start_ns = last->start += v;
  p = ip_spool_get_varint(p, &c->dur_ns);
  p = ip_spool_get_varint(p, &v);
  c->app_ns = c->dur_ns - ip_spool_unzigzag(v);
  p = ip_spool_get_varint(p, &v);
  c->seq = last->seq += ip_spool_unzigzag(v);
  p = ip_spool_get_varint(p, &v);
  c->func = (uint32_t)v;
  p = ip_spool_get_varint(p, &v);
  c->depth = (uint32_t)v;
  return p;
}

static int spill_open(ip_call_log *log) {
  log->spill_fd = ip_spool_temp_file();
  return log->spill_fd < 0 ? -1 : 0;
}

static int write_all(int fd, const void *p, size_t n, off_t at) {
  const char *c = p;
  while (n) {
    ssize_t w = pwrite(fd, c, n, at);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    c += w, n -= (size_t)w, at += w;
  }
  return 0;
}

/* Puts the open calls' slots held back (tc->n_open of them, by depth) after
 * the calls in memory. */
static void hold_back(thread_calls *tc, const ip_logged_call *held) {
  for (size_t d = 0; d < tc->n_open; d++) {
    tc->open_slot[d] = tc->n;
    tc->calls[tc->n++] = held[d];
  }
}

/* Sorts thread tc's calls in memory into a new run at the end of the spill
 * file; the slots of its open calls stay.  On a failure everything stays in
 * memory. */
static void spill(ip_call_log *log, thread_calls *tc) {
  if (log->spill_fd < 0 && spill_open(log) < 0) {
    log->spill_failed = 1;
    return;
  }
  ip_logged_call *held = ip_must_calloc(tc->n_open + 1, sizeof *held);
  log->in_memory -= tc->n;
  settle(tc, held);
  if (!log->spill_buf)
    log->spill_buf = ip_must_realloc(NULL, SPILL_BYTES, 1);
  size_t bytes = 0;
  run_last last = {0, 0};
  for (size_t i = 0; i < tc->n;) {
    uint8_t *p = log->spill_buf;
    for (; i < tc->n && p - log->spill_buf <= SPILL_BYTES - SPILLED_MAX; i++)
      p = encode_call(p, &tc->calls[i], &last);
    size_t n = (size_t)(p - log->spill_buf);
    if (write_all(log->spill_fd, log->spill_buf, n, log->spill_end + (off_t)bytes) < 0) {
      fprintf(stderr,
              "inclprof export: cannot write the temporary file of calls (%s); keeping every "
              "call in memory (set TMPDIR to a directory with room)\n",
              errno ? strerror(errno) : "disk full");
      log->spill_failed = 1;
      hold_back(tc, held);
      log->in_memory += tc->n;
      free(held);
      return;
    }
    bytes += n;
  }
  if (tc->n) {
    ip_must_grow((void **)&tc->runs, &tc->cap_runs, tc->n_runs + 1, sizeof *tc->runs);
    tc->runs[tc->n_runs++] = (call_run){log->spill_end, tc->n, bytes};
    log->spill_end += (off_t)bytes;
  }
  tc->n = 0;
  if (tc->n_open) { /* the array stays, holding them */
    hold_back(tc, held);
    log->in_memory += tc->n;
  } else {
    free(log->spare); /* kept for the next thread to start again, its pages faulted in */
    log->spare = tc->calls;
    log->spare_cap = tc->cap;
    tc->calls = NULL;
    tc->cap = 0;
  }
  free(held);
}

/* Spills the thread holding the most calls that are not open, if any. */
static void spill_largest(ip_call_log *log) {
  thread_calls *largest = NULL;
  for (size_t i = 0; i < log->n_threads; i++) {
    thread_calls *tc = &log->threads[i];
    if (tc->n > tc->n_open && (!largest || tc->n - tc->n_open > largest->n - largest->n_open))
      largest = tc;
  }
  if (largest)
    spill(log, largest);
}

static thread_calls *thread_of(ip_call_log *log, const ip_session *s, const ip_thread *t) {
  size_t k = (size_t)(t - s->threads);
  if (k >= log->n_threads)
    ip_must_grow((void **)&log->threads, &log->n_threads, k + 1, sizeof *log->threads);
  return &log->threads[k];
}

/* The slots of the open calls at depth `from` and deeper are left out. */
static void leave_open(thread_calls *tc, uint32_t from) {
  for (size_t d = from; d < tc->n_open; d++)
    tc->calls[tc->open_slot[d]].seq = SLOT_HOLE;
  if (from < tc->n_open)
    tc->n_open = from;
}

static void on_call(void *ctx, const ip_session *s, const ip_thread *t, uint32_t func,
                    uint32_t depth, uint64_t start_ns, uint64_t dur_ns, uint64_t app_ns) {
  ip_call_log *log = ctx;
  if (dur_ns < log->o->min_duration_ns || !ip_selected_thread(s, &log->o->sel, t) ||
      !ip_selected_call(&log->o->sel, (uint32_t)(t - s->threads), depth, start_ns, dur_ns)) {
    ip_call_log_skip(log, s, t, depth);
    return;
  }
  ip_call_log_add(log, s, t, func, depth, start_ns, dur_ns, app_ns);
}

/* A new slot at the end of tc's. */
static ip_logged_call *take_slot(ip_call_log *log, thread_calls *tc) {
  if (tc->n == tc->cap && !tc->calls && log->spare) { /* starting again: the spare */
    tc->calls = log->spare;
    tc->cap = log->spare_cap;
    log->spare = NULL;
  } else if (tc->n == tc->cap) { /* doubled, not zeroed: every slot is written before it is read */
    tc->cap = tc->cap ? 2 * tc->cap : 1024;
    tc->calls = ip_must_realloc(tc->calls, tc->cap, sizeof *tc->calls);
  }
  log->in_memory++;
  return &tc->calls[tc->n++];
}

/* Slots for the calls open at depths tc->n_open to depth - 1, the callers of
 * a call ending at depth: they began before it. */
static __attribute__((noinline)) void open_callers(ip_call_log *log, thread_calls *tc,
                                                   uint32_t depth) {
  if (depth > tc->cap_open)
    ip_must_grow((void **)&tc->open_slot, &tc->cap_open, depth, sizeof *tc->open_slot);
  for (size_t d = tc->n_open; d < depth; d++) {
    take_slot(log, tc)->seq = SLOT_OPEN;
    tc->open_slot[d] = tc->n - 1;
  }
  tc->n_open = depth;
}

void ip_call_log_add(ip_call_log *log, const ip_session *s, const ip_thread *t, uint32_t func,
                     uint32_t depth, uint64_t start_ns, uint64_t dur_ns, uint64_t app_ns) {
  thread_calls *tc = thread_of(log, s, t);
  if (log->in_memory >= log->max_in_memory && !log->spill_failed)
    spill_largest(log);
  ip_logged_call *c;
  if (depth < tc->n_open) { /* its slot was taken when its first callee ended */
    leave_open(tc, depth + 1);
    c = &tc->calls[tc->open_slot[depth]];
    tc->n_open = depth;
  } else {
    if (depth > tc->n_open)
      open_callers(log, tc, depth);
    c = take_slot(log, tc);
  }
  *c = (ip_logged_call){start_ns, dur_ns, app_ns, tc->ended++, func, depth};
}

void ip_call_log_skip(ip_call_log *log, const ip_session *s, const ip_thread *t, uint32_t depth) {
  size_t k = (size_t)(t - s->threads);
  if (k < log->n_threads)
    leave_open(&log->threads[k], depth);
}

void ip_call_log_drop(ip_call_log *log, const ip_session *s, const ip_thread *t, uint32_t depth) {
  thread_calls *tc = thread_of(log, s, t);
  tc->dropped++;
  leave_open(tc, depth);
}

ip_call_log *ip_call_log_new(const ip_export_opts *o, size_t max_in_memory) {
  ip_call_log *log = ip_must_calloc(1, sizeof *log);
  log->o = o;
  log->visitor.ctx = log;
  log->visitor.on_call = on_call;
  log->max_in_memory = max_in_memory ? max_in_memory : 1;
  log->spill_fd = -1;
  return log;
}

const ip_call_visitor *ip_call_log_visitor(ip_call_log *log) { return &log->visitor; }

static void free_thread(thread_calls *tc) {
  free(tc->calls);
  free(tc->open_slot);
  free(tc->runs);
  *tc = (thread_calls){0};
}

void ip_call_log_free(ip_call_log *log) {
  if (!log)
    return;
  for (size_t i = 0; i < log->n_threads; i++)
    free_thread(&log->threads[i]);
  free(log->threads);
  free(log->spill_buf);
  free(log->spare);
  if (log->spill_fd >= 0)
    close(log->spill_fd);
  free(log);
}

size_t ip_call_log_count(const ip_call_log *log, size_t t) {
  if (t >= log->n_threads)
    return 0;
  return log->threads[t].ended + log->threads[t].dropped;
}

/* One sorted source of a merge: a spilled run read in pieces, or the calls
 * still in memory (sorted, all "read"). */
typedef struct cursor {
  ip_logged_call *buf; /* calls decoded, not yet merged from pos on */
  size_t pos, len;
  uint8_t *bytes; /* RUN_READ_BYTES read, not yet decoded from at on */
  size_t at, n_bytes;
  off_t next;        /* where the run's unread part starts */
  size_t bytes_left; /* bytes of the run not yet read */
  size_t left;       /* calls of the run not yet decoded */
  run_last last;
} cursor;

/* Decodes the run's next calls (up to RUN_READ_CALLS) into c->buf. */
static void cursor_fill(int fd, cursor *c) {
  c->pos = c->len = 0;
  for (; c->left && c->len < RUN_READ_CALLS; c->left--) {
    if (c->n_bytes - c->at < SPILLED_MAX && c->bytes_left) {
      size_t rest = c->n_bytes - c->at;
      memmove(c->bytes, c->bytes + c->at, rest);
      size_t more = RUN_READ_BYTES - rest < c->bytes_left ? RUN_READ_BYTES - rest : c->bytes_left;
      ip_spool_read_back(fd, c->bytes + rest, more, c->next);
      c->next += (off_t)more, c->bytes_left -= more;
      c->at = 0, c->n_bytes = rest + more;
    }
    c->at = (size_t)(decode_call(c->bytes + c->at, &c->buf[c->len++], &c->last) - c->bytes);
  }
}

/* A binary heap of cursor indices, ordered by each cursor's current call. */
typedef struct merge {
  cursor *cur;
  size_t *heap, n;
} merge;

/* The current call of the cursor at heap place i. */
static const ip_logged_call *head(const merge *m, size_t i) {
  const cursor *c = &m->cur[m->heap[i]];
  return &c->buf[c->pos];
}

static int heap_less(const merge *m, size_t a, size_t b) {
  const cursor *x = &m->cur[m->heap[a]], *y = &m->cur[m->heap[b]];
  return by_begin(&x->buf[x->pos], &y->buf[y->pos]) < 0;
}

static void heap_down(merge *m, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, s = i;
    if (l < m->n && heap_less(m, l, s))
      s = l;
    if (r < m->n && heap_less(m, r, s))
      s = r;
    if (s == i)
      return;
    size_t tmp = m->heap[i];
    m->heap[i] = m->heap[s], m->heap[s] = tmp;
    i = s;
  }
}

/* Calls the timeline function for every call of thread tc, in begin order,
 * with the nesting closes: a call closes when one at its depth or above
 * begins (depth says the nesting exactly, whatever the times). */
static void emit_merged(const ip_call_log *log, thread_calls *tc, const ip_timeline_fn *fn) {
  size_t n_cur = tc->n_runs + (tc->n ? 1 : 0);
  merge m = {ip_must_calloc(n_cur, sizeof *m.cur), ip_must_calloc(n_cur, sizeof *m.heap), 0};
  for (size_t i = 0; i < tc->n_runs; i++) {
    cursor *c = &m.cur[i];
    c->buf = ip_must_calloc(RUN_READ_CALLS, sizeof *c->buf);
    c->bytes = ip_must_calloc(RUN_READ_BYTES, 1);
    c->next = tc->runs[i].offset, c->left = tc->runs[i].n;
    c->bytes_left = tc->runs[i].bytes;
    cursor_fill(log->spill_fd, c);
    m.heap[m.n++] = i;
  }
  if (tc->n) {
    m.cur[tc->n_runs] = (cursor){.buf = tc->calls, .len = tc->n};
    m.heap[m.n++] = tc->n_runs;
  }
  for (size_t i = m.n; i-- > 0;)
    heap_down(&m, i);
  ip_logged_call *open = NULL;
  size_t n_open = 0, cap = 0;
  while (m.n) {
    /* the calls of the first cursor up to the other cursors' first call:
     * the runs begin mostly after each other, so most go without the heap */
    cursor *c = &m.cur[m.heap[0]];
    const ip_logged_call *others = m.n > 1 ? head(&m, 1) : NULL;
    if (m.n > 2 && by_begin(head(&m, 2), others) < 0)
      others = head(&m, 2);
    for (int last = 0; !last;) {
      ip_logged_call call = c->buf[c->pos++];
      if (c->pos == c->len) {
        if (c->left)
          cursor_fill(log->spill_fd, c);
        else
          m.heap[0] = m.heap[--m.n], last = 1;
      }
      last = last || (others && by_begin(&c->buf[c->pos], others) > 0);
      while (n_open && open[n_open - 1].depth >= call.depth)
        fn->close(fn->ctx, &open[--n_open]);
      fn->open(fn->ctx, &call);
      if (n_open == cap)
        ip_must_grow((void **)&open, &cap, n_open + 1, sizeof *open);
      open[n_open++] = call;
    }
    if (m.n > 1)
      heap_down(&m, 0);
  }
  while (n_open)
    fn->close(fn->ctx, &open[--n_open]);
  free(open);
  for (size_t i = 0; i < tc->n_runs; i++)
    free(m.cur[i].buf), free(m.cur[i].bytes);
  free(m.cur);
  free(m.heap);
}

void ip_call_log_each(const ip_call_log *log,
                      void (*fn)(void *ctx, size_t thread, const ip_logged_call *c), void *ctx) {
  cursor c = {.buf = ip_must_calloc(RUN_READ_CALLS, sizeof *c.buf),
              .bytes = ip_must_calloc(RUN_READ_BYTES, 1)};
  for (size_t t = 0; t < log->n_threads; t++) {
    const thread_calls *tc = &log->threads[t];
    for (size_t i = 0; i < tc->n; i++)
      if (tc->calls[i].seq < SLOT_HOLE)
        fn(ctx, t, &tc->calls[i]);
    for (size_t r = 0; r < tc->n_runs; r++) {
      c.next = tc->runs[r].offset, c.left = tc->runs[r].n;
      c.bytes_left = tc->runs[r].bytes;
      c.at = c.n_bytes = 0;
      c.last = (run_last){0, 0};
      while (c.left) {
        cursor_fill(log->spill_fd, &c);
        for (size_t i = 0; i < c.len; i++)
          fn(ctx, t, &c.buf[i]);
      }
    }
  }
  free(c.buf);
  free(c.bytes);
}

void ip_call_log_replay(ip_call_log *log, size_t t, const ip_timeline_fn *fn) {
  if (t >= log->n_threads)
    return;
  thread_calls *tc = &log->threads[t];
  log->in_memory -= tc->n;
  settle(tc, NULL);
  emit_merged(log, tc, fn);
  free_thread(tc);
}
