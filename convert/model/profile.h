/* model/profile.h - the converter's in-memory profile: what replaying one or more
 * trace files produces, and what every view and export reads.
 *
 * Replay (convert/model/replay.c) walks each thread's events on a shadow stack and
 * attributes every interval between consecutive events by the rules in "The
 * values" of docs/converter.md.  It builds:
 *   - a session-wide function table (functions merged across files by
 *     module path + stable id + name),
 *   - per thread, a call tree: one node per distinct call path, holding that
 *     path's values (memory is bounded by call paths, not events),
 *   - per thread, per-function values (inclusive counted once per interval
 *     even when the function recurses),
 *   - and, for exports that need individual calls (Chrome trace), it calls an
 *     optional visitor for every completed call while it streams.
 * All times are nanoseconds, already compensated for probe cost and runtime
 * gaps unless ip_load_opts.raw is set.
 */
#ifndef INCLPROF_PROFILE_H
#define INCLPROF_PROFILE_H

#include <stddef.h>
#include <stdint.h>

/* The wait breakdown: the non-Application time of transitional intervals by
 * cause (kevents mode, from the kernel-event records), ns, and the page-fault
 * count.  See "Wait breakdown" in docs/converter.md. */
enum {
  IP_W_PREEMPTED, /* Off-CPU, preempted: runnable, not running */
  IP_W_BLOCKED,   /* Off-CPU, blocked: sleeping in the kernel */
  IP_W_SYSCALL,   /* System calls: on-CPU kernel time around the calls */
  IP_W_FAULT,     /* Page faults: estimated time */
  IP_W_FAULTS,    /* Page faults: count */
  IP_WAIT_N
};

/* The data values of one function / path / module / thread / process. */
typedef struct ip_values {
  uint64_t calls;
  uint64_t el_incl, el_excl;   /* Elapsed Inclusive / Exclusive, ns */
  uint64_t app_incl, app_excl; /* Application Inclusive / Exclusive, ns */
  uint64_t smp_incl, smp_excl; /* Inclusive / Exclusive samples */
  uint64_t min_call, max_call; /* per-call Elapsed Inclusive, ns (min valid if calls>0) */
  uint64_t wait_incl[IP_WAIT_N], wait_excl[IP_WAIT_N]; /* the wait breakdown (IP_W_*) */
  uint64_t crit_incl, crit_excl; /* Critical Inclusive / Exclusive, ns (model/critical.h) */
} ip_values;

/* Repairs the replay made to a thread's events (all counted, all reported). */
typedef struct ip_repairs {
  uint64_t popped;        /* frames popped because an exit skipped them (longjmp, throw) */
  uint64_t closed_at_end; /* frames still open when the thread's events ended */
  uint64_t unmatched;     /* exits with no matching frame, ignored */
  uint64_t clock_back;    /* timestamps earlier than the previous one, clamped to 0 */
  uint64_t forked;        /* not a repair: exits in a fork child's forking thread of frames
                             its parent opened before the fork (the child's trace begins
                             inside them) */
  uint64_t unwound;       /* not a repair: call-site frames (library calls) an enclosing
                             function's exit closed - an exception thrown through or by a
                             library call (every `throw` calls __cxa_throw, which never returns) */
} ip_repairs;

typedef struct ip_module {
  char *path; /* executable or shared object */
} ip_module;

/* A module as one process loaded it. */
typedef struct ip_proc_module {
  uint32_t module;       /* index into ip_session.modules */
  uint32_t id;           /* Module.id in the trace (one path may be loaded at two bases) */
  uint64_t load_address; /* 0 if not recorded */
  int has_stat;          /* the file's mtime and size when recorded are known */
  uint64_t mtime_ns, size;
} ip_proc_module;

typedef struct ip_func {
  char *name;   /* assembler name */
  char *pretty; /* demangled name (== name when not mangled) */
  char *file;   /* source file, "" if unknown (library callee) */
  uint32_t line;
  uint32_t module; /* index into ip_session.modules */
  uint32_t flags;  /* INCLPROF_FN_* from inclprof_abi.h */
  uint64_t id;     /* stable identity */
} ip_func;

#define IP_NO_NODE UINT32_MAX

/* An interval between probes left with less of the program's own time than
 * this, ns, once the probe cost is taken out, is call-dense: its value rests
 * on that cost (the report's header counts them, by runs of IP_DENSE_RUN
 * whose mean is). */
#define IP_DENSE_NS 5.0

/* One call path of one thread.  Node 0 of every thread is the root (func =
 * UINT32_MAX, the thread itself); its children are the outermost frames. */
typedef struct ip_node {
  uint32_t func;                      /* index into ip_session.funcs */
  uint32_t parent;                    /* IP_NO_NODE for the root */
  uint32_t first_child, next_sibling; /* IP_NO_NODE terminated */
  ip_values v;                        /* values of this exact path */
} ip_node;

/* Samples by instruction: `count` samples the call path `node` of a thread
 * got while the thread executed the instruction at `pc` (an address of its
 * process; the traces of older runtimes have none). */
typedef struct ip_pc_sample {
  uint64_t pc;
  uint32_t node, count;
} ip_pc_sample;

/* A call line: where a call with call-site probes was written (the plugin
 * records it per call line; traces of older plugins have none). */
typedef struct ip_site {
  char *file;
  uint32_t line;
} ip_site;

/* The calls a thread made at one call line: the callee's call path `node`
 * (whose parent is the caller's), the line `site` (index into
 * ip_session.sites), their count and Elapsed / Application Inclusive ns. */
typedef struct ip_site_values {
  uint32_t node, site;
  uint64_t calls, el_incl, app_incl;
} ip_site_values;

/* The values of one function on one thread. */
typedef struct ip_fn_values {
  uint32_t func; /* index into ip_session.funcs */
  ip_values v;
} ip_fn_values;

/* One run of a coroutine body whose frame is known (format 1.1 traces,
 * loaded with ip_load_opts.operations): what model/operations.c links into
 * the coroutine's operations. */
typedef struct ip_coro_run {
  uint64_t frame;                  /* its frame's address with INCLPROF_CORO_* bits */
  uint64_t wall_start, wall_end;   /* by the clock, ns from the session start */
  uint64_t tl_start, el;           /* on the thread's timeline, and its Elapsed Inclusive */
  uint64_t app;                    /* its Application Inclusive */
  uint64_t caller_wall, caller_tl; /* where its caller's frame began (clock, timeline) */
  uint32_t node, caller_node;      /* its call path and its caller's (IP_NO_NODE: none) */
} ip_coro_run;

typedef struct ip_thread {
  uint32_t process; /* index into ip_session.processes */
  uint32_t tid;
  char *name;                /* the last name given, may be NULL */
  char *first_name;          /* the name of its first Thread record, may be NULL */
  uint64_t start_ns, end_ns; /* relative to the session start */
  uint64_t wall_end_ns;      /* its last event by the clock, uncompensated (end_ns: compensated) */
  uint64_t probe_removed_ns; /* the probe cost removed from its Application (non-transitional)
                                intervals */
  uint64_t app_intervals;    /* those intervals that end at a probe */
  uint64_t dense_intervals;  /* of them, those in runs left with under IP_DENSE_NS each */
  ip_values total;           /* thread-level values */
  ip_node *nodes;            /* call tree, nodes[0] is the root */
  size_t n_nodes;
  ip_fn_values *fn; /* per-function values of the functions on its call paths, by func */
  size_t n_fn;
  uint64_t repairs;    /* exits reconciled on this thread */
  ip_values *mod;      /* per-module values, indexed by module, n_mod long */
  int folded;          /* its call tree was folded (ip_load_opts.fold) */
  ip_values *fold_mod; /* folded: per-module inclusive values, n_fold_mod long */
  size_t n_fold_mod;
  size_t n_mod;   /* <= n_modules, likewise */
  ip_repairs rep; /* repairs by kind; repairs = their sum */
  uint64_t events, batches, batches_lost, gaps;
  uint64_t gap_ns;          /* runtime time removed (0 when raw) */
  uint64_t samples_outside; /* samples taken with an empty stack */
  char *no_transitions;     /* why it had no transition counter, or NULL */
  uint64_t kernel_lost;     /* batches and intervals whose kernel-event records were lost */
  int alive_at_exit;        /* alive when its process ended: closed at the exit */
  /* why it stopped recording before it ended (its ThreadEnd's), or NULL */
  char *stopped;
  uint64_t call_wait[IP_WAIT_N]; /* while a visitor's on_call runs: that call's wait
                                    breakdown (inclusive, IP_W_*) */
  uint32_t call_node;            /* ... and its call path (index into nodes) */
  int call_partial;              /* ... it began before the trace's kept part: not a call */
  ip_pc_sample *pcs;             /* samples by instruction and call path */
  size_t n_pcs, cap_pcs;
  ip_site_values *sites; /* calls by call line */
  size_t n_sites, cap_sites;
  struct ip_lat_pair *lat;    /* per call path (indexed like nodes): its calls' distributions
                              (model/latency.h), when loaded with ip_load_opts.latency */
  struct ip_lat_pair *fn_lat; /* IP_KEEP_SUMS with latency: per function (indexed like fn) */
  /* A load that keeps no path (ip_load_opts.keep), with latency: while the
   * thread replays, its calls' distributions per function (indexed by
   * func, n_lat_by_func long) instead of per call path; fn_lat once summed. */
  struct ip_lat_pair *lat_by_func;
  size_t n_lat_by_func;
  int lat_per_func;  /* lat_by_func is used (lat is NULL) */
  ip_coro_run *coro; /* its coroutine bodies' runs, in order of their start */
  size_t n_coro, cap_coro;
  struct ip_kline *kline; /* its kernel timeline, when loaded to find the critical path */
} ip_thread;

typedef struct ip_process {
  uint32_t pid, ppid;
  char *executable;
  char *cmdline;       /* as ps showed it at the end (else at the start) */
  char *start_cmdline; /* at the start (a fork child: its parent's at the fork) */
  char *title;         /* the title the process gave itself, or NULL (ip_processes_name) */
  char *trace_path;    /* file it was read from */
  int transitions;     /* inclprof_TransitionMode */
  char *transitions_note;
  double probe_cost_ns;
  double probe_hidden_ns;  /* of probe_cost_ns, hidden behind the code around a probe */
  double ptr_call_cost_ns; /* the hooks of a call through a pointer that record no event */
  double kevent_cost_ns;   /* kevents: one ring record's cost, removed per transitional interval */
  double fault_cost_ns;    /* kevents: one minor page fault's calibrated time; 0 unknown */
  uint32_t sample_hz;
  uint64_t start_unix_ns;
  int clean;      /* trailer says clean shutdown */
  char *damage;   /* NULL, or what was wrong with the file */
  int from_index; /* described from the file's Index: its events were not replayed */
  char *scan_why; /* ip_load_opts.from_index, and the file was read through: why */
  int cut;        /* the file ends in damage: whatever followed it is unknown */
  ip_values total;
  uint32_t format_major, format_minor;
  int clock;          /* inclprof_ClockSource */
  int clock_unfenced; /* the probes read the clock without a fence (INCLPROF_CLOCK=fast) */
  double ticks_per_second;
  char *hostname, *runtime_version;
  char *run;            /* the run it belongs to (Header.run), or NULL from an older runtime */
  uint32_t forked_from; /* 0 unless a fork child */
  uint32_t exec_from;   /* 1 + index of the process image this one replaced by exec, 0 if none */
  uint64_t n_functions, n_modules; /* table entries in the file (and its table files) */
  char *tables_missing; /* a table file it names could not be used: the first one and why */
  uint64_t events, batches, batches_lost, gaps, gap_ns, repairs, samples_outside;
  int kernel_events;    /* batches carry kernel-event records: the wait breakdown is known */
  int aggregate;        /* an aggregate profile (ThreadProfile records): no events, no timeline */
  int wake_edges;       /* ... and the threads' wake-ups of each other (the critical path) */
  int futex_waits;      /* ... and their futex waits (the critical path's lock table) */
  uint64_t kernel_lost; /* batches whose kernel-event records were lost */
  int has_trailer;      /* a trailer was read */
  char *exit_reason;    /* trailer's, may be NULL */
  uint64_t trailer_events, dropped_events, samples_taken, samples_in_runtime;
  uint32_t threads_not_flushed;    /* trailer: threads the final flush gave up on */
  char *write_error;               /* trailer: why recording stopped early, or NULL */
  char *exec_unrecorded;           /* trailer: why the program it exec'd wrote no trace, or NULL */
  uint32_t threads_no_transitions; /* threads without a transition counter */
  uint32_t
      threads_alive_at_exit; /* threads closed at the process's exit, not at their last event */
  const char *no_transitions_why; /* the first one's reason (owned by its thread) */
  uint32_t threads_stopped;       /* threads that stopped recording before they ended */
  uint32_t stopped_tid;           /* the first one's tid */
  const char *stopped_why;        /* ... and its reason (owned by its thread) */
  uint64_t bytes_written;         /* trailer: bytes of the file before it */
  int has_writer_counts;          /* the trailer counts the writer thread's buffers */
  uint64_t buffers_handed_off;    /* trailer: full buffers the writer thread wrote */
  uint64_t inline_flushes;        /* trailer: full buffers encoded inline, writer behind */
  uint64_t crowded_flushes;       /* trailer: ... encoded inline, every CPU busy */
  /* The size limit (INCLPROF_MAX_SIZE) */
  char *size_policy;     /* "stop" or "ring" (trailer), or NULL: no limit set */
  uint64_t max_size;     /* bytes */
  uint32_t ring_segment; /* ring: number of the newest segment read (0: never rotated) */
  int ring_prev_read;    /* ring: the .prev segment was read too */
  int ring_prev_missing; /* ring: the .prev segment should be there but is not */
  uint64_t ring_dropped_events, ring_dropped_bytes, ring_dropped_batches;
  uint64_t kept_from_ns;     /* ring: the kept window begins, ns after the process start */
  int interval;              /* an interval's profile (record --aggregate --interval) */
  uint32_t interval_number;  /* ... its number, 0 first */
  uint64_t interval_from_ns; /* ... its start, ns after the process start (it ends at end_ns) */
  uint64_t end_ns;           /* trailer's end, ns after the process start */
  uint64_t stopped_ns;       /* recording stopped early at this time (first trailer saying why) */
  int ran_on;                /* a later trailer says when the process, unrecorded, ended */
  uint32_t threads_resumed;  /* ring: threads whose replay began from a ThreadState */
  char *windows;             /* when it recorded (Window records), or NULL: from start to end */
  char *snapshot;            /* a snapshot of a slow call: which call, when, its window; or NULL */
  uint64_t snapshot_ns;      /* that call's duration */
  uint32_t snapshot_tid;     /* that call's thread */
  uint64_t snapshot_from;    /* ... its start, ticks */
  uint64_t snapshot_to;      /* ... its end, ticks */
  unsigned n_windows;        /* how many windows that is */
  ip_proc_module *mods;      /* the modules this process recorded, in order */
  size_t n_mods, cap_mods;
} ip_process;

typedef struct ip_session {
  ip_module *modules;
  size_t n_modules;
  ip_func *funcs;
  size_t n_funcs;
  ip_site *sites; /* call lines */
  size_t n_sites;
  ip_process *processes;
  size_t n_processes;
  ip_thread *threads;
  size_t n_threads;
  ip_values total;             /* session: Elapsed/Application Inclusive totals, samples */
  uint64_t repairs;            /* all exits reconciled */
  uint64_t events;             /* events replayed */
  uint64_t samples_in_runtime; /* samples counted apart (landed in the runtime) */
  int compensated;             /* probe cost and gaps removed */
  uint64_t start_unix_ns;      /* earliest process start: time 0 of start_ns/end_ns */
  uint64_t samples_outside;    /* samples with an empty stack: in total.smp_* only */
  uint64_t batches_lost, gaps;
  ip_repairs rep;
  /* IP_KEEP_TOTALS: the function and module values of every thread, summed
   * (indexed by func / module; threads keep none of their own) */
  ip_values *fn_sums, *mod_sums;
  size_t n_fn_sums, n_mod_sums;
  struct ip_lat_pair *lat_sums; /* ... and with latency, the distributions by func */
  size_t n_lat_sums;
  int sums_folded;  /* they are: ip_aggregate by function or module ignores the selection */
  size_t n_files;   /* trace files read */
  size_t n_damaged; /* files read only up to damage */
} ip_session;

/* Called for each completed call while replaying (optional).  start_ns is
 * the thread's first event (relative to the session start) plus the
 * compensated time elapsed on that thread until the call, so calls nest
 * exactly; depth 0 is an outermost frame; app_ns is the call's Application
 * Inclusive time.  Frames closed by a repair are reported too. */
typedef struct ip_call_visitor {
  void *ctx;
  void (*on_call)(void *ctx, const ip_session *s, const ip_thread *t, uint32_t func, uint32_t depth,
                  uint64_t start_ns, uint64_t dur_ns, uint64_t app_ns);
} ip_call_visitor;

/* What a load keeps of each thread once its events are summed: views that
 * show no call path need less, and so a session of many processes takes
 * the memory of its functions rather than of every thread's paths. */
typedef enum ip_keep {
  IP_KEEP_PATHS,  /* every thread's call tree, samples by instruction, call lines and sums */
  IP_KEEP_SUMS,   /* per thread its function, module and thread values */
  IP_KEEP_TOTALS, /* per thread its values; function and module values summed over the
                     session (ip_session.fn_sums), which then no view takes apart by thread */
} ip_keep;
enum { IP_LAT_ELAPSED = 1, IP_LAT_APPLICATION = 2 };

typedef struct ip_load_opts {
  int raw;                        /* keep probe cost and gaps (no compensation) */
  int quiet;                      /* no warnings on stderr */
  const ip_call_visitor *visitor; /* may be NULL */
  unsigned jobs; /* replay a file's threads on this many cores when > 1 and no visitor */
  /* Keep each call path's distribution of per-call times (ip_thread.lat):
   * IP_LAT_ELAPSED, IP_LAT_APPLICATION or both (0: none). */
  unsigned latency;
  /* Keep every run of a coroutine body with its frame (ip_thread.coro) for
   * the operations (model/operations.h). */
  int operations;
  /* The critical path (model/critical.h): with critical->collect, the
   * threads' kernel timelines are kept (ip_thread.kline); with its pieces
   * found, every interval's share of them goes to ip_values.crit_*. */
  struct ip_critical *critical;
  /* Describe a file from its Index when it ends with a valid one (info):
   * threads, modules and counts without replaying the events. */
  int from_index;
  ip_keep keep; /* what is kept of a thread once summed */
  /* Called once per file, in file order, when its threads have joined the
   * session whole (threads first_thread up to s->n_threads, summed, their
   * call trees kept); `keep` is applied to them after it returns, so that a
   * view can write each file's trees and memory holds a few files' trees. */
  void (*file_done)(void *ctx, ip_session *s, size_t first_thread);
  void *file_done_ctx;
  /* Fold recursion into the call tree: a call of a function already open
   * on the stack goes to that frame's path, so the tree holds the paths
   * without repetition and memory grows with them only.  The function,
   * module and thread values stay exact; the paths do not (the caller reads
   * the sums only: IP_KEEP_TOTALS, no visitor, critical path or operations). */
  int fold;
  /* Read several files in parallel however small (the tests of that path);
   * by default files under 1 MB on average are read one after another. */
  int small_files_in_parallel;
  /* When error is set, ip_session_load writes its one-line error
   * there (error_len bytes at most) instead of printing it. */
  char *error;
  size_t error_len;
} ip_load_opts;

/* Read and replay trace files or directories (a directory means every trace
 * file in it).  Returns 0, or -1 after printing a one-line error naming the
 * file and the fault (warnings about damage that could be read around are
 * printed and recorded in ip_process.damage; they do not fail the load). */
int ip_session_load(ip_session *s, char *const *paths, size_t n_paths, const ip_load_opts *o);
void ip_session_free(ip_session *s);

/* model/profile.c */
/* 100 * value / session_total (0 when the total is 0). */
double ip_pct(uint64_t value, uint64_t session_total);
/* Adds v into to (sums; min/max merged over values that have calls). */
void ip_values_add(ip_values *to, const ip_values *v);
/* Whether any process of the session recorded kernel-event records (the
 * wait columns are then shown). */
int ip_session_has_wait(const ip_session *s);
/* The first process of the session recorded as an aggregate profile, or NULL. */
const ip_process *ip_session_aggregate(const ip_session *s);
/* When every process of the session is an interval's profile (record
 * --aggregate --interval): 1, with the span of their intervals in *from_ns
 * and *to_ns (ns after the session's start); else 0. */
int ip_session_interval_span(const ip_session *s, uint64_t *from_ns, uint64_t *to_ns);
/* Whether any process recorded wake edges: the critical path's values are
 * known when the session was loaded by ip_session_load_critical. */
int ip_session_has_critical(const ip_session *s);
/* Whether the session has sampling data: a process recorded at a sampling
 * rate, or samples counted (sample columns and types are then shown). */
int ip_session_sampled(const ip_session *s);
/* The first thread with this tid / process with this pid, or NULL. */
const ip_thread *ip_session_thread(const ip_session *s, uint32_t tid);
const ip_process *ip_session_process(const ip_session *s, uint32_t pid);

/* model/process_names.c */
/* The command line from argv, without the padding of an overwritten argv
 * (empty trailing arguments, trailing blanks).  Caller frees. */
char *ip_cmdline_join(char *const *argv, size_t n);
/* Sets every process's exec_from and title (ip_session_load does).  A
 * title is, first, the command line at the end where the process wrote one
 * over its argv while recorded (PostgreSQL, nginx); else its main thread's
 * name where it renamed it while recorded (prctl(PR_SET_NAME)); else the
 * command line at the end where it is not the one the program was started
 * with (a fork child keeps its parent's title).
 * For a process still running here without a trailer: what ps shows now. */
void ip_processes_link(ip_session *s);
/* "PID EXECUTABLE", then " (fork of PID)" for a fork child and " (after exec
 * from EXECUTABLE)" for an image started by exec; with a title, "PID TITLE
 * (EXECUTABLE, fork of PID, after exec from EXECUTABLE)"; written into buf. */
const char *ip_process_label(const ip_session *s, uint32_t k, char *buf, size_t n);
/* The name a trace viewer shows next to the pid it shows anyway: the
 * executable's base name with the same fork and exec suffixes (base names),
 * or the title with them. */
const char *ip_process_viewer_name(const ip_session *s, uint32_t k, char *buf, size_t n);
/* A call tree's heading: "PID/TID (NAME)", with " of \"TITLE\"" when its
 * process has a title other than NAME. */
const char *ip_thread_title(const ip_session *s, uint32_t k, char *buf, size_t n);

/* model/process_alive.c: the process that wrote p's trace still runs here
 * (same host, pid, executable, and start time no later than the trace's). */
int ip_process_running(const ip_process *p);

#endif
