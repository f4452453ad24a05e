/* model/windows.c - the recording windows of one trace file: each off
 * period [off, on) from the Window records, and the summary a process keeps
 * ("0.500 s to 1.700 s (ctl start, ctl stop)").  Periods are appended by
 * the thread reading the file and read by the replay threads; a period's end
 * is set once, when its on record comes, and read atomically. */
#include "model/windows.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/loader.h"
#include "util/util.h"

typedef struct off_period {
  uint64_t off, on; /* on: UINT64_MAX while off */
  char *off_why, *on_why;
  struct off_period *_Atomic next;
} off_period;

struct ip_windows {
  off_period *_Atomic head;
  off_period *tail;
  int seen; /* a Window record was read */
};

ip_windows *ip_windows_new(void) { return ip_must_calloc(1, sizeof(ip_windows)); }

void ip_windows_take(ip_windows *w, const Inclprof__Window *rec) {
  if (!rec->has_tick)
    return;
  w->seen = 1;
  int open = w->tail && __atomic_load_n(&w->tail->on, __ATOMIC_RELAXED) == UINT64_MAX;
  const char *why = rec->reason ? rec->reason : "";
  if (rec->recording && open) {
    w->tail->on_why = ip_must_strdup(why);
    __atomic_store_n(&w->tail->on, rec->tick, __ATOMIC_RELAXED);
  } else if (!rec->recording && !open) {
    off_period *p = ip_must_calloc(1, sizeof *p);
    p->off = rec->tick;
    p->on = UINT64_MAX;
    p->off_why = ip_must_strdup(why);
    if (w->tail)
      atomic_store(&w->tail->next, p);
    else
      atomic_store(&w->head, p);
    w->tail = p;
  }
}

int ip_windows_any(const ip_windows *w) { return w && atomic_load(&w->head) != NULL; }

uint64_t ip_windows_off_ticks(const ip_windows *w, uint64_t from, uint64_t to) {
  uint64_t sum = 0;
  if (!w)
    return 0;
  for (const off_period *p = atomic_load(&w->head); p && p->off < to; p = atomic_load(&p->next)) {
    uint64_t on = __atomic_load_n(&p->on, __ATOMIC_RELAXED);
    uint64_t a = p->off > from ? p->off : from, b = on < to ? on : to;
    if (b > a)
      sum += b - a;
  }
  return sum;
}

static uint64_t after_start(const ip_file *f, uint64_t tick) {
  return tick > f->start_tick ? (uint64_t)((double)(tick - f->start_tick) * f->ns_per_tick) : 0;
}

/* "FROM to TO (WHY, WHY)" for one window on, appended to text. */
static void add_window(char **text, size_t *len, const ip_file *f, uint64_t on, const char *on_why,
                       uint64_t off, const char *off_why) {
  char a[32], b[32] = "", part[256];
  ip_fmt_ns(a, sizeof a, after_start(f, on));
  if (off != UINT64_MAX)
    ip_fmt_ns(b, sizeof b, after_start(f, off));
  int n = off != UINT64_MAX
              ? snprintf(part, sizeof part, "%s%s to %s (%s, %s)", *len ? "; " : "", a, b, on_why,
                         off_why)
              : snprintf(part, sizeof part, "%s%s to the end (%s)", *len ? "; " : "", a, on_why);
  if (n <= 0)
    return;
  *text = ip_must_realloc(*text, *len + (size_t)n + 1, 1);
  memcpy(*text + *len, part, (size_t)n + 1);
  *len += (size_t)n;
}

void ip_windows_finish(ip_windows *w, const ip_file *f, ip_process *p) {
  if (w->seen && p) {
    char *text = NULL;
    size_t len = 0;
    unsigned n = 0;
    uint64_t on = f->start_tick;
    const char *on_why = "start";
    for (off_period *q = w->head; q; q = q->next) {
      if (q->off > on) {
        add_window(&text, &len, f, on, on_why, q->off, q->off_why);
        n++;
      }
      if (q->on == UINT64_MAX) {
        on = UINT64_MAX;
        break;
      }
      on = q->on;
      on_why = q->on_why;
    }
    if (on != UINT64_MAX) {
      add_window(&text, &len, f, on, on_why, UINT64_MAX, "");
      n++;
    }
    p->windows = text ? text : ip_must_strdup("none: recording was off throughout");
    p->n_windows = n;
  }
  for (off_period *q = w->head, *next; q; q = next) {
    next = q->next;
    free(q->off_why);
    free(q->on_why);
    free(q);
  }
  free(w);
}
