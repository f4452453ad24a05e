/* output.c - the trace file: created in INCLPROF_OUTPUT (default
 * ./inclprof.data) as <pid>.ipb or <pid>.<n>.ipb, never following a symlink
 * and never overwriting; opened O_APPEND so every frame lands with one
 * write() whichever thread writes it.  Also the header, thread, gap and
 * trailer records (the Trailer with the Index and Footer, trace_index.c),
 * the log of table records replayed into a fork child's new
 * file (made ahead by the parent when it can: fork_file.c), and disabling the runtime when the file cannot be written. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sink/sink.h"
#include "trace_frame.h"
#include "version.h"

#define STACK_FRAME 4096 /* records up to this size are framed on the stack */

static pthread_mutex_t log_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static uint8_t *table_log; /* frames of Module/Function/MarkName records */
static size_t log_len, log_cap;

static int write_all(int fd, const uint8_t *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* "inclprof: WHY; the program continues unprofiled" on stderr, or under
 * `inclprof record` in its notes only (notes.c), which record's summary
 * gives. */
void ip_say_unprofiled(const char *why) {
  char msg[1400];
  if (snprintf(msg, sizeof msg, "inclprof: %s; the program continues unprofiled\n", why) > 0)
    ip_notes_line(msg, 1);
}

void ip_disable(const char *why) {
  int expected = 1;
  if (atomic_compare_exchange_strong(&ip_st.init_state, &expected, 2))
    ip_say_unprofiled(why);
}

static void log_frame(const uint8_t *frame, size_t len) {
  if (!ip_lock(&log_lock, 0))
    return; /* the final flush ran out of time: only a fork child would need it */
  if (log_len + len > log_cap) {
    size_t cap = log_cap ? log_cap * 2 : 65536;
    while (cap < log_len + len)
      cap *= 2;
    uint8_t *n = ip_realloc(table_log, cap);
    if (!n) {
      ip_unlock(&log_lock);
      return;
    }
    table_log = n;
    log_cap = cap;
  }
  memcpy(table_log + log_len, frame, len);
  log_len += len;
  ip_unlock(&log_lock);
}

void ip_write_record(const Inclprof__Record *rec, int log_it) {
  uint8_t stack[STACK_FRAME];
  size_t max = ip_frame_max_size(rec);
  uint8_t *buf = max <= sizeof stack ? stack : ip_alloc(max);
  if (!buf)
    return;
  size_t len = ip_frame_encode(rec, buf);
  ip_write_frame(buf, len);
  if (log_it)
    log_frame(buf, len);
  if (buf != stack)
    ip_free(buf);
}

/* A new trace file for pid in the output directory (its name in path):
 * <pid>.ipb, or <pid>.<n>.ipb when an earlier image of the same pid (before
 * an exec) has that one.  With spare >= 0, that unnamed file (fork_file.c)
 * is linked under the name instead; -1 with no message when it cannot be,
 * the spare closed. */
static int create_in_dir(uint32_t pid, int spare, char *path, size_t pathlen, char *err,
                         size_t errlen) {
  for (int n = 0; n < 1000; n++) {
    if (n == 0)
      snprintf(path, pathlen, "%s/%u.ipb", ip_st.dir, pid);
    else
      snprintf(path, pathlen, "%s/%u.%d.ipb", ip_st.dir, pid, n);
    /* through the directory's descriptor where there is one: a process
     * that changed its root (chroot) no longer reaches it by its path */
    const char *name = ip_st.dir_fd >= 0 ? strrchr(path, '/') + 1 : path;
    int at = ip_st.dir_fd >= 0 ? ip_st.dir_fd : AT_FDCWD;
    int fd = spare < 0
                 ? openat(at, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_APPEND,
                          0644)
             : ip_fork_file_link(spare, at, name) == 0 ? spare
                                                       : -1;
    if (fd >= 0)
      return fd;
    if (errno != EEXIST && spare >= 0) {
      ip_fd_forget(spare);
      ip_close(spare);
      return -1;
    }
    if ((errno == EACCES || errno == EPERM) && atomic_load(&ip_st.seccomp)) {
      snprintf(err, errlen,
               "the program's seccomp filter refused creating the trace file %s (%s); the "
               "directory is not the cause",
               path, ip_errno_text(errno));
      return -1;
    }
    if (errno == EACCES || errno == EPERM) {
      snprintf(err, errlen,
               "cannot create %s: %s (the process runs as uid %u, gid %u: make %s writable for "
               "it, or record into a directory it can write)",
               path, ip_errno_text(errno), (unsigned)geteuid(), (unsigned)getegid(), ip_st.dir);
      return -1;
    }
    if (errno != EEXIST) {
      snprintf(err, errlen, "cannot create %s: %s", path, ip_errno_text(errno));
      return -1;
    }
  }
  snprintf(err, errlen, "cannot create a trace file in %s: 1000 names taken", ip_st.dir);
  return -1;
}

static int open_in_dir(char *err, size_t errlen) {
  uint64_t limit;
  if (ip_trace_fsize_short(&limit)) { /* its first write would raise SIGXFSZ, or soon after */
    snprintf(err, errlen,
             "the process's file size limit (ulimit -f) of %llu bytes leaves no room for a "
             "trace; raise it (ulimit -f unlimited)",
             (unsigned long long)limit);
    return -1;
  }
  int fd = create_in_dir((uint32_t)ip_st.pid, -1, ip_st.path, sizeof ip_st.path, err, errlen);
  return ip_fd_own(fd); /* far from the low numbers programs close and reuse */
}

int ip_output_open(char *err, size_t errlen) {
  const char *dir = ip_set.output;
  if (!dir || !*dir)
    dir = "inclprof.data";
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    snprintf(err, errlen, "cannot create directory %s: %s", dir, ip_errno_text(errno));
    return -1;
  }
  char abs[PATH_MAX];
  /* Absolute, so a fork child after chdir() still writes next to its parent. */
  snprintf(ip_st.dir, sizeof ip_st.dir, "%.1000s", realpath(dir, abs) ? abs : dir);
  /* not below a program's last 64 free descriptors, nor among its numbers
   * under a tight limit: then a chroot's fork child cannot create its trace */
  int room = ip_fd_spare_room() && ip_fd_room_begin(2);
  if (room) {
    int d = open(ip_st.dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    ip_st.dir_fd = d >= 0 ? ip_fd_own(d) : -1;
  }
  ip_st.fd = open_in_dir(err, errlen);
  if (room) {
    ip_notes_keep();
    ip_fd_room_end(2);
  }
  if (ip_st.fd < 0)
    return -1;
  uint8_t pre[IP_TRACE_PREAMBLE_LEN];
  ip_frame_preamble(pre);
  if (write_all(ip_st.fd, pre, sizeof pre) != 0) {
    snprintf(err, errlen, "cannot write %s: %s", ip_st.path, ip_errno_text(errno));
    ip_fd_forget(ip_st.fd);
    ip_close(ip_st.fd);
    ip_st.fd = -1;
    return -1;
  }
  ip_trace_write_start(sizeof pre, ip_write_trailer);
  return 0;
}

/* Reads a whole small file (/proc/self/cmdline); NULL on failure. */
static char *slurp(const char *path, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  size_t cap = 4096, n = 0;
  char *buf = ip_alloc(cap + 1);
  while (buf) {
    ssize_t r = read(fd, buf + n, cap - n);
    if (r <= 0)
      break;
    n += (size_t)r;
    if (n == cap) {
      char *nb = ip_realloc(buf, cap * 2 + 1);
      if (!nb) {
        ip_free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  ip_close(fd);
  if (buf)
    buf[n] = 0;
  *len = n;
  return buf;
}

/* Where a record goes: the trace (ip_write_record) or another file. */
typedef void emit_fn(const Inclprof__Record *rec, void *ctx);

static void emit_to_trace(const Inclprof__Record *rec, void *ctx) {
  (void)ctx;
  ip_write_record(rec, 0);
}

static void emit_to_fd(const Inclprof__Record *rec, void *ctx) {
  uint8_t stack[STACK_FRAME];
  size_t max = ip_frame_max_size(rec);
  uint8_t *buf = max <= sizeof stack ? stack : ip_alloc(max);
  if (!buf)
    return;
  write_all(*(const int *)ctx, buf, ip_frame_encode(rec, buf));
  if (buf != stack)
    ip_free(buf);
}

/* The Header of pid's trace: this process's executable, command line,
 * clock and settings. */
/* An interval's number and first tick, for its file's Header. */
struct interval_span {
  unsigned number;
  uint64_t start_tick;
};

/* The wall-clock time of the trace's start_tick (its Header's start_unix_ns):
 * an interval file's Header has the same pair. */
static uint64_t trace_start_unix_ns;

static void emit_header(uint32_t pid, uint32_t ppid, uint32_t from_pid, uint64_t start_tick,
                        uint64_t start_unix_ns, const struct interval_span *interval, emit_fn *emit,
                        void *ctx) {
  Inclprof__Header h = INCLPROF__HEADER__INIT;
  if (interval) {
    h.has_interval = h.has_interval_start_tick = 1;
    h.interval = interval->number;
    h.interval_start_tick = interval->start_tick;
  }
  h.format_major = IP_FORMAT_MAJOR;
  h.format_minor = IP_FORMAT_MINOR;
  h.pid = pid;
  h.has_ppid = 1;
  h.ppid = ppid;
  /* Kept from the first header: a fork child of a process that changed its
   * root (chroot) may have no /proc to read them from. */
  static char exe[PATH_MAX];
  static char *first_cmd;
  static size_t first_clen;
  char now[PATH_MAX];
  ssize_t el = readlink("/proc/self/exe", now, sizeof now - 1);
  if (el > 0) {
    now[el] = 0;
    memcpy(exe, now, (size_t)el + 1);
  }
  h.executable = exe;
  size_t clen = 0;
  char *cmd = slurp("/proc/self/cmdline", &clen);
  if (cmd && !first_cmd) {
    first_cmd = ip_alloc(clen + 1);
    if (first_cmd)
      memcpy(first_cmd, cmd, clen + 1);
    first_clen = first_cmd ? clen : 0;
  } else if (!cmd && first_cmd) {
    cmd = ip_alloc(first_clen + 1);
    if (cmd)
      memcpy(cmd, first_cmd, first_clen + 1);
    clen = cmd ? first_clen : 0;
  }
  char *argv_ptrs[256];
  size_t argc = 0;
  if (cmd)
    for (size_t i = 0; i < clen && argc < 256; i += strlen(cmd + i) + 1)
      argv_ptrs[argc++] = cmd + i;
  h.n_argv = argc;
  h.argv = argv_ptrs;
  h.has_start_unix_ns = h.has_start_tick = h.has_clock = h.has_ticks_per_second = 1;
  h.start_unix_ns = start_unix_ns;
  h.start_tick = start_tick;
  h.clock = ip_st.clock;
  h.has_clock_unfenced = ip_st.clock_unfenced;
  h.clock_unfenced = ip_st.clock_unfenced;
  h.ticks_per_second = ip_st.ticks_per_second;
  h.has_transitions = h.has_probe_cost_ticks = h.has_probe_hidden_ticks = h.has_sample_hz = 1;
  h.transitions = ip_st.mode;
  h.transitions_note = ip_st.note;
  h.has_kernel_events = 1;
  h.kernel_events = ip_st.mode == INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS;
  h.has_aggregate = ip_st.aggregate;
  h.aggregate = ip_st.aggregate;
  h.probe_cost_ticks = ip_st.probe_cost_ticks;
  h.probe_hidden_ticks = ip_st.probe_hidden_ticks;
  h.has_kevent_cost_ticks = ip_st.mode == INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS;
  h.kevent_cost_ticks = ip_st.kevent_cost_ticks;
  h.has_fault_cost_ticks = h.has_kevent_cost_ticks && ip_st.fault_cost_ticks > 0;
  h.fault_cost_ticks = ip_st.fault_cost_ticks;
  h.has_pointer_call_cost_ticks = ip_st.ptr_call_cost_ticks > 0;
  h.pointer_call_cost_ticks = ip_st.ptr_call_cost_ticks;
  /* a profile keeps no wake-ups (the critical path needs a trace) */
  h.has_wake_edges = h.kernel_events && ip_st.wake_tp[0] >= 0 && !ip_st.aggregate;
  h.wake_edges = h.has_wake_edges;
  h.has_futex_waits = h.wake_edges && ip_st.futex_tp >= 0;
  h.futex_waits = h.has_futex_waits;
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  h.hostname = host;
  h.sample_hz = ip_st.sample_hz;
  h.runtime_version = INCLPROF_VERSION;
  if (*ip_run_id())
    h.run = (char *)ip_run_id();
  if (from_pid) {
    h.has_forked_from = 1;
    h.forked_from = from_pid;
  }
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_HEADER;
  rec.header = &h;
  emit(&rec, ctx);
  ip_free(cmd);
}

void ip_write_header(uint32_t from_pid) {
  trace_start_unix_ns = ip_now_ns_realtime();
  emit_header((uint32_t)ip_st.pid, (uint32_t)getppid(), from_pid, ip_st.start_tick,
              trace_start_unix_ns, NULL, emit_to_trace, NULL);
}

void ip_write_child_trace(uint32_t pid, const char *how) {
  char path[sizeof ip_st.path], err[sizeof ip_st.path + 100];
  int fd = create_in_dir(pid, -1, path, sizeof path, err, sizeof err);
  if (fd < 0)
    return;
  uint8_t pre[IP_TRACE_PREAMBLE_LEN];
  ip_frame_preamble(pre);
  uint64_t now = ip_tick_cold();
  if (write_all(fd, pre, sizeof pre) == 0) {
    emit_header(pid, (uint32_t)getpid(), (uint32_t)getpid(), now, ip_now_ns_realtime(), NULL,
                emit_to_fd, &fd);
    char reason[200];
    snprintf(reason, sizeof reason,
             "not recorded: started by %s, which runs no fork handler; it ran as without the "
             "runtime",
             how);
    Inclprof__Trailer tr = INCLPROF__TRAILER__INIT;
    tr.has_end_tick = tr.has_end_unix_ns = tr.has_events = tr.has_batches = tr.has_clean = 1;
    tr.end_tick = now;
    tr.end_unix_ns = ip_now_ns_realtime();
    tr.clean = 1;
    tr.exit_reason = reason;
    Inclprof__Record rec = INCLPROF__RECORD__INIT;
    rec.body_case = INCLPROF__RECORD__BODY_TRAILER;
    rec.trailer = &tr;
    emit_to_fd(&rec, &fd);
  }
  ip_close(fd);
}

/* Each interval begins where the one before ended, the first at the
 * process's start (a fork child's: at the fork). */
static uint64_t interval_end;

int ip_write_interval_file(unsigned seq, uint64_t end, const uint8_t *frames, size_t len) {
  struct interval_span span = {seq,
                               interval_end > ip_st.start_tick ? interval_end : ip_st.start_tick};
  interval_end = end;
  char dir[sizeof ip_st.dir + 32], path[sizeof dir + 32];
  snprintf(dir, sizeof dir, "%s/%u.intervals", ip_st.dir, (unsigned)ip_st.pid);
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return -1;
  snprintf(path, sizeof path, "%s/%06u.ipb", dir, seq);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return -1;
  uint8_t pre[IP_TRACE_PREAMBLE_LEN];
  ip_frame_preamble(pre);
  int rc = write_all(fd, pre, sizeof pre);
  if (rc == 0) {
    emit_header((uint32_t)ip_st.pid, (uint32_t)getppid(), 0, ip_st.start_tick, trace_start_unix_ns,
                &span, emit_to_fd, &fd);
    ip_output_lock_log();
    rc = write_all(fd, table_log, log_len);
    ip_output_unlock_log();
  }
  if (rc == 0)
    rc = write_all(fd, frames, len);
  if (rc == 0) {
    Inclprof__Trailer tr = INCLPROF__TRAILER__INIT;
    tr.has_end_tick = tr.has_end_unix_ns = tr.has_clean = 1;
    tr.end_tick = end;
    tr.end_unix_ns = ip_now_ns_realtime();
    tr.clean = 1;
    tr.exit_reason = "interval";
    Inclprof__Record rec = INCLPROF__RECORD__INIT;
    rec.body_case = INCLPROF__RECORD__BODY_TRAILER;
    rec.trailer = &tr;
    emit_to_fd(&rec, &fd);
  }
  ip_close(fd);
  return rc;
}

void ip_write_thread(uint32_t tid, const char *name, uint64_t tick) {
  Inclprof__Thread th = INCLPROF__THREAD__INIT;
  th.tid = tid;
  th.name = (char *)name;
  th.has_start_tick = 1;
  th.start_tick = tick;
  if (tid == ip_tls.tid && ip_tls.no_counter == IP_NC_FD_RESERVE)
    th.no_transitions = "fewer than " IP_FD_RESERVE_TEXT " file descriptors free";
  else if (tid == ip_tls.tid && ip_tls.no_counter == IP_NC_OPEN_FAILED)
    th.no_transitions = "its counter could not be opened";
  else if (tid == ip_tls.tid && ip_tls.no_counter == IP_NC_SECCOMP)
    th.no_transitions = "the program installed a seccomp filter";
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_THREAD;
  rec.thread = &th;
  ip_write_record(&rec, 0);
}

void ip_write_gap(uint32_t tid, uint64_t start, uint64_t end) {
  Inclprof__Gap g = INCLPROF__GAP__INIT;
  g.tid = tid;
  g.start_tick = start;
  g.end_tick = end;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_GAP;
  rec.gap = &g;
  ip_write_record(&rec, 0);
}

/* Before an exec: why the program it starts will write no trace, or NULL.
 * A user who cannot create a file in the output directory (a child that
 * changed its user before the exec) cannot record it.  The words are kept
 * until the next call (one exec at a time ends the trace). */
static const char *exec_unrecorded(void) {
  static char buf[sizeof ip_st.dir + 200];
  if (faccessat(AT_FDCWD, ip_st.dir, W_OK | X_OK, AT_EACCESS) == 0)
    return NULL;
  snprintf(buf, sizeof buf,
           "the program it runs (as uid %u, gid %u) cannot create its trace in %s: %s",
           (unsigned)geteuid(), (unsigned)getegid(), ip_st.dir, ip_errno_text(errno));
  return buf;
}

void ip_write_trailer(int clean, const char *reason) {
  Inclprof__Trailer tr = INCLPROF__TRAILER__INIT;
  if (!strcmp(reason, "exec"))
    tr.exec_unrecorded = (char *)exec_unrecorded();
  tr.has_end_tick = tr.has_end_unix_ns = tr.has_events = tr.has_batches = 1;
  tr.end_tick = ip_tick_cold();
  tr.end_unix_ns = ip_now_ns_realtime();
  tr.events = atomic_load(&ip_st.events);
  tr.batches = atomic_load(&ip_st.batches);
  tr.has_dropped_events = tr.has_clean = tr.has_samples_taken = tr.has_samples_in_runtime = 1;
  tr.dropped_events = atomic_load(&ip_st.dropped) + ip_tls.dropped;
  tr.clean = clean != 0;
  tr.exit_reason = (char *)reason;
  tr.samples_taken = atomic_load(&ip_st.samples);
  tr.samples_in_runtime = atomic_load(&ip_st.samples_in_runtime);
  tr.has_threads_not_flushed = 1;
  tr.threads_not_flushed = atomic_load(&ip_st.threads_not_flushed);
  tr.write_error = (char *)ip_trace_write_error();
  tr.has_bytes_written = 1;
  tr.bytes_written = ip_trace_bytes_written();
  tr.has_buffers_handed_off = tr.has_inline_flushes = tr.has_crowded_flushes = 1;
  tr.buffers_handed_off = atomic_load(&ip_st.handoffs);
  tr.inline_flushes = atomic_load(&ip_st.inline_flushes);
  tr.crowded_flushes = atomic_load(&ip_st.crowded_flushes);
  tr.size_policy = (char *)ip_trace_size_policy(&tr.max_size);
  tr.has_max_size = tr.size_policy != NULL;
  if (tr.size_policy && !strcmp(tr.size_policy, "ring")) {
    tr.has_ring_dropped_events = tr.has_ring_dropped_bytes = 1;
    tr.ring_dropped_events = atomic_load(&ip_st.ring_dropped_events);
    tr.ring_dropped_bytes = atomic_load(&ip_st.ring_dropped_bytes);
  }
  char cmd[2048], *argv[64];
  tr.n_argv = ip_exit_argv(cmd, sizeof cmd, argv, 64);
  tr.argv = argv;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_TRAILER;
  rec.trailer = &tr;
  uint8_t *tail;
  size_t mapped, n = ip_index_tail(&rec, tr.bytes_written, &tail, &mapped);
  if (n && n <= ip_trace_final_room())
    ip_write_frame(tail, n);
  else
    ip_write_record(&rec, 0);
  ip_index_tail_free(tail, mapped);
}

/* In a fork child (the only thread; its locks made anew): a file of its own
 * with a header naming the parent and every table record written so far. */
void ip_output_fork_child(void) {
  ip_st.forked_from = (uint32_t)ip_st.pid;
  ip_st.pid = getpid();
  atomic_store(&ip_st.events, 0);
  atomic_store(&ip_st.batches, 0);
  atomic_store(&ip_st.dropped, 0);
  atomic_store(&ip_st.samples, 0);
  atomic_store(&ip_st.samples_in_runtime, 0);
  atomic_store(&ip_st.trailer_written, 0);
  if (ip_st.fd >= 0)
    ip_fd_release(ip_st.fd, ip_trace_fd_id()); /* the parent's */
  char err[sizeof ip_st.path + 100];
  int spare = ip_fork_file_take(); /* the parent's own already */
  ip_st.fd = spare < 0 ? -1
                       : create_in_dir((uint32_t)ip_st.pid, spare, ip_st.path, sizeof ip_st.path,
                                       err, sizeof err);
  if (ip_st.fd < 0)
    ip_st.fd = open_in_dir(err, sizeof err);
  if (ip_st.fd < 0) {
    ip_disable(err);
    return;
  }
  uint8_t pre[IP_TRACE_PREAMBLE_LEN];
  ip_frame_preamble(pre);
  if (write_all(ip_st.fd, pre, sizeof pre) != 0) {
    snprintf(err, sizeof err, "cannot write %s: %s", ip_st.path, ip_errno_text(errno));
    ip_disable(err);
    return;
  }
  ip_trace_write_start(sizeof pre, ip_write_trailer);
  ip_st.start_tick = ip_tick_cold();
  ip_write_header(ip_st.forked_from);
  ip_write_frame(table_log, log_len);
}

void ip_output_lock_log(void) { ip_lock(&log_lock, 0); }
void ip_output_unlock_log(void) { ip_unlock(&log_lock); }
/* The child of a fork is a new thread as far as an error-checking mutex
 * knows: the lock its parent held for it is made anew, unlocked. */
void ip_output_fork_child_locks(void) { ip_mutex_init(&log_lock); }
