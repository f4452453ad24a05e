/* lifecycle.c - start-up and every way out of a process.  Nothing happens at
 * load time: the first __inclprof_register_tu (or inclprof.h call) runs
 * ip_init_once.  The trace is completed (all threads flushed, Trailer) at
 * exit/return from main after every destructor that can run instrumented
 * code (see ip_exit_begun), at _exit/_Exit, exit_group through syscall(),
 * after the program's quick_exit handlers, at daemon's parent and exec*
 * (through the interposers of interpose.c; a failed exec carries on
 * recording), fatal signals (signals.c), and when the program's last thread
 * ended without libc (ip_last_thread_watch).  fork gives the child a file of
 * its own.  In a vfork child (pid differs, no fork handler ran) nothing here
 * touches the runtime's state. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "entry/entry.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;

static int ours(void) { return atomic_load(&ip_st.init_state) == 1 && getpid() == ip_st.pid; }

int ip_process_is_ours(void) { return ours(); }

int ip_process_is_child(void) { return ip_st.pid && getpid() != ip_st.pid; }

/* Flushes every thread and writes the Trailer, once (not from a thread in
 * seccomp's strict mode, which may not: strict_mode.c).  keep_going: the
 * process may continue (a failed exec): recording goes on.  The flush waits
 * for locks and busy buffers at most IP_EXIT_FLUSH_MS; what it could not
 * take by then is left out and counted in the Trailer.  The calling thread's
 * sampler stops first (exec stops it itself, to restart it if exec fails),
 * and its buffer is flushed once more last, so that every sample the
 * Trailer counts is in the trace. */
void ip_finish(const char *reason, int clean, int keep_going) {
  if (ip_tls.strict || !ours() || atomic_exchange(&ip_st.trailer_written, 1))
    return;
  if (!keep_going)
    ip_sampling_thread_stop(&ip_tls);
  ip_exit_deadline_start(IP_EXIT_FLUSH_MS);
  atomic_store(&ip_st.final_flush, 1);
  ip_threads_flush_all(0);
  ip_thread_flush(&ip_tls, 0);
  if (ip_st.aggregate)
    ip_agg_write_all(0);
  ip_exit_state(0, keep_going);
  ip_tables_close_pending(0); /* units that registered and never ran */
  ip_write_trailer(clean, reason);
  ip_exit_deadline_end();
  ip_exit_deadline_start(IP_EXIT_FLUSH_MS); /* the same bound for the snapshots' locks */
  ip_snapshots_save(1);                     /* the windows still waiting end here */
  ip_exit_deadline_end();
  ip_ctl_close();
  if (keep_going) {
    atomic_store(&ip_st.trailer_written, 0);
  } else {
    atomic_store(&ip_st.init_state, 2);
    ip_writer_at_exit();
  }
}

/* From a fatal-signal handler: no waiting but for the snapshots' bounded
 * locks, allocation only from the runtime's own arena. */
void ip_finish_from_signal(int sig) {
  if (!ours() || atomic_exchange(&ip_st.trailer_written, 1))
    return;
  ip_threads_flush_all(1);
  if (ip_st.aggregate)
    ip_agg_write_all(1);
  ip_exit_state(1, 0);
  char reason[24] = "signal ";
  char digits[8];
  int n = 0;
  for (unsigned v = (unsigned)sig; n == 0 || v; v /= 10)
    digits[n++] = (char)('0' + v % 10);
  size_t at = strlen(reason);
  while (n)
    reason[at++] = digits[--n];
  reason[at] = 0;
  ip_write_trailer(0, reason);
  /* The windows still waiting end here too: a slow call just before a
   * crash is the one most wanted.  Locks wait at most IP_EXIT_FLUSH_MS (one
   * this thread holds is refused at once: the locks check their owner). */
  ip_exit_deadline_start(IP_EXIT_FLUSH_MS);
  ip_snapshots_save(1);
  ip_exit_deadline_end();
  ip_ctl_close();
  atomic_store(&ip_st.init_state, 2);
}

/* The end of a process whose last program thread ended without libc: a raw
 * SYS_exit, seccomp's strict mode or a SECCOMP_RET_KILL_THREAD filter
 * killing it.  No exit handler runs and glibc's count of threads
 * (own_threads.c) still holds it, so the runtime's own threads would keep
 * the process alive.  Each of them (the control thread, the writer) calls
 * this every IP_WATCH_MS while it waits: the first to find no program
 * thread left (ip_program_gone) writes every buffer and the Trailer ("last
 * thread: exit N" or "last thread: signal N", the leader's end) and ends
 * the process as the leader ended: the parent sees the status of a run
 * without the runtime.  The other one, finding the trace ended, leaves
 * with a raw SYS_exit meanwhile. */
static atomic_int last_thread_gone;

void ip_last_thread_watch(void) {
  ip_signals_watch();
  int code;
  if (!atomic_load(&last_thread_gone) && !ip_program_gone(&code))
    return;
  if (!atomic_exchange(&last_thread_gone, 1)) {
    static char reason[40];
    if (code & 0x7f)
      snprintf(reason, sizeof reason, "last thread: signal %d", code & 0x7f);
    else
      snprintf(reason, sizeof reason, "last thread: exit %d", (code >> 8) & 0xff);
    ip_finish(reason, 1, 0);
    ip_own_threads_end_like(code);
  }
  ip_own_thread_quit(); /* the thread that wrote the Trailer ends the process */
}

/* exit() runs the atexit handlers (C++ static destructors among them), then
 * the ELF destructors of every object (.fini_array: functions marked
 * __attribute__((destructor))); in each object a unit's own destructor runs
 * after the program's and unregisters the unit.  So the trace ends when the
 * last registered unit unregisters after exit began, or when exit begins with
 * none left.  at_exit runs before the ELF destructors when the runtime
 * started from the program's constructors, after them when it started from a
 * shared library's; the runtime's own destructor runs among them.  Should a
 * unit still be registered when the runtime's destructor runs, a last atexit
 * handler (run after every ELF destructor) ends the trace all the same. */
static void at_exit_last(void) { ip_finish("exit", 1, 0); }

void ip_exit_begun(void) {
  if (ip_tls.strict || !ours())
    return;
  atomic_store(&ip_st.exiting, 1);
  if (ip_units_registered() == 0)
    ip_finish("exit", 1, 0);
}

static void at_exit(void) { ip_exit_begun(); }

/* quick_exit runs its handlers, last registered first, then leaves through
 * libc's internal _exit: this one, registered at start-up, runs after the
 * program's. */
static void at_quick_exit_last(void) { ip_finish("quick_exit", 1, 0); }

__attribute__((destructor)) static void at_unload(void) {
  if (ip_tls.strict)
    return;
  ip_exit_begun();
  if (ours() && !atomic_load(&ip_st.trailer_written))
    atexit(at_exit_last);
}

/* fork takes every runtime lock in their order (docs/runtime.md, "Locks"),
 * so the child starts with consistent tables and makes the locks anew.  In
 * a child that is not recorded (clone, _Fork), whose copies of the locks
 * may be held for good, a fork gives another such child. */
static void fork_prepare(void) {
  if (ip_st.declined)
    return;
  ip_fork_file_fork_wait();
  ip_ctl_fork_prepare();
  ip_lock(&ip_st.threads_lock, 0);
  ip_registry_fork_prepare();
  ip_output_lock_log();
  ip_ring_fds_fork_prepare();
  ip_fork_file_fork_prepare();
}
static void fork_parent(void) {
  if (ip_st.declined)
    return;
  ip_fork_file_after_fork_parent();
  ip_ring_fds_fork_parent();
  ip_output_unlock_log();
  ip_registry_fork_parent();
  ip_unlock(&ip_st.threads_lock);
  ip_fork_file_after_fork_made(); /* inside fork: none of the program's opens meanwhile */
}
static void fork_child(void) {
  if (ip_st.declined)
    return;
  if (ip_tsc_off_here()) { /* forked by a thread whose TSC is disabled: as its thread, unrecorded */
    ip_thread_decline(&ip_tls);
    ip_st.declined = 1;
    return;
  }
  ip_mutex_init(&ip_st.threads_lock);
  atomic_store(&last_thread_gone, 0);
  ip_own_threads_after_fork_child();
  ip_mem_fork_child();
  if (ip_tls.state == IP_TS_READY) /* first: before the child maps anything */
    ip_transitions_fork_child_forget(&ip_tls);
  ip_snapshots_fork_child();
  ip_ring_fds_fork_child();
  ip_registry_fork_child();
  ip_output_fork_child_locks();
  ip_fork_file_fork_child_lock();
  ip_objects_fork_child();
  if (atomic_load(&ip_st.init_state) == 1) {
    ip_output_fork_child();
    if (atomic_load(&ip_st.init_state) == 1) {
      ip_thread_after_fork_child();
      ip_ctl_after_fork_child();
    }
  }
}

static void init(void) {
  ip_st.pid = getpid();
  ip_settings_load();
  const char *hz = ip_set.sample_hz;
  if (hz && *hz) {
    char *end;
    unsigned long v = strtoul(hz, &end, 10);
    if (*end || v > 100000)
      ip_say("inclprof: INCLPROF_SAMPLE_HZ='%s' is not a rate in 1..100000; sampling off\n", hz);
    else
      ip_st.sample_hz = (unsigned)v;
  }
  const char *clk = ip_set.clock;
  if (clk && *clk && strcmp(clk, "fenced")) {
    if (!strcmp(clk, "fast"))
      ip_st.clock_read = IP_CLOCK_FAST;
    else if (!strcmp(clk, "rdtscp") && !ip_have_rdtscp())
      ip_say("inclprof: INCLPROF_CLOCK=rdtscp: this CPU has no rdtscp; using fenced\n");
    else if (!strcmp(clk, "rdtscp"))
      ip_st.clock_read = IP_CLOCK_RDTSCP;
    else if (!strcmp(clk, "exits"))
      ip_st.clock_read = IP_CLOCK_EXITS;
    else
      ip_say("inclprof: INCLPROF_CLOCK='%s' is not fenced, fast, rdtscp or exits; using fenced\n",
             clk);
    ip_st.clock_unfenced = ip_st.clock_read == IP_CLOCK_FAST;
  }
  const char *mode = ip_set.mode;
  if (mode && *mode && strcmp(mode, "trace")) {
    if (!strcmp(mode, "aggregate"))
      ip_st.aggregate = 1;
    else
      ip_say("inclprof: INCLPROF_MODE='%s' is not trace or aggregate; using trace\n", mode);
  }
  if (IP_CLOCK_SOURCE == INCLPROF__CLOCK_SOURCE__CLOCK_TSC && ip_tsc_disabled()) {
    /* an exec from a thread that disabled it, or a library loaded by one */
    ip_say_unprofiled("rdtsc is disabled in this thread (PR_SET_TSC)");
    atomic_store(&ip_st.tsc_off_seen, 1); /* no probe reads it (thread.c) */
    atomic_store(&ip_st.init_state, 2);
    return;
  }
  ip_st.program_allocator = ip_objects_program_allocator();
  ip_writer_init(ip_last_thread_watch);
  ip_transitions_choose();
  ip_st.hooks = ip_hooks_for_mode(ip_st.mode);
  char err[1200];
  if (ip_output_open(err, sizeof err) != 0) {
    ip_say_unprofiled(err);
    atomic_store(&ip_st.init_state, 2);
    return;
  }
  ip_st.clock = IP_CLOCK_SOURCE;
  if (!ip_calibration_load()) {
    ip_clock_calibrate();
    ip_st.probe_cost_ticks =
        ip_probe_calibrate(&ip_st.probe_hidden_ticks, &ip_st.ptr_call_cost_ticks);
    ip_calibration_save();
  }
  ip_st.start_tick = ip_tick();
  ip_clock_anchor(&ip_st.anchor_tick, &ip_st.anchor_ns);
  ip_run_begin(ip_now_ns_realtime());
  ip_write_header(0);
  ip_thread_key_init();
  pthread_atfork(fork_prepare, fork_parent, fork_child);
  atexit(at_exit);
  (void)at_quick_exit(at_quick_exit_last); /* without room, quick_exit leaves no trailer */
  ip_libc_init();
  atomic_store(&ip_st.init_state, 1);
  ip_signals_install();
  ip_sampling_init();
  ip_ctl_start(ip_last_thread_watch);
}

int ip_init_once(void) {
  pthread_once(&once, init);
  return atomic_load(&ip_st.init_state) == 1;
}

/* Before an exec: the calling thread's sampler stops first, so that no
 * sampling signal is still pending when exec resets our handler (the new
 * program would die of it); the trace is completed.  Returns whether a
 * sampler ran, for ip_after_failed_exec. */
int ip_before_exec(void) {
  if (!ours())
    return 0;
  int had = ip_tls.has_timer != IP_SAMPLER_NONE;
  ip_sampling_thread_stop(&ip_tls);
  ip_trace_write_quiet(1);
  ip_finish("exec", 1, 1);
  ip_trace_write_quiet(0);
  return had;
}

/* The final flush's flag stays up until exec returns: no other thread may
 * start a flush that the exec would cut in half. */
int ip_after_failed_exec(int had_sampler, int rc) {
  int saved = errno;
  atomic_store(&ip_st.final_flush, 0);
  if (had_sampler)
    ip_sampling_thread_start(&ip_tls);
  errno = saved;
  return rc;
}
