/* produce.h - making the events into batches (docs/runtime.md,
 * "Layers"): thread (per-thread buffers), buffer_pool, flush (encoding
 * EventBatch frames), writer (the writer thread), crowding, kevents,
 * sampling, transitions (pmu/kevents/none counters), the aggregate mode,
 * registry (units, gids, names), shared_tables, function_record and
 * retired (unloaded units' gids).  Calls produce/, sink/ and base/: a file
 * of produce/ includes this header and not entry/entry.h.  The
 * declarations are grouped by file. */
#ifndef INCLPROF_RT_PRODUCE_H
#define INCLPROF_RT_PRODUCE_H

#include "sink/sink.h"

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
/* After the flush's own work: its records are not the program's, but its
 * preemptions with their switch-ins, which reach the next batch.  Those
 * from `from` (the ring's head when the flush's Gap ended) to the head are
 * skipped too unless one is a context switch, which then reaches the next
 * batch with them.  Returns the position skipped to: the thread's transition
 * counter as the flush leaves it. */
IP_HIDDEN uint64_t ip_kevents_skip(struct ip_rt_thread *t, uint64_t from);
/* The ticks the thread spent preempted inside the flush so far: from the
 * save to at_end (the ring's head when its Gap ends at end_tick).  They are
 * not the runtime's work: the Gap leaves them out, and ip_kevents_skip keeps
 * their switch records for the next batch. */
IP_HIDDEN uint64_t ip_kevents_flush_preempted(struct ip_rt_thread *t, uint64_t at_end,
                                              uint64_t end_tick);

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
 * context may (not inside a flush; in a signal handler, only a hand-off to
 * the writer thread, where sig_handoff allows it). */
IP_HIDDEN void ip_slow_flush(struct ip_rt_thread *t);
/* The instruction a signal interrupted (uc: the handler's ucontext_t), 0
 * where the architecture is not known. */
IP_HIDDEN uintptr_t ip_interrupted_pc(const void *uc);
/* Whether pc is in the probes' code (IP_RT_TEXT: a probe, its slow path, the
 * sampler), where a probe may hold a slot it has reserved and not filled. */
IP_HIDDEN int ip_in_probe_code(uintptr_t pc);
/* Sets the calling thread up if it is not yet; 0 when it is ready. */
IP_HIDDEN int ip_thread_ensure(void);
IP_HIDDEN void ip_thread_flush(struct ip_rt_thread *t, int in_signal);
/* The same where the caller may hold a lock the writer thread can wait for
 * (the loader's, in dlclose or a constructor): waits for the writer 100 ms at
 * most, and leaves the events buffered if that is not enough. */
IP_HIDDEN void ip_thread_flush_bounded(struct ip_rt_thread *t);
IP_HIDDEN void ip_thread_exit(struct ip_rt_thread *t);
/* The calling thread t stops recording for good before it ends: its events
 * so far written, its ThreadEnd saying why, nothing recorded after. */
IP_HIDDEN void ip_thread_stop(struct ip_rt_thread *t, const char *why);
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
IP_HIDDEN void ip_agg_snapshot(const struct ip_rt_thread *t);
/* --interval: what t's tree gained since the last interval, its open frames
 * counted up to the interval's end tick, as a Thread and a ThreadProfile
 * frame appended to *buf (grown to *cap; *len used); t's busy flag held. */
IP_HIDDEN void ip_agg_interval(struct ip_rt_thread *t, uint64_t end, uint8_t **buf, size_t *len,
                               size_t *cap);
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
/* zeroed, pre-faulted unless lazy (its pages then come as it fills); NULL if
 * out of memory */
IP_HIDDEN struct ip_event *ip_buffer_new(int lazy);
IP_HIDDEN void ip_buffer_free(struct ip_event *b);
IP_HIDDEN void ip_buffer_clear(struct ip_event *b); /* every slot empty, pre-faulted */
/* In a fork child: a new buffer for the inherited one, its first *faulted
 * events' pages faulted in; the rest faulted in by ip_buffer_child_fault_rest
 * (b the new buffer; nothing for any other), and with the inherited one
 * unmapped by ip_buffer_child_settle. */
IP_HIDDEN struct ip_event *ip_buffer_renew_in_child(struct ip_event *old, size_t *faulted);
IP_HIDDEN void ip_buffer_child_fault_rest(struct ip_event *b);
IP_HIDDEN void ip_buffer_child_settle(void);
IP_HIDDEN struct ip_event *ip_pool_take(void);  /* a spare, or NULL */
IP_HIDDEN void ip_pool_put(struct ip_event *b); /* every arg of b 0 */
IP_HIDDEN unsigned ip_pool_spares(void);
/* The program's memory is bounded (ip_mem_tight): fewer spares; said once. */
IP_HIDDEN int ip_pool_tight(void);

/* writer.c */
/* Reads INCLPROF_WRITER; watch: what the writer calls every IP_WATCH_MS
 * while it waits (which may end it). */
#define IP_WATCH_MS 50
IP_HIDDEN void ip_writer_init(void (*watch)(void));
/* Ends the writer thread once it has written every queued job, waiting
 * until the tick deadline at most: 1 when it ended (the next hand-off
 * starts another), 0 when none runs, -1 when it did not end in time. */
IP_HIDDEN int ip_writer_stop(uint64_t deadline);
/* A job slot and a spare buffer (*fresh) for handing t's full buffer off, or
 * a negative IP_WRITER_*: encode inline (the writer is off, starting, behind,
 * or the program's threads keep every CPU busy), counted as such.  In a
 * signal handler (in_handler) the writer is neither started nor declined for
 * crowding, and nothing is counted: the caller keeps the events in the
 * headroom. */
enum { IP_WRITER_NEVER = -1, IP_WRITER_BEHIND = -2 /* a moment later it may take it */ };
IP_HIDDEN int ip_writer_begin(struct ip_rt_thread *t, struct ip_event **fresh, int in_handler);
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
IP_HIDDEN void ip_writer_at_exit(void); /* the writer back to the ordinary policy */

/* crowding.c */
IP_HIDDEN void ip_crowding_init(void); /* counts the CPUs the process may run on */
/* Notes that t filled a buffer at tick now; 1 while as many threads as
 * those CPUs filled one in the last complete window. */
IP_HIDDEN int ip_crowding_note(struct ip_rt_thread *t, uint64_t now);
IP_HIDDEN void ip_crowding_after_fork_child(void);

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
  ip_function_lens lens; /* the lengths of the strings set */
};
/* f's names, file, id, line and size from fn (or only the name `name` when
 * fn is NULL), their text kept in t, their lengths in t->lens. */
IP_HIDDEN void ip_function_fill(Inclprof__Function *f, struct ip_fn_text *t,
                                const struct inclprof_fn *fn, const char *name);

/* shared_tables.c: the Function records of the units of each object, as a
 * table file shared by the traces of the output directory (or, failing
 * that, in the trace).  Each caller holds reg_lock. */
/* The object of module id `module` (once, when its first unit registers). */
IP_HIDDEN void ip_tables_object(uint32_t module, const char *path, uintptr_t base,
                                const uint8_t *build_id, size_t build_id_len);
/* An instrumented function of a registered unit, with gid `gid`: an entry
 * of its object's table. */
IP_HIDDEN void ip_tables_add(const struct inclprof_fn *fn, uint32_t gid, uint32_t module);
/* A registered unit's table callees (ip_table_callee): how many, and the
 * least and greatest of their descriptors' addresses. */
struct ip_unit_callees {
  uint32_t n;
  uintptr_t lo, hi;
};
/* A registered unit with c->n table callees: they are entries of its
 * object's table, given their gids as one range when the table is
 * written. */
IP_HIDDEN void ip_tables_add_unit(const struct inclprof_tu *tu, uint32_t module,
                                  const struct ip_unit_callees *c);
/* Is fn a table callee: a call-site callee's descriptor (no address)? */
static inline int ip_table_callee(const struct inclprof_fn *fn) {
  return fn && (fn->flags & INCLPROF_FN_CALLEE) && !fn->addr;
}
/* A table callee that has no gid in the registry's map yet: the unit of a
 * written table that lists it has its callees' gids put there
 * (ip_unit_callee_gids); 0 when no such unit is known. */
IP_HIDDEN int ip_tables_callee_unit(const struct inclprof_fn *fn);
/* Unit tu is being unloaded: its callees are no longer looked up. */
IP_HIDDEN void ip_tables_unit_gone(const struct inclprof_tu *tu);
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

/* registry.c */
/* Writes the tables of the units registered since the last call (before a
 * batch that may name their functions, and before the Trailer). */
IP_HIDDEN void ip_tables_close_pending(int in_signal);
/* Caller holds reg_lock.  n new consecutive gids: the first. */
IP_HIDDEN uint32_t ip_gids_take(uint32_t n);
/* Caller holds reg_lock.  Unit tu's table callees, in its order, have the
 * gids from first_gid on: each without one in the map gets its own (its
 * binding to be written before a batch names it), unless an instrumented
 * function of its name has registered (its probes record nothing, and a
 * call is named by that function's gid). */
IP_HIDDEN void ip_unit_callee_gids(const struct inclprof_tu *tu, uint32_t first_gid);
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
 * events before now, and its hooks are set null; otherwise (exit) nothing
 * is named or moved, and it keeps its hooks (ip_units_left_off). */
IP_HIDDEN int ip_units_remove(struct inclprof_tu *tu, int unloading);
/* The units that left at exit (which keep their hooks while their objects
 * stay mapped) have their hooks set null and their entry addresses
 * removed: a dlclose during the exit may unmap them. */
IP_HIDDEN void ip_units_left_off(void);
IP_HIDDEN void ip_units_set_paused(int on);
IP_HIDDEN unsigned ip_units_registered(void); /* units registered and not yet unregistered */
IP_HIDDEN void ip_registry_fork_prepare(void);
IP_HIDDEN void ip_registry_fork_parent(void);
IP_HIDDEN void ip_registry_fork_child(void);

/* sampling.c */
IP_HIDDEN void ip_sampling_init(void);
IP_HIDDEN void ip_sampling_thread_start(struct ip_rt_thread *t);
IP_HIDDEN void ip_sampling_thread_stop(struct ip_rt_thread *t);
IP_HIDDEN void ip_sampling_after_fork_child(struct ip_rt_thread *t);
IP_HIDDEN int ip_sampling_signal(void);
IP_HIDDEN void ip_sample_handler(int sig, siginfo_t *si, void *uc);
#endif
