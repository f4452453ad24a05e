/* cli/cmd_report.c - `inclprof report`: the data values as an aligned table per
 * function, module, thread or process, as a call tree, or as the callers /
 * callees of one function. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "util/cli_args.h"
#include "cli/commands.h"
#include "views/views.h"

static void usage(FILE *out) {
  fputs("usage: inclprof report [TRACE|DIR...] [OPTIONS]\n"
        "Print the data values of a profile: Elapsed Inclusive/Exclusive (all time),\n"
        "Application Inclusive/Exclusive (time without kernel activity), their\n"
        "percentages of the session's Elapsed / Application Inclusive totals, calls,\n"
        "per-call min/avg/max, and Inclusive/Exclusive samples when sampling was on.\n"
        "Default input: " IP_DEFAULT_INPUT " (a directory means every *.ipb file in it).\n\n"
        "  --by LEVEL       " IP_LEVEL_NAMES " (default function)\n"
        "  --sort COLUMN    " IP_SORT_NAMES "\n"
        "                   (default elapsed-inclusive)\n"
        "  --top N          only the first N rows (with --tree: N children per path)\n"
        "  --tree           the call tree per thread, values per call path\n"
        "  --callers FN     who called FN, and FN's time under each caller\n"
        "  --callees FN     what FN called, and their time when called from FN\n"
        "  --thread TID     only threads with this tid\n"
        "  --process PID    only this process\n"
        "  --raw            keep probe cost and runtime gaps (no compensation)\n"
        "  --samples        show the sample columns even without sampling data\n"
        "  -h, --help       this text\n\n"
        "Exit status: 0 ok, 1 unusable input, 2 bad usage, 3 printed from a damaged\n"
        "trace (read up to the damage, which is named on stderr).\n",
        out);
}

enum { OPT_BY = 256, OPT_SORT, OPT_TOP, OPT_TREE, OPT_CALLERS, OPT_CALLEES, OPT_THREAD,
       OPT_PROCESS, OPT_RAW, OPT_SAMPLES };

static const struct option options[] = {
    {"by", required_argument, NULL, OPT_BY},
    {"sort", required_argument, NULL, OPT_SORT},
    {"top", required_argument, NULL, OPT_TOP},
    {"tree", no_argument, NULL, OPT_TREE},
    {"callers", required_argument, NULL, OPT_CALLERS},
    {"callees", required_argument, NULL, OPT_CALLEES},
    {"thread", required_argument, NULL, OPT_THREAD},
    {"process", required_argument, NULL, OPT_PROCESS},
    {"raw", no_argument, NULL, OPT_RAW},
    {"samples", no_argument, NULL, OPT_SAMPLES},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

typedef struct report_args {
  ip_view_opts view;
  int tree, raw, samples;
  const char *fn;
  int callees;
} report_args;

static int bad(const char *what, const char *value) {
  fprintf(stderr, "inclprof report: bad %s '%s' (try 'inclprof report --help')\n", what, value);
  return -1;
}

static int parse_option(report_args *a, int c, const char *arg) {
  uint64_t n;
  switch (c) {
  case OPT_BY:
    return ip_level_parse(arg, &a->view.by) ? bad("--by level", arg) : 0;
  case OPT_SORT:
    return ip_sort_parse(arg, &a->view.sort) ? bad("--sort column", arg) : 0;
  case OPT_TOP:
    if (ip_parse_u64(arg, SIZE_MAX, &n))
      return bad("--top count", arg);
    a->view.top = (size_t)n;
    return 0;
  case OPT_THREAD:
  case OPT_PROCESS:
    if (ip_parse_u64(arg, UINT32_MAX, &n))
      return bad(c == OPT_THREAD ? "--thread tid" : "--process pid", arg);
    if (c == OPT_THREAD) {
      a->view.sel.has_tid = 1;
      a->view.sel.tid = (uint32_t)n;
    } else {
      a->view.sel.has_pid = 1;
      a->view.sel.pid = (uint32_t)n;
    }
    return 0;
  case OPT_CALLERS:
  case OPT_CALLEES:
    a->fn = arg;
    a->callees = c == OPT_CALLEES;
    return 0;
  case OPT_TREE:
    a->tree = 1;
    return 0;
  case OPT_RAW:
    a->raw = 1;
    return 0;
  case OPT_SAMPLES:
    a->samples = 1;
    return 0;
  default:
    fprintf(stderr, "inclprof report: bad option (try 'inclprof report --help')\n");
    return -1;
  }
}

int cmd_report(int argc, char **argv) {
  report_args a;
  memset(&a, 0, sizeof a);
  a.view.by = IP_BY_FUNCTION;
  a.view.sort = IP_SORT_ELAPSED_INCL;
  optind = 0;
  int c;
  while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
    if (c == 'h') {
      usage(stdout);
      return IP_EXIT_OK;
    }
    if (parse_option(&a, c, optarg))
      return IP_EXIT_USAGE;
  }
  ip_session s;
  ip_load_opts lo = {.raw = a.raw};
  if (ip_load_inputs(&s, argc, argv, optind, &lo))
    return IP_EXIT_ERROR;
  a.view.samples = a.samples || ip_session_sampled(&s);
  ip_view_header(stdout, &s, &a.view);
  int rc = ip_exit_status(&s);
  if (a.fn) {
    if (ip_view_callers(stdout, &s, &a.view, a.fn, a.callees)) {
      fprintf(stderr, "inclprof report: no function named '%s' ran (names are the demangled or "
                      "assembler names of the table)\n", a.fn);
      rc = IP_EXIT_ERROR;
    }
  } else if (a.tree) {
    ip_view_tree(stdout, &s, &a.view);
  } else {
    ip_view_table(stdout, &s, &a.view);
  }
  ip_session_free(&s);
  return rc;
}
