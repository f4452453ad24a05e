/* sink.h - the runtime's trace file and its records (docs/runtime.md,
 * "Layers"): output (creating the file; the Header, Thread, Gap and Trailer
 * records), exit_state, trace_write (appending frames, size limits),
 * trace_ring, trace_index (the Index of what was written),
 * calibration_cache (one calibration per output directory), the snapshots
 * of slow calls (snapshot_watch, snapshot_write).  Calls only sink/ and
 * base/: a file of sink/ includes this header and none above it.  The
 * declarations are grouped by file. */
#ifndef INCLPROF_RT_SINK_H
#define INCLPROF_RT_SINK_H

#include "base/base.h"
#include "trace_frame.h"

/* output.c */
IP_HIDDEN int ip_output_open(char *err, size_t errlen);
IP_HIDDEN void ip_write_record(const Inclprof__Record *rec, int log_it);
/* Aggregate mode's --interval: OUTPUT/<pid>.intervals/<seq>.ipb, a file of
 * its own with the Header, the table records so far, frames (the
 * interval's Thread and ThreadProfile records) and a Trailer ending at the
 * tick end; 0 or -1. */
IP_HIDDEN int ip_write_interval_file(unsigned seq, uint64_t end, const uint8_t *frames, size_t len);
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

/* fork_file.c: a fork child's file made ahead by the parent */
IP_HIDDEN int ip_fork_file_wake_fd(void); /* the control thread's: a fork wakes it */
IP_HIDDEN void ip_fork_file_woken(void);
IP_HIDDEN void ip_fork_file_make(void); /* after a fork, in the control thread (a filter) */
/* After a fork, in the parent's forking thread once the fork's locks are
 * let go: the next child's file, unless the program installed a filter */
IP_HIDDEN void ip_fork_file_after_fork_made(void);
IP_HIDDEN void ip_fork_file_before_filter(void);     /* before a seccomp filter is installed */
IP_HIDDEN void ip_fork_file_fork_wait(void);         /* a fork under a filter, first */
IP_HIDDEN void ip_fork_file_fork_prepare(void);      /* takes its lock, the last */
IP_HIDDEN void ip_fork_file_after_fork_parent(void); /* and lets it go */
IP_HIDDEN void ip_fork_file_fork_child_lock(void);
/* In a fork child: the parent's unnamed file, or -1 */
IP_HIDDEN int ip_fork_file_take(void);
/* links the unnamed file fd as name in directory dir (AT_FDCWD: name is a
 * path): linkat's result */
IP_HIDDEN int ip_fork_file_link(int fd, int dir, const char *name);

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

/* The program set its file-size limit (RLIMIT_FSIZE): frames stop 4 KB
 * short of the new one, and none passes it. */
IP_HIDDEN void ip_trace_fsize_changed(void);
/* 1, with the limit in *limit, when the file-size limit leaves a trace no
 * room past its final records (8 KB or less). */
IP_HIDDEN int ip_trace_fsize_short(uint64_t *limit);

/* What the final records may still take under the size limits (UINT64_MAX: no limit). */
IP_HIDDEN uint64_t ip_trace_final_room(void);

/* trace_index.c (the frames noted by trace_write.c, the Index encoded for output.c) */
IP_HIDDEN void ip_index_start(int on); /* on: the file gets an Index (not under the ring policy) */
/* After frames were appended: notes them (the index's lock is held only
 * while noting, never across a write). */
IP_HIDDEN void ip_index_seen(const uint8_t *frames, size_t len);
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
/* ring_fds.c: open and close a descriptor of the ring's rotation or of the
 * snapshots' writing (O_CLOEXEC added); fork takes their lock, and a fork
 * child closes its copies of those open. */
IP_HIDDEN int ip_ring_fd_open(const char *path, int flags, unsigned mode);
IP_HIDDEN void ip_ring_fd_close(int fd);
IP_HIDDEN void ip_ring_fds_fork_prepare(void);
IP_HIDDEN void ip_ring_fds_fork_parent(void);
IP_HIDDEN void ip_ring_fds_fork_child(void);
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

/* table_file.c: a table file NAME in the trace directory, written
 * whole under a temporary name and renamed.  Each returns 0 or an errno. */
IP_HIDDEN int ip_table_file_exists(const char *name);
IP_HIDDEN int ip_table_file_begin(const char *name);
IP_HIDDEN int ip_table_file_add(const Inclprof__Record *rec);
/* A Record{function: f}, encoded by hand, its strings' lengths those in
 * *lens (ip_function_fill's). */
IP_HIDDEN int ip_table_file_add_function(const Inclprof__Function *f, ip_function_lens *lens);
IP_HIDDEN int ip_table_file_commit(void);
IP_HIDDEN void ip_table_file_abort(void);

/* exit_state.c */
/* Before the Trailer: every other live thread's name as the kernel has it
 * now, and (unless the process may go on: a failed exec) its ThreadEnd at
 * the exit's tick. */
IP_HIDDEN void ip_exit_state(int in_signal, int keep_going);
/* The command line now, split into argv (at most max) inside buf: no
 * allocation (a fatal-signal handler writes the Trailer).  Returns argc. */
IP_HIDDEN size_t ip_exit_argv(char *buf, size_t len, char **argv, size_t max);
#endif
