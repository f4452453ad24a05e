/* cli/cmd_record.c - `inclprof record [-o DIR] [--aggregate] [--transitions MODE] [--sample-hz N]
 * [--max-size SIZE [--max-size-policy stop|ring]] [--paused] [--delay D]
 * [--duration D] [--flush-every D] [--user NAME] [--snapshot-if FUNCTION>DURATION
 * [--snapshot-margin D] [--snapshot-keep N]] -- PROG [ARGS...]`: runs
 * PROG with the runtime preloaded (libinclprof.so
 * found next to this command, or in ../lib), tracing into DIR, and exits
 * with PROG's status (128+N when killed by signal N).  Traces of an earlier
 * run in DIR are moved to DIR.old first; afterwards it counts the run's
 * trace files and the run's processes still running.  As root it mounts
 * tracefs when it is missing, so that the kevents mode can find its
 * tracepoint, and the tracepoint's registration is held for the run
 * (record_hold.c).  A program that does not run as root gets its kernel
 * events from a grant server: `sudo inclprof record --user NAME` serves them
 * itself and runs the rest as NAME (record_user.c); a user without the
 * permission has `record` run through inclprof-perfmon when it is installed
 * (record_perfmon.c). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/info_intervals.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/ctl_client.h"
#include "cli/record_dir.h"
#include "cli/record_hold.h"
#include "cli/record_notes.h"
#include "cli/record_perfmon.h"
#include "cli/record_snapshot.h"
#include "cli/record_user.h"
#include "cli/record_watch.h"
#include "duration_syntax.h"
#include "read/read.h"
#include "settings_names.h"
#include "size_syntax.h"
#include "util/util.h"

enum {
  OPT_TRANSITIONS = 256,
  OPT_SAMPLE_HZ,
  OPT_MAX_SIZE,
  OPT_MAX_SIZE_POLICY,
  OPT_PAUSED,
  OPT_DELAY,
  OPT_DURATION,
  OPT_FLUSH_EVERY,
  OPT_AGGREGATE,
  OPT_INTERVAL,
  OPT_USER,
  OPT_SNAPSHOT_IF,
  OPT_SNAPSHOT_MARGIN,
  OPT_SNAPSHOT_KEEP
};

static const ip_cli_opt options[] = {
    {"output", 'o', "DIR", "trace directory (default: " IP_DEFAULT_INPUT ")"},
    {"aggregate", OPT_AGGREGATE, NULL,
     "keep each thread's call-path tree in the process and write it\n"
     "at the end instead of every event: a profile whose size does not\n"
     "grow with the run (report, CSV, pprof...; no timeline)"},
    {"interval", OPT_INTERVAL, "DURATION",
     "with --aggregate: also write what each DURATION added, one\n"
     "profile per interval in DIR/PID.intervals/ (a time series)"},
    {"transitions", OPT_TRANSITIONS, "MODE",
     "auto (default), pmu, kevents or none: how kernel activity\n"
     "(system calls, context switches, page faults) is detected"},
    {"sample-hz", OPT_SAMPLE_HZ, "N", "also take N CPU-time samples per second per thread"},
    {"max-size", OPT_MAX_SIZE, "SIZE",
     "bound each process's trace to SIZE bytes (K, M, G, T suffixes: 500M)"},
    {"max-size-policy", OPT_MAX_SIZE_POLICY, "POLICY",
     "at the bound: stop (default) stops recording; ring keeps\n"
     "the newest data, dropping the oldest (SIZE at least 1M)"},
    {"paused", OPT_PAUSED, NULL, "start with recording off ('inclprof ctl PID start' turns it on)"},
    {"delay", OPT_DELAY, "DURATION", "start recording DURATION after start-up (500ms, 10s, 2m)"},
    {"duration", OPT_DURATION, "DURATION", "stop recording DURATION after it starts"},
    {"flush-every", OPT_FLUSH_EVERY, "DURATION",
     "write every thread's buffered events this often, so that\n"
     "report, info and export see the trace while it runs"},
    {"user", OPT_USER, "NAME",
     "as root: run PROG as user NAME (a name or a uid), its kernel\n"
     "events opened by this root process"},
    {"snapshot-if", OPT_SNAPSHOT_IF, "COND",
     "COND is FUNCTION>DURATION (handle>5ms; several: comma-\n"
     "separated): keep the trace in a ring (--max-size, 64M by\n"
     "default) and save the window around each call of FUNCTION\n"
     "longer than DURATION as a trace of its own in\n"
     "DIR/snapshots/PID-N/"},
    {"snapshot-margin", OPT_SNAPSHOT_MARGIN, "DURATION",
     "time kept before and after the slow call (default 1ms)"},
    {"snapshot-keep", OPT_SNAPSHOT_KEEP, "N",
     "keep at most N snapshots per process (default 16): a slower\n"
     "call replaces the least slow kept"},
};

static const ip_cli cli = {
    .name = "record",
    .synopsis = "[-o DIR] [--aggregate [--interval D]] [--transitions MODE] [--sample-hz N] "
                "[--max-size SIZE\n"
                "        [--max-size-policy stop|ring]] [--paused] [--delay DURATION]\n"
                "        [--duration DURATION] [--flush-every DURATION] [--user NAME]\n"
                "        [--snapshot-if FUNCTION>DURATION [--snapshot-margin DURATION]\n"
                "        [--snapshot-keep N]] [--] PROG [ARGS...]",
    .intro = "Runs PROG with the inclprof runtime preloaded and writes one trace per process.",
    .epilog = "The exit status is PROG's (128+N if a signal N ended it; 127 if it cannot be run);\n"
              "2 for bad usage or a trace directory that cannot be written.",
    .opts = options,
    .n_opts = sizeof options / sizeof options[0],
    .stop_at_operand = 1,
};

typedef struct record_args {
  const char *dir, *mode, *hz, *max_size, *policy;
  const char *delay, *duration, *flush_every, *user, *snapshot_margin, *snapshot_keep, *interval;
  char snapshot_if[4096]; /* the conditions, comma-separated */
  int paused, aggregate;
} record_args;

/* A size as the runtime reads it (size_syntax.h); 0 when it is not one. */
static uint64_t size_value(const char *s) {
  uint64_t v;
  return ip_size_parse(s, &v) ? 0 : v;
}

static int on_option(void *ctx, int id, const char *arg, ip_cli_msg *m) {
  record_args *a = ctx;
  uint64_t v;
  switch (id) {
  case 'o':
    a->dir = arg;
    return 0;
  case OPT_TRANSITIONS:
    if (strcmp(arg, "auto") && strcmp(arg, "pmu") && strcmp(arg, "kevents") && strcmp(arg, "none"))
      return ip_cli_fail(m, "bad --transitions '%s' (auto, pmu, kevents or none)", arg);
    a->mode = arg;
    return 0;
  case OPT_MAX_SIZE:
    if (size_value(arg) <= 4096)
      return ip_cli_fail(m, "bad --max-size '%s' (a size above 4K, e.g. 500M)", arg);
    a->max_size = arg;
    return 0;
  case OPT_PAUSED:
    a->paused = 1;
    return 0;
  case OPT_AGGREGATE:
    a->aggregate = 1;
    return 0;
  case OPT_USER:
    a->user = arg;
    return 0;
  case OPT_DELAY:
  case OPT_DURATION:
  case OPT_FLUSH_EVERY:
  case OPT_INTERVAL:
    if (ip_duration_parse(arg, &v) || (id != OPT_DELAY && v < 1000000))
      return ip_cli_fail(m, "bad --%s '%s' (a duration like 500ms, 10s or 2m%s)",
                         id == OPT_DELAY      ? "delay"
                         : id == OPT_DURATION ? "duration"
                         : id == OPT_INTERVAL ? "interval"
                                              : "flush-every",
                         arg, id == OPT_DELAY ? "" : ", at least 1ms");
    *(id == OPT_DELAY      ? &a->delay
      : id == OPT_DURATION ? &a->duration
      : id == OPT_INTERVAL ? &a->interval
                           : &a->flush_every) = arg;
    return 0;
  case OPT_SNAPSHOT_IF: {
    char why[300];
    if (record_snapshot_add(a->snapshot_if, sizeof a->snapshot_if, arg, why, sizeof why))
      return ip_cli_fail(m, "bad --snapshot-if: %s", why);
    return 0;
  }
  case OPT_SNAPSHOT_MARGIN:
    if (ip_duration_parse(arg, &v))
      return ip_cli_fail(m, "bad --snapshot-margin '%s' (a duration like 500us, 1ms or 10ms)", arg);
    a->snapshot_margin = arg;
    return 0;
  case OPT_SNAPSHOT_KEEP:
    if (ip_parse_u64(arg, 10000, &v) || v < 1)
      return ip_cli_fail(m, "bad --snapshot-keep '%s' (a count in 1..10000)", arg);
    a->snapshot_keep = arg;
    return 0;
  case OPT_MAX_SIZE_POLICY:
    if (strcmp(arg, "stop") && strcmp(arg, "ring"))
      return ip_cli_fail(m, "bad --max-size-policy '%s' (stop or ring)", arg);
    a->policy = arg;
    return 0;
  default: /* OPT_SAMPLE_HZ */
    if (ip_parse_u64(arg, 100000, &v) || v < 1)
      return ip_cli_fail(m, "bad --sample-hz '%s' (a rate in 1..100000)", arg);
    a->hz = arg;
    return 0;
  }
}

/* The runtime library: next to this executable (build tree) or in ../lib. */
static int find_runtime(char *out, size_t len) {
  static const char *const rel[] = {"/libinclprof.so", "/../lib/libinclprof.so"};
  return ip_find_beside_command(rel, 2, out, len);
}

static void mount_tracefs_if_missing(void) {
  static const char *const ids[] = {"/sys/kernel/tracing/events/raw_syscalls/sys_enter/id",
                                    "/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id"};
  if (access(ids[0], R_OK) == 0 || access(ids[1], R_OK) == 0 || geteuid() != 0)
    return;
  if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0)
    fprintf(stderr, "inclprof: mounted tracefs on /sys/kernel/tracing (kevents needs the "
                    "raw_syscalls:sys_enter tracepoint)\n");
}

static int set_env(const char *name, const char *value) {
  if (setenv(name, value, 1) != 0) {
    fprintf(stderr, "inclprof record: cannot set %s: %s\n", name, strerror(errno));
    return -1;
  }
  return 0;
}

/* The threads of the trace at path that stopped recording before they
 * ended (a thread that disabled rdtsc), from its Index: each with the
 * runtime's words. */
static void say_stopped_threads(const char *path) {
  ip_trace_end e;
  char why[256];
  if (ip_trace_end_read(path, &e, why, sizeof why) != 0)
    return;
  const Inclprof__Index *ix = e.index->index;
  for (size_t i = 0; i < ix->n_threads; i++)
    if (ix->threads[i]->stopped)
      fprintf(stderr,
              "inclprof record: %s: thread %u stopped recording before it ended: %s; nothing "
              "of it after that is in the trace\n",
              path, ix->threads[i]->tid, ix->threads[i]->stopped);
  ip_trace_end_free(&e);
}

/* A trace this run wrote whose recording stopped early, or whose exec
 * started a program that could write no trace, or one of whose threads
 * stopped recording before it ended: the runtime's own words, from the
 * file's Trailer (and Index).  A trace with no Trailer whose process has ended
 * (killed by SIGKILL, or under a file-size limit it set below the trace,
 * where the runtime's line could reach neither the trace nor record's
 * notes) is named too. */
static void say_if_stopped_early(const char *dir, const char *name) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%.2000s/%.1000s", dir, name);
  Inclprof__Record *rec = ip_trace_tail_trailer(path);
  if (!rec) {
    long pid = strtol(name, NULL, 10);
    if (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH)
      fprintf(stderr,
              "inclprof record: %s: the trace has no end: its process ended without writing its "
              "last records (killed, or under a file-size limit below its trace); 'inclprof "
              "info %s' shows what it holds\n",
              path, path);
    return;
  }
  const Inclprof__Trailer *t = rec->trailer;
  if (t->exec_unrecorded && *t->exec_unrecorded)
    fprintf(stderr, "inclprof record: %s: after its exec, not recorded: %s\n", path,
            t->exec_unrecorded);
  if (t->write_error && *t->write_error)
    fprintf(stderr,
            "inclprof record: %s: recording stopped early: %s, after %llu events; the trace "
            "before that is complete\n",
            path, t->write_error, (unsigned long long)t->events);
  else if (t->ring_dropped_events) {
    char max[32];
    ip_fmt_bytes(max, sizeof max, t->max_size);
    fprintf(stderr,
            "inclprof record: %s: the size limit (%s, policy ring) dropped the oldest %llu of "
            "%llu events; 'inclprof info' shows the time window kept\n",
            path, max, (unsigned long long)t->ring_dropped_events, (unsigned long long)t->events);
  }
  inclprof__record__free_unpacked(rec, NULL);
  say_stopped_threads(path);
}

/* Makes dir and its missing parents; *first_made: the length of the first
 * directory of the path this made (0: none), for remove_made_dirs. */
static int make_dirs(const char *dir, size_t *first_made) {
  char path[PATH_MAX];
  size_t n = strlen(dir);
  *first_made = 0;
  if (n >= sizeof path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  memcpy(path, dir, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (path[i] != '/' && path[i] != 0)
      continue;
    if (path[i - 1] == '/')
      continue;
    char c = path[i];
    path[i] = 0;
    int rc = mkdir(path, 0777);
    path[i] = c;
    if (rc == 0 && !*first_made)
      *first_made = i;
    else if (rc != 0 && errno != EEXIST)
      return -1;
  }
  return *first_made ? 0 : (errno = EEXIST, -1);
}

/* Removes the empty directories make_dirs made, deepest first. */
static void remove_made_dirs(const char *dir, size_t first_made) {
  if (!first_made)
    return;
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s", dir);
  size_t n = strlen(path);
  while (n > 1 && path[n - 1] == '/')
    path[--n] = 0;
  while (rmdir(path) == 0 && n > first_made) {
    while (n > 0 && path[n - 1] != '/') /* up one level */
      n--;
    while (n > 1 && path[n - 1] == '/')
      n--;
    path[n] = 0;
    if (n < first_made)
      return;
  }
}

/* The trace directory exists (or is made with its missing parents:
 * *made says from where) and this user may create files in it: else there
 * is no point in running the program. */
static int output_dir_usable(const char *dir, size_t *made) {
  if (make_dirs(dir, made) != 0 && errno != EEXIST) {
    fprintf(stderr,
            "inclprof record: cannot create the trace directory %s: %s; choose another "
            "with -o DIR\n",
            dir, strerror(errno));
    return 0;
  }
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(stderr, "inclprof record: %s is not a directory; choose another with -o DIR\n", dir);
    return 0;
  }
  if (access(dir, W_OK | X_OK) != 0) {
    fprintf(stderr,
            "inclprof record: cannot write trace files in %s: %s; choose another with "
            "-o DIR\n",
            dir, strerror(errno));
    return 0;
  }
  return 1;
}

/* The runtime's environment for the program: LD_PRELOAD (ours first), the
 * output directory (absolute) and the options given. */
static int prepare_env(const record_args *a) {
  char lib[PATH_MAX + 64];
  if (find_runtime(lib, sizeof lib) != 0) {
    fprintf(stderr, "inclprof record: libinclprof.so not found next to this command or in ../lib; "
                    "reinstall inclprof\n");
    return -1;
  }
  const char *old = getenv("LD_PRELOAD");
  char preload[3 * PATH_MAX];
  snprintf(preload, sizeof preload, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
  /* The run every process of this recording says it belongs to. */
  char run_id[64];
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  snprintf(run_id, sizeof run_id, "record-%ld-%llx", (long)getpid(),
           (unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec);
  /* The directory by its absolute path: a process that changes its working
     directory (a script's cd) still writes its trace there. */
  char dir[PATH_MAX];
  if (!realpath(a->dir, dir))
    snprintf(dir, sizeof dir, "%s", a->dir);
  if (set_env("LD_PRELOAD", preload) || set_env(IP_ENV_OUTPUT, dir) ||
      set_env(IP_ENV_RUN, run_id) || (a->mode && set_env(IP_ENV_TRANSITIONS, a->mode)) ||
      (a->hz && set_env(IP_ENV_SAMPLE_HZ, a->hz)) ||
      (a->max_size && set_env(IP_ENV_MAX_SIZE, a->max_size)) ||
      (a->policy && set_env(IP_ENV_MAX_SIZE_POLICY, a->policy)) ||
      (a->paused && set_env(IP_ENV_PAUSED, "1")) ||
      (a->aggregate && set_env(IP_ENV_MODE, "aggregate")) ||
      (a->interval && set_env(IP_ENV_INTERVAL, a->interval)) ||
      (a->delay && set_env(IP_ENV_DELAY, a->delay)) ||
      (a->duration && set_env(IP_ENV_DURATION, a->duration)) ||
      (a->flush_every && set_env(IP_ENV_FLUSH_EVERY, a->flush_every)) ||
      (a->snapshot_if[0] && set_env(IP_ENV_SNAPSHOT_IF, a->snapshot_if)) ||
      (a->snapshot_margin && set_env(IP_ENV_SNAPSHOT_MARGIN, a->snapshot_margin)) ||
      (a->snapshot_keep && set_env(IP_ENV_SNAPSHOT_KEEP, a->snapshot_keep)))
    return -1;
  if (!a->mode || strcmp(a->mode, "none"))
    mount_tracefs_if_missing();
  return 0;
}

/* Runs argv[0] and waits for it, like a shell: the terminal's ^C / ^\ are
 * for the program.  Returns its exit status (128+N when signal N ended it),
 * -2 when it could not be run (the exec failed: said on stderr), or -1 when
 * it could not be started or waited for.  A close-on-exec pipe tells a failed
 * exec from the program's own status 127. */
static int run(char **argv, const char *dir) {
  int ep[2];
  if (pipe2(ep, O_CLOEXEC) != 0) {
    fprintf(stderr, "inclprof record: cannot make a pipe: %s\n", strerror(errno));
    return -1;
  }
  struct sigaction ign, old_int, old_quit;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ign, &old_int);
  sigaction(SIGQUIT, &ign, &old_quit);
  /* The run's processes that outlive the program (a daemon, a background
   * child) become this process's children, so that they can be counted. */
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "inclprof record: cannot fork: %s\n", strerror(errno));
    return -1;
  }
  if (pid == 0) {
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    execvp(argv[0], argv);
    int err = errno;
    fprintf(stderr, "inclprof record: cannot run %s: %s\n", argv[0], strerror(err));
    (void)!write(ep[1], &err, sizeof err);
    _exit(127);
  }
  close(ep[1]);
  int exec_err;
  ssize_t got;
  while ((got = read(ep[0], &exec_err, sizeof exec_err)) < 0 && errno == EINTR)
    ;
  close(ep[0]);
  int st;
  if (record_watch_wait(pid, &st, dir) != 0) {
    fprintf(stderr, "inclprof record: waitpid: %s\n", strerror(errno));
    return -1;
  }
  if (got > 0)
    return -2; /* the exec failed: the child said why */
  return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 2;
}

int cmd_record(int argc, char **argv) {
  record_args a = {.dir = IP_DEFAULT_INPUT};
  int first;
  int rc = ip_cli_parse_or_exit(&cli, argc, argv, on_option, &a, &first);
  if (rc >= 0)
    return rc;
  if (first >= argc) {
    ip_cli_msg m = {.cli = &cli};
    ip_cli_fail(&m, "no program to run");
    fprintf(stderr, "%s\n", m.text);
    return IP_EXIT_USAGE;
  }
  if (a.aggregate && a.snapshot_if[0]) {
    ip_cli_msg m = {.cli = &cli};
    ip_cli_fail(&m,
                "--snapshot-if keeps a trace's window around a slow call: not with --aggregate");
    fprintf(stderr, "%s\n", m.text);
    return IP_EXIT_USAGE;
  }
  if (a.interval && !a.aggregate) {
    ip_cli_msg m = {.cli = &cli};
    ip_cli_fail(&m, "--interval needs --aggregate (a trace holds every call already)");
    fprintf(stderr, "%s\n", m.text);
    return IP_EXIT_USAGE;
  }
  if (a.policy && !a.max_size) {
    ip_cli_msg m = {.cli = &cli};
    ip_cli_fail(&m, "--max-size-policy needs --max-size SIZE");
    fprintf(stderr, "%s\n", m.text);
    return IP_EXIT_USAGE;
  }
  if (a.policy && !strcmp(a.policy, "ring") && size_value(a.max_size) < (1u << 20)) {
    ip_cli_msg m = {.cli = &cli};
    ip_cli_fail(&m, "--max-size %s is below 1M, too small for --max-size-policy ring", a.max_size);
    fprintf(stderr, "%s\n", m.text);
    return IP_EXIT_USAGE;
  }
  if ((a.snapshot_margin || a.snapshot_keep) && !a.snapshot_if[0]) {
    ip_cli_msg m = {.cli = &cli};
    ip_cli_fail(&m, "--snapshot-%s needs --snapshot-if FUNCTION>DURATION",
                a.snapshot_margin ? "margin" : "keep");
    fprintf(stderr, "%s\n", m.text);
    return IP_EXIT_USAGE;
  }
  if (a.snapshot_if[0] && a.policy && strcmp(a.policy, "ring")) {
    ip_cli_msg m = {.cli = &cli};
    ip_cli_fail(&m,
                "--snapshot-if takes its snapshots from the ring: --max-size-policy %s does "
                "not fit (leave it out, or say ring)",
                a.policy);
    fprintf(stderr, "%s\n", m.text);
    return IP_EXIT_USAGE;
  }
  char why[700];
  if (record_snapshot_check(a.snapshot_if, argv[first], why, sizeof why)) {
    fprintf(stderr, "inclprof record: bad --snapshot-if: %s\n", why);
    return IP_EXIT_USAGE;
  }
  if (a.user) {
    struct record_user u;
    if (record_user_lookup(a.user, &u) != 0)
      return IP_EXIT_USAGE;
    if (geteuid() != 0) {
      fprintf(stderr,
              "inclprof record: --user needs root (it runs PROG as %s and opens its kernel "
              "events): sudo inclprof record --user %s -- PROG\n",
              u.name, a.user);
      return IP_EXIT_USAGE;
    }
    if (u.uid != 0) {
      if (!a.mode || strcmp(a.mode, "none"))
        mount_tracefs_if_missing();
      if (record_user_start(&u, a.mode) != 0)
        return IP_EXIT_USAGE;
    }
  } else
    record_perfmon_exec(a.mode, argc, argv);
  size_t made_dir;
  if (!output_dir_usable(a.dir, &made_dir) || record_dir_set_aside(a.dir) != 0 || prepare_env(&a)) {
    remove_made_dirs(a.dir, made_dir);
    return IP_EXIT_USAGE;
  }
  int hold = record_hold_join(getenv(IP_ENV_TRANSITIONS)); /* set from --transitions */
  struct record_notes notes;
  record_notes_make(&notes);
  int status = run(argv + first, a.dir);
  record_notes_take(&notes);
  const char *note = notes.unrecorded;
  if (hold >= 0)
    close(hold);
  if (status < 0) {
    remove_made_dirs(a.dir, made_dir); /* nothing ran: leave no empty directory behind */
    return status == -2 ? 127 : IP_EXIT_USAGE;
  }
  ip_ctl_sweep(a.dir); /* sockets of processes killed before their runtime could remove them */
  struct record_tally t = record_dir_tally(a.dir, say_if_stopped_early);
  int n = t.files;
  int snaps = a.snapshot_if[0] ? record_dir_snapshots(a.dir) : 0;
  int interval_files = 0;
  char interval_first[4200];
  int interval_n = interval_dirs(a.dir, &interval_files, interval_first, sizeof interval_first);
  if (n && a.snapshot_if[0])
    fprintf(stderr,
            "inclprof: %d trace file%s written to %s/, %d snapshot%s of slow calls kept in "
            "%s/snapshots/ ('inclprof info %s' lists them) (status %d)\n",
            n, n > 1 ? "s" : "", a.dir, snaps, snaps == 1 ? "" : "s", a.dir, a.dir, status);
  else if (n && interval_n == 1)
    fprintf(stderr,
            "inclprof: %d trace file%s written to %s/, %d interval profile%s in %s/ ('inclprof "
            "info %s' lists them) (status %d)\n",
            n, n > 1 ? "s" : "", a.dir, interval_files, interval_files == 1 ? "" : "s",
            interval_first, a.dir, status);
  else if (n && interval_n > 1)
    fprintf(stderr,
            "inclprof: %d trace file%s written to %s/, %d interval profiles in %d directories "
            "%s/PID.intervals/ ('inclprof info %s' lists them) (status %d)\n",
            n, n > 1 ? "s" : "", a.dir, interval_files, interval_n, a.dir, a.dir, status);
  else if (n)
    fprintf(stderr, "inclprof: %d trace file%s written to %s/ (status %d)\n", n, n > 1 ? "s" : "",
            a.dir, status);
  else if (note[0])
    fprintf(stderr,
            "inclprof record: no trace was written to %s/: the runtime could not write it: %s "
            "(status %d)\n",
            a.dir, note, status);
  else
    fprintf(stderr,
            "inclprof record: no trace was written to %s/: %s ran no code compiled with the "
            "plugin with the runtime loaded (build it with -fplugin=inclprof; a static or "
            "setuid program ignores LD_PRELOAD: link it with -linclprof) (status %d)\n",
            a.dir, argv[first], status);
  if (n && notes.n_unrecorded > 1) /* several: the first one's words */
    fprintf(stderr, "inclprof record: %d processes of this run were not recorded; the first: %s\n",
            notes.n_unrecorded, note);
  else if (n && note[0]) /* the runtime of one process could not write: its words */
    fprintf(stderr, "inclprof record: a process of this run was not recorded: %s\n", note);
  if (t.running) {
    char pids[RECORD_TALLY_PIDS * 12] = "";
    for (int i = 0; i < t.running && i < RECORD_TALLY_PIDS; i++)
      snprintf(pids + strlen(pids), sizeof pids - strlen(pids), "%s%ld", i ? " " : "",
               t.running_pids[i]);
    fprintf(stderr,
            "inclprof: %d process%s of this run still running (pid %s%s): %s trace%s complete "
            "when %s exit%s\n",
            t.running, t.running > 1 ? "es" : "", pids, t.running > RECORD_TALLY_PIDS ? " ..." : "",
            t.running > 1 ? "their" : "its", t.running > 1 ? "s are" : " is",
            t.running > 1 ? "they" : "it", t.running > 1 ? "" : "s");
  }
  return status;
}
