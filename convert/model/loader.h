/* model/loader.h - internals of loading, model/'s private header: the session
 * (model/session_load.c, over model/session_files.c and model/session_merge.c),
 * one file (model/file_load.c), the tables (model/session_tables.c), the replay
 * (model/replay.c) and the warnings (model/load_warnings.c): the state kept
 * while one trace file is read, and per thread while its events stream. */
#ifndef INCLPROF_LOADER_H
#define INCLPROF_LOADER_H

#include <stdint.h>

#include "inclprof.pb-c.h"
#include "model/profile.h"
#include "interval_rules.h"
#include "stack_rules.h"
#include "util/util.h"

/* Tick arithmetic is fixed point with IP_FX (interval_rules.h) fractional
 * bits: exact for integer probe costs and tick rates that are powers of two
 * of 1 GHz. */

/* A table file's entries interned for one module of the session. */
typedef struct ip_table_use {
  uint32_t module; /* the session module of the object */
  uint32_t *func;  /* entry -> session func */
  uint32_t *site;  /* entry -> 1 + its call line (ip_session.sites), 0 none */
} ip_table_use;

/* A function table file (model/table_load.c), read at its first use. */
typedef struct ip_table {
  char *path;
  char *error;      /* why it cannot be used, or NULL */
  int warned;       /* a trace naming it was warned about */
  ip_func *entries; /* its Function records; module: 1 the object, 0 a callee */
  size_t n;
  ip_table_use *uses;
  size_t n_uses;
} ip_table;

/* Session-wide lookup tables, alive while loading. */
typedef struct ip_tables {
  ip_u64map module_by_path; /* hash of path -> module index */
  ip_u64map func_by_key;    /* hash of (module path, id, name) -> func index */
  size_t cap_modules, cap_funcs, cap_threads, cap_processes;
  struct ip_symbolizer *sym; /* module files, opened when an address needs a name */
  ip_u64map site_by_key;     /* hash of (file, line) -> index into ip_session.sites */
  size_t cap_sites;
  ip_table **files; /* the table files read */
  size_t n_files, cap_files;
} ip_tables;

/* The warnings of a file read apart from the others (in parallel), printed
 * when its session is merged, in file order (model/session_merge.c). */
typedef struct ip_warning {
  char *msg;   /* the warning's text */
  char *noted; /* NULL, or the module file a symbolizer note is about */
} ip_warning;
typedef struct ip_warnings {
  ip_warning *v;
  size_t n, cap;
} ip_warnings;

/* One open frame of the shadow stack: the stack rules' frame (its key is
 * the session function), then the replay's; 128 bytes, so that a frame's
 * address is its depth shifted. */
typedef struct ip_frame {
  ip_open_frame open;
  uint32_t node;
  uint32_t site;                        /* call-site frame: 1 + its call line, 0 unknown */
  uint64_t push_el, push_app, push_smp; /* thread timeline at the push */
  uint64_t push_wait[IP_WAIT_N];
  uint64_t push_tick; /* the tick of the event that opened it */
  uint32_t coro;      /* a coroutine body's run: 1 + its index in the thread's coro, else 0 */
  uint32_t fold_mod;  /* folded: its function's module */
  uint64_t push_crit;
  uint8_t nested;    /* folded: its function was already open below (its path's node is that one) */
  uint8_t mod_outer; /* folded: the outermost open frame of its function's module */
  uint8_t resumed;   /* opened from a ThreadState: the call began before the kept part of the
                        trace (a ring's, a snapshot's window): timed from there, not a call */
  uint8_t fill[21];  /* to 128 bytes */
} ip_frame;
_Static_assert(sizeof(ip_frame) == 128, "ip_frame is 128 bytes");

/* Finds a thread's ip_pc_sample entries by address (model/pc_samples.c):
 * map from pc to its newest entry, next: the older entry of the same pc. */
typedef struct ip_pc_index {
  ip_u64map by_pc;
  uint32_t *next;
  size_t cap;
} ip_pc_index;
/* One more sample of call path node at pc on thread th. */
void ip_pc_sample_add(ip_pc_index *ix, ip_thread *th, uint64_t pc, uint32_t node);
void ip_pc_index_free(ip_pc_index *ix);

/* Replay state of one thread while its file is read. */
/* Slots of a thread's cache of recent call paths (ip_tstate.child_hot_key). */
#define IP_CHILD_CACHE_BITS 10
#define IP_CHILD_CACHE      (1u << IP_CHILD_CACHE_BITS)

typedef struct ip_tstate {
  uint32_t thread;             /* index into ip_session.threads */
  int finished;                /* ThreadEnd seen (a reused tid starts a new thread) */
  int profiled;                /* a ThreadProfile was taken (aggregate mode) */
  ip_stack stk;                /* the open frames (ip_frame), by include/inclprof/stack_rules.h */
  int have_tick;               /* an event was seen: intervals can start */
  uint64_t hwm;                /* highest tick seen (earlier ones count 0) */
  uint64_t comp_fx;            /* compensated ticks elapsed on this thread, IP_FX fixed point */
  uint64_t el_ns, app_ns, smp; /* timeline: elapsed, application, samples */
  uint64_t wait[IP_WAIT_N];    /* timeline: the wait breakdown */
  ip_kacc kacc;
  int kacc_known;       /* the last batch's kernel records were kept (not lost) */
  uint64_t pending_gap; /* gap ticks to remove from the next interval */
  uint64_t next_seq;
  uint64_t origin_ns;        /* thread's first event, relative to the session start */
  uint64_t first_tick;       /* the tick of the thread's first event */
  uint64_t probe_removed_fx; /* probe cost taken from the non-transitional intervals, IP_FX */
  ip_probe_owed probe_owed;  /* probe cost a short interval lacked (interval_rules.h) */
  uint64_t app_intervals;    /* non-transitional intervals ending at a probe */
  uint64_t dense_intervals;  /* of them, those in runs left with under IP_DENSE_NS each */
  ip_dense_run dense_run;    /* the run going on (interval_rules.h) */
  ip_u64map child;           /* (parent node << 32 | func) -> node */
  /* the paths found last, direct-mapped by a hash of their key: key + 1
   * (0: empty) and node; emptied with child */
  uint64_t child_hot_key[IP_CHILD_CACHE];
  uint32_t child_hot_val[IP_CHILD_CACHE];
  ip_pc_index pcs;             /* the thread's ip_pc_sample entries by address */
  ip_u64map site_vals;         /* (node << 32 | site) -> index into its thread's sites */
  const uint64_t *sample_addr; /* the batch's sample addresses, n_sample_addr of them */
  size_t n_sample_addr, next_sample;
  uint64_t now_tick;          /* the tick of the event being replayed */
  const uint64_t *coro_frame; /* the batch's (index delta, frame) pairs, n_coro_frame values */
  size_t n_coro_frame, next_coro_frame;
  uint64_t frame_event;      /* the index of the event the next pair names (UINT64_MAX: none) */
  const uint64_t *ptr_calls; /* the batch's pointer calls (index deltas), n_ptr_calls of them */
  size_t n_ptr_calls, next_ptr_call;
  uint64_t ptr_event;   /* the index of the event the next one names (UINT64_MAX: none) */
  uint64_t ptr_pending; /* pointer calls whose hooks' cost the next probe's interval holds */
  uint64_t event_frame; /* the frame of the event being replayed, or 0 */
  struct ip_kline *kl;  /* its kernel timeline, when collected for the critical path */
  size_t crit_at;       /* the critical path's first piece of this thread not yet passed */
  size_t ct_at[3];      /* the path's times: its pieces, wake-ups, off-CPU ends reached */
  size_t wf_at;         /* the what-if: the thread's stretch reached */
  uint32_t wf_depth;    /* ... and the frames of its function open */
  uint64_t crit_ns;     /* timeline: critical time */
  /* Folded replay (ip_replay_folds): per function its open frames and the
   * node of the outermost; per module its open frames and its inclusive
   * values, summed over its outermost frames. */
  struct ip_fold_fn *fold_fn;
  size_t n_fold_fn;
  uint32_t *fold_mod_open;
  size_t n_fold_mod;
} ip_tstate;

typedef struct ip_fold_fn {
  uint32_t node, open;
} ip_fold_fn;

/* One trace file being read. */
typedef struct ip_file {
  ip_session *s;
  ip_tables *tabs;
  const ip_load_opts *o;
  const ip_call_visitor *visitor; /* NULL when none */
  const char *path;
  uint32_t proc; /* index into ip_session.processes */
  double ns_per_tick;
  uint64_t ns_per_tick_fx; /* ns per tick << 32 */
  uint64_t cost_fx;        /* probe cost removed from every interval (0 when raw), IP_FX */
  uint64_t hidden_fx;      /* of it, what a probe hides behind the code around it, IP_FX */
  uint64_t ptr_call_fx;    /* the hooks of a pointer call that record nothing (0 when raw), IP_FX */
  uint64_t dense_fx;       /* IP_DENSE_NS in ticks, IP_FX: an interval holding less is dense */
  uint64_t kevent_fx;      /* kevents record cost removed from a transitional interval, IP_FX */
  uint64_t fault_fx;       /* kevents: the most one page fault takes (0 unknown), ticks, IP_FX */
  uint64_t off_cpu_floor;  /* IP_OFF_CPU_FLOOR_NS in ticks */
  uint64_t start_tick;
  uint64_t interval_start_tick; /* an interval's profile: where the interval begins; else 0 */
  int kernel_events;            /* batches carry kernel-event records (wait breakdown) */
  int wake_edges;               /* ... and the threads' wake-ups of each other */
  uint64_t proc_origin_ns;      /* process start relative to the session start */
  uint32_t *gid_func;           /* Function.gid -> session func, UINT32_MAX unknown */
  size_t n_gid;
  uint32_t *gid_site; /* Function.gid of a call-line callee -> 1 + its call line, 0 none */
  size_t n_gid_site;
  uint32_t *mod_index; /* Module.id -> session module */
  size_t n_mod;
  int ring;            /* a ring segment (its tables repeat those already read) */
  int ring_started;    /* the oldest segment read has been seen: the kept window is known */
  ip_u64map tid_state; /* tid -> index into states */
  ip_tstate **states;
  size_t n_states, cap_states;
  ip_warnings *defer;     /* NULL: warnings go to stderr at once */
  struct ip_windows *win; /* when recording was off (model/windows.c) */
  int fold;               /* the call tree folds recursion: set by each replay entry */
} ip_file;

/* The module of functions whose module is not known: module 0 of a session. */
#define IP_UNKNOWN_MODULE "[unknown]"

/* model/load_warnings.c */
/* Prints "inclprof: warning: MSG" unless o->quiet. */
void ip_load_warn(const ip_load_opts *o, const char *msg);
/* The error that stops a load: into o->error when given, else on stderr. */
void ip_load_fail(const ip_load_opts *o, const char *msg);
/* Prints "inclprof: warning: MSG" unless quiet, or keeps it in f->defer;
 * noted is the module file a symbolizer note is about, or NULL. */
void ip_file_warn(const ip_file *f, const char *noted, const char *msg);
/* Prints w's warnings and empties it; a note about a module file that an
 * earlier file's note named (noted: those named so far, kept) is left out. */
void ip_warnings_flush(ip_warnings *w, ip_warnings *noted);
void ip_warnings_free(ip_warnings *w);

/* model/file_load.c */
/* Reads and replays one file into s (a directory's files one by one, or one
 * file apart).  Returns 0 (possibly with damage recorded) or -1 after the
 * error went to o->error or stderr. */
int ip_load_file(ip_session *s, ip_tables *t, const char *path, const ip_load_opts *o,
                 ip_warnings *defer);
/* The start (Header.start_unix_ns) of the trace file at path: 0, or -1 with
 * the reason in err. */
int ip_file_start_ns(const char *path, uint64_t *start_unix_ns, char *err, size_t errlen);

/* Whether the header of the trace file at path says its batches carry wake
 * edges (0 also when it cannot be read: the load then says why). */
int ip_file_wake_edges(const char *path);

/* The records of a file's Module and Trailer into its process. */
void ip_file_take_module(ip_file *f, const Inclprof__Module *m);
void ip_file_take_trailer(const ip_file *f, ip_process *p, const Inclprof__Trailer *t);

/* model/table_load.c */
/* A TableRef: its gids named from the table file beside the trace (a
 * warning, kept in the process, when it cannot be used). */
void ip_file_take_table_ref(ip_file *f, const Inclprof__TableRef *r);
/* The same for a TableRef of an Index: the functions counted, the table
 * file looked for (info). */
void ip_file_count_table_ref(ip_file *f, const Inclprof__TableRef *r);
void ip_table_files_free(ip_tables *t);

/* model/index_load.c */
/* Describes f's process from the Index its file ends with (o->from_index):
 * 0, or -1 with why not in the process's scan_why (the file is then read). */
int ip_file_from_index(ip_file *f);

/* model/session_files.c */
struct ip_paths;
/* How many threads should read these files in parallel with `jobs` cores:
 * 0 (one file after another) unless there are two files or more, none holds
 * more than half of their bytes and they average min_average bytes or more
 * (IP_PARALLEL_MIN_AVERAGE, unless ip_load_opts.small_files_in_parallel). */
unsigned ip_files_readers(const struct ip_paths *files, unsigned jobs, uint64_t min_average);
/* Files smaller than this on average are read one after another: each then
 * costs mostly its tables, which a file read apart interns twice (into its
 * own session, then when merged), so reading them in parallel costs more
 * CPU time than it saves. */
#define IP_PARALLEL_MIN_AVERAGE (1u << 20)
/* Reads the files on `readers` threads and merges them into s (which has
 * its start_unix_ns) in file order, each file's threads replayed on
 * o->jobs / readers cores.  Returns 0, or -1 with the first failing file's
 * message in err (the files before it merged). */
int ip_session_load_files(ip_session *s, ip_tables *t, const struct ip_paths *files,
                          const ip_load_opts *o, unsigned readers, char *err, size_t errlen);

/* model/session_merge.c */
/* Moves part, a session of one file read apart, into s; part is left empty.
 * keep: what of its threads is kept once summed in s. */
void ip_session_merge(ip_session *s, ip_tables *t, ip_session *part, ip_keep keep);

/* model/session_tables.c */
uint32_t ip_tables_module(ip_session *s, ip_tables *t, const char *path);
uint32_t ip_tables_func(ip_session *s, ip_tables *t, const ip_func *proto);
/* model/call_sites.c */
/* The call line of (file, line), interned in s->sites. */
uint32_t ip_tables_site(ip_session *s, ip_tables *t, const char *file, uint32_t line);
/* A Function record of a callee with INCLPROF_FN_CALL_SITE: remembers its
 * gid's call line and clears file and line in proto (the callee's row). */
void ip_file_call_site(ip_file *f, uint32_t gid, ip_func *proto);
/* 1 + the call line of gid, or 0. */
uint32_t ip_file_site(const ip_file *f, uint32_t gid);
/* Sets gid's call line: site1 is 1 + its index in s->sites. */
void ip_file_gid_site(ip_file *f, uint32_t gid, uint32_t site1);
/* calls made at call line site (1 + index) closed: their path, Elapsed and
 * Application Inclusive ns. */
void ip_site_call(ip_tstate *ts, ip_thread *th, uint32_t node, uint32_t site, uint64_t calls,
                  uint64_t el, uint64_t app);
/* Renumbers the call lines of the threads of part merged into s. */
void ip_sites_merge(ip_session *s, ip_tables *t, const ip_session *part, ip_thread *th);
uint32_t ip_tables_thread(ip_session *s, ip_tables *t, uint32_t proc, uint32_t tid);
uint32_t ip_tables_process(ip_session *s, ip_tables *t);
void ip_tables_free(ip_tables *t);
/* Maps a gid of this file to a session function; -1 if the gid is absurd. */
int ip_file_define_func(ip_file *f, uint32_t gid, uint32_t fn);
/* The session function for a gid of this file (a placeholder if undefined). */
uint32_t ip_file_func_slow(ip_file *f, uint32_t gid);
static inline uint32_t ip_file_func(ip_file *f, uint32_t gid) {
  if (gid < f->n_gid && f->gid_func[gid] != UINT32_MAX)
    return f->gid_func[gid];
  return ip_file_func_slow(f, gid);
}

/* model/address_names.c: a Function record named by a bare address gets its
 * name, file, line and module from the module file, one named by dladdr its
 * demangled name (strings kept in sym).  Returns 1 when it rewrote proto, 0
 * when the record needs nothing. */
struct ip_sym;
int ip_file_name_address(ip_file *f, const Inclprof__Function *fn, ip_func *proto,
                         struct ip_sym *sym);

/* model/replay.c */
ip_tstate *ip_replay_thread(ip_file *f, uint32_t tid); /* state for tid, created if new */
void ip_replay_batch(ip_file *f, ip_tstate *ts, const Inclprof__EventBatch *b);
void ip_replay_gap(ip_file *f, ip_tstate *ts, const Inclprof__Gap *g);
/* A thread first seen at the start of a ring segment: opens its frames
 * (not counted as calls) and continues its batch numbers from there. */
void ip_replay_resume(ip_file *f, ip_tstate *ts, const Inclprof__ThreadState *st);
/* A thread alive when its process ended (ThreadEnd.alive_at_exit): the time
 * from its last event to the exit's tick is one more interval of the frames
 * open then, transitional or not as the runtime saw. */
void ip_replay_alive_at_exit(ip_file *f, ip_tstate *ts, uint64_t tick, int transitional);
/* Closes the frames still open (counted as repairs) and frees the replay
 * memory; the state itself stays (a reused tid then starts a new thread). */
void ip_replay_finish(ip_file *f, ip_tstate *ts);
/* The call path of fn under parent, made (values 0) when new. */
uint32_t ip_replay_child_node(ip_tstate *ts, ip_thread *th, uint32_t parent, uint32_t fn);
/* Compensated ticks with IP_FX fractional bits in ns, as the replay rounds
 * them: (ticks << IP_FX) * (ns/tick << 32) >> (IP_FX + 32), rounded.  Inline:
 * the replay runs it for every event. */
static inline uint64_t ip_replay_fx_ns(const ip_file *f, uint64_t fx) {
  return (uint64_t)(((unsigned __int128)fx * f->ns_per_tick_fx +
                     ((unsigned __int128)1 << (IP_FX + 31))) >>
                    (IP_FX + 32));
}

/* model/profile_load.c: a ThreadProfile (aggregate mode) taken into its
 * thread as the replay of its events would have left it; the thread ends
 * as a replayed one does (ip_replay_finish). */
void ip_profile_take(ip_file *f, ip_tstate *ts, const Inclprof__ThreadProfile *p);

/* model/kline.c: a thread's kernel timeline for the critical path
 * (model/critical.h), kept while the first replay streams. */
struct ip_kline *ip_kline_new(void);
/* One kernel-event record of kind at tick (a KEV_WAKE's woken tid: arg; a
 * KEV_FUTEX_WAIT's word: futex, its operation: arg) while the thread's call
 * path was node. */
void ip_kline_record(struct ip_kline *k, uint32_t kind, uint64_t tick, uint32_t arg, uint64_t futex,
                     uint32_t node);
/* An event at tick: the thread ran then (a switch-out still open ends). */
void ip_kline_event(struct ip_kline *k, uint64_t tick);
/* ThreadEnd's tick. */
void ip_kline_ended(ip_file *f, ip_tstate *ts, uint64_t tick);
/* The thread's last event was at tick: an open switch-out ends there. */
void ip_kline_finish(struct ip_kline *k, uint64_t tick);

/* model/replay.c: the distributions of function fn's calls on th
 * (ip_thread.lat_by_func), made when absent. */
struct ip_lat_pair *ip_replay_func_lat(ip_thread *th, uint32_t fn);

/* model/thread_sums.c: a finished thread's function, module and thread values
 * from its call tree. */
void ip_thread_sums(const ip_session *s, ip_thread *th);
/* Keeps of a summed thread what `keep` says (ip_keep): frees its tree but
 * the root, samples by instruction and call lines (IP_KEEP_SUMS), and adds
 * its function and module values into s's and frees them (IP_KEEP_TOTALS);
 * a thread that ran a coroutine body keeps everything. */
void ip_thread_keep(ip_session *s, ip_thread *th, ip_keep keep);
/* model/session_load.c: a file's threads (first_thread on) joined s: the
 * load's file_done sees them, then they keep what o->keep says (nothing
 * without file_done: each thread kept its part when it ended). */
void ip_file_done(ip_session *s, const ip_load_opts *o, size_t first_thread);

#endif
