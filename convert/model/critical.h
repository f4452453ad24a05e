/* model/critical.h - the critical path across threads (kevents traces with
 * wake edges): what each thread's kernel-event records say about when it ran,
 * waited for a CPU or slept and who woke it (ip_kline, collected by a first
 * replay), the path found from them (ip_critical: model/critical.c), and the
 * Critical Inclusive / Exclusive time a second replay gives each call path
 * (ip_values.crit_*).  The rules: "Critical path" in docs/converter.md. */
#ifndef INCLPROF_CRITICAL_H
#define INCLPROF_CRITICAL_H

#include <stddef.h>
#include <stdint.h>

struct ip_session;
struct ip_load_opts;

#define IP_NO_THREAD UINT32_MAX

/* A time the thread was off the CPU: switched out at `out`, back at `in`
 * (ticks of its process's clock); `blocked` (slept) or preempted.  A sleep
 * gets its waker when a wake-up of this thread falls in it: `waker` (the
 * index of that thread among its process's threads as ip_critical_find
 * lists them, IP_NO_THREAD when none) at `wake`. */
typedef struct ip_offcpu {
  uint64_t out, in, wake;
  uint32_t waker;
  uint32_t out_node;  /* the thread's call path when it went out (0: none open) */
  uint32_t wake_node; /* the waker's call path at the wake-up */
  uint64_t futex;     /* a sleep in a futex wait: the futex word (0: none) ... */
  uint32_t futex_op;  /* ... and the operation */
  uint8_t blocked;
  uint8_t exit_edge; /* the waker is a thread that ended: its exit woke this one */
} ip_offcpu;

/* A wake-up the thread made: of the thread `wakee` (a tid) at `tick`, while
 * the waker's call path was `node`. */
typedef struct ip_wake {
  uint64_t tick;
  uint32_t wakee, node;
} ip_wake;

/* One thread's kernel timeline, in ticks. */
typedef struct ip_kline {
  ip_offcpu *off;
  size_t n_off, cap_off;
  ip_wake *wake;
  size_t n_wake, cap_wake;
  uint64_t first, last; /* its first and last event */
  uint64_t end;         /* ThreadEnd's tick (0: none), at or after last */
  int cut;              /* alive at a snapshot's window's end: the trace, not the thread, ended */
  int pending;          /* switched out, not yet back: off[n_off] is being filled */
  int futex_open;       /* a futex wait entered and not yet over: its word and operation */
  uint64_t futex;
  uint32_t futex_op;
  int futex_last;       /* the last record was that wait's */
  uint64_t futex_tick;  /* ... at this tick */
  uint64_t futex_slack; /* ticks within which a system-call record right after it is its own */
  int started;          /* first is known */
  uint32_t creator;     /* the thread that started it (as waker), IP_NO_THREAD if unknown */
  uint64_t created;     /* ... at this tick */
  /* The second replay: the time (ns after the session start, as the
   * exports' calls) of each wake-up and of each off-CPU time's end, or
   * UINT64_MAX where no interval of the thread held it */
  uint64_t *wake_ns, *in_ns;
} ip_kline;

/* What a stretch of the path was on its thread. */
enum {
  IP_CP_RUN,      /* running */
  IP_CP_RUNNABLE, /* preempted, or woken and waiting for a CPU */
  IP_CP_EXTERNAL, /* asleep with no traced waker: I/O, a timer, another process */
  IP_CP_START,    /* the thread was being created: no events yet */
  IP_CP_KINDS
};

/* One stretch of the path: thread (index), [from, to) in its process's
 * ticks, kind; for the stretch that begins where the path jumped from a
 * woken thread to its waker: the wakee (index), else IP_NO_THREAD. */
typedef struct ip_cp_piece {
  uint64_t from, to;
  uint32_t thread, woke;
  uint8_t kind;
} ip_cp_piece;

/* One thread's timeline for the what-if (model/what_if.c): its cuts (ticks,
 * sorted) and, per stretch between cut i and i + 1, the ticks the function
 * was on its stack. */
typedef struct ip_whatif_line {
  uint64_t *cut, *f;
  size_t n;
} ip_whatif_line;

/* The critical path of each process's whole run (its main thread's first
 * event to its last: the root), walked back from the end. */
typedef struct ip_critical {
  int collect;         /* set by the caller: the first replay fills ip_thread.kline */
  ip_cp_piece *pieces; /* in the order the walk found them: each root's newest first */
  size_t n_pieces, cap_pieces;
  size_t *thread_first; /* per thread: its pieces in by_thread, oldest first ... */
  size_t *thread_n;     /* ... and how many */
  uint32_t *by_thread;  /* indexes into pieces, grouped by thread */
  size_t n_threads;
  uint64_t wall_ns;                /* the roots' durations, summed */
  uint64_t kind_ns[IP_CP_KINDS];   /* the path by kind, summed (ns) */
  uint64_t jumps, exit_edges;      /* wake edges the path followed; of them, thread exits */
  uint64_t edges, edges_unmatched; /* wake-ups of traced threads; those matching no sleep */
  int any_edges;                   /* a process recorded wake edges */
  int snapshot;                    /* a root is a snapshot's slow call, start to end */
  ip_kline **klines;               /* per thread (session index): its kernel timeline, or NULL */
  size_t n_klines;
  /* report --what-if: the function's name (set by the caller), the session
   * functions of that name, and the threads' timelines the second replay
   * fills */
  const char *what_if;
  uint8_t *whatif_target;
  size_t n_whatif_target;
  ip_whatif_line *whatif;
  /* The second replay: each piece's start and end (ns after the session
   * start; UINT64_MAX where no interval of its thread held them) */
  uint64_t *piece_ns;
} ip_critical;

/* A wake edge for the timeline exports: the waker's thread and the woken
 * one (session indexes), the wake-up and the woken thread's return to a
 * CPU (or its first event, for a thread's start), ns after the session start. */
typedef struct ip_wake_flow {
  uint32_t waker, wakee;
  uint64_t wake_ns, run_ns;
} ip_wake_flow;

/* One synchronisation object of the lock table (model/critical_locks.c). */
enum {
  IP_LOCK_KNOWN, /* object: the object, from the layout of the call that slept */
  IP_LOCK_WORD   /* object: the futex word (a call whose layout is not known) */
};
typedef struct ip_lock_row {
  uint32_t process;          /* session index */
  uint64_t object;           /* its address in the process (IP_LOCK_KNOWN) or the futex word's */
  uint64_t word;             /* a futex word of it its waiters slept on */
  int how;                   /* IP_LOCK_* */
  char name[160];            /* the data symbol holding it ("lock1", "queue+0x28"), "" if none */
  uint64_t waits, waited_ns; /* sleeps in a futex wait on it and their time */
  uint64_t jumps;            /* wake edges of those sleeps the path followed */
  uint64_t crit_ns;          /* the path's time on their wakers' threads while they slept (once) */
  uint32_t waiter_thread, waiter_node; /* the call that slept on it most (session thread) */
  uint32_t n_waiter_sites;             /* calls that slept on it (function < caller) */
  uint32_t holder_thread, holder_node; /* the waker's call that ended most of the sleeping */
  uint32_t n_holder_sites;
  uint32_t exit_thread; /* a join's: the thread whose exit ended it (IP_NO_THREAD) */
} ip_lock_row;

/* model/critical_locks.c */
struct ip_thread;
/* A call path's function and its caller's ("pthread_mutex_lock < stage_b"),
 * "[no function]" for none, into buf. */
const char *ip_call_site_name(const struct ip_session *s, const struct ip_thread *th, uint32_t node,
                              char *buf, size_t n);
/* Where glibc 2.<glibc_minor>'s condition variable waiters sleep: the offset
 * of __g_signals[0] in pthread_cond_t (40 up to 2.40, 32 from 2.41); 0 when
 * the version is not known (glibc_minor 0). */
unsigned ip_cond_signals_at(unsigned glibc_minor);
/* The object that a sleep in function fn (the innermost call: the wrapped
 * pthread_* call) waited on, from the futex word and operation, with the
 * process's condition variable layout (ip_cond_signals_at; 0: not known, its
 * condition variables' words are words): IP_LOCK_KNOWN with *object, or
 * IP_LOCK_WORD with *object = word. */
int ip_lock_object(const char *fn, uint64_t word, uint32_t op, unsigned cond_signals_at,
                   uint64_t *object);
/* The lock table of s's critical path c, sorted by crit_ns, into *out
 * (malloc'ed); its length. */
size_t ip_critical_locks(const struct ip_session *s, const ip_critical *c, ip_lock_row **out);

/* model/critical_sleeps.c */
/* ns per tick of thread's process. */
double ip_critical_tick_ns(const struct ip_session *s, uint32_t thread);
/* Every off-CPU stretch o of every traced thread of s, process by process:
 * fn(ctx, thread, o, waker), the waker as the session's thread index
 * (IP_NO_THREAD when none was traced). */
typedef void ip_sleep_fn(void *ctx, uint32_t thread, const ip_offcpu *o, uint32_t waker);
void ip_critical_each_sleep(const struct ip_session *s, const ip_critical *c, ip_sleep_fn *fn,
                            void *ctx);
/* Each jump of the path c from a woken thread to its waker: fn(ctx, p, o)
 * with p the piece that begins there and o the sleep its waker ended at
 * p->to (on the thread p->woke). */
typedef void ip_jump_fn(void *ctx, const ip_cp_piece *p, const ip_offcpu *o);
void ip_critical_each_jump(const ip_critical *c, ip_jump_fn *fn, void *ctx);

/* model/critical.c */
/* Finds the sleeps' wakers and the path of each process of s (whose threads'
 * kline the first replay filled) into c, and indexes its pieces by thread. */
void ip_critical_find(const struct ip_session *s, ip_critical *c);
/* The walk alone, over the threads `lines` of one process (index[i]: the
 * session index of lines[i], which the pieces name): appends to c the path
 * of the root [t0, t1] on lines[root].  The sleeps' wakers must be set. */
void ip_critical_walk(const ip_kline *const *lines, const uint32_t *index, size_t n, uint32_t root,
                      uint64_t t0, uint64_t t1, ip_critical *c);
/* Sets the wakers of lines' sleeps (lines: the threads of one process;
 * tids[i] the tid of lines[i]) from their wake-ups: a wake-up of tid X at t
 * wakes X's sleep around t (tol ticks of clock disagreement tolerated), or
 * starts X when X's events begin later; a sleep no wake-up ends is woken by
 * the exit of the thread that ended last before the sleep did, if it ended
 * during the sleep or at most exit_slack ticks before it (a join). */
void ip_critical_edges(ip_kline *const *lines, const uint32_t *tids, size_t n, uint64_t tol,
                       uint64_t exit_slack, ip_critical *c);
void ip_critical_free(ip_critical *c);

/* model/critical_load.c */
/* Loads paths into s as ip_session_load does; when a process recorded wake
 * edges, replays them a second time with the critical path c found from
 * the first (s then holds ip_values.crit_*, c the path and the threads'
 * timelines).  Returns 0 or -1 after the error was printed. */
int ip_session_load_critical(struct ip_session *s, char *const *paths, size_t n_paths,
                             const struct ip_load_opts *o, ip_critical *c);

/* model/critical_times.c */
/* Before the second replay: the arrays of the times it fills. */
void ip_critical_times_prepare(ip_critical *c);
/* The second replay: the raw ticks (a, b] of thread took el ns from ns0
 * (its time at a): the pieces, wake-ups and off-CPU ends in it get their
 * times; at[3] is the thread's cursor. */
void ip_critical_times(const ip_critical *c, uint32_t thread, size_t at[3], uint64_t a, uint64_t b,
                       uint64_t ns0, uint64_t el);
/* After the second replay of thread, whose first event (tick first) is at
 * first_ns and last (tick last) at last_ns: the pieces' boundaries at or
 * before first or at or after last that no interval held, by the process's
 * ns_per_tick from the nearer of the two. */
void ip_critical_times_outside(const ip_critical *c, uint32_t thread, uint64_t first,
                               uint64_t first_ns, uint64_t last, uint64_t last_ns,
                               double ns_per_tick);
/* The piece's start and end in ns after the session start (an end no
 * interval held from the other and its length); 0 when neither is known. */
int ip_critical_piece_ns(const struct ip_session *s, const ip_critical *c, size_t i, uint64_t *from,
                         uint64_t *to);
/* The wake edges between traced threads of s whose both ends have a time
 * (sleeps a traced thread ended, thread starts), into *out; their number. */
size_t ip_critical_flows(const struct ip_session *s, const ip_critical *c, ip_wake_flow **out);

/* model/what_if.c */
/* The functions named c->what_if in s (the first replay's session) and the
 * threads' cuts; -1 when no function has that name. */
int ip_whatif_prepare(const struct ip_session *s, ip_critical *c);
/* The second replay: the raw ticks (a, b] of thread had the function on its
 * stack; *at is the thread's cursor into its cuts. */
void ip_whatif_share(const ip_critical *c, uint32_t thread, size_t *at, uint64_t a, uint64_t b);
/* The roots' wall time as observed and as predicted with the function's
 * running time divided by factor, summed over the processes, ns. */
void ip_whatif_predict(const struct ip_session *s, const ip_critical *c, double factor,
                       uint64_t *observed_ns, uint64_t *predicted_ns);
void ip_kline_free(ip_kline *k);

/* The per-thread pieces of c for the second replay (ip_critical_find makes
 * them). */
static inline const ip_cp_piece *ip_critical_piece(const ip_critical *c, uint32_t thread,
                                                   size_t i) {
  return &c->pieces[c->by_thread[c->thread_first[thread] + i]];
}

#endif
