/* base.h - the runtime's bottom layer (docs/runtime.md, "Layers"), used by
 * every layer above: the in-memory events and the buffers' geometry, the
 * thread and process state ip_tls and ip_st (state.c), the settings
 * (INCLPROF_*), locks, the clock, the one way to libc's own syscall, close
 * and sigaction (libc_real.c), the descriptor reserve and the runtime's own
 * descriptors, the runtime's memory (arena.c), the loaded objects, the
 * environment carried into new processes, messages (say.c, notes.c).  A
 * file of base/ includes this header and none of the layers above; the
 * declarations are grouped by file. */
#ifndef INCLPROF_RT_BASE_H
#define INCLPROF_RT_BASE_H

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "inclprof.pb-c.h"
#include "inclprof_abi.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

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
            EV_RESUME and a descriptor as payload (IP_LANDING_TAG), a landing; or with
            EventKind EV_CALL and no payload (IP_PTR_CALL_TAG), a call through a pointer
            whose hooks recorded nothing */
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
/* A call through a pointer to a function whose own probes name it (or whose
 * calls a filter excludes): its two hooks recorded nothing, and their time
 * is in the interval that ends at the next event.  Its slot is no event
 * either, and has no tick (0). */
#define IP_PTR_CALL_TAG ((uint64_t)INCLPROF__EVENT_KIND__EV_CALL << 3 | IP_K_CONTROL)
static inline int ip_is_ptr_call(uint64_t arg) { return arg == IP_PTR_CALL_TAG; }

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
#define IP_POOL_SLOTS    16u  /* spare buffers kept for hand-offs */
#define IP_TIGHT_SPARES  2u   /* ... when the program's memory is bounded (mem_limits.c) */
#define IP_EAGER_THREADS 256u /* threads whose own buffer is pre-faulted (buffer_pool.c) */
#define IP_JOBS          64u  /* buffers handed to the writer at once */
#define IP_INFLIGHT      8u   /* ... of them from one thread */

/* The stack the runtime's encoding runs on (own_stack.c), after each
 * thread's scratch area in the same mapping: the deepest encoding touches
 * 20 KB. */
#define IP_OWN_STACK_BYTES 65536u

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
/* Samples whose handlers' system calls a thread's ring read has yet to
 * find: more than a kevents ring holds (16 pages, 4 records a sample). */
#define IP_OWN_SYS_Q      1024
#define IP_OWN_SYS_AT(x)  ((x) & ((UINT64_C(1) << 56) - 1))
#define IP_OWN_SYS_N(x)   ((unsigned)((x) >> 56))
#define IP_OWN_SYS(at, n) (IP_OWN_SYS_AT(at) | (uint64_t)(n) << 56)
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
  /* The sampling handler's own system calls (re-arming, rt_sigreturn): for
   * each sample, the ring position and how many follow it there
   * (IP_OWN_SYS_AT, IP_OWN_SYS_N); sampling.c queues, kevents.c drops those
   * records (IP_OWN_SYS_Q slots beside kev: one producer, the handler, and
   * one reader, the thread's ring read). */
  uint64_t *own_sys;
  atomic_uint own_sys_head, own_sys_tail;
  uint32_t tid;
  char name[17]; /* the name last written in a Thread record */
  uint64_t seq;
  size_t skip; /* events already written by flush_other */
  int state;   /* IP_TS_* */
  volatile int in_flush;
  volatile int sig_depth; /* >0 inside a (wrapped) signal handler */
  /* Inside a handler: no probe of this thread was interrupted between its
   * reservation and its store, so a full buffer may go to the writer. */
  volatile int sig_handoff;
  int lent; /* a child runs on this thread's state: nothing is recorded */
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
  int tsc;                   /* IP_TSC_*: whether this thread may read the TSC */
  uint64_t tsc_anchor_tick;  /* the last tick this thread read before it disabled the TSC, */
  uint64_t tsc_anchor_ns;    /* ... and its CLOCK_MONOTONIC_RAW time (0: none) */
  pid_t strict;              /* in seccomp's strict mode: its tid (0: not) */
  struct ip_rt_thread *next; /* global list */
};
/* SETTING_UP: the thread's first probe is setting it up; a probe in a signal
 * handler that interrupts it is dropped (counted) rather than re-entering. */
enum { IP_TS_NEW = 0, IP_TS_READY = 1, IP_TS_DEAD = 2, IP_TS_SETTING_UP = 3 };
enum { IP_SAMPLER_NONE = 0, IP_SAMPLER_TIMER = 1, IP_SAMPLER_PERF = 2 };
/* Why a thread has no transition counter although the mode has one. */
enum { IP_NC_NONE = 0, IP_NC_FD_RESERVE = 1, IP_NC_OPEN_FAILED = 2, IP_NC_SECCOMP = 3 };
/* Whether a thread may read the TSC (prctl PR_SET_TSC): not looked at yet,
 * yes, or no (rdtsc raises SIGSEGV). */
enum { IP_TSC_UNKNOWN = 0, IP_TSC_ON = 1, IP_TSC_OFF = 2 };

extern __thread struct ip_rt_thread ip_tls __attribute__((tls_model("initial-exec"))) IP_HIDDEN;

/* ---- process state ----------------------------------------------------- */
struct ip_state {
  atomic_int init_state; /* 0 not yet, 1 running, 2 disabled */
  int fd;                /* trace file, O_APPEND */
  int dir_fd; /* the output directory (O_PATH), where a fork child creates its trace: reached
                 after a chroot too; -1: by its path */
  pid_t pid;
  /* In a fork child: its parent's pid (its forking thread's events begin
   * inside frames they do not show); 0 otherwise. */
  uint32_t forked_from;
  int mode;           /* Inclprof__TransitionMode */
  char note[1024];    /* transitions_note */
  int clock;          /* Inclprof__ClockSource */
  int clock_unfenced; /* INCLPROF_CLOCK=fast: the probes read the clock without a fence */
  int clock_read;     /* INCLPROF_CLOCK: IP_CLOCK_* (base/clock.h) */
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
  double ptr_call_cost_ticks; /* the two hooks of a call through a pointer that record nothing */
  int probe_calls; /* the first unit registered calls its hooks (no INCLPROF_FN_STUB_PROBES):
                      the calibration times those probes */
  double kevent_cost_ticks; /* kevents: what one ring record adds to a system call */
  double fault_cost_ticks;  /* kevents: one minor page fault's time, its record included */
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
  /* the program installs or installed a seccomp filter: no more perf_event_open
   * (a filter may kill the process for it) */
  atomic_int seccomp;
  /* some thread of the program disabled the TSC (PR_SET_TSC): from then on a
   * thread asks the kernel whether it may read it before it first does */
  atomic_int tsc_off_seen;
  uint64_t anchor_tick, anchor_ns; /* a tick and its CLOCK_MONOTONIC_RAW time, at start-up */
  int program_allocator;        /* malloc & co. are the program's own (objects.c): creating a thread
                             would call them, so the runtime starts a thread of its own only
                             when a setting asks */
  pthread_mutex_t threads_lock; /* the thread list; see locks.c for the order */
  struct ip_rt_thread *threads;
  atomic_uint n_threads;           /* length of the thread list */
  atomic_uint threads_not_flushed; /* other threads the final flush gave up on */
  pthread_key_t key;
  char dir[1024];
  char path[1100];
};
extern struct ip_state ip_st IP_HIDDEN;

/* Whether thread tid is a fork child's forking thread, whose events begin
 * inside frames they do not show (stack_rules.h's began_inside). */
static inline int ip_began_inside(uint32_t tid) {
  return ip_st.forked_from && tid == (uint32_t)ip_st.pid;
}

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
/* 1 when entry ("NAME=value") names one of the settings above. */
IP_HIDDEN int ip_setting_named(const char *entry);
IP_HIDDEN void ip_settings_reread(void);

/* clock.c */
IP_HIDDEN void ip_clock_calibrate(void);
/* The tick for the runtime's own work outside the probes: the clock's on a
 * thread that may read it, else one derived from CLOCK_MONOTONIC_RAW (the
 * thread's anchor or the process's, and the calibrated rate). */
IP_HIDDEN uint64_t ip_tick_cold(void);
/* 1 when the calling thread may not read the TSC (PR_SET_TSC); the kernel is
 * asked once per thread, and only after some thread disabled it. */
IP_HIDDEN int ip_tsc_off_here(void);
/* 1 when the kernel says the calling thread may not read the TSC. */
IP_HIDDEN int ip_tsc_disabled(void);
IP_HIDDEN void ip_clock_anchor(uint64_t *tick, uint64_t *ns); /* a tick and its raw ns */
IP_HIDDEN uint64_t ip_now_ns_realtime(void);
IP_HIDDEN uint64_t ip_monotonic_ns(void); /* CLOCK_MONOTONIC, ns */
/* Clock c, ns: on a thread whose TSC is disabled by the system call. */
IP_HIDDEN uint64_t ip_clock_ns(clockid_t c);

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
/* Whether descriptors the runtime can do without (the output directory's
 * and the notes file's, kept for a chroot or a change of user; the control
 * thread's eventfd) may be opened: they go above the program's numbers (a
 * soft limit the hard one lets the runtime pass), or the soft limit is
 * 1024 or more.  Under a tight equal soft and hard limit they would take
 * numbers the program counts on. */
IP_HIDDEN int ip_fd_spare_room(void);
IP_HIDDEN void ip_fd_identify(int fd, struct ip_fd_id *id);
/* Not the runtime's any more; closed only if it still holds id. */
IP_HIDDEN void ip_fd_release(int fd, const struct ip_fd_id *id);
IP_HIDDEN void ip_fd_forget(int fd); /* not the runtime's any more (closed elsewhere) */
/* The program's close, close_range and closefrom, each passing over the
 * runtime's numbers (range: how a piece is closed; NULL for libc's). */
typedef int ip_close_range_fn(unsigned first, unsigned last, int flags);
IP_HIDDEN int ip_fd_program_close(int fd);
IP_HIDDEN int ip_fd_close_range_around(unsigned first, unsigned last, int flags,
                                       ip_close_range_fn *range);
IP_HIDDEN void ip_fd_program_closefrom(int lowfd);

/* say.c: one line for the user, with write() (printf-style format): on
 * stderr, or under `inclprof record` in its notes (notes.c) */
IP_HIDDEN void ip_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* say.c: all of p to fd, through EINTR; gives up on any other failure: 0,
 * or its errno (ENOSPC when a write wrote nothing). */
IP_HIDDEN int ip_write_all(int fd, const char *p, size_t n);
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
/* 1 when malloc, calloc, realloc or free, what creating a thread would
 * call, is the program's own: neither libc's nor that of a known thread-safe
 * allocator library (jemalloc, tcmalloc, mimalloc, Hoard, snmalloc) without
 * probes. */
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

/* entry_set.c: the entry addresses of the instrumented functions of the
 * registered units.  An indirect call to one records nothing (its callee's
 * ENTER and EXIT name it); the registry adds a unit's addresses once its
 * hooks are set and removes them before it sets them null, so that an
 * address in the set always has live probes of its own. */
#define IP_ENTRY_GONE ((uintptr_t)1) /* a removed address's slot (no code address is 1) */
struct ip_entry_table {
  size_t mask, used; /* used counts tombstones too */
  unsigned shift;    /* 64 - log2(mask + 1) */
  _Atomic uintptr_t key[];
};
extern IP_HIDDEN struct ip_entry_table *_Atomic ip_entry_table;
static inline size_t ip_entry_slot(const struct ip_entry_table *set, uintptr_t a) {
  return (size_t)(((uint64_t)a * 0x9E3779B97F4A7C15ull) >> set->shift);
}
/* 1 when a is in set (the probe calibration's own, or ip_entry_table). */
static inline __attribute__((always_inline)) int ip_entry_in(const struct ip_entry_table *set,
                                                             uintptr_t a) {
  if (!set)
    return 0;
  for (size_t i = ip_entry_slot(set, a);; i = (i + 1) & set->mask) {
    uintptr_t k = atomic_load_explicit(&set->key[i], memory_order_relaxed);
    if (!k)
      return 0;
    if (k == a)
      return a != IP_ENTRY_GONE;
  }
}
/* 1 when a is in the set: lock-free, no call (the indirect-call probes). */
static inline __attribute__((always_inline)) int ip_entry_known(uintptr_t a) {
  return ip_entry_in(atomic_load_explicit(&ip_entry_table, memory_order_acquire), a);
}
IP_HIDDEN void ip_entry_add(uintptr_t a);    /* caller holds reg_lock */
IP_HIDDEN void ip_entry_remove(uintptr_t a); /* caller holds reg_lock */

/* env_carry.c: the run this process belongs to (INCLPROF_RUN, else made from
 * the pid and start time, then carried into new processes like the settings),
 * set once at start-up; its id for the Header. */
IP_HIDDEN void ip_run_begin(uint64_t start_unix_ns);
IP_HIDDEN const char *ip_run_id(void);

/* mem_read.c: reads of memory at an address the program gave a system
 * call, which fail (-1, 0) where the kernel would answer EFAULT. */
IP_HIDDEN int ip_mem_copy(void *dst, const void *src, size_t n); /* 0, or -1: not readable */
/* 1 when the NULL-terminated list and every string in it are readable. */
IP_HIDDEN int ip_mem_strings_readable(char *const list[]);

/* env_carry.c: envp with the runtime's settings added where it lacks them.
 * ip_env_carry_size gives the sizes of the two arrays ip_env_carry fills
 * (the caller's, on its stack), and 0 when envp or a string in it cannot
 * be read (the kernel answers EFAULT: envp goes to it as it is); the
 * result is envp itself or ptrs. */
IP_HIDDEN int ip_env_carry_size(char *const envp[], size_t *n_ptrs, size_t *n_chars);
IP_HIDDEN char *const *ip_env_carry(char *const envp[], char **ptrs, char *chars);
/* Declares CARRIED, envp with the runtime's settings, in arrays on the stack. */
#define IP_WITH_CARRIED_ENV(envp, carried)                                                         \
  size_t carried##_np, carried##_nc;                                                               \
  int carried##_ok = ip_env_carry_size(envp, &carried##_np, &carried##_nc);                        \
  char *carried##_ptrs[carried##_np];                                                              \
  char carried##_chars[carried##_nc];                                                              \
  char *const *carried = carried##_ok ? ip_env_carry(envp, carried##_ptrs, carried##_chars) : envp
IP_HIDDEN int ip_before_exec(void); /* 1 when the calling thread's sampler ran */
IP_HIDDEN int ip_after_failed_exec(int had_sampler, int rc); /* returns rc, errno kept */

/* own_threads.c: the runtime's threads, off glibc's count of the threads
 * whose end ends the process. */
/* Starts fn detached, with every signal blocked (stack: its size, 0 for
 * the default); pthread_create's result. */
IP_HIDDEN int ip_own_thread_start(void *(*fn)(void *), size_t stack);
IP_HIDDEN void ip_own_thread_end(void); /* the runtime's thread, just before it returns */
/* The runtime's thread ends at once, with a raw SYS_exit (no handler of
 * glibc's runs). */
IP_HIDDEN _Noreturn void ip_own_thread_quit(void);
/* Ends the process as the leader ended (exit_code: waitpid's form): with
 * the same status, or killed by the same signal.  The kernel gives the
 * parent the status of the group's last thread to end, not the leader's. */
IP_HIDDEN _Noreturn void ip_own_threads_end_like(int exit_code);
IP_HIDDEN void ip_own_threads_after_fork_child(void);
/* 1 when every program thread has ended, the leader among them (the
 * runtime's own threads alone are left), with the leader's exit code in
 * waitpid's form; 0 while one runs or when /proc is not there. */
IP_HIDDEN int ip_program_gone(int *exit_code);
/* The process's threads as the kernel counts them (-1 without /proc), and
 * the runtime's own started and not yet ending. */
IP_HIDDEN long ip_process_threads(void);
IP_HIDDEN long ip_own_threads_live(void);
/* The program's threads alive (glibc's count, the runtime's left out), -1
 * when not known. */
IP_HIDDEN long ip_program_threads(void);

/* mem_limits.c: the program's bounds on memory, which the runtime's own
 * mappings count against.  Tight: 1 under an address-space limit, 2 under
 * the program's mlockall(MCL_FUTURE), else 0. */
IP_HIDDEN int ip_mem_tight(void);
IP_HIDDEN void ip_mem_limits_changed(void);  /* the program set RLIMIT_AS */
IP_HIDDEN void ip_mem_future_locked(int on); /* its mlockall(MCL_FUTURE), munlockall */
IP_HIDDEN void ip_mem_fork_child(void);      /* a fork child has no locks */
/* A mapping of the runtime's just made: under MCL_FUTURE unlocked, its pages
 * given back unless used (already written) */
IP_HIDDEN void ip_mem_own(void *p, size_t len, int used);

/* own_stack.c: fn(arg) on the stack of AREA (LEN bytes, its contexts
 * included), or on the caller's where AREA is NULL or cannot be switched
 * to. */
IP_HIDDEN void ip_on_stack(void *area, size_t len, void (*fn)(void *), void *arg);

/* notes.c: a line (ending in a newline) in record's notes file
 * (INCLPROF_RECORD_NOTES) under `inclprof record`, else on stderr when
 * on_stderr. */
IP_HIDDEN void ip_notes_line(const char *line, int on_stderr);
IP_HIDDEN int ip_under_record(void); /* INCLPROF_RECORD_NOTES is set */
/* Keeps record's notes file open (a descriptor of the runtime's own), for
 * lines of a process that can no longer open it by its path (a chroot, a
 * change of user); the caller has made room for it (ip_fd_room_begin). */
IP_HIDDEN void ip_notes_keep(void);

/* small_file.c: the file at path read whole by one read() into buf
 * (NUL-terminated; size - 1 bytes at most), opened with O_RDONLY |
 * O_CLOEXEC | flags; its length, or -1. */
IP_HIDDEN ssize_t ip_read_small(const char *path, int flags, char *buf, size_t size);

/* libc_real.c: the runtime's one way to libc's own definitions of what
 * interpose.c interposes and the runtime calls itself (found when the
 * library is loaded); the runtime calls these, never syscall() or close(),
 * which bind to its interposers. */
typedef long ip_syscall_fn(long, ...);
typedef void ip_closefrom_fn(int lowfd);
IP_HIDDEN void ip_libc_init(void);
IP_HIDDEN void *ip_libc_next(const char *name); /* dlsym(RTLD_NEXT, name) */
IP_HIDDEN int ip_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
IP_HIDDEN ip_syscall_fn *ip_real_syscall(void); /* NULL when libc has none */
/* A system call, its six word-sized arguments in an array; ENOSYS when
 * libc has no syscall(). */
IP_HIDDEN long ip_syscall_args(long n, const long a[6]);
/* ip_syscall(n, args...): the same with up to six arguments, each converted
 * to long, those left out passed as 0 (libc's syscall() reads six
 * whatever the call passes); more than six do not compile. */
#define ip_syscall(...)                                                                            \
  IP_SYSCALL_PICK_(__VA_ARGS__, ip_syscall_takes_six_arguments_at_most, IP_SYSCALL_6_,             \
                   IP_SYSCALL_5_, IP_SYSCALL_4_, IP_SYSCALL_3_, IP_SYSCALL_2_, IP_SYSCALL_1_,      \
                   IP_SYSCALL_0_, )                                                                \
  (__VA_ARGS__)
#define IP_SYSCALL_PICK_(n_, a_, b_, c_, d_, e_, f_, g_, name, ...) name
#define IP_SYSCALL_6_(n, a, b, c, d, e, f)                                                         \
  ip_syscall_args(                                                                                 \
      (n), (const long[6]){(long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f)})
#define IP_SYSCALL_5_(n, a, b, c, d, e) IP_SYSCALL_6_(n, a, b, c, d, e, 0)
#define IP_SYSCALL_4_(n, a, b, c, d)    IP_SYSCALL_6_(n, a, b, c, d, 0, 0)
#define IP_SYSCALL_3_(n, a, b, c)       IP_SYSCALL_6_(n, a, b, c, 0, 0, 0)
#define IP_SYSCALL_2_(n, a, b)          IP_SYSCALL_6_(n, a, b, 0, 0, 0, 0)
#define IP_SYSCALL_1_(n, a)             IP_SYSCALL_6_(n, a, 0, 0, 0, 0, 0)
#define IP_SYSCALL_0_(n)                IP_SYSCALL_6_(n, 0, 0, 0, 0, 0, 0)
IP_HIDDEN int ip_close(int fd);
/* fstat that sees the runtime's own descriptors (fstat() is interposed). */
struct stat;
IP_HIDDEN int ip_fstat(int fd, struct stat *st);
/* libc's close_range, or the system call where libc has none. */
IP_HIDDEN int ip_close_range(unsigned first, unsigned last, int flags);
IP_HIDDEN ip_closefrom_fn *ip_real_closefrom(void); /* NULL when libc has none */
struct rlimit;
IP_HIDDEN int ip_setrlimit(int resource, const struct rlimit *rl); /* libc's setrlimit */
/* libc's own vsnprintf (own_stdio.c's snprintf and vsnprintf call it), never
 * a program's; NULL when it cannot be found. */
typedef int ip_vsnprintf_fn(char *, size_t, const char *, va_list);
IP_HIDDEN ip_vsnprintf_fn *ip_real_vsnprintf(void);
IP_HIDDEN const char *ip_real_errno_desc(int e); /* strerrordesc_np, or NULL */

#include "base/clock.h"

#endif
