/* views/view_header.c - the report's header: files, processes, threads, events,
 * transition mode (and what `none` means), compensation, repairs, samples,
 * the wall time by the clock and after compensation, a warning where the
 * probe cost removed rivals the time that remains, and each process's
 * warnings and notes (damage, windows, still running...): one line per
 * process, or for 3 or more processes of one kind a line for all of them
 * unless --verbose.  A line wider than the terminal is broken at spaces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "util/util.h"
#include "views/views.h"

static const char *mode_name(int m) { return m == 2 ? "pmu" : m == 1 ? "kevents" : "none"; }

static const char *mode_meaning(int m) {
  return m == 2   ? "kernel-mode instructions retired: exact"
         : m == 1 ? "system calls, context switches and page faults of the thread"
                  : "no detection: Application values equal Elapsed values";
}

static void transitions(FILE *out, const ip_session *s) {
  int mixed = 0;
  for (size_t i = 1; i < s->n_processes; i++)
    mixed |= s->processes[i].transitions != s->processes[0].transitions;
  for (size_t i = 0; i < s->n_processes; i++) {
    const ip_process *p = &s->processes[i];
    if (i == 0 || mixed) {
      if (mixed)
        fprintf(out, "transitions:  pid %u: %s (%s)\n", p->pid, mode_name(p->transitions),
                mode_meaning(p->transitions));
      else
        fprintf(out, "transitions:  %s (%s)\n", mode_name(p->transitions),
                mode_meaning(p->transitions));
    }
    if (p->transitions_note && *p->transitions_note && (i == 0 || mixed))
      fprintf(out, "              why: %s\n", p->transitions_note);
  }
}

static void compensation(FILE *out, const ip_session *s) {
  char cost[32], gap[32];
  uint64_t gap_ns = 0;
  double max_cost = 0;
  for (size_t i = 0; i < s->n_processes; i++) {
    gap_ns += s->processes[i].gap_ns;
    if (s->processes[i].probe_cost_ns > max_cost)
      max_cost = s->processes[i].probe_cost_ns;
  }
  snprintf(cost, sizeof cost, "%.1f ns", max_cost);
  ip_fmt_ns(gap, sizeof gap, gap_ns);
  size_t fast = 0, profiles = 0;
  for (size_t i = 0; i < s->n_processes; i++) {
    fast += s->processes[i].clock_unfenced != 0;
    profiles += s->processes[i].aggregate != 0;
  }
  if (s->compensated)
    fprintf(out,
            "compensation: on (probe cost %s removed from every interval; %llu runtime gaps, %s "
            "removed)\n",
            cost, (unsigned long long)s->gaps, gap);
  else if (profiles == s->n_processes)
    fprintf(out,
            "compensation: on, in the process as recorded (probe cost %s removed from every "
            "interval; %llu runtime gaps, %s removed)\n",
            cost, (unsigned long long)s->gaps, gap);
  else if (profiles)
    fprintf(out,
            "compensation: off for the traces (--raw: probe cost %s per event and their runtime "
            "gaps included); on for the %zu aggregate profiles, in the process\n",
            cost, profiles);
  else
    fprintf(out,
            "compensation: off (--raw: probe cost %s per event and %llu runtime gaps included)\n",
            cost, (unsigned long long)s->gaps);
  if (fast)
    fprintf(out,
            "clock:        %zu of %zu processes read the clock without a fence "
            "(INCLPROF_CLOCK=fast): calls of under ~200 ns read low\n",
            fast, s->n_processes);
}

/* The header's lines about single processes, by kind: each writes its text
 * for p (after the tag) into buf, or returns NULL when p has none. */
typedef const char *(*line_fn)(const ip_session *s, const ip_process *p, char *buf, size_t len);

static const char *windowed(const ip_session *s, const ip_process *p, char *buf, size_t len) {
  (void)s;
  if (!p->windows || !p->n_windows)
    return NULL;
  snprintf(buf, len, "%s: recorded in %u window%s only: %s", p->trace_path, p->n_windows,
           p->n_windows == 1 ? "" : "s", p->windows);
  return buf;
}

/* Recorded in windows in which none of its threads ran an instrumented
 * function (each blocked, asleep or in uninstrumented code throughout):
 * the trace holds no thread, which the header's counts alone leave
 * unexplained. */
static const char *no_thread_ran(const ip_session *s, const ip_process *p, char *buf, size_t len) {
  if (!p->windows || !p->n_windows)
    return NULL;
  for (size_t i = 0; i < s->n_threads; i++)
    if (&s->processes[s->threads[i].process] == p)
      return NULL;
  snprintf(buf, len,
           "%s: no thread ran an instrumented function while recording was on (each was "
           "blocked, asleep or in code not instrumented throughout): 0 threads, no call is "
           "counted",
           p->trace_path);
  return buf;
}

static const char *off_throughout(const ip_session *s, const ip_process *p, char *buf, size_t len) {
  (void)s;
  if (!p->windows || p->n_windows)
    return NULL;
  snprintf(buf, len, "%s: recording was off throughout: no call is counted", p->trace_path);
  return buf;
}

static const char *damaged(const ip_session *s, const ip_process *p, char *buf, size_t len) {
  (void)s;
  if (!p->damage)
    return NULL;
  snprintf(buf, len, "%s", p->damage);
  return buf;
}

static const char *lost(const ip_session *s, const ip_process *p, char *buf, size_t len) {
  (void)s;
  if (!p->batches_lost)
    return NULL;
  snprintf(buf, len,
           "%s: %llu event batches lost: their time is not attributed, but a call whose exit was "
           "in them stays open and reads too long",
           p->trace_path, (unsigned long long)p->batches_lost);
  return buf;
}

/* How the trace ended: still running is a kind of its own. */
static const char *status(const ip_process *p, char *buf, size_t len, int running) {
  char why[512];
  if (!ip_trace_status(p, why, sizeof why) ||
      running != (!p->has_trailer && !p->write_error && !p->cut && ip_process_running(p)))
    return NULL;
  snprintf(buf, len, "%s: %s", p->trace_path, why);
  return buf;
}
static const char *running(const ip_session *s, const ip_process *p, char *buf, size_t len) {
  (void)s;
  return status(p, buf, len, 1);
}
static const char *ended_badly(const ip_session *s, const ip_process *p, char *buf, size_t len) {
  (void)s;
  return status(p, buf, len, 0);
}

static const char *size_limit(const ip_session *s, const ip_process *p, char *buf, size_t len) {
  (void)s;
  char limit[512];
  int reached;
  if (!ip_size_limit_status(p, limit, sizeof limit, &reached) || !reached)
    return NULL;
  snprintf(buf, len, "%s: size limit %s", p->trace_path, limit);
  return buf;
}

static const char *not_flushed(const ip_session *s, const ip_process *p, char *buf, size_t len) {
  (void)s;
  if (!p->threads_not_flushed)
    return NULL;
  snprintf(buf, len,
           "%s: the final flush gave up on %u threads at exit; their last events are missing",
           p->trace_path, p->threads_not_flushed);
  return buf;
}

static const char *dropped(const ip_session *s, const ip_process *p, char *buf, size_t len) {
  (void)s;
  if (!p->dropped_events)
    return NULL;
  snprintf(buf, len, "%s: the runtime dropped %llu events", p->trace_path,
           (unsigned long long)p->dropped_events);
  return buf;
}

static const char *no_counter(const ip_session *s, const ip_process *p, char *buf, size_t len) {
  (void)s;
  if (!p->threads_no_transitions)
    return NULL;
  snprintf(buf, len,
           "%s: %u thread%s without a transition counter (%s); their Application values equal "
           "Elapsed values",
           p->trace_path, p->threads_no_transitions, p->threads_no_transitions == 1 ? "" : "s",
           p->no_transitions_why);
  return buf;
}

/* A snapshot of a slow call: which call, and that its window, not the
 * process, ends where the trace does. */
static const char *snapshot(const ip_session *s, const ip_process *p, char *buf, size_t len) {
  (void)s;
  if (!p->snapshot)
    return NULL;
  snprintf(buf, len,
           "%s is a snapshot of a slow call, %s (times since the process's start); the process ran "
           "on past the window's end "
           "('inclprof info' on the recording's directory lists its snapshots)",
           p->trace_path, p->snapshot);
  return buf;
}

/* Threads that stopped recording before they ended (a thread that disabled
 * rdtsc): the first one's tid and reason. */
static const char *stopped(const ip_session *s, const ip_process *p, char *buf, size_t len) {
  (void)s;
  if (!p->threads_stopped)
    return NULL;
  if (p->threads_stopped == 1)
    snprintf(buf, len,
             "%s: thread %u stopped recording before it ended: %s; nothing of it after that "
             "is in the trace",
             p->trace_path, p->stopped_tid, p->stopped_why);
  else
    snprintf(buf, len,
             "%s: %u threads stopped recording before they ended (thread %u: %s); nothing of "
             "them after that is in the trace",
             p->trace_path, p->threads_stopped, p->stopped_tid, p->stopped_why);
  return buf;
}

static const char *alive(const ip_session *s, const ip_process *p, char *buf, size_t len) {
  (void)s;
  if (!p->threads_alive_at_exit)
    return NULL;
  if (p->snapshot) {
    snprintf(buf, len,
             "%s: %u thread%s alive at the window's end; each is closed there, its last "
             "calls still open (timed to the window's end)",
             p->trace_path, p->threads_alive_at_exit,
             p->threads_alive_at_exit == 1 ? " was" : "s were");
    return buf;
  }
  snprintf(buf, len,
           "%s: %u thread%s alive when the process ended; each is closed at the exit, its "
           "last calls still open",
           p->trace_path, p->threads_alive_at_exit,
           p->threads_alive_at_exit == 1 ? " was" : "s were");
  return buf;
}

static const char *kernel_lost(const ip_session *s, const ip_process *p, char *buf, size_t len) {
  (void)s;
  if (!p->kernel_lost)
    return NULL;
  snprintf(buf, len,
           "%s: kernel-event records were lost %llu times (the ring buffer wrapped: a whole "
           "batch's, or one interval's); that kernel time is in no wait column",
           p->trace_path, (unsigned long long)p->kernel_lost);
  return buf;
}

/* A process whose exec started a program that could write no trace. */
static const char *unrecorded(const ip_session *s, const ip_process *p, char *buf, size_t len) {
  (void)s;
  if (!p->exec_unrecorded)
    return NULL;
  snprintf(buf, len, "pid %u after its exec: not recorded: %s", p->pid, p->exec_unrecorded);
  return buf;
}

/* From this many processes of one kind on, one line (or two) says it for
 * all of them, unless --verbose. */
#define GROUPED_FROM 3
#define PIDS_NAMED   3

static const struct {
  const char *tag;
  line_fn one;
  const char *many; /* the sentence for many, NULL: the first one's line and a count */
} kinds[] = {
    {"snapshot:", snapshot, "are snapshots of slow calls; --verbose names each call"},
    {"windows:", windowed, "recorded in windows only; --verbose gives each one's windows"},
    {"windows:", no_thread_ran,
     "had no thread run an instrumented function while recording was on: no call of theirs is "
     "counted"},
    {"windows:", off_throughout, "had recording off throughout: no call of theirs is counted"},
    {"warning:", damaged, NULL},
    {"warning:", lost, NULL},
    {"warning:", running,
     "are still running: each trace is read up to its last complete batch ('inclprof ctl PID "
     "flush' writes what its threads hold); --verbose names each"},
    {"warning:", ended_badly, NULL},
    {"warning:", size_limit, NULL},
    {"warning:", not_flushed, NULL},
    {"warning:", dropped, NULL},
    {"warning:", no_counter, NULL},
    {"note:", alive, NULL},
    {"note:", stopped, NULL},
    {"warning:", kernel_lost, NULL},
    {"warning:", unrecorded,
     "ran a program after exec as a user who cannot create a trace in the output directory: not "
     "recorded; --verbose names each"},
};

/* "pids 1, 2, 3 and 9 more" of the processes of kind k. */
static void pid_list(const ip_session *s, line_fn one, size_t count, char *out, size_t len) {
  char buf[1024];
  size_t at = (size_t)snprintf(out, len, "pids ");
  size_t named = 0;
  for (size_t i = 0; i < s->n_processes && named < PIDS_NAMED && at < len; i++)
    if (one(s, &s->processes[i], buf, sizeof buf))
      at += (size_t)snprintf(out + at, len - at, "%s%u", named++ ? ", " : "", s->processes[i].pid);
  if (count > named && at < len)
    snprintf(out + at, len - at, " and %zu more", count - named);
}

static void process_lines(FILE *out, const ip_session *s, int verbose) {
  char buf[2048];
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
    size_t count = 0;
    for (size_t i = 0; i < s->n_processes; i++)
      count += kinds[k].one(s, &s->processes[i], buf, sizeof buf) != NULL;
    if (!count)
      continue;
    if (verbose || count < GROUPED_FROM) {
      for (size_t i = 0; i < s->n_processes; i++)
        if (kinds[k].one(s, &s->processes[i], buf, sizeof buf))
          fprintf(out, "%-13s %s\n", kinds[k].tag, buf);
      continue;
    }
    char pids[256];
    pid_list(s, kinds[k].one, count, pids, sizeof pids);
    if (kinds[k].many) {
      fprintf(out, "%-13s %zu processes (%s) %s\n", kinds[k].tag, count, pids, kinds[k].many);
      continue;
    }
    for (size_t i = 0; i < s->n_processes; i++)
      if (kinds[k].one(s, &s->processes[i], buf, sizeof buf)) {
        fprintf(out, "%-13s %s\n", kinds[k].tag, buf);
        break;
      }
    fprintf(out, "%-13s and %zu more processes alike (%s); --verbose names each\n", "", count - 1,
            pids);
  }
}

/* Where the probe cost taken out rivals the time left, or most intervals
 * between probes hold a few ns of the program, the values rest on the
 * probe cost's calibration: a cost r times the time left, off by e %, puts
 * the values r * e % off. */
#define PROBE_SHARE_WARN       0.5 /* removed / remaining, or dense intervals, from which it warns */
#define PROBE_SHARE_MIN_EVENTS 10000 /* fewer events say nothing of the code's density */

typedef struct probe_share {
  uint64_t removed, remaining, events, intervals, dense;
  double cost; /* ns: the events times the calibrated probe cost, as suggest counts it */
} probe_share;

static double share_ratio(const probe_share *p) {
  return p->remaining ? (double)p->removed / (double)p->remaining : 0;
}

/* The share of the Application intervals between probes left with under
 * IP_DENSE_NS of the program's time, counted by runs of IP_DENSE_RUN
 * (interval_rules.h): unlike the ratio, the same on a loaded machine, whose
 * time slices stretch a few intervals. */
static double dense_share(const probe_share *p) {
  return p->intervals ? (double)p->dense / (double)p->intervals : 0;
}

static int warns(const probe_share *p) {
  return p->events >= PROBE_SHARE_MIN_EVENTS &&
         (share_ratio(p) >= PROBE_SHARE_WARN || dense_share(p) >= PROBE_SHARE_WARN);
}

/* The ratio's words: "2.58 times the 44.97 ms left"; one that would read
 * 0.00 is given as under 0.01. */
static void ratio_words(char *buf, size_t len, const probe_share *p, const char *left) {
  double r = share_ratio(p);
  if (r < 0.005)
    snprintf(buf, len, "under 0.01 times the %s left", left);
  else
    snprintf(buf, len, "%.2f times the %s left", r, left);
}

/* A thread's probe cost in ns, as suggest counts it. */
static double probe_cost(const ip_session *s, const ip_thread *th) {
  double cost = th->process < s->n_processes ? s->processes[th->process].probe_cost_ns : 0;
  return (double)th->events * cost;
}

static void probe_share_line(FILE *out, const ip_session *s) {
  probe_share all = {0, 0, 0, 0, 0, 0}, worst = all;
  size_t worst_th = SIZE_MAX;
  int detected = 0, worst_detected = 0; /* threads whose Application time is measured */
  uint64_t first = UINT64_MAX, last = 0;
  for (size_t i = 0; i < s->n_threads; i++) {
    first = s->threads[i].start_ns < first ? s->threads[i].start_ns : first;
    last = s->threads[i].end_ns > last ? s->threads[i].end_ns : last;
  }
  for (size_t i = 0; i < s->n_threads; i++) {
    const ip_thread *th = &s->threads[i];
    /* suggest's rule (IP_SUGGEST_MIN_GAIN_PCT): a thread whose probes cost
     * less of the run's wall time is not slowed, nor warned about */
    double cost = probe_cost(s, th);
    if (cost < IP_SUGGEST_MIN_GAIN_PCT / 100.0 * (double)(last > first ? last - first : 0))
      continue;
    probe_share t = {.removed = th->probe_removed_ns,
                     .remaining = th->total.app_incl,
                     .events = th->events,
                     .intervals = th->app_intervals,
                     .dense = th->dense_intervals,
                     .cost = cost};
    int d = th->process < s->n_processes && s->processes[th->process].transitions != 0;
    detected |= d;
    all.removed += t.removed;
    all.remaining += t.remaining;
    all.events += t.events;
    all.intervals += t.intervals;
    all.dense += t.dense;
    all.cost += t.cost;
    /* a thread with at least a millisecond of Application time */
    if (t.remaining >= 1000000 && warns(&t) &&
        (worst_th == SIZE_MAX || dense_share(&t) > dense_share(&worst))) {
      worst = t;
      worst_th = i;
      worst_detected = d;
    }
  }
  const probe_share *p = &all;
  char who[600] = "";
  if (!warns(&all) && worst_th != SIZE_MAX) {
    char name[512];
    p = &worst;
    detected = worst_detected;
    snprintf(who, sizeof who, " in thread %s",
             ip_row_name(s, IP_BY_THREAD, (uint32_t)worst_th, name, sizeof name));
  }
  if (!s->compensated || !warns(p))
    return;
  /* suggest leaves a function whose probes cost under IP_SUGGEST_MIN_GAIN_PCT
   * of the session: probes that cost less in all are not worth a filter */
  const char *next =
      p->cost >= IP_SUGGEST_MIN_GAIN_PCT / 100.0 * (double)s->total.el_incl
          ? "'inclprof suggest' names the functions to leave uninstrumented (a filter file for "
            "the plugin)"
          : "the probes cost under 0.1% of the session's Elapsed time, too little for a filter "
            "to gain anything ('inclprof suggest' excludes none of their functions): read those "
            "values as approximate";
  char removed[32], left[32], ratio[96];
  ip_fmt_ns(removed, sizeof removed, p->removed);
  ip_fmt_ns(left, sizeof left, p->remaining);
  ratio_words(ratio, sizeof ratio, p, left);
  /* Transitions `none` measures no Application time: what the probes left
   * is Elapsed time, the time off the CPU with it. */
  fprintf(out,
          "warning:      probe cost%s: %s taken out of the %s, %s%s, and %.0f%% of the intervals "
          "between probes hold under %.0f ns of the program's own time: the values of "
          "call-dense code rest on that cost and can read several times too high or too low; "
          "%s\n",
          who, removed,
          detected ? "Application time"
                   : "Elapsed time (transitions none: no Application time is measured)",
          ratio, detected ? "" : " (the time off the CPU with it)", 100 * dense_share(p),
          IP_DENSE_NS, next);
}

/* Time of transitional intervals that no kernel record accounts for: by
 * the definition of Application time not Application, and in no wait
 * column.  It is large where a long stretch of code between two probes
 * holds a preemption or a page fault, which surprises a reader of a
 * coarsely instrumented program: the header says so from this share of the
 * Elapsed time on (kevents traces: the only ones with a wait breakdown). */
#define OTHER_NOTE_SHARE  0.10
#define OTHER_NOTE_MIN_NS 1000000

static void other_time_line(FILE *out, const ip_session *s) {
  uint64_t el = 0, other = 0, records_lost = 0;
  for (size_t i = 0; i < s->n_threads; i++) {
    const ip_thread *th = &s->threads[i];
    if (th->process >= s->n_processes || !s->processes[th->process].kernel_events)
      continue;
    el += th->total.el_incl;
    other += ip_field_other(th->total.el_incl, th->total.app_incl, th->total.wait_incl);
    records_lost += th->kernel_lost;
  }
  if (other < OTHER_NOTE_MIN_NS || (double)other < OTHER_NOTE_SHARE * (double)el)
    return;
  char t[32], lost_words[320] = "";
  ip_fmt_ns(t, sizeof t, other);
  /* An interval whose records were lost is split by none: its time off the
   * CPU (preempted by another process, blocked) is Other too. */
  if (records_lost)
    snprintf(lost_words, sizeof lost_words,
             ", and of intervals whose kernel records were lost (%llu times: the kernel's event "
             "buffer overflowed), all of the time, off the CPU (preempted, blocked) as well as "
             "on it",
             (unsigned long long)records_lost);
  fprintf(out,
          "note:         %s (%.0f%% of the Elapsed time) is Other: time in intervals between "
          "probes that hold a context switch or a page fault (counted, not timed) beyond what "
          "their kernel records account for%s; the code that ran there is not Application time "
          "by definition. 'report --wait' shows it by function; calls to instrumented functions "
          "inside the long functions around it (a loop's body moved into a function kept out of "
          "line: -fplugin-arg-inclprof-noinline=NAME) put probes there and shorten those "
          "intervals\n",
          t, 100.0 * (double)other / (double)el, lost_words);
}

static void header_lines(FILE *out, const ip_session *s, const ip_view_opts *o) {
  fprintf(out, "files:        %zu, processes: %zu, threads: %zu, events: %llu\n", s->n_files,
          s->n_processes, s->n_threads, (unsigned long long)s->events);
  size_t profiles = 0;
  for (size_t i = 0; i < s->n_processes; i++)
    profiles += s->processes[i].aggregate != 0;
  if (profiles)
    fprintf(out,
            "profiles:     %zu of %zu processes recorded with --aggregate: call paths summed and "
            "compensated in the process (--raw does not apply to them)\n",
            profiles, s->n_processes);
  for (size_t i = 0; i < s->n_processes; i++) {
    char span[160];
    if (ip_interval_status(&s->processes[i], span, sizeof span))
      fprintf(out, "interval:     %s%s%s\n", s->n_processes > 1 ? s->processes[i].trace_path : "",
              s->n_processes > 1 ? ": " : "", span);
  }
  transitions(out, s);
  compensation(out, s);
  fprintf(out,
          "repairs:      %llu exits reconciled (%llu frames skipped by an exit or a longjmp, %llu "
          "open at "
          "thread end, %llu unmatched exits ignored); %llu clock steps back clamped\n",
          (unsigned long long)s->repairs, (unsigned long long)s->rep.popped,
          (unsigned long long)s->rep.closed_at_end, (unsigned long long)s->rep.unmatched,
          (unsigned long long)s->rep.clock_back);
  if (s->rep.forked)
    fprintf(out,
            "forks:        %llu exit(s) in fork children of frames their parent opened before the "
            "fork (a child's trace begins inside them: not repairs)\n",
            (unsigned long long)s->rep.forked);
  if (s->rep.unwound)
    fprintf(out,
            "unwinding:    %llu library call(s) left by an exception or a longjmp (closed at the "
            "exit of "
            "the function that caught or passed it on, or where the longjmp landed)\n",
            (unsigned long long)s->rep.unwound);
  if (o->samples)
    fprintf(out,
            "samples:      %llu (%llu outside instrumented code, counted in the total only; %llu "
            "in the runtime, not counted)\n",
            (unsigned long long)s->total.smp_incl, (unsigned long long)s->samples_outside,
            (unsigned long long)s->samples_in_runtime);
  char el[32], app[32];
  ip_fmt_ns(el, sizeof el, s->total.el_incl);
  ip_fmt_ns(app, sizeof app, s->total.app_incl);
  /* The session's totals sum every thread's time: a perf or gprof user reads
   * percentages of the run's wall time, so the header says what they are. */
  uint64_t first = UINT64_MAX, last = 0, clock_last = 0;
  for (size_t i = 0; i < s->n_threads; i++) {
    if (s->threads[i].start_ns < first)
      first = s->threads[i].start_ns;
    if (s->threads[i].end_ns > last)
      last = s->threads[i].end_ns;
    if (s->threads[i].wall_end_ns > clock_last)
      clock_last = s->threads[i].wall_end_ns;
  }
  uint64_t from, to;
  int interval = ip_session_interval_span(s, &from, &to);
  if (interval) { /* the intervals' span, not the threads' lives */
    first = from;
    clock_last = to;
  }
  char wall[32], comp[32], comp_note[96] = "";
  ip_fmt_ns(wall, sizeof wall, clock_last > first ? clock_last - first : 0);
  ip_fmt_ns(comp, sizeof comp, last > first ? last - first : 0);
  if (s->compensated && !interval) /* an interval's threads' times are parts, not spans */
    snprintf(comp_note, sizeof comp_note, " (%s once the probe cost and runtime gaps are removed)",
             comp);
  fprintf(out, "session:      Elapsed Inclusive %s, Application Inclusive %s (100%% of each)\n", el,
          app);
  fprintf(out, "              wall time %s by the clock%s; %zu thread%s in %zu process%s%s\n", wall,
          comp_note, s->n_threads, s->n_threads == 1 ? "" : "s", s->n_processes,
          s->n_processes == 1 ? "" : "es",
          s->n_threads > 1 ? ": the totals add up every thread's time, so they can exceed the "
                             "wall time"
                           : "");
  fprintf(out, "              a %% column is a share of the session total of its kind%s\n",
          s->n_threads > 1 ? " (report --by thread: each thread's share of its own wall time)"
                           : "");
  probe_share_line(out, s);
  other_time_line(out, s);
  ip_view_missing_line(out, o->skipped);
  if (o->sel.has_pid)
    fprintf(out, "filter:       only pid %u (percentages stay over the whole session)\n",
            o->sel.pid);
  if (o->sel.has_tid)
    fprintf(out, "filter:       only tid %u (percentages stay over the whole session)\n",
            o->sel.tid);
  size_t no_tables = 0;
  for (size_t i = 0; i < s->n_processes; i++)
    no_tables += s->processes[i].tables_missing != NULL;
  for (size_t i = 0; i < s->n_processes && no_tables; i++)
    if (s->processes[i].tables_missing) {
      fprintf(out, "warning:      %s%s: %s\n", s->processes[i].trace_path,
              no_tables > 1 ? " and other traces" : "", s->processes[i].tables_missing);
      break;
    }
  process_lines(out, s, o->verbose);
  fputc('\n', out);
}

/* One header line, broken at spaces into lines of at most width columns,
 * each after the first indented as the text after its label is (the label
 * column, 14 characters).  A word longer than the room stays whole. */
static void wrap_line(FILE *out, const char *line, size_t len, size_t width) {
  const size_t indent = 14;
  size_t at = 0, col = 0;
  while (at < len) {
    size_t end = at;
    while (end < len && line[end] == ' ')
      end++;
    size_t word = end;
    while (end < len && line[end] != ' ')
      end++;
    if (col > indent && col + (end - at) > width) {
      fprintf(out, "\n%*s", (int)indent, "");
      col = indent;
      at = word; /* the spaces before a word that starts a line go */
    }
    fwrite(line + at, 1, end - at, out);
    col += end - at;
    at = end;
  }
  fputc('\n', out);
}

void ip_view_header(FILE *out, const ip_session *s, const ip_view_opts *o) {
  char *text = NULL;
  size_t size = 0;
  FILE *mem = o->width ? open_memstream(&text, &size) : NULL;
  if (!mem) {
    header_lines(out, s, o);
    return;
  }
  header_lines(mem, s, o);
  if (fclose(mem)) {
    free(text);
    header_lines(out, s, o);
    return;
  }
  for (const char *line = text; *line;) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    if (len <= o->width)
      fprintf(out, "%.*s\n", (int)len, line);
    else
      wrap_line(out, line, len, o->width);
    line += len + (nl != NULL);
  }
  free(text);
}
