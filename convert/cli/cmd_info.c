/* cli/cmd_info.c - `inclprof info`: what a trace holds - header, clock, transition
 * mode, calibration, sampling, tables, modules and their load bases, threads,
 * events, gaps, lost batches, trailer and damage - per process: from the
 * Index a file ends with (its last bytes), or from every record (--scan, or
 * a file without a valid index), which also tells what only the replayed
 * events show; then the snapshots of slow calls kept in a directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/info_intervals.h"
#include "cli/info_snapshots.h"
#include "util/util.h"
#include "views/views.h"

enum { OPT_SCAN = 300 };

static const ip_cli_opt options[] = {
    {"scan", OPT_SCAN, NULL,
     "read every record and replay the events, not just the index at the\n"
     "end: damage inside the file, samples attributed, exits reconciled"},
    IP_CLI_JOBS_OPT,
};

typedef struct info_args {
  unsigned jobs;
  int scan;
} info_args;

static const ip_cli cli = {
    .name = "info",
    .synopsis = "[--scan] [--jobs N] [TRACE|DIR...]",
    .intro = "Describe trace files: header, clock and tick rate, transition mode, probe-cost\n"
             "calibration, sampling, tables, modules (load base and path), threads, events,\n"
             "runtime gaps, lost batches, trailer (clean shutdown?) and any damage.\n"
             "A trace that ends with its index is described from its last bytes alone.\n"
             "Default input: " IP_DEFAULT_INPUT " (a directory means every *.ipb file in it).\n"
             "A directory's interval profiles (record --interval) and snapshots of slow calls\n"
             "(record --snapshot-if) are listed after.",
    .epilog = "Exit status: 0 ok, 1 unusable input, 2 bad usage, 3 a trace is damaged.",
    .opts = options,
    .n_opts = sizeof options / sizeof options[0],
};

static int on_option(void *ctx, int id, const char *arg, ip_cli_msg *m) {
  info_args *a = ctx;
  if (id == OPT_SCAN) {
    a->scan = 1;
    return 0;
  }
  return ip_cli_jobs_opt(&a->jobs, arg, m);
}

static const char *clock_name(int c) {
  static const char *const names[] = {"unknown", "TSC (rdtsc)", "CNTVCT (AArch64 virtual counter)",
                                      "CLOCK_MONOTONIC"};
  return c >= 0 && c < 4 ? names[c] : "unknown";
}

static const char *mode_text(int m) {
  return m == 2   ? "pmu: kernel-mode instructions retired (exact)"
         : m == 1 ? "kevents: system calls, context switches and page faults of the thread"
                  : "none: no detection, Application values equal Elapsed values";
}

static void header(const ip_process *p) {
  char when[64] = "unknown";
  time_t secs = (time_t)(p->start_unix_ns / 1000000000u);
  struct tm tm;
  if (p->start_unix_ns && gmtime_r(&secs, &tm))
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
  printf("trace:        %s (format %u.%u)\n", p->trace_path, p->format_major, p->format_minor);
  if (p->aggregate)
    printf("kind:         an aggregate profile (record --aggregate): each thread's call paths "
           "summed in the process, no events, no timeline\n");
  if (p->from_index)
    printf("read:         its index (info --scan replays the events: damage inside the file, "
           "samples attributed, exits reconciled)\n");
  else if (p->aggregate) /* its records are the sums: there is no index of events to read */
    printf("read:         every record (an aggregate profile has no event index)\n");
  else
    printf("read:         every record%s%s\n", p->scan_why ? ": " : " (--scan)",
           p->scan_why ? p->scan_why : "");
  printf("process:      pid %u, parent %u", p->pid, p->ppid);
  if (p->forked_from)
    printf(", fork child of %u", p->forked_from);
  printf("\nexecutable:   %s\ncommand:      %s\n", p->executable, p->cmdline);
  printf("host:         %s, runtime %s, started %s\n", p->hostname ? p->hostname : "?",
         p->runtime_version ? p->runtime_version : "?", when);
  printf("clock:        %s, %.0f ticks/s (1 tick = %.4f ns)%s\n", clock_name(p->clock),
         p->ticks_per_second, 1e9 / p->ticks_per_second,
         p->clock_unfenced ? "; read without a fence (INCLPROF_CLOCK=fast)" : "");
  printf("transitions:  %s\n", mode_text(p->transitions));
  if (p->transitions_note && *p->transitions_note)
    printf("              why: %s\n", p->transitions_note);
  if (p->threads_no_transitions)
    printf("              %u thread%s without a counter (%s): their Application values equal "
           "Elapsed values\n",
           p->threads_no_transitions, p->threads_no_transitions == 1 ? "" : "s",
           p->no_transitions_why);
  if (p->threads_stopped == 1)
    printf("stopped:      thread %u stopped recording before it ended: %s\n", p->stopped_tid,
           p->stopped_why);
  else if (p->threads_stopped)
    printf("stopped:      %u threads stopped recording before they ended (thread %u: %s)\n",
           p->threads_stopped, p->stopped_tid, p->stopped_why);
  if (p->kernel_events && p->from_index && !p->kernel_lost)
    printf("waits:        why threads waited is known (report --wait)\n");
  else if (p->kernel_events && p->from_index)
    printf("waits:        why threads waited is known (report --wait) but where the kernel's event "
           "buffer overflowed: %llu times in %llu batches (info --scan counts the intervals)\n",
           (unsigned long long)p->kernel_lost, (unsigned long long)p->batches);
  else if (p->kernel_events)
    printf("waits:        why threads waited is known (report --wait); not known %llu times in "
           "%llu batches (the kernel's event buffer overflowed: a whole batch, or one interval)\n",
           (unsigned long long)p->kernel_lost, (unsigned long long)p->batches);
  printf("calibration:  probe cost %.2f ns per event (removed unless --raw)\n", p->probe_cost_ns);
  if (p->probe_hidden_ns > 0)
    printf("              up to %.2f ns of it overlaps the program's own work around a probe (not "
           "removed)\n",
           p->probe_hidden_ns);
  if (p->ptr_call_cost_ns > 0)
    printf("              %.2f ns per call through a pointer to a function whose own probes "
           "name it (its hooks record no event), removed too\n",
           p->ptr_call_cost_ns);
  if (p->kevent_cost_ns > 0)
    printf("              %.2f ns per system call, switch or page fault: what recording it costs, "
           "removed too\n",
           p->kevent_cost_ns);
  if (p->fault_cost_ns > 0)
    printf("              %.2f ns per minor page fault, its record included: the most Page faults "
           "takes for one\n",
           p->fault_cost_ns);
}

static void sampling(const ip_session *s, const ip_process *p, size_t pi) {
  if (!p->sample_hz) {
    printf("sampling:     off\n");
    return;
  }
  uint64_t attributed = 0;
  for (size_t i = 0; i < s->n_threads; i++)
    if (s->threads[i].process == pi)
      attributed += s->threads[i].total.smp_excl;
  printf("sampling:     %u Hz per thread CPU time; taken %llu, in the runtime (discarded) %llu "
         "(trailer)",
         p->sample_hz, (unsigned long long)p->samples_taken,
         (unsigned long long)p->samples_in_runtime);
  if (!p->from_index)
    printf("; in events: %llu attributed, %llu outside instrumented code",
           (unsigned long long)attributed, (unsigned long long)p->samples_outside);
  printf("\n");
}

/* Threads by tid, a reused tid's in the order they ran: the index notes
 * threads as the runtime saw their records, which two threads starting
 * together may write in the other order. */
typedef struct tid_at {
  uint32_t tid;
  size_t at;
} tid_at;
static int by_tid(const void *a, const void *b) {
  const tid_at *x = a, *y = b;
  return x->tid != y->tid ? (x->tid < y->tid ? -1 : 1) : (x->at > y->at) - (x->at < y->at);
}

static void threads(const ip_session *s, size_t pi) {
  ip_ttable t;
  ip_tt_init(&t, 6);
  ip_tt_add(&t, "tid");
  ip_tt_add(&t, "events");
  ip_tt_add(&t, "batches");
  ip_tt_add(&t, "lost");
  ip_tt_add(&t, "gaps");
  ip_tt_add(&t, "name");
  size_t n = 0;
  tid_at *order = ip_must_calloc(s->n_threads ? s->n_threads : 1, sizeof *order);
  for (size_t i = 0; i < s->n_threads; i++)
    if (s->threads[i].process == pi)
      order[n++] = (tid_at){s->threads[i].tid, i};
  qsort(order, n, sizeof *order, by_tid);
  for (size_t k = 0; k < n; k++) {
    const ip_thread *th = &s->threads[order[k].at];
    ip_tt_add(&t, "%u", th->tid);
    ip_tt_add(&t, "%llu", (unsigned long long)th->events);
    ip_tt_add(&t, "%llu", (unsigned long long)th->batches);
    ip_tt_add(&t, "%llu", (unsigned long long)th->batches_lost);
    ip_tt_add(&t, "%llu", (unsigned long long)th->gaps);
    ip_tt_add(&t, "%s", th->name ? th->name : "");
  }
  free(order);
  printf("threads:      %zu\n", n);
  ip_tt_print(&t, stdout, 4);
  ip_tt_free(&t);
}

/* Where each module was loaded: run-time address = load base + the offset
 * that names code no symbol covers (MODULE+0xOFFSET). */
static void modules(const ip_session *s, const ip_process *p) {
  ip_ttable t;
  ip_tt_init(&t, 2);
  ip_tt_add(&t, "load base");
  ip_tt_add(&t, "path");
  for (size_t i = 0; i < p->n_mods; i++) {
    ip_tt_add(&t, "0x%llx", (unsigned long long)p->mods[i].load_address);
    ip_tt_add(&t, "%s", s->modules[p->mods[i].module].path);
  }
  printf("modules:      %zu\n", p->n_mods);
  ip_tt_print(&t, stdout, 4);
  ip_tt_free(&t);
}

static void process(const ip_session *s, size_t pi) {
  const ip_process *p = &s->processes[pi];
  char gap[32];
  ip_fmt_ns(gap, sizeof gap, p->gap_ns);
  header(p);
  sampling(s, p, pi);
  printf("tables:       %llu modules, %llu functions\n", (unsigned long long)p->n_modules,
         (unsigned long long)p->n_functions);
  if (p->tables_missing)
    printf("              %s\n", p->tables_missing);
  modules(s, p);
  threads(s, pi);
  printf("events:       %llu in %llu batches; %llu runtime gaps", (unsigned long long)p->events,
         (unsigned long long)p->batches, (unsigned long long)p->gaps);
  if (!p->from_index)
    printf(" (%s removed)", gap);
  printf("; %llu batches lost\n", (unsigned long long)p->batches_lost);
  if (!p->from_index)
    printf("repairs:      %llu exits reconciled\n", (unsigned long long)p->repairs);
  if (p->windows)
    printf("windows:      %u recorded: %s\n", p->n_windows, p->windows);
  char status[512];
  if (ip_trace_status(p, status, sizeof status))
    printf("trailer:      %s\n", status);
  else
    printf("trailer:      %s, exit reason: %s; %llu events written, %llu dropped\n",
           p->clean ? "clean shutdown" : "NOT clean", p->exit_reason ? p->exit_reason : "?",
           (unsigned long long)p->trailer_events, (unsigned long long)p->dropped_events);
  int reached;
  if (ip_size_limit_status(p, status, sizeof status, &reached))
    printf("size limit:   %s\n", status);
  if (ip_interval_status(p, status, sizeof status))
    printf("interval:     %s\n", status);
  if (p->snapshot)
    printf("snapshot:     %s\n", p->snapshot);
  if (p->threads_resumed && p->snapshot)
    printf("window:       %u thread%s began before the window: %s calls then open are timed "
           "from its start and not counted as calls\n",
           p->threads_resumed, p->threads_resumed == 1 ? "" : "s",
           p->threads_resumed == 1 ? "its" : "their");
  else if (p->threads_resumed)
    printf("ring:         %u thread%s began before the kept window: %s calls then open are "
           "timed from its start and not counted as calls\n",
           p->threads_resumed, p->threads_resumed == 1 ? "" : "s",
           p->threads_resumed == 1 ? "its" : "their");
  if (p->threads_not_flushed)
    printf("final flush:  gave up on %u other threads at exit (their last buffered events are "
           "missing)\n",
           p->threads_not_flushed);
  if (p->has_writer_counts)
    printf("writer:       %llu full buffers written by the runtime's writer thread, %llu by the "
           "program's own threads (%llu while they kept every CPU busy, %llu while the writer was "
           "starting, behind or off)\n",
           (unsigned long long)p->buffers_handed_off,
           (unsigned long long)(p->inline_flushes + p->crowded_flushes),
           (unsigned long long)p->crowded_flushes, (unsigned long long)p->inline_flushes);
  if (p->has_writer_counts && p->buffers_handed_off == 0 && p->inline_flushes > 1)
    printf("              the writer thread took no buffer: it is off with INCLPROF_WRITER=inline, "
           "and when malloc is the program's own (defined in the program or in a library other "
           "than jemalloc, tcmalloc, mimalloc, Hoard or snmalloc, or in one of those built with "
           "the plugin) unless INCLPROF_WRITER=thread starts it at start-up, for one calloc\n");
  if (p->from_index)
    printf("damage:       none at its end (info --scan checks every record)\n\n");
  else
    printf("damage:       %s\n\n", p->damage ? p->damage : "none");
}

int cmd_info(int argc, char **argv) {
  int first;
  info_args a = {.jobs = ip_cli_default_jobs()};
  int rc = ip_cli_parse_or_exit(&cli, argc, argv, on_option, &a, &first);
  if (rc >= 0)
    return rc;
  ip_session s;
  ip_load_opts lo = {.jobs = a.jobs, .from_index = !a.scan};
  if (ip_load_inputs(&s, argc, argv, first, &lo))
    return IP_EXIT_ERROR;
  for (size_t i = 0; i < s.n_processes; i++)
    process(&s, i);
  struct stat st;
  for (int i = first; i <= argc; i++) { /* the default input when none is given */
    const char *in = i < argc ? argv[i] : first == argc ? IP_DEFAULT_INPUT : NULL;
    if (in && stat(in, &st) == 0 && S_ISDIR(st.st_mode)) {
      info_intervals(in);
      info_snapshots(in);
    }
  }
  rc = ip_exit_status(&s);
  ip_session_free(&s);
  return rc;
}
