/* transitions.c - the per-thread transition counter: choosing the mode
 * (INCLPROF_TRANSITIONS=auto|pmu|kevents|none, best first, with a note saying
 * why), and opening/closing a thread's counter.
 *   pmu:     kernel-mode instructions retired (exclude_user), read with rdpmc
 *            through the event's mapped page.
 *   kevents: one perf ring buffer mapped read-only, so the kernel keeps
 *            overwriting it and data_head keeps moving; it receives a record
 *            for every system call (raw_syscalls:sys_enter tracepoint), context
 *            switch and page fault of the thread.  The probe loads data_head;
 *            the records themselves (time on CLOCK_MONOTONIC_RAW, sample id)
 *            are saved at flush time by kevents.c.  The record's own cost
 *            (what it adds to a system call) is measured here for the header.
 *            Two more events write into the same ring: the scheduler's
 *            sched_waking and sched_wakeup_new tracepoints, which fire in the
 *            context of the thread that wakes or starts another, with the
 *            other's pid in their raw data (the wake edges).
 *            A process that may not open the events (a normal user) gets
 *            the ring's and the page faults' from its recording's grant
 *            server (perf_grant.c), and no wake edges.
 *            With the wake edges, syscalls:sys_enter_futex writes there too,
 *            filtered by the kernel to the operations that may sleep, with
 *            the futex word's address and the operation in its raw data
 *            (the objects the sleeps waited on). */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pmu_attr.h"
#include "produce/produce.h"

static const char *const tracepoint_paths[] = {IP_SYS_ENTER_ID_PATHS, NULL};

static int perf_open(struct perf_event_attr *a) {
  return (int)ip_syscall(SYS_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int ip_tracepoint_id(const char *const *paths, char *why, size_t whylen) {
  const char *refused = NULL;
  for (int i = 0; paths[i]; i++) {
    int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
    if (fd < 0 && (errno == EACCES || errno == EPERM) && !refused)
      refused = paths[i];
    if (fd < 0)
      continue;
    char buf[32];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    ip_close(fd);
    if (n <= 0)
      continue;
    buf[n] = 0;
    char *end;
    long id = strtol(buf, &end, 10);
    if (end != buf && id > 0 && id < 1000000)
      return (int)id;
  }
  if (refused)
    ip_tracefs_refusal(refused, why, whylen);
  else
    snprintf(why, whylen,
             "tracepoint raw_syscalls:sys_enter not found (tracefs not mounted? as root: "
             "mount -t tracefs nodev /sys/kernel/tracing; 'inclprof record' does this)");
  return -1;
}

/* The offset of the field `field` (" pid;") in a tracepoint's format text,
 * or -1. */
static int field_offset(const char *format, const char *field) {
  const char *f = strstr(format, field);
  const char *o = f ? strstr(f, "offset:") : NULL;
  if (!o)
    return -1;
  long off = strtol(o + 7, NULL, 10);
  return off > 0 && off < 256 ? (int)off : -1;
}

/* The ids of sched_waking and sched_wakeup_new and where their raw data
 * holds the woken thread's pid, into ip_st (wake_tp -1 and why when not).
 * INCLPROF_WAKE_EDGES=0 leaves them out; any other value changes nothing. */
static void wake_tracepoints(char *why, size_t whylen) {
  static const char *const dirs[] = {IP_SCHED_TRACEPOINT_DIRS};
  static const char *const names[2] = {"sched_waking", "sched_wakeup_new"};
  ip_st.wake_tp[0] = ip_st.wake_tp[1] = -1;
  if (ip_set.wake_edges && !strcmp(ip_set.wake_edges, "0")) {
    snprintf(why, whylen, "INCLPROF_WAKE_EDGES=0");
    return;
  }
  snprintf(why, whylen, "tracepoint sched:sched_waking not found");
  for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
    char path[128], buf[4096];
    int id[2], off[2];
    for (int k = 0; k < 2; k++) {
      snprintf(path, sizeof path, "%s/%s/id", dirs[d], names[k]);
      id[k] = ip_read_small(path, 0, buf, sizeof buf) > 0 ? atoi(buf) : -1;
      snprintf(path, sizeof path, "%s/%s/format", dirs[d], names[k]);
      off[k] = ip_read_small(path, 0, buf, sizeof buf) > 0 ? field_offset(buf, " pid;") : -1;
    }
    if (id[0] <= 0 || off[0] < 0)
      continue;
    ip_st.wake_tp[0] = id[0];
    ip_st.wakee_off = (unsigned)off[0];
    /* the thread starts, when their record has the same layout */
    ip_st.wake_tp[1] = id[1] > 0 && off[1] == off[0] ? id[1] : -1;
    return;
  }
}

/* The id of syscalls:sys_enter_futex and where its raw data holds the
 * futex word's address and the operation, into ip_st (futex_tp -1 when not
 * found).  Only with the wake edges: the futex waits name the objects their
 * sleeps waited on.  INCLPROF_FUTEX_WAITS=0 leaves them out; any other
 * value changes nothing. */
static void futex_tracepoint(void) {
  static const char *const dirs[] = {IP_FUTEX_TRACEPOINT_DIRS};
  ip_st.futex_tp = -1;
  if (ip_st.wake_tp[0] < 0 || (ip_set.futex_waits && !strcmp(ip_set.futex_waits, "0")))
    return;
  for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
    char path[128], buf[4096];
    snprintf(path, sizeof path, "%s/id", dirs[d]);
    int id = ip_read_small(path, 0, buf, sizeof buf) > 0 ? atoi(buf) : -1;
    snprintf(path, sizeof path, "%s/format", dirs[d]);
    if (id <= 0 || ip_read_small(path, 0, buf, sizeof buf) <= 0)
      continue;
    int uaddr = field_offset(buf, " uaddr;"), op = field_offset(buf, " op;");
    if (uaddr < 0 || op < 0)
      continue;
    ip_st.futex_tp = id;
    ip_st.futex_uaddr_off = (unsigned)uaddr;
    ip_st.futex_op_off = (unsigned)op;
    return;
  }
}

/* ---- pmu --------------------------------------------------------------- */
static int pmu_open(void **page, char *why, size_t whylen) {
  struct perf_event_attr a;
  ip_pmu_kernel_instructions(&a);
  int fd = perf_open(&a);
  if (fd < 0) {
    snprintf(why, whylen, "pmu: perf_event_open(instructions, kernel only): %s",
             ip_errno_text(errno));
    return -1;
  }
  long pg = sysconf(_SC_PAGESIZE);
  void *m = mmap(NULL, (size_t)pg, PROT_READ, MAP_SHARED, fd, 0);
  ip_close(fd);
  if (m == MAP_FAILED) {
    snprintf(why, whylen, "pmu: mmap of the counter page: %s", ip_errno_text(errno));
    return -1;
  }
  const struct perf_event_mmap_page *pc = m;
  if (!pc->cap_user_rdpmc || !pc->index) {
    munmap(m, (size_t)pg);
    snprintf(why, whylen, "pmu: rdpmc not available to user space (cap_user_rdpmc=0)");
    return -1;
  }
  *page = m;
  return 0;
}

/* ---- kevents ----------------------------------------------------------- */
/* 16 pages hold about 2700 records between two flushes; when the locked-memory
 * limit refuses them (not root), one page still gives the transition flag. */
#define RING_DATA_PAGES 16

/* The futex operations that may sleep (FUTEX_WAIT, FUTEX_LOCK_PI,
 * FUTEX_WAIT_BITSET, FUTEX_WAIT_REQUEUE_PI, FUTEX_LOCK_PI2), with or without
 * FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME: the kernel's filter keeps
 * these, so that a wake-up (FUTEX_WAKE) costs no record. */
static const unsigned futex_wait_cmds[] = {0, 6, 9, 11, 13};

int ip_futex_op_waits(uint32_t op) {
  for (size_t i = 0; i < sizeof futex_wait_cmds / sizeof futex_wait_cmds[0]; i++)
    if ((op & 127u) == futex_wait_cmds[i])
      return 1;
  return 0;
}

/* Opens the futex waits' event into the ring of event fd: its descriptor
 * into *futex_fd and its sample id into *futex_id (-1 and 0 when none). */
static void futex_open(int fd, int *futex_fd, uint64_t *futex_id) {
  *futex_fd = -1;
  *futex_id = 0;
  if (ip_st.futex_tp < 0)
    return;
  struct perf_event_attr a;
  ip_pmu_sys_enter(&a, (uint64_t)ip_st.futex_tp);
  ip_pmu_kevents_records(&a);
  a.sample_type |= PERF_SAMPLE_RAW;
  int w = perf_open(&a);
  if (w < 0)
    return;
  char filter[600];
  size_t used = 0;
  for (size_t i = 0; i < sizeof futex_wait_cmds / sizeof futex_wait_cmds[0]; i++)
    for (unsigned flags = 0; flags < 4; flags++)
      used +=
          (size_t)snprintf(filter + used, sizeof filter - used, "%sop == %u", used ? " || " : "",
                           futex_wait_cmds[i] | (flags & 1u) << 7 | (flags & 2u) << 7);
  /* without the filter every futex call makes a record; the reader keeps the waits */
  (void)ioctl(w, PERF_EVENT_IOC_SET_FILTER, filter);
  if (ioctl(w, PERF_EVENT_IOC_SET_OUTPUT, fd) != 0 || ioctl(w, PERF_EVENT_IOC_ID, futex_id) != 0) {
    ip_close(w);
    *futex_id = 0;
    return;
  }
  *futex_fd = w;
}

/* Opens the wake-up events into the ring of event fd: their descriptors
 * into wake_fd and sample ids into wake_id (-1 and 0 where none). */
static void wake_open(int fd, int wake_fd[2], uint64_t wake_id[2]) {
  for (int k = 0; k < 2; k++) {
    wake_fd[k] = -1;
    wake_id[k] = 0;
    if (ip_st.wake_tp[k] < 0)
      continue;
    struct perf_event_attr a;
    ip_pmu_sys_enter(&a, (uint64_t)ip_st.wake_tp[k]);
    ip_pmu_kevents_records(&a);
    a.sample_type |= PERF_SAMPLE_RAW;
    int w = perf_open(&a);
    if (w >= 0 && (ioctl(w, PERF_EVENT_IOC_SET_OUTPUT, fd) != 0 ||
                   ioctl(w, PERF_EVENT_IOC_ID, &wake_id[k]) != 0)) {
      ip_close(w);
      w = -1;
      wake_id[k] = 0;
    }
    wake_fd[k] = w;
  }
}

/* The calling thread's two events (the ring's, the page faults'): opened
 * here, or, for a process that may not (ip_st.kev_granted), by the grant
 * server of its recording (perf_grant.c). */
static int kev_events(int fds[2], char *why, size_t whylen) {
  if (ip_st.kev_granted)
    return ip_grant_kevents(fds, why, whylen);
  if (ip_st.tracepoint_id < 0) {
    snprintf(why, whylen, "kevents: tracepoint id unknown");
    return -1;
  }
  struct perf_event_attr a;
  ip_pmu_kevents_ring(&a, (uint64_t)ip_st.tracepoint_id);
  fds[0] = perf_open(&a);
  if (fds[0] < 0) {
    int e = errno;
    char perf[160], next[200];
    ip_refusal_next_step(next, sizeof next);
    if ((e == EACCES || e == EPERM) && ip_perf_refusal(perf, sizeof perf))
      snprintf(why, whylen, "kevents: perf_event_open(raw_syscalls:sys_enter): %s: %s; %s",
               ip_errno_text(e), perf, next);
    else
      snprintf(why, whylen, "kevents: perf_event_open(raw_syscalls:sys_enter): %s",
               ip_errno_text(e));
    return -1;
  }
  ip_pmu_kevents_faults(&a);
  fds[1] = perf_open(&a);
  return 0;
}

static int kev_open(void **ring, size_t *ring_len, int *fd2_out, uint64_t *pf_id, int wake_fd[2],
                    uint64_t wake_id[2], int *futex_fd, uint64_t *futex_id, char *why,
                    size_t whylen) {
  int fds[2];
  if (kev_events(fds, why, whylen) != 0)
    return -1;
  int fd = fds[0], fd2 = fds[1];
  size_t len = (size_t)sysconf(_SC_PAGESIZE) * (1 + RING_DATA_PAGES);
  void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) {
    len = (size_t)sysconf(_SC_PAGESIZE) * 2;
    m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
  }
  if (m == MAP_FAILED) {
    snprintf(why, whylen, "kevents: mmap of the ring buffer: %s", ip_errno_text(errno));
    ip_close(fd);
    if (fd2 >= 0)
      ip_close(fd2);
    return -1;
  }
  *pf_id = UINT64_MAX;
  if (fd2 >= 0 && (ioctl(fd2, PERF_EVENT_IOC_SET_OUTPUT, fd) != 0 ||
                   ioctl(fd2, PERF_EVENT_IOC_ID, pf_id) != 0)) {
    ip_close(fd2);
    fd2 = -1;
    *pf_id = UINT64_MAX;
  }
  wake_open(fd, wake_fd, wake_id);
  futex_open(fd, futex_fd, futex_id);
  ip_close(fd); /* the mapping keeps the ring's event alive */
  *ring = m;
  *ring_len = len;
  *fd2_out = fd2; /* page faults: the fd is the event's only reference */
  return 0;
}

/* Keeps the syscall tracepoint and the page-fault event registered in the
 * kernel for the life of the process: two disabled events, never read.
 * Without them every thread's exit releases the last user of the tracepoint
 * and the kernel's unregistration waits for RCU grace periods: measured
 * 23-48 ms per thread here; with them a thread's open + close costs ~40 us. */
static void open_keepers(void) {
  struct perf_event_attr a;
  ip_pmu_sys_enter(&a, (uint64_t)ip_st.tracepoint_id);
  a.disabled = 1;
  ip_fd_own(perf_open(&a));
  ip_pmu_page_faults(&a);
  a.disabled = 1;
  ip_fd_own(perf_open(&a));
  for (int k = 0; k < 2; k++)
    if (ip_st.wake_tp[k] >= 0) {
      ip_pmu_sys_enter(&a, (uint64_t)ip_st.wake_tp[k]);
      a.disabled = 1;
      ip_fd_own(perf_open(&a));
    }
  /* None for the futex waits: a descriptor for the life of the process is
   * one fewer for a program at its limit, and the main thread's own event
   * keeps that tracepoint registered while the threads come and go. */
}

/* The smallest time of a getppid() system call, in ticks. */
static uint64_t syscall_ticks(void) {
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 64; i++) {
    uint64_t t0 = ip_tick();
    ip_syscall(SYS_getppid);
    uint64_t t1 = ip_tick();
    best = t1 - t0 < best ? t1 - t0 : best;
  }
  return best;
}

/* The median time of a minor page fault, in ticks (0 when it cannot be
 * measured): each page of a fresh anonymous mapping written once, while the
 * ring is open, so that it holds the fault's record too.  About 40-100 us. */
static double fault_ticks(void) {
  enum { PAGES = 32 };
  long page = sysconf(_SC_PAGESIZE);
  if (page <= 0)
    return 0.0;
  char *m =
      mmap(NULL, PAGES * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return 0.0;
  uint64_t t[PAGES];
  for (int i = 0; i < PAGES; i++) {
    uint64_t t0 = ip_tick();
    ((volatile char *)m)[(size_t)i * (size_t)page] = 1;
    t[i] = ip_tick() - t0;
  }
  munmap(m, PAGES * (size_t)page);
  for (int i = 1; i < PAGES; i++) /* insertion sort: qsort may call malloc, or the program's */
    for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
      uint64_t x = t[j];
      t[j] = t[j - 1];
      t[j - 1] = x;
    }
  return (double)t[PAGES / 2];
}

/* Opens the calling thread's events once, to know that kevents works here,
 * to measure what the kernel's record adds to a system call and what a page
 * fault costs; when its wake-up events cannot be opened, the process has
 * none (wake_why says why). */
static int kev_trial(char *why, size_t whylen, char *wake_why, size_t wake_whylen) {
  void *ring;
  size_t len;
  int fd2, wake_fd[2], futex_fd;
  uint64_t pf_id, wake_id[2], futex_id;
  if (kev_open(&ring, &len, &fd2, &pf_id, wake_fd, wake_id, &futex_fd, &futex_id, why, whylen) != 0)
    return 0;
  if (ip_st.wake_tp[0] >= 0 && wake_fd[0] < 0) {
    snprintf(wake_why, wake_whylen, "perf_event_open(sched:sched_waking): %s",
             ip_errno_text(errno));
    ip_st.wake_tp[0] = ip_st.wake_tp[1] = -1;
  }
  if (futex_fd < 0 || ip_st.wake_tp[0] < 0)
    ip_st.futex_tp = -1;
  for (int k = 0; k < 2; k++)
    if (wake_fd[k] >= 0)
      ip_close(wake_fd[k]);
  if (futex_fd >= 0)
    ip_close(futex_fd);
  uint64_t with = syscall_ticks();
  ip_st.fault_cost_ticks = fault_ticks();
  munmap(ring, len);
  if (fd2 >= 0)
    ip_close(fd2);
  uint64_t without = syscall_ticks();
  ip_st.kevent_cost_ticks = with > without ? (double)(with - without) : 0.0;
  return 1;
}

/* ---- choice ------------------------------------------------------------- */
int ip_transitions_decide(const char *req, int pmu_ok, int kev_ok, const char *pmu_why,
                          const char *kev_why, char *note, size_t notelen) {
  const int NONE = INCLPROF__TRANSITION_MODE__TRANSITIONS_NONE;
  const int KEV = INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS;
  const int PMU = INCLPROF__TRANSITION_MODE__TRANSITIONS_PMU;
  char pre[160] = "";
  if (req && *req && strcmp(req, "auto") && strcmp(req, "pmu") && strcmp(req, "kevents") &&
      strcmp(req, "none")) {
    snprintf(pre, sizeof pre, "unknown INCLPROF_TRANSITIONS value '%.40s', using auto; ", req);
    req = "auto";
  }
  if (!req || !*req)
    req = "auto";
  if (!strcmp(req, "none")) {
    snprintf(note, notelen,
             "%sINCLPROF_TRANSITIONS=none: no detection, Application values equal "
             "Elapsed values",
             pre);
    return NONE;
  }
  if (!strcmp(req, "pmu") || !strcmp(req, "auto")) {
    if (pmu_ok) {
      snprintf(note, notelen, "%spmu: kernel-mode instructions retired, read with rdpmc", pre);
      return PMU;
    }
    if (kev_ok) {
      snprintf(note, notelen,
               "%sno hardware counters usable here (%s); using kernel events: system calls, "
               "context switches, page faults",
               pre, pmu_why);
      return KEV;
    }
    snprintf(note, notelen, "%s%s; %s; no detection: Application values equal Elapsed values", pre,
             pmu_why, kev_why);
    return NONE;
  }
  /* kevents */
  if (kev_ok) {
    snprintf(note, notelen, "%skevents: system calls, context switches, page faults", pre);
    return KEV;
  }
  snprintf(note, notelen, "%s%s; no detection: Application values equal Elapsed values", pre,
           kev_why);
  return NONE;
}

#define SECCOMP_WHY                                                                                \
  "the process runs under a seccomp filter, which may kill it for a perf_event_open"

/* Whether the process started under a seccomp filter (/proc/self/status:
 * "Seccomp: 2"; a service manager installs one before the exec). */
static int seccomp_filtered(void) {
  char buf[4096];
  if (ip_read_small("/proc/self/status", 0, buf, sizeof buf) <= 0)
    return 0;
  const char *at = strstr(buf, "\nSeccomp:");
  return at && strtol(at + 9, NULL, 10) == 2;
}

void ip_transitions_choose(void) {
  const char *req = ip_set.transitions;
  if (req && *req && strcmp(req, "auto") && strcmp(req, "pmu") && strcmp(req, "kevents") &&
      strcmp(req, "none"))
    ip_say("inclprof: INCLPROF_TRANSITIONS='%s' is not auto, pmu, kevents or none; using auto\n",
           req);
  char pmu_why[200] = "pmu: not tried", kev_why[640] = "kevents: not tried";
  int is_none = req && !strcmp(req, "none"), is_kev = req && !strcmp(req, "kevents");
  int want_pmu = !is_none && !is_kev, want_kev = !is_none;
  if (seccomp_filtered()) {
    atomic_store(&ip_st.seccomp, 1);
    want_pmu = want_kev = 0;
    snprintf(pmu_why, sizeof pmu_why, "pmu: not tried: %s", SECCOMP_WHY);
    snprintf(kev_why, sizeof kev_why, "kevents: not tried: %s", SECCOMP_WHY);
  }
  int pmu_ok = 0, kev_ok = 0;
  if (want_pmu) {
    void *page;
    if (pmu_open(&page, pmu_why, sizeof pmu_why) == 0) {
      pmu_ok = 1;
      munmap(page, (size_t)sysconf(_SC_PAGESIZE));
    }
  }
  ip_st.tracepoint_id = ip_st.wake_tp[0] = ip_st.wake_tp[1] = ip_st.futex_tp = -1;
  ip_st.kev_granted = 0;
  char wake_why[100] = "";
  if (want_kev && !pmu_ok) {
    char why[512];
    ip_st.tracepoint_id = ip_tracepoint_id(tracepoint_paths, why, sizeof why);
    if (ip_st.tracepoint_id >= 0) {
      wake_tracepoints(wake_why, sizeof wake_why);
      futex_tracepoint();
      if (ip_fd_room_begin(4)) { /* not below a program's last 64 free descriptors */
        open_keepers();          /* first: the trial below then closes quickly too */
        ip_fd_room_end(4);
      }
    }
    if (ip_st.tracepoint_id < 0)
      snprintf(kev_why, sizeof kev_why, "kevents: %s", why);
    else
      kev_ok = kev_trial(kev_why, sizeof kev_why, wake_why, sizeof wake_why);
    if (!kev_ok && ip_set.grant && *ip_set.grant) {
      /* Refused here: the recording's grant server opens them instead (it
       * keeps them registered while it runs: no keepers), without the
       * wake-up events. */
      ip_st.kev_granted = 1;
      ip_st.wake_tp[0] = ip_st.wake_tp[1] = ip_st.futex_tp = -1;
      snprintf(wake_why, sizeof wake_why, "the grant server opens no wake-up events");
      char grant_why[200];
      kev_ok = kev_trial(grant_why, sizeof grant_why, wake_why, sizeof wake_why);
      ip_st.kev_granted = kev_ok;
      if (!kev_ok)
        snprintf(kev_why + strlen(kev_why), sizeof kev_why - strlen(kev_why), "; %s", grant_why);
    }
  }
  ip_st.mode =
      ip_transitions_decide(req, pmu_ok, kev_ok, pmu_why, kev_why, ip_st.note, sizeof ip_st.note);
  if (ip_st.mode == INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS) {
    size_t used = strlen(ip_st.note);
    if (ip_st.wake_tp[0] >= 0)
      snprintf(ip_st.note + used, sizeof ip_st.note - used, ", wake-ups%s",
               ip_st.futex_tp >= 0 ? ", futex waits" : "");
    else
      snprintf(ip_st.note + used, sizeof ip_st.note - used, "; no wake-ups (%s)", wake_why);
  } else
    ip_st.wake_tp[0] = ip_st.wake_tp[1] = ip_st.futex_tp = -1;
  if (ip_st.kev_granted && ip_st.mode == INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS)
    snprintf(ip_st.note + strlen(ip_st.note), sizeof ip_st.note - strlen(ip_st.note),
             "; opened for this user by the recording's grant server");
}

/* A thread whose counter cannot be opened keeps the static zero source set by
 * thread.c: its intervals are never transitional. */
void ip_transitions_thread_open(struct ip_rt_thread *t) {
  char why[512];
  t->no_counter = IP_NC_NONE;
  if (ip_st.mode != INCLPROF__TRANSITION_MODE__TRANSITIONS_NONE && atomic_load(&ip_st.seccomp)) {
    t->no_counter = IP_NC_SECCOMP;
    return;
  }
  if (ip_st.mode == INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS) {
    /* the ring's event (closed at once), the page-fault one, the grant
     * server's connection (closed at once), the two wake-up ones */
    unsigned need =
        (ip_st.kev_granted ? 3 : 2) + (ip_st.wake_tp[0] >= 0 ? 2 : 0) + (ip_st.futex_tp >= 0);
    if (!ip_fd_room_begin(need)) {
      t->no_counter = IP_NC_FD_RESERVE;
      return;
    }
    uint64_t pf_id;
    if (kev_open(&t->ring, &t->ring_len, &t->ring_fd2, &pf_id, t->wake_fd, t->kev_wake_id,
                 &t->futex_fd, &t->kev_futex_id, why, sizeof why) == 0) {
      t->tr_src =
          (const volatile uint64_t *)&((const struct perf_event_mmap_page *)t->ring)->data_head;
      t->ring_fd2 = ip_fd_own(t->ring_fd2);
      ip_fd_identify(t->ring_fd2, &t->ring_fd2_id);
      for (int k = 0; k < 2; k++) {
        t->wake_fd[k] = ip_fd_own(t->wake_fd[k]);
        ip_fd_identify(t->wake_fd[k], &t->wake_fd_id[k]);
      }
      t->futex_fd = ip_fd_own(t->futex_fd);
      ip_fd_identify(t->futex_fd, &t->futex_fd_id);
      ip_kevents_open(t, pf_id);
    } else
      t->no_counter = IP_NC_OPEN_FAILED;
    ip_fd_room_end(need);
  } else if (ip_st.mode == INCLPROF__TRANSITION_MODE__TRANSITIONS_PMU) {
    void *page;
    if (pmu_open(&page, why, sizeof why) == 0)
      t->pmu_page = page;
    else
      t->no_counter = IP_NC_OPEN_FAILED;
  }
}

const volatile uint64_t ip_zero_head;
const struct perf_event_mmap_page ip_dummy_page;

/* In a fork child: the kernel did not copy the parent's perf mappings (the
 * kevents ring, the pmu page), so their ranges are free in the child, and
 * whatever the child maps next may land there.  They are forgotten, not
 * unmapped, before the child maps anything: a later munmap of them would
 * take that instead. */
void ip_transitions_fork_child_forget(struct ip_rt_thread *t) {
  t->ring = NULL;
  t->pmu_page = (void *)&ip_dummy_page;
  t->tr_src = &ip_zero_head;
}

void ip_transitions_thread_close(struct ip_rt_thread *t) {
  /* Probes may still run on this thread (a signal handler's now, later
   * destructors): safe sources before anything they read is unmapped. */
  void *pmu = (void *)t->pmu_page;
  t->tr_src = &ip_zero_head;
  t->pmu_page = (void *)&ip_dummy_page;
  __asm__ __volatile__("" ::: "memory");
  ip_kevents_close(t);
  if (t->ring) {
    munmap(t->ring, t->ring_len);
    t->ring = NULL;
  }
  ip_fd_release(t->ring_fd2, &t->ring_fd2_id);
  t->ring_fd2 = -1;
  for (int k = 0; k < 2; k++) {
    ip_fd_release(t->wake_fd[k], &t->wake_fd_id[k]);
    t->wake_fd[k] = -1;
  }
  ip_fd_release(t->futex_fd, &t->futex_fd_id);
  t->futex_fd = -1;
  if (pmu && pmu != (const void *)&ip_dummy_page)
    munmap(pmu, (size_t)sysconf(_SC_PAGESIZE));
}
