/* trace_write.c - appends frames to the trace file and stops recording
 * cleanly when it cannot: on a failed write (ENOSPC, EIO, EFBIG, ...), at the
 * size limit (INCLPROF_MAX_SIZE, policy stop) and before the process's
 * file-size limit (RLIMIT_FSIZE, whose SIGXFSZ would kill the program; read
 * again whenever the program sets it, interpose.c).  Then
 * the hooks are set null, one line says why and how much was written (on
 * stderr, or under `inclprof record` in its notes, notes.c), and a final Trailer records the cause.  Room for that record is
 * kept as a small unnamed file in the trace directory (O_TMPFILE), given back
 * to the file system when the disk fills; it is made only once the file
 * system has less than RESERVE_BELOW free (looked at with the trace
 * descriptor's check, at most once a millisecond): freeing its blocks at
 * exit waited for the disk (a synchronous discard on a file system mounted
 * with `discard` and no journal), which every process paid.  With
 * INCLPROF_MAX_SIZE_POLICY=ring the limit starts a new segment instead
 * (trace_ring.c); frames are then written under ring_lock. */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "sink/sink.h"
#include "size_syntax.h"

#define RESERVE_BYTES      65536u         /* given back on ENOSPC: room for the final records */
#define RESERVE_BELOW      (256ull << 20) /* free bytes under which the reserve is made */
#define FINAL_ROOM         4096u          /* kept below a size limit for the final records */
#define RING_MIN           (1u << 20)     /* the smallest limit the ring policy takes */
#define SNAPSHOT_RING_SIZE "64M" /* the ring of INCLPROF_SNAPSHOT_IF without INCLPROF_MAX_SIZE */

static atomic_uint_fast64_t bytes_ok; /* bytes of whole frames in the file */
/* bytes of frames written or being written: threads writing at once claim
 * their frame's room here first, so together they never pass size_cap */
static atomic_uint_fast64_t bytes_claimed;
static atomic_int failed; /* recording stopped: a write failed or a limit was met */
/* where ordinary frames stop: min(max size, RLIMIT_FSIZE) */
static _Atomic uint64_t size_cap;
static uint64_t max_cap; /* INCLPROF_MAX_SIZE's cap (~0 when unset) */
/* RLIMIT_FSIZE as last read: no byte of the trace goes past it */
static _Atomic uint64_t fsize_limit = UINT64_MAX;
static int reserve_fd = -1;
static atomic_int reserve_taken; /* a thread made (or is making) this trace's reserve */
static struct ip_fd_id reserve_id, trace_id;
static atomic_int cap_is_max_size; /* size_cap comes from INCLPROF_MAX_SIZE */
static char max_size_text[32];
static char error_text[256]; /* the cause, for the Trailer */
static uint64_t max_bytes;   /* INCLPROF_MAX_SIZE, 0 when unset */
static int ring_on;          /* policy ring: the limit starts a new segment */
static pthread_mutex_t ring_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static int stopped_at_limit; /* recording stopped at a size limit: the exit gets a note */
static int exit_note_set;    /* exit_note is registered (a fork child inherits it) */
static __thread int writing_final __attribute__((tls_model("initial-exec")));
static int quiet; /* an exec is ending the trace: a stop says so in the trace, not on stderr */
static ip_trailer_writer *final_trailer; /* output.c's, given at the start */

/* The trace's descriptor was closed behind the runtime's back (a close
 * system call the interposers do not see), and its number perhaps taken by
 * the program since: the file is opened again by its path, if it is still
 * the same file, at a number of the runtime's own.  One thread does it;
 * another that finds it under way waits for it, 100 ms at most.  0 when
 * ip_st.fd is usable again. */
static int reopen_trace(int bad) {
  static atomic_int reopening;
  if (ip_st.fd != bad)
    return 0; /* done by another thread meanwhile */
  if (atomic_exchange(&reopening, 1)) {
    for (int i = 0; i < 1000 && atomic_load(&reopening); i++)
      nanosleep(&(struct timespec){.tv_nsec = 100000}, NULL);
    return ip_st.fd != bad ? 0 : -1;
  }
  int rc = -1;
  int fd = open(ip_st.path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  struct ip_fd_id now;
  ip_fd_identify(fd, &now);
  if (fd >= 0 && now.dev == trace_id.dev && now.ino == trace_id.ino) {
    ip_fd_forget(bad);
    ip_st.fd = ip_fd_own(fd);
    ip_fd_identify(ip_st.fd, &trace_id);
    rc = 0;
  } else if (fd >= 0) {
    ip_close(fd);
  }
  atomic_store(&reopening, 0);
  return rc;
}

/* The trace's descriptor still holds the trace, or does again.  A frame is
 * written only after this was true within the last 1 ms (the tick of the
 * last look in checked_at): a burst of frames, such as a unit's Function
 * records, costs one fstat, not one each. */
static _Atomic uint64_t checked_at;

static void reserve_if_short(int fd);

static int trace_fd_ok(void) {
  uint64_t now = ip_tick_cold(), last = atomic_load(&checked_at);
  if (last && now - last < (uint64_t)(ip_st.ticks_per_second / 1000))
    return 1;
  int fd = ip_st.fd;
  struct stat st;
  int ok = (ip_fstat(fd, &st) == 0 && (uint64_t)st.st_ino == trace_id.ino &&
            (uint64_t)st.st_dev == trace_id.dev) ||
           reopen_trace(fd) == 0;
  if (ok) {
    atomic_store(&checked_at, now);
    reserve_if_short(ip_st.fd);
  }
  return ok;
}

/* pwrite, not write: on a file opened O_APPEND Linux appends whatever the
 * offset, and pwrite skips the file-position mutex that write() takes on a
 * file shared by threads (with more runnable threads than CPUs, preempted
 * holders of it queue every other writer).  0, or the errno; *done bytes. */
static int append(const uint8_t *p, size_t n, size_t *done) {
  *done = 0;
  if (!trace_fd_ok()) /* a frame never lands in a file of the program's */
    return EBADF;
  while (n) {
    int fd = ip_st.fd;
    ssize_t w = pwrite(fd, p, n, 0);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0 && errno == EBADF && reopen_trace(fd) == 0)
      continue;
    if (w <= 0)
      return w < 0 ? errno : ENOSPC;
    p += w;
    n -= (size_t)w;
    *done += (size_t)w;
  }
  return 0;
}

/* "12.3 MB" */
static void fmt_bytes(char *out, size_t len, uint64_t b) {
  if (b >= 1u << 20)
    snprintf(out, len, "%.1f MB", (double)b / (1 << 20));
  else
    snprintf(out, len, "%.1f KB", (double)b / 1024);
}

/* 1 for ring, 0 for stop (the default). */
static int read_policy(const char *max) {
  const char *pol = ip_set.max_size_policy;
  if (!pol || !*pol || !strcmp(pol, "stop"))
    return 0;
  if (strcmp(pol, "ring")) {
    ip_say("inclprof: INCLPROF_MAX_SIZE_POLICY='%s' is not stop or ring; using stop\n", pol);
    return 0;
  }
  if (!max || !*max) {
    ip_say("inclprof: INCLPROF_MAX_SIZE_POLICY=ring needs INCLPROF_MAX_SIZE (e.g. "
           "500M); no size limit\n");
    return 0;
  }
  return 1;
}

/* size_cap from INCLPROF_MAX_SIZE's cap and the file-size limit now. */
static void apply_fsize(void) {
  struct rlimit rl;
  uint64_t lim = UINT64_MAX;
  if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    lim = rl.rlim_cur;
  atomic_store(&fsize_limit, lim);
  uint64_t below = lim > FINAL_ROOM ? lim - FINAL_ROOM : 0;
  if (lim != UINT64_MAX && below < max_cap) {
    size_cap = below;
    cap_is_max_size = 0;
  } else {
    size_cap = max_cap;
    cap_is_max_size = max_cap != ~0ull;
  }
}

void ip_trace_fsize_changed(void) { apply_fsize(); }

int ip_trace_fsize_short(uint64_t *limit) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
      rl.rlim_cur > 2 * FINAL_ROOM)
    return 0;
  *limit = rl.rlim_cur;
  return 1;
}

static void read_limits(void) {
  max_cap = ~0ull;
  cap_is_max_size = 0;
  max_bytes = 0;
  const char *max = ip_set.max_size;
  int ring;
  if (ip_snapshots_on()) { /* snapshots are taken from the ring */
    const char *pol = ip_set.max_size_policy;
    if (pol && *pol && strcmp(pol, "ring"))
      ip_say("inclprof: INCLPROF_SNAPSHOT_IF takes its snapshots from the ring policy; "
             "INCLPROF_MAX_SIZE_POLICY='%s' is not used\n",
             pol);
    if (!max || !*max)
      max = SNAPSHOT_RING_SIZE;
    ring = 1;
  } else {
    ring = read_policy(max);
  }
  if (max && *max) {
    uint64_t v = 0;
    if (ip_size_parse(max, &v) || v <= FINAL_ROOM) {
      ip_say("inclprof: INCLPROF_MAX_SIZE='%s' is not a size above 4K (e.g. 500M); "
             "no size limit\n",
             max);
    } else {
      if (ring && v < RING_MIN) {
        ip_say("inclprof: INCLPROF_MAX_SIZE='%s' is below 1M, too small for the ring "
               "policy (two segments, each holding whole batches); using stop\n",
               max);
        ring = 0;
      }
      max_bytes = v;
      max_cap = ring ? v / 2 - FINAL_ROOM : v - FINAL_ROOM;
      snprintf(max_size_text, sizeof max_size_text, "%s", max);
    }
  }
  apply_fsize();
  ring_on = ring && cap_is_max_size;
}

static void reserve_open(void) {
  struct rlimit rl; /* a reserve past the file-size limit would raise SIGXFSZ */
  if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      rl.rlim_cur < RESERVE_BYTES)
    return;
  int fd = open(ip_st.dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0)
    return; /* the file system has no unnamed files: no reserve */
  if (posix_fallocate(fd, 0, RESERVE_BYTES) != 0) {
    ip_close(fd);
    return;
  }
  reserve_fd = ip_fd_own(fd);
  ip_fd_identify(reserve_fd, &reserve_id);
}

/* Makes the reserve, once per trace, when the file system of fd has less
 * than RESERVE_BELOW free (fstatfs: no allocation, unlike fstatvfs). */
static void reserve_if_short(int fd) {
  struct statfs sf;
  if (atomic_load(&reserve_taken) || atomic_load(&failed) || fstatfs(fd, &sf) != 0 ||
      (uint64_t)sf.f_bavail * (uint64_t)sf.f_bsize >= RESERVE_BELOW ||
      atomic_exchange(&reserve_taken, 1))
    return;
  reserve_open();
}

/* At exit after recording stopped at a size limit: one more Trailer (in the
 * room kept below the limit for it) that says when the process ended, so
 * readers know how long it ran unrecorded. */
static void exit_note(void) {
  if (!stopped_at_limit || getpid() != ip_st.pid)
    return;
  stopped_at_limit = 0;
  writing_final = 1;
  final_trailer(1, "exit");
  writing_final = 0;
}

void ip_trace_write_start(uint64_t preamble_bytes, ip_trailer_writer *write_trailer) {
  final_trailer = write_trailer;
  stopped_at_limit = 0;
  atomic_store(&bytes_ok, preamble_bytes);
  atomic_store(&bytes_claimed, preamble_bytes);
  atomic_store(&failed, 0);
  error_text[0] = 0;
  ip_fd_release(reserve_fd, &reserve_id); /* a fork child's inherited one: the parent's */
  reserve_fd = -1;
  atomic_store(&reserve_taken, 0);
  ip_fd_identify(ip_st.fd, &trace_id);
  atomic_store(&checked_at, 0);
  ip_snapshots_start();
  read_limits();
  if (size_cap != ~0ull && !exit_note_set)
    exit_note_set = atexit(exit_note) == 0;
  reserve_if_short(ip_st.fd);
  ip_mutex_init(&ring_lock); /* a fork child's may be held by a parent's thread */
  if (ring_on)
    ip_ring_start(max_bytes);
  ip_index_start(!ring_on);
}

uint64_t ip_trace_final_room(void) {
  if (size_cap == ~0ull)
    return UINT64_MAX;
  uint64_t limit = size_cap + FINAL_ROOM, ok = atomic_load(&bytes_ok);
  return ok < limit ? limit - ok : 0;
}

const char *ip_trace_size_policy(uint64_t *max_size) {
  *max_size = max_bytes;
  return !max_bytes ? NULL : ring_on ? "ring" : "stop";
}

const char *ip_trace_write_error(void) { return error_text[0] ? error_text : NULL; }
uint64_t ip_trace_bytes_written(void) { return atomic_load(&bytes_ok); }
const struct ip_fd_id *ip_trace_fd_id(void) { return &trace_id; }

/* Once: stop recording, free the reserve, cut a torn frame, write the final
 * Trailer and say so (ip_notes_line). */
static void stop_recording(const char *cause, int cut_torn_frame) {
  if (atomic_exchange(&failed, 1))
    return;
  int expected = 1;
  if (!atomic_compare_exchange_strong(&ip_st.init_state, &expected, 2))
    return; /* already stopping (exit) or disabled */
  snprintf(error_text, sizeof error_text, "%s", cause);
  ip_fd_release(reserve_fd, &reserve_id);
  reserve_fd = -1;
  uint64_t ok = atomic_load(&bytes_ok);
  struct stat st;
  if (cut_torn_frame && trace_fd_ok() && ip_fstat(ip_st.fd, &st) == 0 && (uint64_t)st.st_size > ok)
    (void)!ftruncate(ip_st.fd, (off_t)ok); /* if it fails, the reader reports the torn frame */
  writing_final = 1;
  final_trailer(0, "recording stopped");
  writing_final = 0;
  char size[32];
  fmt_bytes(size, sizeof size, ok);
  char msg[sizeof ip_st.path + 400];
  if (snprintf(msg, sizeof msg,
               "inclprof: recording stopped: %s (%s); after %s and %llu events; the trace "
               "up to there is complete; the program continues unprofiled\n",
               cause, ip_st.path, size, (unsigned long long)atomic_load(&ip_st.events)) > 0)
    ip_notes_line(msg, !quiet);
}

void ip_trace_write_quiet(int on) { quiet = on; }

/* Ring: the newest segment is full; a new one begins.  0, or -1 when
 * recording stopped instead. */
static int rotate(size_t len) {
  uint64_t start = UINT64_MAX;
  int err =
      trace_fd_ok() ? ip_ring_rotate(ip_st.fd, ip_st.path, atomic_load(&bytes_ok), &start) : EBADF;
  char cause[256];
  if (err) {
    if (start != UINT64_MAX) { /* the new segment is the file now */
      atomic_store(&bytes_ok, start);
      ip_fd_identify(ip_st.fd, &trace_id);
    }
    snprintf(cause, sizeof cause, "cannot start a new ring segment: %s", ip_errno_text(err));
    stop_recording(cause, 1);
    return -1;
  }
  atomic_store(&bytes_ok, start);
  ip_fd_identify(ip_st.fd, &trace_id);
  if (start + len > size_cap) {
    snprintf(cause, sizeof cause,
             "INCLPROF_MAX_SIZE=%s is too small for the ring policy: a segment's tables and "
             "thread states take %llu bytes of its %llu",
             max_size_text, (unsigned long long)start, (unsigned long long)size_cap);
    stop_recording(cause, 0);
    return -1;
  }
  return 0;
}

static void write_frame(const uint8_t *frame, size_t len);

void ip_write_frame(const uint8_t *frame, size_t len) {
  if (ip_st.fd < 0 || (atomic_load(&failed) && !writing_final))
    return;
  if (!ring_on || writing_final) {
    write_frame(frame, len);
    return;
  }
  if (!ip_lock(&ring_lock, 0))
    return; /* a signal handler interrupted this thread's write, or the exit deadline passed */
  if (!atomic_load(&failed))
    write_frame(frame, len);
  ip_unlock(&ring_lock);
}

/* Whether the frame passes the size cap.  The ring (writes serialized by
 * ring_lock) rotates to make room; otherwise the room is claimed. */
static int over_cap(size_t len) {
  if (ring_on)
    return atomic_load(&bytes_ok) + len > size_cap;
  if (atomic_fetch_add(&bytes_claimed, len) + len <= size_cap)
    return 0;
  atomic_fetch_sub(&bytes_claimed, len);
  return 1;
}

static void write_frame(const uint8_t *frame, size_t len) {
  if (writing_final && atomic_load(&bytes_ok) + len > atomic_load(&fsize_limit))
    return; /* the program lowered its file-size limit below the trace: SIGXFSZ would kill it */
  if (!writing_final && over_cap(len)) {
    if (ring_on && rotate(len) == 0) {
      write_frame(frame, len);
      return;
    }
    if (ring_on)
      return;
    stopped_at_limit = 1;
    char cause[128];
    if (cap_is_max_size)
      snprintf(cause, sizeof cause, "the trace reached its size limit (INCLPROF_MAX_SIZE=%s)",
               max_size_text);
    else
      snprintf(cause, sizeof cause, "the trace reached the process's file size limit (ulimit -f)");
    stop_recording(cause, 0);
    return;
  }
  size_t done;
  int err = append(frame, len, &done);
  if (!err) {
    atomic_fetch_add(&bytes_ok, len);
    if (ring_on)
      ip_ring_seen(frame, len);
    ip_index_seen(frame, len);
    return;
  }
  if (writing_final)
    return;
  char cause[128];
  snprintf(cause, sizeof cause, "cannot write the trace: %s", ip_errno_text(err));
  stop_recording(cause, 1);
}

/* The ring's files as they are now, between two frames: the newest segment
 * up to its last whole frame and the one before, open for reading (a
 * rotation meanwhile renames or deletes their names, not what is open), with
 * the Header and the tables so far. */
int ip_trace_snapshot_source(struct ip_snapshot_source *src) {
  memset(src, 0, sizeof *src);
  src->cur_fd = src->prev_fd = src->held_fd = -1;
  if (!ring_on || !ip_lock(&ring_lock, 0))
    return -1;
  char prev[sizeof ip_st.path + 8];
  snprintf(prev, sizeof prev, "%s.prev", ip_st.path);
  src->cur_fd = ip_ring_fd_open(ip_st.path, O_RDONLY, 0);
  src->prev_fd = ip_ring_fd_open(prev, O_RDONLY, 0);
  src->cur_len = atomic_load(&bytes_ok);
  int rc = src->cur_fd >= 0 ? ip_ring_snapshot_source(src) : -1;
  ip_unlock(&ring_lock);
  if (rc)
    ip_snapshot_source_free(src);
  return rc;
}

void ip_trace_snapshot_release(int all) {
  if (!ring_on || !ip_lock(&ring_lock, 0))
    return;
  ip_ring_snapshot_release(all);
  ip_unlock(&ring_lock);
}
