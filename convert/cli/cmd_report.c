/* cli/cmd_report.c - `inclprof report`: the data values as an aligned table per
 * function, module, thread or process, as a call tree, or as the callers /
 * callees of one function. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_args.h"
#include "cli/commands.h"
#include "views/views.h"

enum {
  OPT_BY = 256,
  OPT_SORT,
  OPT_TOP,
  OPT_TREE,
  OPT_CALLERS,
  OPT_CALLEES,
  OPT_SAMPLES,
  OPT_WAIT,
  OPT_MISSING,
  OPT_PER_CALL,
  OPT_EXCLUSIVE,
  OPT_FUNCTION,
  OPT_DEPTH,
  OPT_MIN_PERCENT,
  OPT_LATENCY,
  OPT_SLOWEST,
  OPT_VALUE,
  OPT_CRITICAL,
  OPT_WHAT_IF,
  OPT_FIELDS,
  OPT_WIDE,
  OPT_VERBOSE,
  OPT_HOT,
  OPT_OPERATIONS
};

static const ip_cli_opt options[] = {
    {"by", OPT_BY, "LEVEL",
     IP_LEVEL_NAMES " (default function), or\n"
                    "line|address: Exclusive samples per source line / instruction"},
    {"function", OPT_FUNCTION, "FN", "with --by line|address: only the lines of FN"},
    {"sort", OPT_SORT, "COLUMN", IP_SORT_NAMES "\n(default elapsed-inclusive)"},
    {"top", OPT_TOP, "N", "only the first N rows (with --tree: N children per path)"},
    {"tree", OPT_TREE, NULL,
     "the call tree per thread, values per call path, children by the tree's\n"
     "value: Elapsed Inclusive, or Application Inclusive (--value application\n"
     "or an application --sort), or Inclusive samples (a samples --sort)"},
    {"depth", OPT_DEPTH, "N",
     "with --tree: only the call paths down to N levels (--hot: the path\n"
     "cut at level N)"},
    {"min-percent", OPT_MIN_PERCENT, "P",
     "with --tree: leave out the subtrees under P % of the session's total\n"
     "of the tree's value (--hot: the path stops where it drops under P %)"},
    {"hot", OPT_HOT, NULL,
     "with --tree: only the hottest path, each level's child of most value,\n"
     "to its end or to where --depth or --min-percent cut it; --top N: N\n"
     "children a level, the N-1 beside the path collapsed"},
    {"callers", OPT_CALLERS, "FN", "who called FN, and FN's time under each caller"},
    {"callees", OPT_CALLEES, "FN", "what FN called, and their time when called from FN"},
    IP_CLI_SELECTION_OPTS,
    IP_CLI_RAW_OPT,
    IP_CLI_JOBS_OPT,
    {"samples", OPT_SAMPLES, NULL, "show the sample columns even without sampling data"},
    {"per-call", OPT_PER_CALL, NULL, "the average, minimum and maximum Elapsed time of a call"},
    {"exclusive", OPT_EXCLUSIVE, NULL, "with --wait: the exclusive breakdown too"},
    {"missing", OPT_MISSING, NULL,
     "the program's functions that have no row, and why\n"
     "(inlined into their callers, unused, excluded, below min-size)"},
    {"wait", OPT_WAIT, NULL,
     "where the non-Application time went: off-CPU preempted, off-CPU blocked,\n"
     "system calls, page faults (time and count); needs kevents"},
    {"critical", OPT_CRITICAL, NULL,
     "what the wall time waited on: per function its time on the critical path\n"
     "across threads (Critical Exclusive / Inclusive), then the waits the path\n"
     "went through; needs kevents with wake-ups (record as root)"},
    {"what-if", OPT_WHAT_IF, "FN=FACTOR",
     "an estimate of the wall time had FN's running time been FACTOR times\n"
     "shorter (2: twice as fast), from the threads' timelines and wake-ups;\n"
     "needs kevents with wake-ups"},
    {"latency", OPT_LATENCY, NULL,
     "per function (with --tree: per call path) the distribution of its calls'\n"
     "Inclusive time: p50, p90, p99, p99.9, max and a histogram"},
    {"slowest", OPT_SLOWEST, "FN",
     "FN's slowest calls (--top N of them, default 10): when, on which thread,\n"
     "and where each one's time went"},
    {"operations", OPT_OPERATIONS, NULL,
     "per coroutine, its operations (one per frame, from the ramp to the final\n"
     "suspension, across threads): count, runs, latency (total, p50, p90, p99,\n"
     "max), time ran and time suspended"},
    {"value", OPT_VALUE, "elapsed|application",
     "with --latency, --slowest and --tree: the time they rank (default elapsed)"},
    {"fields", OPT_FIELDS, "LIST",
     "the columns, in this order, of:\n" IP_FIELD_NAMES "\n"
     "(default: the full set, or the compact one where\n"
     "the full set leaves names under 40 characters)"},
    {"wide", OPT_WIDE, NULL, "whole names and every column, however wide the lines"},
    {"verbose", OPT_VERBOSE, NULL, "a header line for each process, never one for many"},
};

static const ip_cli cli = {
    .name = "report",
    .synopsis = "[TRACE|DIR...] [OPTIONS]",
    .intro = "Print the data values of a profile: Elapsed Inclusive/Exclusive (all time),\n"
             "Application Inclusive/Exclusive (time without kernel activity), their\n"
             "percentages of the session's Elapsed / Application Inclusive totals, calls,\n"
             "per-call min/avg/max with --per-call, and Inclusive/Exclusive samples when\n"
             "sampling was on.\n"
             "Default input: " IP_DEFAULT_INPUT " (a directory means every *.ipb file in it).",
    .epilog = "Exit status: 0 ok, 1 unusable input, 2 bad usage, 3 printed from a damaged\n"
              "trace (read around the damage, which is named on stderr).",
    .opts = options,
    .n_opts = sizeof options / sizeof options[0],
};

typedef struct report_args {
  ip_view_opts view;
  int tree, raw, samples, wait, missing, critical, operations;
  char what_if[512];     /* --what-if's function */
  double what_if_factor; /* ... and factor */
  const char *fn;
  const char *slowest; /* --slowest FN */
  int callees;
  int lines;             /* --by line: 1, --by address: 2 */
  const char *in_fn;     /* --function */
  const char *view_name; /* the view option given (--tree, --callers, ...), or NULL */
  const char *tree_opt;  /* --depth, --min-percent or --hot, which need --tree */
  const char *sort_arg;  /* --sort's and --value's words, or NULL */
  const char *value_arg;
  unsigned jobs;
  int wide;
} report_args;

/* --tree, --callers, --callees and --wait each choose the whole view. */
static int choose_view(report_args *a, const char *name, ip_cli_msg *m) {
  if (a->view_name && strcmp(a->view_name, name))
    return ip_cli_fail(m, "%s and %s are different views; give one of them", a->view_name, name);
  a->view_name = name;
  return 0;
}

static int on_option(void *ctx, int id, const char *arg, ip_cli_msg *m) {
  report_args *a = ctx;
  uint64_t n;
  switch (id) {
  case OPT_BY:
    a->lines = !strcmp(arg, "line") ? 1 : !strcmp(arg, "address") ? 2 : 0;
    if (a->lines)
      return 0;
    return ip_level_parse(arg, &a->view.by) ? ip_cli_fail(m, "bad --by level '%s'", arg) : 0;
  case OPT_FUNCTION:
    a->in_fn = arg;
    return 0;
  case OPT_SORT:
    a->sort_arg = arg;
    return ip_sort_parse(arg, &a->view.sort) ? ip_cli_fail(m, "bad --sort column '%s'", arg) : 0;
  case OPT_TOP:
    if (ip_parse_u64(arg, SIZE_MAX, &n))
      return ip_cli_fail(m, "bad --top count '%s'", arg);
    a->view.top = (size_t)n;
    return 0;
  case OPT_CALLERS:
  case OPT_CALLEES:
    a->fn = arg;
    a->callees = id == OPT_CALLEES;
    return choose_view(a, a->callees ? "--callees" : "--callers", m);
  case OPT_TREE:
    a->tree = 1;
    return choose_view(a, "--tree", m);
  case OPT_DEPTH:
    if (ip_parse_u64(arg, SIZE_MAX, &n) || !n)
      return ip_cli_fail(m, "bad --depth '%s' (a number of levels from 1)", arg);
    a->view.depth = (size_t)n;
    a->tree_opt = "--depth";
    return 0;
  case OPT_MIN_PERCENT: {
    char *end;
    errno = 0;
    double p = strtod(arg, &end);
    if (errno || end == arg || *end || !(p >= 0 && p <= 100))
      return ip_cli_fail(m, "bad --min-percent '%s' (a percentage, 0 to 100)", arg);
    a->view.min_percent = p;
    a->tree_opt = "--min-percent";
    return 0;
  }
  case IP_CLI_RAW:
    a->raw = 1;
    return 0;
  case OPT_SAMPLES:
    a->samples = 1;
    return 0;
  case OPT_PER_CALL:
    a->view.per_call = 1;
    return 0;
  case OPT_EXCLUSIVE:
    a->view.exclusive = 1;
    return 0;
  case OPT_MISSING:
    a->missing = 1;
    return choose_view(a, "--missing", m);
  case OPT_WAIT:
    a->wait = 1;
    return choose_view(a, "--wait", m);
  case OPT_OPERATIONS:
    a->operations = 1;
    return choose_view(a, "--operations", m);
  case OPT_LATENCY:
    a->view.latency = 1;
    return 0;
  case OPT_CRITICAL:
    a->critical = 1;
    return choose_view(a, "--critical", m);
  case OPT_WHAT_IF: {
    const char *eq = strrchr(arg, '=');
    char *end = NULL;
    double f = eq ? strtod(eq + 1, &end) : 0;
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof a->what_if || end == eq + 1 || *end ||
        !(f > 0) || f > 1e9)
      return ip_cli_fail(m, "bad --what-if '%s' (FUNCTION=FACTOR, e.g. word_table_add=2)", arg);
    memcpy(a->what_if, arg, (size_t)(eq - arg));
    a->what_if[eq - arg] = 0;
    a->what_if_factor = f;
    a->critical = 1;
    return choose_view(a, "--what-if", m);
  }
  case OPT_SLOWEST:
    a->slowest = arg;
    return choose_view(a, "--slowest", m);
  case OPT_VALUE:
    if (strcmp(arg, "elapsed") && strcmp(arg, "application"))
      return ip_cli_fail(m, "bad --value '%s' (elapsed or application)", arg);
    a->view.app_value = !strcmp(arg, "application");
    a->value_arg = arg;
    return 0;
  case IP_CLI_JOBS:
    return ip_cli_jobs_opt(&a->jobs, arg, m);
  case OPT_FIELDS: {
    char why[128];
    if (!ip_fields_parse(arg, &a->view.fields, why, sizeof why))
      return 0;
    return ip_cli_fail(m, "bad --fields '%s': %s", arg, why); /* --help lists them */
  }
  case OPT_WIDE:
    a->wide = 1;
    return 0;
  case OPT_VERBOSE:
    a->view.verbose = 1;
    return 0;
  case OPT_HOT:
    a->view.hot = 1;
    a->tree_opt = "--hot";
    return 0;
  default:
    return ip_cli_selection_opt(&a->view.sel, id, arg, m);
  }
}

/* The value a --sort column names for the tree: 0 Elapsed, 1 Application,
 * 2 samples, -1 none. */
static int sort_kind(ip_sort by) {
  switch (by) {
  case IP_SORT_ELAPSED_INCL:
  case IP_SORT_ELAPSED_EXCL:
    return 0;
  case IP_SORT_APP_INCL:
  case IP_SORT_APP_EXCL:
    return 1;
  case IP_SORT_SAMPLES_INCL:
  case IP_SORT_SAMPLES_EXCL:
    return 2;
  default:
    return -1;
  }
}

/* --tree: the traces read again, each file's threads' trees written as the
 * file is read (s: the first read's session, for the totals, names and
 * titles) and then freed.  Returns the exit status (rc unless the second
 * read fails). */
static int tree_again(const ip_session *s, const ip_view_opts *view, const ip_load_opts *first_load,
                      int argc, char **argv, int first, int rc) {
  ip_tree_stream ts = {stdout, s, view, 0};
  ip_load_opts lo = *first_load;
  lo.keep = IP_KEEP_TOTALS;
  lo.fold = 0;
  lo.quiet = 1; /* the first read gave the warnings */
  lo.file_done = ip_view_tree_file;
  lo.file_done_ctx = &ts;
  ip_session again;
  if (ip_load_inputs(&again, argc, argv, first, &lo))
    return IP_EXIT_ERROR;
  ip_session_free(&again);
  if (ts.changed) {
    fprintf(stderr, "inclprof report: the traces changed while --tree read them a second time "
                    "(is a recording still writing them?); report them again once it ended\n");
    return IP_EXIT_ERROR;
  }
  return rc;
}

int cmd_report(int argc, char **argv) {
  report_args a;
  memset(&a, 0, sizeof a);
  a.view.by = IP_BY_FUNCTION;
  a.view.sort = IP_SORT_ELAPSED_INCL;
  a.jobs = ip_cli_default_jobs();
  int first;
  int rc = ip_cli_parse_or_exit(&cli, argc, argv, on_option, &a, &first);
  if (rc >= 0)
    return rc;
  if (a.in_fn && !a.lines) {
    fprintf(stderr, "inclprof report: --function goes with --by line or --by address\n");
    return IP_EXIT_USAGE;
  }
  if (a.tree_opt && !a.tree) {
    fprintf(stderr, "inclprof report: %s goes with --tree\n", a.tree_opt);
    return IP_EXIT_USAGE;
  }
  if (a.view.latency && a.view_name && !a.tree) {
    fprintf(stderr, "inclprof report: --latency goes with the table or --tree, not with %s\n",
            a.view_name);
    return IP_EXIT_USAGE;
  }
  if (a.tree && a.sort_arg && a.value_arg && sort_kind(a.view.sort) >= 0 &&
      sort_kind(a.view.sort) != a.view.app_value) {
    fprintf(stderr,
            "inclprof report: --sort %s and --value %s name different values for the tree; give "
            "one of them\n",
            a.sort_arg, a.value_arg);
    return IP_EXIT_USAGE;
  }
  if (a.view.fields.n &&
      (a.lines || a.view.latency || a.slowest || a.missing || a.critical || a.operations)) {
    fprintf(stderr,
            "inclprof report: --fields chooses the columns of the table, --tree, --callers, "
            "--callees and --wait, not of %s\n",
            a.lines          ? "--by line|address"
            : a.view.latency ? "--latency"
            : a.slowest      ? "--slowest"
            : a.missing      ? "--missing"
                             : a.view_name);
    return IP_EXIT_USAGE;
  }
  char bad[160];
  if (a.view.fields.n &&
      ip_fields_check(&a.view.fields, a.tree || a.fn ? IP_BY_FUNCTION : a.view.by, bad,
                      sizeof bad)) {
    fprintf(stderr, "inclprof report: --fields: %s\n", bad);
    return IP_EXIT_USAGE;
  }
  if (a.lines && a.view_name) {
    fprintf(stderr, "inclprof report: --by %s and %s are different views; give one of them\n",
            a.lines == 1 ? "line" : "address", a.view_name);
    return IP_EXIT_USAGE;
  }
  ip_session s;
  /* The table, --wait and --missing show no call path: a thread keeps its
   * sums, and without a selection of threads or processes only the
   * session's sums of each function and module are needed.  --critical
   * names the calls that waited by their call paths. */
  ip_load_opts lo = {.raw = a.raw, .jobs = a.jobs, .operations = a.operations};
  /* --tree reads the traces twice: first its totals, as the table does,
   * then each file's trees, written and freed as the file is read. */
  int tree = a.tree && !a.lines && !a.fn && !a.slowest && !a.missing && !a.wait && !a.operations &&
             !a.what_if[0] && !a.critical;
  if (!a.lines && (!a.tree || tree) && !a.slowest && !a.critical)
    lo.keep = a.view.sel.has_tid || a.view.sel.has_pid || a.view.sel.has_range ? IP_KEEP_SUMS
                                                                               : IP_KEEP_TOTALS;
  /* no path is shown: memory by the paths without recursion */
  lo.fold = lo.keep == IP_KEEP_TOTALS && !a.fn;
  /* --callers and --callees sum each file's trees as it is read, then free them */
  ip_callers callers;
  if (a.fn) {
    ip_callers_init(&callers, a.fn, a.callees, &a.view.sel);
    lo.file_done = ip_callers_file;
    lo.file_done_ctx = &callers;
  }
  if (a.view.latency)
    lo.latency = a.view.app_value ? IP_LAT_APPLICATION : IP_LAT_ELAPSED;
  ip_slowest slow;
  if (a.slowest) { /* a first read finds the slowest calls, the second what ran inside */
    ip_slowest_init(&slow, a.slowest, a.view.top ? a.view.top : 10, a.view.app_value);
    lo.visitor = ip_slowest_visitor(&slow);
    if (ip_load_inputs(&s, argc, argv, first, &lo)) {
      ip_slowest_free(&slow);
      return IP_EXIT_ERROR;
    }
    const ip_process *agg = ip_session_aggregate(&s);
    if (agg) { /* its calls were summed in the process */
      fprintf(stderr,
              "inclprof report: --slowest needs a trace: %s is an aggregate profile (recorded "
              "with --aggregate), which keeps no single call; record without --aggregate\n",
              agg->trace_path);
      ip_session_free(&s);
      ip_slowest_free(&slow);
      return IP_EXIT_USAGE;
    }
    ip_session_free(&s);
    if (!ip_slowest_found(&slow)) {
      fprintf(stderr,
              "inclprof report: no call of '%s' ended in the traces (names are the demangled or "
              "assembler names of the table; 'inclprof report' lists them)\n",
              a.slowest);
      ip_slowest_free(&slow);
      return IP_EXIT_ERROR;
    }
  }
  ip_critical crit = {0};
  if (a.what_if[0])
    crit.what_if = a.what_if;
  if (a.critical ? ip_load_inputs_critical(&s, argc, argv, first, &lo, &crit)
                 : ip_load_inputs(&s, argc, argv, first, &lo)) {
    if (a.slowest)
      ip_slowest_free(&slow);
    if (a.fn)
      ip_callers_free(&callers);
    ip_critical_free(&crit);
    return IP_EXIT_ERROR;
  }
  const ip_process *agg = ip_session_aggregate(&s);
  if (agg && a.critical) {
    fprintf(stderr,
            "inclprof report: %s needs a trace: %s is an aggregate profile (recorded with "
            "--aggregate), which keeps no wake-up of one thread by another; record without "
            "--aggregate\n",
            a.view_name, agg->trace_path);
    ip_session_free(&s);
    ip_critical_free(&crit);
    return IP_EXIT_USAGE;
  }
  if (agg && a.view.latency && a.view.app_value) {
    fprintf(stderr,
            "inclprof report: --latency --value application needs a trace: %s is an aggregate "
            "profile, which keeps the calls' Elapsed distribution only (report --latency)\n",
            agg->trace_path);
    ip_session_free(&s);
    ip_critical_free(&crit);
    return IP_EXIT_USAGE;
  }
  if (a.critical && !crit.any_edges) {
    fprintf(stderr,
            "inclprof report: %s needs the threads' wake-ups, which these traces do not "
            "have (record in kevents mode as root, with this version: 'inclprof info' says "
            "\"wake-ups\" under transitions)\n",
            a.view_name);
    ip_session_free(&s);
    ip_critical_free(&crit);
    return IP_EXIT_ERROR;
  }
  if (a.critical && a.view.sort == IP_SORT_ELAPSED_INCL && !a.sort_arg)
    a.view.sort = IP_SORT_CRIT_EXCL;
  char why[128];
  if (ip_selection_check(&s, &a.view.sel, why, sizeof why)) {
    fprintf(stderr, "inclprof report: %s in %s%s (inclprof info lists them)\n", why,
            first < argc ? argv[first] : IP_DEFAULT_INPUT,
            argc - first > 1 ? " and the other traces" : "");
    if (a.fn)
      ip_callers_free(&callers);
    ip_session_free(&s);
    return IP_EXIT_ERROR;
  }
  a.view.samples = a.samples || ip_session_sampled(&s);
  a.view.width = a.wide ? 0 : ip_cli_terminal_width();
  ip_skipped skipped;
  ip_skipped_load(&s, &skipped);
  a.view.skipped = &skipped;
  ip_view_header(stdout, &s, &a.view);
  rc = ip_exit_status(&s);
  if (a.lines) {
    if (ip_view_lines(stdout, &s, &a.view, a.in_fn, a.lines == 2)) {
      fprintf(stderr,
              "inclprof report: no sample with an instruction address%s%s (record with "
              "--sample-hz N; traces of runtimes before this one have none)\n",
              a.in_fn ? " in " : "", a.in_fn ? a.in_fn : "");
      rc = IP_EXIT_ERROR;
    }
  } else if (a.fn) {
    if (ip_callers_print(stdout, &s, &a.view, &callers)) {
      fprintf(stderr,
              "inclprof report: no function named '%s' ran (names are the demangled or "
              "assembler names of the table)\n",
              a.fn);
      rc = IP_EXIT_ERROR;
    }
  } else if (a.slowest) {
    ip_view_slowest(stdout, &s, &a.view, &slow);
    ip_slowest_free(&slow);
  } else if (a.missing) {
    ip_view_missing(stdout, &skipped, a.view.width);
  } else if (a.wait) {
    ip_view_wait(stdout, &s, &a.view);
  } else if (a.operations) {
    if (ip_view_operations(stdout, &s, &a.view)) {
      fprintf(stderr, "inclprof report: no coroutine operation in the traces (a coroutine body's "
                      "frame is recorded from trace format 1.2 on, by units built with this "
                      "plugin)\n");
      rc = IP_EXIT_ERROR;
    }
  } else if (a.what_if[0]) {
    ip_view_what_if(stdout, &s, &crit, a.what_if, a.what_if_factor);
  } else if (a.critical) {
    ip_view_critical(stdout, &s, &a.view, &crit);
  } else if (tree) {
    rc = tree_again(&s, &a.view, &lo, argc, argv, first, rc);
  } else if (a.view.latency) {
    ip_view_latency(stdout, &s, &a.view);
  } else {
    ip_view_table(stdout, &s, &a.view);
  }
  ip_skipped_free(&skipped);
  ip_session_free(&s);
  ip_critical_free(&crit);
  return rc;
}
