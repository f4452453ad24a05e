/* cli/export_options.c - the command line of `inclprof export` (see
 * cli/export_options.h).  The format-specific options' ids are 256 + the bit
 * number of their IP_EXOPT_* flag, so "does this option fit this format" is
 * one test against ip_exporter.options. */
#include "cli/export_options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "size_syntax.h"

#define EXOPT_ID(bit) (256 + __builtin_ctz(bit))
#define EXOPT_BIT(id) (1u << ((id)-256))

enum { OPT_FORMAT = 'f', OPT_OUTPUT = 'o' };

/* Help texts of format-specific options get "FORMATS: " in front. */
static const ip_cli_opt options[] = {
    {"format", OPT_FORMAT, "F", NULL}, /* help made from the list of formats */
    {"output", OPT_OUTPUT, "FILE", NULL},
    IP_CLI_RAW_OPT,
    IP_CLI_JOBS_OPT,
    IP_CLI_SELECTION_OPTS,
    {"by", EXOPT_ID(IP_EXOPT_BY), "LEVEL", "one row per LEVEL (" IP_LEVEL_NAMES ")"},
    {"merge-threads", EXOPT_ID(IP_EXOPT_MERGE_THREADS), NULL, "merge the threads' call paths"},
    {"value", EXOPT_ID(IP_EXOPT_VALUE), "V",
     "V = elapsed (default), application or samples:\n"
     "the folded value, pprof's default sample type, callgrind's first event,\n"
     "the weights of speedscope's merged profile"},
    {"min-duration", EXOPT_ID(IP_EXOPT_MIN_DURATION), "D",
     "leave out calls shorter than D (e.g. 500ns, 20us, 1ms)"},
    {"max-events", EXOPT_ID(IP_EXOPT_MAX_EVENTS), "N", "write the N longest calls"},
    {"max-size", EXOPT_ID(IP_EXOPT_MAX_SIZE), "SIZE",
     "write the longest calls that fit in SIZE bytes\n"
     "(e.g. 64M, 1G; default 256M, speedscope 128M; 0: every call)"},
    {"time-range", EXOPT_ID(IP_EXOPT_TIME_RANGE), "A:B",
     "only calls overlapping [A,B) after the session start\n"
     "(either end may be empty, e.g. 1ms:  or :2.5s)"},
    {"slowest", EXOPT_ID(IP_EXOPT_SLOWEST), "FN",
     "only FN's slowest calls (by Elapsed Inclusive time)\n"
     "and what ran inside them"},
    {"slowest-calls", EXOPT_ID(IP_EXOPT_SLOWEST_CALLS), "N",
     "with --slowest: how many (default 10)"},
    {"critical", EXOPT_ID(IP_EXOPT_CRITICAL), NULL,
     "the wake-ups as flow arrows (waker -> woken) and a\n"
     "critical-path track per process; needs kevents with wake-ups"},
};
#define N_OPTIONS (sizeof options / sizeof options[0])

static const ip_cli cli = {
    .name = "export",
    .synopsis = "--format FORMAT [OPTIONS] [TRACE|DIR...]",
    .intro = "Writes the profile of the traces (default: " IP_DEFAULT_INPUT
             ") in another tool's format.",
    .epilog =
        "Exit status: 0 ok, 1 unusable input or output, 2 bad usage, 3 written from a damaged "
        "trace.",
    .opts = options,
    .n_opts = N_OPTIONS,
};

/* Appends item to buf, separated by sep, starting a continuation line when
 * the current one would pass 60 columns. */
static void append_wrapped(char *buf, size_t len, const char *sep, const char *item) {
  size_t at = strlen(buf);
  const char *line = strrchr(buf, '\n');
  size_t col = at - (line ? (size_t)(line + 1 - buf) : 0);
  int wrap = *sep == ',' && col + strlen(sep) + strlen(item) > 60;
  snprintf(buf + at, len - at, "%s%s", wrap ? ",\n" : sep, item);
}

void ip_export_usage(FILE *out) {
  static char helps[N_OPTIONS][320];
  ip_cli_opt opts[N_OPTIONS];
  memcpy(opts, options, sizeof opts);
  helps[0][0] = helps[1][0] = 0;
  strcpy(helps[1], "where to write ('-' = stdout); default");
  for (const ip_exporter *const *e = ip_exporters; *e; e++) {
    char item[96];
    snprintf(item, sizeof item, "%s (%s)", (*e)->name, (*e)->readers);
    append_wrapped(helps[0], sizeof helps[0], e == ip_exporters ? "" : ", ", item);
    append_wrapped(helps[1], sizeof helps[1], e == ip_exporters ? " " : ", ", (*e)->default_output);
  }
  for (size_t i = 0; i < N_OPTIONS; i++) {
    if (opts[i].id >= 256) {
      char names[128];
      ip_exporter_names(EXOPT_BIT(opts[i].id), names, sizeof names);
      snprintf(helps[i], sizeof helps[i], "%s: %s", names, opts[i].help);
    }
    if (helps[i][0])
      opts[i].help = helps[i];
  }
  ip_cli shown = cli;
  shown.opts = opts;
  ip_cli_usage(&shown, out);
}

int ip_parse_duration(const char *text, uint64_t *ns) {
  static const struct {
    const char *suffix;
    double scale;
  } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"", 1}};
  char *end;
  if (!text || !*text || *text == '-' || *text == '+')
    return -1;
  errno = 0;
  double v = strtod(text, &end);
  if (errno || end == text || !isfinite(v) || v < 0)
    return -1;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (strcmp(end, units[i].suffix))
      continue;
    double scaled = v * units[i].scale;
    if (scaled >= 18446744073709551615.0)
      return -1;
    *ns = (uint64_t)llround(scaled);
    return 0;
  }
  return -1;
}

static int parse_time_range(const char *text, ip_selection *sel) {
  const char *colon = strchr(text, ':');
  if (!colon)
    return -1;
  char first[64];
  size_t n = (size_t)(colon - text);
  if (n >= sizeof first)
    return -1;
  memcpy(first, text, n);
  first[n] = 0;
  sel->start_ns = 0;
  sel->end_ns = UINT64_MAX;
  if (n && ip_parse_duration(first, &sel->start_ns))
    return -1;
  if (colon[1] && ip_parse_duration(colon + 1, &sel->end_ns))
    return -1;
  sel->has_range = 1;
  return sel->start_ns < sel->end_ns ? 0 : -1;
}

static int parse_value(const char *arg, ip_export_value *v) {
  static const char *const names[] = {[IP_VALUE_ELAPSED] = "elapsed",
                                      [IP_VALUE_APPLICATION] = "application",
                                      [IP_VALUE_SAMPLES] = "samples"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(arg, names[i])) {
      *v = (ip_export_value)i;
      return 0;
    }
  return -1;
}

typedef struct parse_state {
  ip_export_args *a;
  unsigned given; /* IP_EXOPT_* seen */
} parse_state;

/* The format-specific options. */
static int on_format_option(ip_export_opts *o, int id, const char *arg, ip_cli_msg *m) {
  switch (EXOPT_BIT(id)) {
  case IP_EXOPT_BY:
    return ip_level_parse(arg, &o->by)
               ? ip_cli_fail(m, "unknown --by '%s' (" IP_LEVEL_NAMES ")", arg)
               : 0;
  case IP_EXOPT_MERGE_THREADS:
    o->merge_threads = 1;
    return 0;
  case IP_EXOPT_VALUE:
    return parse_value(arg, &o->value)
               ? ip_cli_fail(m, "unknown --value '%s' (elapsed, application or samples)", arg)
               : 0;
  case IP_EXOPT_MIN_DURATION:
    return ip_parse_duration(arg, &o->min_duration_ns)
               ? ip_cli_fail(m, "bad --min-duration '%s' (a duration such as 500ns, 20us, 1ms)",
                             arg)
               : 0;
  case IP_EXOPT_MAX_EVENTS:
    return ip_parse_u64(arg, UINT64_MAX, &o->max_events) || !o->max_events
               ? ip_cli_fail(m, "bad --max-events '%s' (a positive number)", arg)
               : 0;
  case IP_EXOPT_MAX_SIZE:
    if (ip_size_parse(arg, &o->max_size))
      return ip_cli_fail(
          m, "bad --max-size '%s' (bytes, or with K, M, G, T: e.g. 64M; 0 = no limit)", arg);
    if (!o->max_size)
      o->max_size = UINT64_MAX;
    return 0;
  case IP_EXOPT_SLOWEST:
    o->slowest = arg;
    return 0;
  case IP_EXOPT_CRITICAL:
    o->critical = 1;
    return 0;
  case IP_EXOPT_SLOWEST_CALLS:
    return ip_parse_u64(arg, 1000000, &o->slowest_calls) || !o->slowest_calls
               ? ip_cli_fail(m, "bad --slowest-calls '%s' (a positive number)", arg)
               : 0;
  default: /* IP_EXOPT_TIME_RANGE */
    return parse_time_range(arg, &o->sel)
               ? ip_cli_fail(m, "bad --time-range '%s' (A:B with durations, A < B, e.g. 1ms:2ms)",
                             arg)
               : 0;
  }
}

static int on_option(void *ctx, int id, const char *arg, ip_cli_msg *m) {
  parse_state *st = ctx;
  ip_export_args *a = st->a;
  char names[128];
  switch (id) {
  case OPT_FORMAT:
    a->format = ip_exporter_find(arg);
    ip_exporter_names(0, names, sizeof names);
    return a->format ? 0 : ip_cli_fail(m, "unknown format '%s' (%s)", arg, names);
  case OPT_OUTPUT:
    a->output = arg;
    return 0;
  case IP_CLI_RAW:
    a->raw = 1;
    return 0;
  case IP_CLI_JOBS:
    return ip_cli_jobs_opt(&a->jobs, arg, m);
  case IP_CLI_THREAD:
  case IP_CLI_PROCESS:
    return ip_cli_selection_opt(&a->opts.sel, id, arg, m);
  default:
    st->given |= EXOPT_BIT(id);
    return on_format_option(&a->opts, id, arg, m);
  }
}

/* Every format-specific option given must be one the format accepts. */
static int check_fit(const ip_export_args *a, unsigned given, ip_cli_msg *m) {
  for (size_t i = 0; i < N_OPTIONS; i++) {
    int id = options[i].id;
    if (id < 256 || !(given & EXOPT_BIT(id)) || (a->format->options & EXOPT_BIT(id)))
      continue;
    char names[128];
    ip_exporter_names(EXOPT_BIT(id), names, sizeof names);
    return ip_cli_fail(m, "--%s applies to --format %s, not %s", options[i].name, names,
                       a->format->name);
  }
  return 0;
}

int ip_export_parse_args(int argc, char **argv, ip_export_args *a, ip_cli_msg *m) {
  memset(a, 0, sizeof *a);
  a->jobs = ip_cli_default_jobs();
  parse_state st = {.a = a};
  int first;
  int rc = ip_cli_parse(&cli, argc, argv, on_option, &st, &first, m);
  if (rc != IP_CLI_OK)
    return rc;
  if (!a->format) {
    char names[128];
    ip_exporter_names(0, names, sizeof names);
    return ip_cli_fail(m, "missing --format (%s)", names);
  }
  if (check_fit(a, st.given, m))
    return IP_CLI_ERROR;
  if (a->opts.slowest_calls && !a->opts.slowest)
    return ip_cli_fail(m, "--slowest-calls goes with --slowest FN");
  ip_cli_inputs(argc, argv, first, &a->inputs, &a->n_inputs);
  return IP_CLI_OK;
}
