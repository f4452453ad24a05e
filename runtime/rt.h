/* rt.h - internal interfaces of the inclprof runtime (not installed).
 * The runtime is in layers, one folder each, top first (docs/runtime.md,
 * "Layers"); a file calls its own layer and those below:
 *   entry/    what the program, the plugin's code and libc call: probes
 *             (the hot path), units (registration), interpose (the libc
 *             interposers), signals, control (inclprof.h), lifecycle
 *             (start-up, exit, exec, fork);
 *   produce/  thread (per-thread buffers), buffer_pool, flush (encoding
 *             EventBatch frames), writer (the writer thread), crowding,
 *             kevents, sampling, transitions (pmu/kevents/none counters),
 *             registry (units, gids, names) and retired (unloaded units' gids);
 *   sink/     output (the trace file and its records), exit_state,
 *             trace_write (appending frames, size limits), trace_ring,
 *             trace_index (the Index of what was written),
 *             calibration_cache (one calibration per output directory);
 *   base/     state (ip_st, ip_tls), settings (INCLPROF_*), locks, clock,
 *             libc_real (libc's own sigaction, syscall), fd_reserve,
 *             ptr_map (pointer -> gid maps), env_carry, arena (the
 *             runtime's own memory), objects (the loaded objects), say
 *             (messages on stderr).
 * The declarations below are grouped by file. */
#ifndef INCLPROF_RT_H
#define INCLPROF_RT_H

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "inclprof.pb-c.h"
#include "inclprof_abi.h"

#define IP_HIDDEN __attribute__((visibility("hidden")))
#define IP_EXPORT __attribute__((visibility("default")))
/* Code in this section is "the runtime's own code" for sampling. */
#define IP_RT_TEXT     __attribute__((section("inclprof_text"), noinline))
#define IP_LIKELY(x)   __builtin_expect(!!(x), 1)
#define IP_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---- in-memory events ------------------------------------------------- */
/* tick bit 63: the transition counter moved since this thread's previous event.
 * arg: descriptor pointer | kind (EV_ENTER..EV_RET), or, for the private kinds
 * below, payload << 3 | kind. */
struct ip_event {
  uint64_t tick;
  uint64_t arg;
};
#define IP_T_BIT (1ull << 63)
enum {
  IP_K_ENTER = 0,
  IP_K_EXIT = 1,
  IP_K_CALL = 2,
  IP_K_RET = 3,      /* descriptor | kind */
  IP_K_CALL_IND = 4, /* target << 3 */
  IP_K_RET_IND = 5,  /* target << 3 */
  IP_K_SAMPLE = 6,   /* pc << 4 | in_runtime << 3 */
  IP_K_CONTROL = 7, /* (payload << 3 | EventKind) << 3: MARK (payload = MarkName.id), PAUSE, RESUME;
            or with EventKind EV_ENTER (IP_CORO_FRAME_TAG), the coroutine frame of the ENTER
            event that follows (payload: the coroutine_frame probe's value); or with EventKind
            EV_RESUME and a descriptor as payload (IP_LANDING_TAG), a landing */
};
/* The low six bits of a coroutine frame's slot: EV_ENTER << 3 | IP_K_CONTROL. */
#define IP_CORO_FRAME_TAG 7u
/* The low six bits of a landing (a returns_twice call returned in the
 * descriptor's function): EV_RESUME << 3 | IP_K_CONTROL, the descriptor
 * above them; an inclprof_start() RESUME has none. */
#define IP_LANDING_TAG (INCLPROF__EVENT_KIND__EV_RESUME << 3 | IP_K_CONTROL)
static inline const struct inclprof_fn *ip_landing_desc(uint64_t arg) {
  return (arg & 63) == IP_LANDING_TAG ? (const struct inclprof_fn *)(uintptr_t)(arg >> 6) : NULL;
}
/* A coroutine frame's slot: no event of its own, and no tick (0). */
static inline int ip_is_coro_frame(uint64_t arg) { return (arg & 63) == IP_CORO_FRAME_TAG; }

/* Units of these ABI versions are registered; an older one has fewer hooks. */
static inline int ip_abi_known(const struct inclprof_tu *tu) {
  return tu->abi_version >= INCLPROF_ABI_OLDEST && tu->abi_version <= INCLPROF_ABI_VERSION;
}

/* Buffer geometry: IP_BUF_EVENTS normal slots, then headroom for events
 * appended from signal handlers while a flush is not allowed, then one junk
 * slot that absorbs events when even the headroom is full. */
#define IP_BUF_EVENTS 16384u
#define IP_HEADROOM   256u
/* Encoding area of one buffer: 10 (dt varint) + 5 (code varint) + 8 + 4
 * (arrays) + slack per event, plus the headers of a batch, plus the woken
 * threads' tids of a batch's kernel-event records (5 bytes each at most, for
 * the 24 576 records a batch holds at most: kevents.c), plus the futex words
 * and operations of its futex waits (15 bytes each at most, for the
 * IP_KEV_FUTEX_MAX a batch holds at most). */
#define IP_KEV_FUTEX_MAX 4096u
#define IP_SCRATCH_BYTES                                                                           \
  ((IP_BUF_EVENTS + IP_HEADROOM) * 28u + 65536u + 131072u + IP_KEV_FUTEX_MAX * 15u)
#define IP_POOL_SLOTS 16u /* spare buffers kept for hand-offs */
#define IP_JOBS       64u /* buffers handed to the writer at once */
#define IP_INFLIGHT   8u  /* ... of them from one thread */

/* One saved kernel-event record: tick on the probes' clock,
 * Inclprof__KernelEventKind; for KEV_WAKE the tid of the thread woken (arg),
 * for KEV_FUTEX_WAIT the futex word's address (futex) and the operation (arg). */
struct ip_kev {
  uint64_t tick;
  uint64_t futex;
  uint32_t kind;
  uint32_t arg;
};

/* The kernel-event records a batch carries: n records, or lost when the ring
 * wrapped before they were read. */
struct ip_kev_list {
  const struct ip_kev *kev;
  size_t n;
  int lost;
  size_t n_wake;  /* of the n, KEV_WAKE records */
  size_t n_futex; /* of the n, KEV_FUTEX_WAIT records */
};

/* What a descriptor of the runtime holds (fd_own.c), to tell whether the
 * number still holds it before closing. */
struct ip_fd_id {
  uint64_t dev, ino, perf; /* perf: a perf event's id, 0 for other files */
};

/* ---- per-thread state (initial-exec TLS) ------------------------------- */
struct ip_rt_thread {
  /* hot: touched by every probe */
  struct ip_event *pos, *end;
  const volatile uint64_t *tr_src; /* kevents: &data_head; pmu: unused */
  uint64_t tr_last;
  uint64_t
      kev_drain_at; /* kevents: data_head at which a probe drains the ring (UINT64_MAX: never) */
  void *pmu_page;   /* pmu: the event's user page */
  /* cold */
  struct ip_event *buf, *hard_end; /* hard_end = junk slot */
  uint8_t *scratch;                /* encoding area */
  size_t scratch_len;
  void *ring; /* kevents ring mapping */
  size_t ring_len;
  int ring_fd2; /* page-fault event (kept open: see transitions.c) */
  struct ip_fd_id ring_fd2_id;
  int wake_fd[2]; /* sched_waking, sched_wakeup_new events (kept open), -1 if none */
  struct ip_fd_id wake_fd_id[2];
  int futex_fd; /* syscalls:sys_enter_futex's waits (kept open), -1 if none */
  struct ip_fd_id futex_fd_id;
  int no_counter; /* IP_NC_*: why this thread has no transition counter */
  /* kevents records saved at flush time (kevents.c) for the next batch */
  struct ip_kev *kev; /* kev_cap slots, kev_n filled */
  size_t kev_cap, kev_n;
  size_t kev_n_wake;                       /* of the kev_n, KEV_WAKE records */
  size_t kev_n_futex;                      /* of the kev_n, KEV_FUTEX_WAIT records */
  uint64_t kev_wake_id[2];                 /* sample ids of the wake-up events */
  uint64_t kev_futex_id;                   /* sample id of the futex event (0: none) */
  int kev_lost;                            /* no room for records: the batch has none */
  int kev_taken;                           /* kev holds a saved batch's records: start anew */
  uint64_t kev_pos;                        /* ring position read up to */
  uint64_t kev_pf_id;                      /* sample id of the page-fault event */
  uint64_t kev_anchor_tick, kev_anchor_ns; /* tick and CLOCK_MONOTONIC_RAW at the last save */
  uint32_t tid;
  char name[17]; /* the name last written in a Thread record */
  uint64_t seq;
  size_t skip; /* events already written by flush_other */
  int state;   /* IP_TS_* */
  volatile int in_flush;
  volatile int sig_depth; /* >0 inside a (wrapped) signal handler */
  int lent;               /* a child runs on this thread's state: nothing is recorded */
  struct ip_event *lent_pos, *lent_end; /* pos and end while lent */
  atomic_int busy;                      /* flush ownership (owner thread or a fatal-signal flush) */
  uint64_t dropped;
  int final_done;      /* taken by the running final flush (under threads_lock) */
  int key_rounds;      /* rounds of key destructors this thread has seen while exiting */
  int ended_at_exit;   /* its ThreadEnd was written by the exit (under threads_lock) */
  void *timer;         /* sampling timer id (timer_t) when has_timer == IP_SAMPLER_TIMER */
  int has_timer;       /* IP_SAMPLER_*: which sampler this thread has */
  int sample_fd;       /* perf task-clock event when has_timer == IP_SAMPLER_PERF */
  uint64_t sample_rng; /* xorshift state of the sampler's varying period */
  uint64_t sample_due; /* the sampler's clock (ns of CPU time) at the next sample */
  struct ip_fd_id sample_fd_id;
  atomic_int inflight;       /* buffers handed to the writer and not yet written */
  unsigned crowd_window;     /* the last crowding window this thread filled a buffer in */
  struct ip_agg *agg;        /* INCLPROF_MODE=aggregate: the thread's call-path tree */
  struct ip_rt_thread *next; /* global list */
};
/* SETTING_UP: the thread's first probe is setting it up; a probe in a signal
 * handler that interrupts it is dropped (counted) rather than re-entering. */
enum { IP_TS_NEW = 0, IP_TS_READY = 1, IP_TS_DEAD = 2, IP_TS_SETTING_UP = 3 };
enum { IP_SAMPLER_NONE = 0, IP_SAMPLER_TIMER = 1, IP_SAMPLER_PERF = 2 };
/* Why a thread has no transition counter although the mode has one. */
enum { IP_NC_NONE = 0, IP_NC_FD_RESERVE = 1, IP_NC_OPEN_FAILED = 2 };

extern __thread struct ip_rt_thread ip_tls __attribute__((tls_model("initial-exec"))) IP_HIDDEN;

/* ---- process state ----------------------------------------------------- */
struct ip_state {
  atomic_int init_state; /* 0 not yet, 1 running, 2 disabled */
  int fd;                /* trace file, O_APPEND */
  pid_t pid;
  int mode;           /* Inclprof__TransitionMode */
  char note[1024];    /* transitions_note */
  int clock;          /* Inclprof__ClockSource */
  int clock_unfenced; /* INCLPROF_CLOCK=fast: the probes read the clock without a fence */
  int aggregate;      /* INCLPROF_MODE=aggregate: call-path trees in memory, no events written */
  /* The periods recording was off, [off, on) in ticks (on = UINT64_MAX while
   * off), the first IP_OFF_PERIODS of them: written by windows.c under its
   * lock, read by the aggregate mode's fold, which takes them from the
   * intervals as the converter takes a trace's Window records. */
  struct ip_off_period {
    uint64_t off, on;
  } off_periods[64];
  atomic_uint n_off_periods;
  unsigned intervals; /* --interval files written (the control thread's) */
  int intervals_on;   /* INCLPROF_INTERVAL is in force (windows.c) */
  double ticks_per_second;
  double probe_cost_ticks;
  double probe_hidden_ticks;
  int probe_calls; /* the first unit registered calls its hooks (no INCLPROF_FN_STUB_PROBES):
                      the calibration times those probes */
  double kevent_cost_ticks; /* kevents: what one ring record adds to a system call */
  uint64_t start_tick;
  unsigned sample_hz;
  int tracepoint_id;  /* raw_syscalls:sys_enter, -1 if unknown */
  int wake_tp[2];     /* kevents: sched_waking, sched_wakeup_new ids; -1 when no wake edges */
  unsigned wakee_off; /* offset of the woken thread's pid in their raw data */
  int futex_tp;       /* kevents: syscalls:sys_enter_futex's id; -1 when no futex waits */
  unsigned futex_uaddr_off, futex_op_off; /* its fields uaddr and op in its raw data */
  int kev_granted; /* kevents' events come from the grant server (perf_grant.c) */
  const struct inclprof_hooks *hooks; /* the set for the mode */
  /* Counters for the Trailer: each incremented where it happens (the
   * producers, the writer, the ring policy), read by output.c. */
  atomic_uint_fast64_t events, batches, dropped, samples, samples_in_runtime;
  atomic_uint_fast64_t handoffs, inline_flushes, crowded_flushes; /* writer.c */
  atomic_uint_fast64_t ring_dropped_events, ring_dropped_bytes;   /* trace_ring.c */
  atomic_int dying; /* a fatal path is writing the trailer */
  atomic_int trailer_written;
  atomic_int final_flush; /* the exit's flush of every thread is running */
  atomic_int exiting;     /* exit() has begun: the trace ends once no unit is left registered */
  int declined;           /* a child started without fork's handlers (clone, _Fork): not recorded */
  int program_allocator;  /* malloc & co. are not libc's: creating a thread would call them, so
                             the runtime starts a thread of its own only when a setting asks */
  pthread_mutex_t threads_lock; /* the thread list; see locks.c for the order */
  struct ip_rt_thread *threads;
  atomic_uint n_threads;           /* length of the thread list */
  atomic_uint threads_not_flushed; /* other threads the final flush gave up on */
  pthread_key_t key;
  char dir[1024];
  char path[1100];
};
extern struct ip_state ip_st IP_HIDDEN;

/* locks.c */
#define IP_EXIT_FLUSH_MS 2000u                    /* how long the final flush may wait for locks */
IP_HIDDEN void ip_mutex_init(pthread_mutex_t *m); /* error-checking */
/* 1 when the lock was taken: blocking normally, a try in a signal handler,
 * waiting at most until the calling thread's exit deadline when it has one. */
IP_HIDDEN int ip_lock(pthread_mutex_t *m, int in_signal);
IP_HIDDEN void ip_unlock(pthread_mutex_t *m);
IP_HIDDEN void ip_exit_deadline_start(unsigned ms);
IP_HIDDEN void ip_exit_deadline_end(void);
IP_HIDDEN int ip_exit_deadline_passed(void);

/* settings.c: the INCLPROF_* variables as the process had them when the
 * runtime was loaded (copies; NULL when unset), read by ip_settings_load,
 * once, from the first of the library's constructors or the first
 * registration; ip_settings_reread reads them again (unit tests). */
struct ip_settings {
  char *output;          /* INCLPROF_OUTPUT: the trace directory */
  char *transitions;     /* INCLPROF_TRANSITIONS: auto, pmu, kevents or none */
  char *wake_edges;      /* INCLPROF_WAKE_EDGES: 0 leaves kevents' wake-up events out */
  char *futex_waits;     /* INCLPROF_FUTEX_WAITS: 0 leaves kevents' futex-wait event out */
  char *sample_hz;       /* INCLPROF_SAMPLE_HZ */
  char *max_size;        /* INCLPROF_MAX_SIZE */
  char *max_size_policy; /* INCLPROF_MAX_SIZE_POLICY: stop or ring */
  char *clock;           /* INCLPROF_CLOCK: fenced or fast */
  char *writer;          /* INCLPROF_WRITER: auto, thread or inline */
  char *carry_env;       /* INCLPROF_CARRY_ENV: 0 turns the carrying off */
  char *run;             /* INCLPROF_RUN: the run this process belongs to */
  char *record_notes;    /* INCLPROF_RECORD_NOTES: where inclprof record wants the
                            reason for a missing trace */
  char *paused;          /* INCLPROF_PAUSED: 1 starts with recording off */
  char *delay;           /* INCLPROF_DELAY: recording starts this long after start-up */
  char *duration;        /* INCLPROF_DURATION: and stops this long after it starts */
  char *flush_every;     /* INCLPROF_FLUSH_EVERY: every thread's events written this often */
  char *ctl;             /* INCLPROF_CTL: 0 leaves the control socket out */
  char *tables;          /* INCLPROF_TABLES: shared (table files) or inline (in each trace) */
  char *mode;            /* INCLPROF_MODE: trace or aggregate */
  char *interval;        /* INCLPROF_INTERVAL: aggregate mode: a profile file this often */
  char *grant;           /* INCLPROF_GRANT: the recording's grant server (perf_grant.h) */
  char *snapshot_if;     /* INCLPROF_SNAPSHOT_IF: FUNCTION>DURATION[,...] */
  char *snapshot_margin; /* INCLPROF_SNAPSHOT_MARGIN: time kept before and after the call */
  char *snapshot_keep;   /* INCLPROF_SNAPSHOT_KEEP: the most snapshots kept */
};
extern struct ip_settings ip_set IP_HIDDEN;
IP_HIDDEN void ip_settings_load(void);
IP_HIDDEN void ip_settings_reread(void);

/* clock.c */
IP_HIDDEN void ip_clock_calibrate(void);
IP_HIDDEN uint64_t ip_now_ns_realtime(void);
IP_HIDDEN uint64_t ip_monotonic_ns(void); /* CLOCK_MONOTONIC, ns */

/* transitions.c */
struct perf_event_mmap_page;
IP_HIDDEN extern const volatile uint64_t ip_zero_head;            /* a counter that never moves */
IP_HIDDEN extern const struct perf_event_mmap_page ip_dummy_page; /* reads as 0 */
IP_HIDDEN void ip_transitions_choose(void);                       /* sets ip_st.mode/note */
IP_HIDDEN void ip_transitions_thread_open(struct ip_rt_thread *t);
IP_HIDDEN void ip_transitions_thread_close(struct ip_rt_thread *t);
IP_HIDDEN void ip_transitions_fork_child_forget(struct ip_rt_thread *t);
IP_HIDDEN int ip_tracepoint_id(const char *const *paths, char *why, size_t whylen);
/* Whether a futex operation (the system call's op) may sleep. */
IP_HIDDEN int ip_futex_op_waits(uint32_t op);
IP_HIDDEN int ip_transitions_decide(const char *req, int pmu_ok, int kev_ok, const char *pmu_why,
                                    const char *kev_why, char *note, size_t notelen);
IP_HIDDEN uint64_t ip_pmu_read(void *page);

/* perf_access.c: why the kernel refuses a transition counter */
/* 1, with why, when the process may not open kernel perf events. */
IP_HIDDEN int ip_perf_refusal(char *why, size_t len);
/* The tracepoint's id file (path) could not be read for want of permission. */
IP_HIDDEN void ip_tracefs_refusal(const char *path, char *why, size_t len);
/* The next step for a process refused its kernel events, naming its uid. */
IP_HIDDEN void ip_refusal_next_step(char *out, size_t len);

/* perf_grant.c: the calling thread's kevents events ([0] the ring's, [1]
 * page faults) from the grant server named by INCLPROF_GRANT: 0, or -1 with
 * why. */
IP_HIDDEN int ip_grant_kevents(int fds[2], char *why, size_t len);

/* fd_reserve.c */
#define IP_FD_RESERVE      64 /* descriptors below RLIMIT_NOFILE left to the program */
#define IP_FD_RESERVE_TEXT "64"
/* 1 when `need` more descriptors leave IP_FD_RESERVE free; then call
 * ip_fd_room_end(need) once they are opened (or failed to open). */
IP_HIDDEN int ip_fd_room_begin(unsigned need);
IP_HIDDEN void ip_fd_room_end(unsigned need);

/* fd_own.c: the runtime's long-lived descriptors, above the program's
 * numbers and skipped by its close calls. */
/* Moves fd above the program's numbers (closing the original), makes it
 * close-on-exec and the runtime's own; returns its number. */
IP_HIDDEN int ip_fd_own(int fd);
IP_HIDDEN int ip_fd_is_own(int fd);
IP_HIDDEN void ip_fd_identify(int fd, struct ip_fd_id *id);
/* Not the runtime's any more; closed only if it still holds id. */
IP_HIDDEN void ip_fd_release(int fd, const struct ip_fd_id *id);
IP_HIDDEN void ip_fd_forget(int fd); /* not the runtime's any more (closed elsewhere) */
IP_HIDDEN void ip_fd_libc_init(void);
/* The program's close, close_range and closefrom, each passing over the
 * runtime's numbers (range: how a piece is closed; NULL for libc's). */
typedef int ip_close_range_fn(unsigned first, unsigned last, int flags);
IP_HIDDEN int ip_fd_program_close(int fd);
IP_HIDDEN int ip_fd_close_range_around(unsigned first, unsigned last, int flags,
                                       ip_close_range_fn *range);
IP_HIDDEN void ip_fd_program_closefrom(int lowfd);

/* kevents.c */
/* After the thread's ring is mapped: room for the records, reading starts
 * at the current head.  pf_id: the page-fault event's sample id. */
IP_HIDDEN void ip_kevents_open(struct ip_rt_thread *t, uint64_t pf_id);
IP_HIDDEN void ip_kevents_close(struct ip_rt_thread *t);
/* At flush time (the caller owns the buffer): the records since the previous
 * save (those probes drained meanwhile, then the rest), in t->kev / t->kev_n;
 * a wrap of the ring leaves a KEV_LOST record where records are missing.  No
 * system call, no allocation (safe in a signal handler). */
IP_HIDDEN void ip_kevents_save(struct ip_rt_thread *t);
/* From a probe whose ring passed half full since the last read (tick: the
 * probe's event): moves its records to t->kev, unless a flush owns them. */
IP_HIDDEN void ip_kevents_drain(struct ip_rt_thread *t, uint64_t tick);
/* After the flush's own work: its records are not the program's.  Those
 * from `from` (the ring's head when the flush's Gap ended) to the head are
 * skipped too unless one is a context switch, which then reaches the next
 * batch with them.  Returns the position skipped to: the thread's transition
 * counter as the flush leaves it. */
IP_HIDDEN uint64_t ip_kevents_skip(struct ip_rt_thread *t, uint64_t from);

/* probes.c */
IP_HIDDEN const struct inclprof_hooks *ip_hooks_for_mode(int mode);
IP_HIDDEN void ip_append_private(uint64_t arg); /* control events */
IP_HIDDEN double ip_probe_calibrate(double *hidden);

/* thread.c */
/* Reserves the next slot of the thread's buffer: pos += 1, returning the old
 * pos, in ONE instruction on x86-64 (xadd without lock: atomic against a
 * signal handler interrupting this thread, which is all a per-thread buffer
 * needs), so a probe in a handler can never be given the slot of the probe
 * it interrupted.  A result at or past end goes to the slow path. */
/* cppcheck-suppress constParameterPointer ; t->pos is written by the asm */
static inline __attribute__((always_inline)) struct ip_event *ip_reserve(struct ip_rt_thread *t) {
#if defined(__x86_64__)
  uintptr_t p = sizeof(struct ip_event);
  __asm__ __volatile__("xadd %0, %1" : "+r"(p), "+m"(t->pos) : : "memory");
  return (struct ip_event *)p;
#else
  /* GCC's __atomic builtins add to a pointer in bytes, unscaled. */
  return __atomic_fetch_add(&t->pos, sizeof(struct ip_event), __ATOMIC_RELAXED);
#endif
}
/* Slow path for a reservation p at or past end: the slot to fill (p in the
 * headroom; a fresh slot on a thread's first event, after setting it up; or
 * a junk slot when the event cannot be kept), NULL when the event is not to
 * be recorded at all (the thread's state is lent to a child). */
IP_HIDDEN struct ip_event *ip_slow_slot(struct ip_rt_thread *t, struct ip_event *p);
/* After filling a slow-path slot: flush if the buffer is full and this
 * context may (not in a signal handler, not inside a flush). */
IP_HIDDEN void ip_slow_flush(struct ip_rt_thread *t);
/* Sets the calling thread up if it is not yet; 0 when it is ready. */
IP_HIDDEN int ip_thread_ensure(void);
IP_HIDDEN void ip_thread_flush(struct ip_rt_thread *t, int in_signal);
/* The same where the caller may hold a lock the writer thread can wait for
 * (the loader's, in dlclose or a constructor): waits for the writer 100 ms at
 * most, and leaves the events buffered if that is not enough. */
IP_HIDDEN void ip_thread_flush_bounded(struct ip_rt_thread *t);
IP_HIDDEN void ip_thread_exit(struct ip_rt_thread *t);
IP_HIDDEN void ip_threads_flush_all(int in_signal);
/* While the program runs: every thread's events so far (those stored before
 * its buffer is looked at, handed-off buffers included), waiting up to ms
 * for threads flushing themselves.  Returns the threads, *left_out those
 * given up on. */
IP_HIDDEN unsigned ip_threads_flush_live(unsigned ms, unsigned *left_out, int interval);
IP_HIDDEN void ip_thread_after_fork_child(void);
/* A vfork child runs on t's state from ip_thread_lend to
 * ip_thread_take_back (both by t itself); a child with a copy of the
 * parent's memory and no fork handler declines it for good. */
IP_HIDDEN void ip_thread_lend(struct ip_rt_thread *t);
IP_HIDDEN void ip_thread_take_back(struct ip_rt_thread *t);
IP_HIDDEN void ip_thread_decline(struct ip_rt_thread *t);
IP_HIDDEN void ip_thread_key_init(void);

/* aggregate.c (INCLPROF_MODE=aggregate): a thread's events folded into its
 * call-path tree, which is written as a ThreadProfile record. */
/* Folds ev[0..n) into t's tree and empties their slots (as encoding does). */
IP_HIDDEN void ip_agg_fold(struct ip_rt_thread *t, struct ip_event *ev, size_t n,
                           const struct ip_kev_list *kl, int in_signal);
/* The runtime held t from start to end (folding a full buffer): taken from
 * its next interval, as the converter takes a Gap. */
IP_HIDDEN void ip_agg_gap(struct ip_rt_thread *t, uint64_t start, uint64_t end);
/* Closes t's open frames (alive_until_now: after one more interval up to
 * now, for a thread alive when the process ends) and writes its tree, once. */
IP_HIDDEN void ip_agg_write(struct ip_rt_thread *t, int alive_until_now, uint64_t now);
/* A running thread's tree so far (its open frames counted up to its last
 * event), for `inclprof ctl flush`: t's busy flag held. */
IP_HIDDEN void ip_agg_snapshot(struct ip_rt_thread *t);
/* --interval: what t's tree gained since the last interval, as a Thread and
 * a ThreadProfile frame appended to *buf (grown to *cap; *len used); t's
 * busy flag held. */
IP_HIDDEN void ip_agg_interval(struct ip_rt_thread *t, uint8_t **buf, size_t *len, size_t *cap);
/* The frames of the threads that ended since the last interval's file
 * (their last part), taken: *buf to ip_free. */
IP_HIDDEN void ip_agg_interval_ended(uint8_t **buf, size_t *len, size_t *cap);
/* At the process's end, after the final flush: every thread's tree (and,
 * with INCLPROF_INTERVAL, the last interval's file). */
IP_HIDDEN void ip_agg_write_all(int in_signal);
IP_HIDDEN void ip_agg_free(struct ip_rt_thread *t);

/* flush.c: both leave the arg of every event of ev[0..n) 0 (an empty slot). */
IP_HIDDEN void ip_encode_and_write(struct ip_rt_thread *t, struct ip_event *ev, size_t n,
                                   int in_signal);

IP_HIDDEN void ip_encode_batch(uint8_t *scratch, size_t scratch_len, uint32_t tid, uint64_t seq,
                               struct ip_event *ev, size_t n, const struct ip_kev_list *kl,
                               int in_signal);

/* buffer_pool.c */
IP_HIDDEN size_t ip_buffer_bytes(void);
IP_HIDDEN struct ip_event *ip_buffer_new(void); /* zeroed, pre-faulted; NULL if out of memory */
IP_HIDDEN void ip_buffer_free(struct ip_event *b);
IP_HIDDEN struct ip_event *ip_pool_take(void);  /* a spare, or NULL */
IP_HIDDEN void ip_pool_put(struct ip_event *b); /* every arg of b 0 */
IP_HIDDEN unsigned ip_pool_spares(void);

/* writer.c */
IP_HIDDEN void ip_writer_init(void); /* reads INCLPROF_WRITER */
/* A job slot and a spare buffer (*fresh) for handing t's full buffer off, or
 * -1: encode inline (the writer is off, starting, behind, or the program's
 * threads keep every CPU busy), counted as such. */
IP_HIDDEN int ip_writer_begin(struct ip_rt_thread *t, struct ip_event **fresh);
IP_HIDDEN void ip_writer_submit(int slot, struct ip_rt_thread *t, struct ip_event *block,
                                struct ip_event *ev, size_t n, uint64_t g0, uint64_t g1);
/* Before t's events are encoded inline: t's queued jobs are taken back and
 * written first, the one being written waited for as `wait` allows.  1 when
 * t has nothing in flight any more. */
enum {
  IP_SETTLE_NOWAIT = 0,
  IP_SETTLE_WAIT = 1,    /* as long as it takes, or until the exit deadline */
  IP_SETTLE_SPIN = 2,    /* in a signal handler: spin, 100 ms at most */
  IP_SETTLE_BOUNDED = 3, /* yield, 100 ms at most (the caller may hold the loader's lock) */
};
IP_HIDDEN int ip_writer_settle(struct ip_rt_thread *t, int wait);
IP_HIDDEN void ip_writer_after_fork_child(void);

/* crowding.c */
IP_HIDDEN void ip_crowding_init(void); /* counts the CPUs the process may run on */
/* Notes that t filled a buffer at tick now; 1 while as many threads as
 * those CPUs filled one in the last complete window. */
IP_HIDDEN int ip_crowding_note(struct ip_rt_thread *t, uint64_t now);
IP_HIDDEN void ip_crowding_after_fork_child(void);

/* output.c */
IP_HIDDEN int ip_output_open(char *err, size_t errlen);
IP_HIDDEN void ip_write_record(const Inclprof__Record *rec, int log_it);
/* Aggregate mode's --interval: OUTPUT/<pid>.intervals/<seq>.ipb, a file of
 * its own with the Header, the table records so far, frames (the
 * interval's Thread and ThreadProfile records) and a Trailer; 0 or -1. */
IP_HIDDEN int ip_write_interval_file(unsigned seq, const uint8_t *frames, size_t len);
IP_HIDDEN void ip_write_header(uint32_t forked_from);
IP_HIDDEN void ip_write_thread(uint32_t tid, const char *name, uint64_t tick);
IP_HIDDEN void ip_write_gap(uint32_t tid, uint64_t start, uint64_t end);
IP_HIDDEN void ip_write_trailer(int clean, const char *reason);
IP_HIDDEN void ip_output_fork_child(void);
/* The trace of a child the runtime does not record (started by how without
 * fork's handlers): its Header and a Trailer saying so, written by the
 * parent in the output directory. */
IP_HIDDEN void ip_write_child_trace(uint32_t pid, const char *how);
IP_HIDDEN void ip_output_lock_log(void);
IP_HIDDEN void ip_output_unlock_log(void);
IP_HIDDEN void ip_output_fork_child_locks(void);
IP_HIDDEN void ip_disable(const char *why);
IP_HIDDEN void ip_say_unprofiled(const char *why); /* also into INCLPROF_RECORD_NOTES */

/* calibration_cache.c */
/* 1 when the output directory (ip_st.dir) holds a calibration of this boot,
 * runtime, clock, transition mode and probe form: then it is in ip_st's
 * ticks_per_second, probe_cost_ticks and probe_hidden_ticks. */
IP_HIDDEN int ip_calibration_load(void);
/* After a load that found none: leaves ip_st's for the next process. */
IP_HIDDEN void ip_calibration_save(void);

/* trace_write.c */
/* Writes a Trailer (output.c's ip_write_trailer, handed down to the file
 * writer, which ends the trace with it when recording stops at a limit). */
typedef void ip_trailer_writer(int clean, const char *reason);
/* After the file is opened. */
IP_HIDDEN void ip_trace_write_start(uint64_t preamble_bytes, ip_trailer_writer *write_trailer);
IP_HIDDEN const char *ip_trace_write_error(void); /* NULL while recording works */
IP_HIDDEN uint64_t ip_trace_bytes_written(void);
IP_HIDDEN const struct ip_fd_id *ip_trace_fd_id(void); /* what the trace descriptor holds */
/* on: recording that stops now (an exec is ending the trace, whose Trailer
 * names the cause) says so in record's notes only, not on stderr. */
IP_HIDDEN void ip_trace_write_quiet(int on);
IP_HIDDEN void ip_write_frame(const uint8_t *frame, size_t len);
/* "stop" or "ring" when INCLPROF_MAX_SIZE is set, else NULL; the limit in bytes */
IP_HIDDEN const char *ip_trace_size_policy(uint64_t *max_size);

/* What the final records may still take under the size limits (UINT64_MAX: no limit). */
IP_HIDDEN uint64_t ip_trace_final_room(void);

/* trace_index.c (the frames noted by trace_write.c, the Index encoded for output.c) */
IP_HIDDEN void ip_index_start(int on); /* on: the file gets an Index (not under the ring policy) */
/* Before frame is appended: 1 when it is a Thread record, whose append then
 * holds the index's lock (the index lists threads in file order). */
IP_HIDDEN int ip_index_hold(const uint8_t *frame, size_t len);
/* After frames were appended (held: ip_index_hold's answer). */
IP_HIDDEN void ip_index_seen(const uint8_t *frames, size_t len, int held);
IP_HIDDEN void ip_index_release(int held);
/* The Index, the trailer record's frame and the Footer as one run of bytes
 * for one write, in *bytes (a mapping of *mapped bytes: free it with
 * ip_index_tail_free); offset: the bytes of the file before them.  Their
 * length, or 0 when no index is kept or it cannot be encoded (then the
 * caller writes the Trailer alone). */
IP_HIDDEN size_t ip_index_tail(const Inclprof__Record *trailer, uint64_t offset, uint8_t **bytes,
                               size_t *mapped);
IP_HIDDEN void ip_index_tail_free(uint8_t *bytes, size_t mapped);

/* trace_ring.c (called by trace_write.c, which serializes them) */
IP_HIDDEN void ip_ring_start(uint64_t max_size);
IP_HIDDEN void ip_ring_seen(const uint8_t *frames, size_t len);
/* Makes path the .prev segment and starts a new one on fd; 0 or an errno. */
IP_HIDDEN int ip_ring_rotate(int fd, const char *path, uint64_t bytes_now, uint64_t *start_bytes);

/* snapshot_write.c: one snapshot written from the ring's segment files. */
struct ip_snapshot_want {
  unsigned cond, number;
  uint32_t tid, gid;
  uint64_t enter_tick, exit_tick, from_tick, to_tick;
  uint64_t took;      /* ticks: exit less enter, by the clock */
  uint64_t gap_ticks; /* of which the runtime held the thread (its Gap records) */
};
/* The ring's files, open for reading, and what a snapshot starts with
 * (trace_write.c takes them under ring_lock; close and free them with
 * ip_snapshot_source_free). */
struct ip_snapshot_source {
  int cur_fd, prev_fd; /* -1: none */
  int held_fd;         /* the segment before the .prev, kept for a window waiting; -1: none */
  uint64_t cur_len;    /* whole frames of the newest segment */
  uint8_t *header;     /* the Header frame */
  size_t header_len;
  uint8_t *tables; /* Module, Function and MarkName frames so far */
  size_t tables_len;
};
IP_HIDDEN int ip_trace_snapshot_source(struct ip_snapshot_source *src);
IP_HIDDEN int ip_ring_snapshot_source(struct ip_snapshot_source *src);
/* After windows were written: the segment kept aside for them goes when no
 * window waiting needs it (all: at the end of the trace). */
IP_HIDDEN void ip_trace_snapshot_release(int all);
IP_HIDDEN void ip_ring_snapshot_release(int all);
IP_HIDDEN void ip_snapshot_source_free(struct ip_snapshot_source *src);
/* One snapshot to write: its window, and where (dir/<pid>.ipb). */
struct ip_snapshot_out {
  const struct ip_snapshot_want *want;
  const char *function;
  uint64_t bound_ns;
  char dir[1200];
  int err; /* 0, or why it could not be written (an errno) */
};
/* Writes every window of out[0..n) in one pass over the ring's files. */
IP_HIDDEN void ip_snapshot_write(const struct ip_snapshot_source *src, struct ip_snapshot_out *out,
                                 size_t n);

/* snapshot_watch.c: the conditions of INCLPROF_SNAPSHOT_IF, the calls
 * found slower than their bound as the ring walks the frames written, and
 * the snapshots kept (see docs/runtime.md, "Snapshots of slow calls"). */
IP_HIDDEN void ip_snapshots_start(void); /* reads the settings; a fork child forgets its parent's */
IP_HIDDEN int ip_snapshots_on(void);
/* A Function record written (trace_ring.c): is its name watched? */
IP_HIDDEN void ip_snapshot_function(uint32_t gid, const uint8_t *name, size_t name_len,
                                    const uint8_t *pretty, size_t pretty_len);
/* The watch of gid: 0 when no condition names it, else its condition + 1. */
IP_HIDDEN extern uint8_t *ip_snapshot_watch;
IP_HIDDEN extern size_t ip_snapshot_watch_len;
#define IP_SNAPSHOT_CONDS 8
/* Each condition's bound in ticks: a call no longer than it is not slow. */
IP_HIDDEN extern uint64_t ip_snapshot_bound[IP_SNAPSHOT_CONDS];
/* A call of a watched gid ended (trace_ring.c, under ring_lock). */
IP_HIDDEN void ip_snapshot_call(unsigned cond, uint32_t gid, uint32_t tid, uint64_t enter_tick,
                                uint64_t exit_tick, uint64_t gap_ticks);
/* 1 when a wanted window has ended (its margin after the call passed). */
IP_HIDDEN int ip_snapshots_ripe(void);
/* 1 when a window waiting begins before tick (its data older than that). */
IP_HIDDEN int ip_snapshots_need(uint64_t tick);
#define IP_SNAPSHOTS_WANTED 256 /* windows waiting to be written, at most */
/* Takes the windows that have ended (all: every one, cut at now, at the end
 * of the trace) into out, in the order their calls ended; their count. */
IP_HIDDEN unsigned ip_snapshots_take(int all, struct ip_snapshot_want *out, unsigned max);
/* Writes the windows w[0..n) under DIR/snapshots/, but none no slower than
 * KEEP snapshots kept, dropping the least slow kept past KEEP. */
IP_HIDDEN void ip_snapshots_save_all(const struct ip_snapshot_source *src,
                                     struct ip_snapshot_want *w, unsigned n);

/* entry/snapshots.c: writes the snapshots whose windows have ended (all:
 * every window still wanted, at the end of the trace). */
IP_HIDDEN void ip_snapshots_save(int all);

/* say.c: one line on stderr, with write() (printf-style format) */
IP_HIDDEN void ip_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* say.c: all of p to fd, through EINTR; gives up on any other failure. */
IP_HIDDEN void ip_write_all(int fd, const char *p, size_t n);
/* strerror's text for error number e, without calling strerror (a program
 * may define its own): in a buffer of the calling thread, good until its
 * next call. */
IP_HIDDEN const char *ip_errno_text(int e);

/* arena.c: the runtime's own memory (never the program's malloc, which it
 * may define itself): zeroed blocks, lock-free, safe in a signal handler. */
IP_HIDDEN void *ip_alloc(size_t n); /* zeroed; NULL when out of memory */
IP_HIDDEN void *ip_realloc(void *p, size_t n);
IP_HIDDEN void ip_free(void *p);
IP_HIDDEN char *ip_strdup(const char *s);
IP_HIDDEN char *ip_strndup(const char *s, size_t max);

/* objects.c: the objects the loader has mapped, found without dladdr or
 * dlsym (docs/runtime.md, "Modules and unloading").  in_signal: only the
 * objects loaded with the program are known (ip_objects_keep copied them). */
#define IP_OBJECT_NAME  512
#define IP_BUILD_ID_MAX 64
struct ip_object {
  uintptr_t lo, hi;                  /* loaded extent */
  uintptr_t base;                    /* first mapped byte: the module's load address */
  int is_main;                       /* the program itself */
  char name[IP_OBJECT_NAME];         /* the loader's name for it ("" for the program) */
  uint8_t build_id[IP_BUILD_ID_MAX]; /* its GNU build-id note (build_id_len bytes, 0: none) */
  size_t build_id_len;
};
IP_HIDDEN void ip_objects_keep(void); /* once, where the loader may be called */
IP_HIDDEN void ip_objects_fork_child(void);
/* The object holding addr; 0 when none does. */
IP_HIDDEN int ip_object_of(uintptr_t addr, struct ip_object *out, int in_signal);
/* The object a call of name from code at caller binds to, and (*at, 0 when
 * it defines none) the definition; 0 when neither it nor the caller's
 * object is known. */
IP_HIDDEN int ip_object_binding(const char *name, uintptr_t caller, struct ip_object *out,
                                uintptr_t *at, int in_signal);
/* The object holding addr and the dynamic symbol at exactly addr (name, ""
 * when none; from a table sorted once per object); for one of the
 * runtime's interposers, the definition it passes on to (*real, libc's)
 * and its object.  0 when no object holds addr. */
IP_HIDDEN int ip_object_named(uintptr_t addr, struct ip_object *out, char *name, size_t len,
                              uintptr_t *real, int in_signal);
/* 1 when malloc, calloc, realloc or free is not libc's (the program's own,
 * or a preloaded allocator's): what creating a thread would call. */
IP_HIDDEN int ip_objects_program_allocator(void);

/* ptr_map.c */
struct ip_map_table;
struct ip_map {
  struct ip_map_table *_Atomic tab;
};
IP_HIDDEN uint32_t ip_map_get(struct ip_map *m, uintptr_t k); /* 0: absent */
IP_HIDDEN void ip_map_put(struct ip_map *m, uintptr_t k, uint32_t v);
/* fn(key, value, ctx) for every present key in [lo, hi) */
IP_HIDDEN void ip_map_each_in(struct ip_map *m, uintptr_t lo, uintptr_t hi,
                              void (*fn)(uintptr_t key, uint32_t val, void *ctx), void *ctx);

/* retired.c */
/* Moves key's gid from live to the history hist, for events before until. */
IP_HIDDEN void ip_retire(struct ip_map *live, struct ip_map *hist, uintptr_t key, uint64_t until);
/* The gid key had for an event at tick, or 0 when it had none then; *had is
 * set when key has a history (its answer depends on the tick). */
IP_HIDDEN uint32_t ip_retired_gid(struct ip_map *hist, uintptr_t key, uint64_t tick, int *had);

/* function_record.c */
#define IP_NAME_MAX 1000 /* longer names are cut so that a record fits a stack frame */
struct ip_fn_text {
  char name[IP_NAME_MAX + 1], pretty[IP_NAME_MAX + 1], file[IP_NAME_MAX + 1];
};
/* f's names, file, id, line and size from fn (or only the name `name` when
 * fn is NULL), their text kept in t. */
IP_HIDDEN void ip_function_fill(Inclprof__Function *f, struct ip_fn_text *t,
                                const struct inclprof_fn *fn, const char *name);

/* shared_tables.c: the Function records of the units of each object, as a
 * table file shared by the traces of the output directory (or, failing
 * that, in the trace).  Each caller holds reg_lock. */
/* The object of module id `module` (once, when its first unit registers). */
IP_HIDDEN void ip_tables_object(uint32_t module, const char *path, uintptr_t base,
                                const uint8_t *build_id, size_t build_id_len);
/* A descriptor of a registered unit: an entry of its object's table, with
 * gid `gid` (an instrumented function), or 0 (a callee: its gid is given
 * when the table is written, ip_callee_gid). */
IP_HIDDEN void ip_tables_add(const struct inclprof_fn *fn, uint32_t gid, uint32_t module);
IP_HIDDEN int ip_tables_pending(void); /* entries not yet in a table (lock-free) */
/* Writes the pending entries' tables (or records) and TableRef records. */
IP_HIDDEN void ip_tables_close_locked(int in_signal);
/* Table callees: the object a callee's name binds to is the process's own,
 * written once (a Function record with gid and module only) before the
 * first batch that names it.  States, per gid: 0 nothing to write;
 * IP_BIND_TODO not yet known; IP_BIND_KNOWN + module known, not written. */
#define IP_BIND_TODO  1u
#define IP_BIND_KNOWN 2u
IP_HIDDEN uint32_t ip_bind_state(uint32_t gid); /* lock-free */
IP_HIDDEN void ip_bind_set(uint32_t gid, uint32_t state);
IP_HIDDEN void ip_bind_write(uint32_t gid, uint32_t module, int log_it);

/* sink/table_file.c: a table file NAME in the trace directory, written
 * whole under a temporary name and renamed.  Each returns 0 or an errno. */
IP_HIDDEN int ip_table_file_exists(const char *name);
IP_HIDDEN int ip_table_file_begin(const char *name);
IP_HIDDEN int ip_table_file_add(const Inclprof__Record *rec);
IP_HIDDEN int ip_table_file_commit(void);
IP_HIDDEN void ip_table_file_abort(void);

/* registry.c */
/* Writes the tables of the units registered since the last call (before a
 * batch that may name their functions, and before the Trailer). */
IP_HIDDEN void ip_tables_close_pending(int in_signal);
/* Caller holds reg_lock.  The gid a table callee's events carry, given
 * now; 0 when it shares the gid of the instrumented function of its name. */
IP_HIDDEN uint32_t ip_callee_gid(const struct inclprof_fn *fn);
/* The gid of a descriptor or code address named by an event at tick;
 * *fixed is cleared when the answer depends on the tick (the pointer
 * belonged to an unloaded unit), so it must not be remembered. */
IP_HIDDEN uint32_t ip_gid_of_desc(const struct inclprof_fn *fn, uint64_t tick, int in_signal,
                                  int *fixed);
IP_HIDDEN uint32_t ip_gid_of_addr(uintptr_t addr, uint64_t tick, int in_signal, int *fixed);
IP_HIDDEN uint32_t ip_mark_id(const char *text);
/* A unit of this runtime's ABI joins the tables: its Function records are
 * written and its hooks set. */
IP_HIDDEN void ip_units_add(struct inclprof_tu *tu);
/* A unit leaves (its hooks are set null); 1 when no unit is left
 * registered.  unloading: its object is being unmapped (dlclose), so its
 * callees are named now and its functions keep their names only for the
 * events before now; otherwise (exit) nothing is named or moved. */
IP_HIDDEN int ip_units_remove(struct inclprof_tu *tu, int unloading);
IP_HIDDEN void ip_units_set_paused(int on);
IP_HIDDEN unsigned ip_units_registered(void); /* units registered and not yet unregistered */
IP_HIDDEN void ip_registry_fork_prepare(void);
IP_HIDDEN void ip_registry_fork_parent(void);
IP_HIDDEN void ip_registry_fork_child(void);

/* windows.c: recording on and off (every unit's hooks), each switch a
 * Window record; the timed window and the periodic flush's deadlines. */
/* 1 when it switched, 0 when it already was so, -1 when the lock was refused */
IP_HIDDEN int ip_recording_set(int on, const char *reason);
IP_HIDDEN int ip_recording_on(void);
IP_HIDDEN void
ip_windows_start(void); /* INCLPROF_PAUSED, _DELAY, _DURATION, _FLUSH_EVERY, _INTERVAL */
IP_HIDDEN int ip_windows_wanted(void); /* a deadline to wait for, or recording off */
IP_HIDDEN void ip_windows_after_fork_child(void);
/* Switches what is due; *flush: the periodic work due (IP_DUE_*).
 * Milliseconds to the next deadline, -1 when there is none. */
enum { IP_DUE_FLUSH = 1, IP_DUE_INTERVAL = 2 }; /* INCLPROF_FLUSH_EVERY, INCLPROF_INTERVAL */
IP_HIDDEN int64_t ip_windows_due(int *flush);

/* children.c: processes started without fork's handlers */
IP_HIDDEN void ip_vfork_prepare(void);
IP_HIDDEN long ip_vfork_resume(long rc);
IP_HIDDEN int ip_clone(int (*fn)(void *), void *stack, int flags, void *arg, pid_t *ptid, void *tls,
                       pid_t *ctid);
IP_HIDDEN pid_t ip_fork_bare(void); /* _Fork */
/* 1 when syscall(n, a...) starts a process with a copy of the caller's
 * memory and stack (clone, clone3 without CLONE_VM or a stack; fork); then
 * ip_syscall_forked(its result, how) after it, in the child and the parent. */
IP_HIDDEN int ip_syscall_forks(long n, const long a[6], const char **how);
IP_HIDDEN void ip_syscall_forked(long rc, const char *how);

/* ctl_channel.c: the control thread and its socket INCLPROF_OUTPUT/<pid>.ctl */
IP_HIDDEN void ip_ctl_start(void); /* at start-up, after the Header */
IP_HIDDEN void ip_ctl_after_fork_child(void);
IP_HIDDEN void ip_ctl_close(void); /* removes the socket (async-signal-safe) */

/* units.c: dlclose (interpose.c) is unmapping what its destructors unregister */
IP_HIDDEN void ip_unloading_begin(void);
IP_HIDDEN void ip_unloading_end(void);

/* lifecycle.c */
IP_HIDDEN int ip_init_once(void);
/* The runtime records this process (started, and not a child running on
 * the state of the process it records: getpid() is ip_st.pid). */
IP_HIDDEN int ip_process_is_ours(void);
/* A child of the recorded process running on its state or a copy of it
 * without fork's handlers (vfork, clone, _Fork). */
IP_HIDDEN int ip_process_is_child(void);
/* Flushes every thread and writes the Trailer, once; keep_going: the process
 * may continue (a failed exec) and recording goes on. */
IP_HIDDEN void ip_finish(const char *reason, int clean, int keep_going);
IP_HIDDEN void ip_finish_from_signal(int sig);
/* exit() has begun (or the runtime is being unloaded): the trace ends now
 * unless units are still registered, then at the last one's unregistering. */
IP_HIDDEN void ip_exit_begun(void);

/* env_carry.c: the run this process belongs to (INCLPROF_RUN, else made from
 * the pid and start time, then carried into new processes like the settings),
 * set once at start-up; its id for the Header. */
IP_HIDDEN void ip_run_begin(uint64_t start_unix_ns);
IP_HIDDEN const char *ip_run_id(void);
/* env_carry.c: envp with the runtime's settings added where it lacks them.
 * ip_env_carry_size gives the sizes of the two arrays ip_env_carry fills
 * (the caller's, on its stack); the result is envp itself or ptrs. */
IP_HIDDEN void ip_env_carry_size(char *const envp[], size_t *n_ptrs, size_t *n_chars);
IP_HIDDEN char *const *ip_env_carry(char *const envp[], char **ptrs, char *chars);
/* Declares CARRIED, envp with the runtime's settings, in arrays on the stack. */
#define IP_WITH_CARRIED_ENV(envp, carried)                                                         \
  size_t carried##_np, carried##_nc;                                                               \
  ip_env_carry_size(envp, &carried##_np, &carried##_nc);                                           \
  char *carried##_ptrs[carried##_np];                                                              \
  char carried##_chars[carried##_nc];                                                              \
  char *const *carried = ip_env_carry(envp, carried##_ptrs, carried##_chars)
IP_HIDDEN int ip_before_exec(void); /* 1 when the calling thread's sampler ran */
IP_HIDDEN int ip_after_failed_exec(int had_sampler, int rc); /* returns rc, errno kept */

/* exit_state.c */
/* Before the Trailer: every other live thread's name as the kernel has it
 * now, and (unless the process may go on: a failed exec) its ThreadEnd at
 * the exit's tick. */
IP_HIDDEN void ip_exit_state(int in_signal, int keep_going);
/* The command line now, split into argv (at most max) inside buf: no
 * allocation (a fatal-signal handler writes the Trailer).  Returns argc. */
IP_HIDDEN size_t ip_exit_argv(char *buf, size_t len, char **argv, size_t max);

/* signals.c */
IP_HIDDEN void ip_signals_install(void);
/* The program's sigaction(), as its interposer passes it on. */
IP_HIDDEN int ip_signals_program_sigaction(int sig, const struct sigaction *act,
                                           struct sigaction *old);

/* own_threads.c: the runtime's threads, off glibc's count of the threads
 * whose end ends the process. */
/* Starts fn detached, with every signal blocked (stack: its size, 0 for
 * the default); pthread_create's result. */
IP_HIDDEN int ip_own_thread_start(void *(*fn)(void *), size_t stack);
IP_HIDDEN void ip_own_thread_end(void); /* the runtime's thread, just before it returns */
/* The program's threads alive (glibc's count, the runtime's left out), -1
 * when not known. */
IP_HIDDEN long ip_program_threads(void);

/* notes.c: a line (ending in a newline) on stderr when on_stderr, and in
 * record's notes file (INCLPROF_RECORD_NOTES) when there is one. */
IP_HIDDEN void ip_notes_line(const char *line, int on_stderr);

/* libc_real.c: libc's own definitions of what interpose.c interposes and the
 * runtime calls itself, found at start-up (ip_libc_init). */
typedef long ip_syscall_fn(long, ...);
IP_HIDDEN void ip_libc_init(void);
IP_HIDDEN void *ip_libc_next(const char *name); /* dlsym(RTLD_NEXT, name) */
IP_HIDDEN int ip_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
IP_HIDDEN ip_syscall_fn *ip_real_syscall(void); /* NULL when libc has none */
/* libc's own vsnprintf (own_stdio.c's snprintf and vsnprintf call it), never
 * a program's; NULL when it cannot be found. */
typedef int ip_vsnprintf_fn(char *, size_t, const char *, va_list);
IP_HIDDEN ip_vsnprintf_fn *ip_real_vsnprintf(void);

/* sampling.c */
IP_HIDDEN void ip_sampling_init(void);
IP_HIDDEN void ip_sampling_thread_start(struct ip_rt_thread *t);
IP_HIDDEN void ip_sampling_thread_stop(struct ip_rt_thread *t);
IP_HIDDEN void ip_sampling_after_fork_child(struct ip_rt_thread *t);
IP_HIDDEN int ip_sampling_signal(void);
IP_HIDDEN void ip_sample_handler(int sig, siginfo_t *si, void *uc);

#include "base/clock.h"

#endif
