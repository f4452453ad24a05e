/* export/options.c - parsing and checking the options of `inclprof export`. */
#include "export/options.h"

#include "util/cli_args.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *name;
  const char *default_output;
} formats[] = {
    [IP_FMT_CSV] = {"csv", "inclprof.csv"},
    [IP_FMT_PPROF] = {"pprof", "inclprof.pb.gz"},
    [IP_FMT_CHROME] = {"chrome", "inclprof.trace.json"},
    [IP_FMT_CALLGRIND] = {"callgrind", "callgrind.out.inclprof"},
    [IP_FMT_FOLDED] = {"folded", "inclprof.folded"},
};
#define N_FORMATS (sizeof formats / sizeof formats[0])

static char *default_inputs[] = {IP_DEFAULT_INPUT};

const char *ip_export_format_name(ip_export_format f) { return formats[f].name; }
const char *ip_export_default_output(ip_export_format f) { return formats[f].default_output; }

void ip_export_usage(FILE *out) {
  fputs("usage: inclprof export --format FORMAT [OPTIONS] [TRACE|DIR...]\n"
        "\n"
        "Writes the profile of the traces (default: inclprof.data) in another tool's format.\n"
        "\n"
        "  -f, --format F       csv, pprof (go tool pprof), chrome (Perfetto, DevTools),\n"
        "                       callgrind (KCachegrind, callgrind_annotate), folded (flame graphs)\n"
        "  -o, --output FILE    where to write ('-' = stdout); default inclprof.csv, inclprof.pb.gz,\n"
        "                       inclprof.trace.json, callgrind.out.inclprof or inclprof.folded\n"
        "      --raw            keep probe cost and runtime gaps in the times\n"
        "      --thread TID     only threads with this tid\n"
        "      --process PID    only this process\n"
        "      --by LEVEL       csv: one row per LEVEL\n"
        "      --merge-threads  pprof, folded, callgrind: merge the threads' call paths\n"
        "      --value V        elapsed, application or samples: the folded value, pprof's\n"
        "                       default sample type, callgrind's first event (default elapsed)\n"
        "      --min-duration D chrome: leave out calls shorter than D (e.g. 500ns, 20us, 1ms)\n"
        "      --max-events N   chrome: write at most N calls\n"
        "      --time-range A:B chrome: only calls overlapping [A,B) after the session start\n"
        "                       (either end may be empty, e.g. 1ms:  or :2.5s)\n"
        "  -h, --help           this text\n",
        out);
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

static int fail(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  int n = snprintf(err, errlen, "inclprof export: ");
  va_start(ap, fmt);
  if (n >= 0 && (size_t)n < errlen)
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
  va_end(ap);
  return IP_EXPORT_PARSE_ERROR;
}

static int parse_time_range(const char *text, ip_export_opts *o) {
  const char *colon = strchr(text, ':');
  if (!colon)
    return -1;
  char first[64];
  size_t n = (size_t)(colon - text);
  if (n >= sizeof first)
    return -1;
  memcpy(first, text, n);
  first[n] = 0;
  ip_selection *sel = &o->sel;
  sel->start_ns = 0;
  sel->end_ns = UINT64_MAX;
  if (n && ip_parse_duration(first, &sel->start_ns))
    return -1;
  if (colon[1] && ip_parse_duration(colon + 1, &sel->end_ns))
    return -1;
  sel->has_range = 1;
  return sel->start_ns < sel->end_ns ? 0 : -1;
}

enum {
  OPT_BY = 256,
  OPT_MERGE,
  OPT_VALUE,
  OPT_MIN_DURATION,
  OPT_MAX_EVENTS,
  OPT_TIME_RANGE,
  OPT_THREAD,
  OPT_PROCESS,
  OPT_RAW
};

/* Which formats accept an option: a bit per ip_export_format. */
#define FMT_BIT(f) (1u << (f))

int ip_export_parse_args(int argc, char **argv, ip_export_opts *o, char *err, size_t errlen) {
  static const struct option longopts[] = {
      {"format", required_argument, NULL, 'f'},
      {"output", required_argument, NULL, 'o'},
      {"help", no_argument, NULL, 'h'},
      {"by", required_argument, NULL, OPT_BY},
      {"merge-threads", no_argument, NULL, OPT_MERGE},
      {"value", required_argument, NULL, OPT_VALUE},
      {"min-duration", required_argument, NULL, OPT_MIN_DURATION},
      {"max-events", required_argument, NULL, OPT_MAX_EVENTS},
      {"time-range", required_argument, NULL, OPT_TIME_RANGE},
      {"thread", required_argument, NULL, OPT_THREAD},
      {"process", required_argument, NULL, OPT_PROCESS},
      {"raw", no_argument, NULL, OPT_RAW},
      {NULL, 0, NULL, 0},
  };
  int format_given = 0, by_given = 0, min_given = 0, max_given = 0, range_given = 0;
  uint64_t id;
  memset(o, 0, sizeof *o);
  optind = 0; /* GNU: full re-initialisation, so parsing can run more than once */
  opterr = 0;
  for (;;) {
    int c = getopt_long(argc, argv, ":f:o:h", longopts, NULL);
    if (c == -1)
      break;
    switch (c) {
    case 'f':
      format_given = 0;
      for (size_t i = 0; i < N_FORMATS; i++)
        if (!strcmp(optarg, formats[i].name)) {
          o->format = (ip_export_format)i;
          format_given = 1;
        }
      if (!format_given)
        return fail(err, errlen, "unknown format '%s' (csv, pprof, chrome, callgrind or folded)",
                    optarg);
      break;
    case 'o':
      o->output = optarg;
      break;
    case 'h':
      return IP_EXPORT_PARSE_HELP;
    case OPT_BY:
      if (ip_level_parse(optarg, &o->by) < 0)
        return fail(err, errlen, "unknown --by '%s' (" IP_LEVEL_NAMES ")", optarg);
      by_given = 1;
      break;
    case OPT_MERGE:
      o->merge_threads = 1;
      break;
    case OPT_VALUE:
      if (!strcmp(optarg, "elapsed"))
        o->value = IP_VALUE_ELAPSED;
      else if (!strcmp(optarg, "application"))
        o->value = IP_VALUE_APPLICATION;
      else if (!strcmp(optarg, "samples"))
        o->value = IP_VALUE_SAMPLES;
      else
        return fail(err, errlen, "unknown --value '%s' (elapsed, application or samples)", optarg);
      o->value_given = 1;
      break;
    case OPT_MIN_DURATION:
      if (ip_parse_duration(optarg, &o->min_duration_ns))
        return fail(err, errlen, "bad --min-duration '%s' (a duration such as 500ns, 20us, 1ms)",
                    optarg);
      min_given = 1;
      break;
    case OPT_MAX_EVENTS:
      if (ip_parse_u64(optarg, UINT64_MAX, &o->max_events) || !o->max_events)
        return fail(err, errlen, "bad --max-events '%s' (a positive number)", optarg);
      max_given = 1;
      break;
    case OPT_TIME_RANGE:
      if (parse_time_range(optarg, o))
        return fail(err, errlen, "bad --time-range '%s' (A:B with durations, A < B, e.g. 1ms:2ms)",
                    optarg);
      range_given = 1;
      break;
    case OPT_THREAD:
      if (ip_parse_u64(optarg, UINT32_MAX, &id))
        return fail(err, errlen, "bad --thread '%s' (a thread id)", optarg);
      o->sel.tid = (uint32_t)id;
      o->sel.has_tid = 1;
      break;
    case OPT_PROCESS:
      if (ip_parse_u64(optarg, UINT32_MAX, &id))
        return fail(err, errlen, "bad --process '%s' (a process id)", optarg);
      o->sel.pid = (uint32_t)id;
      o->sel.has_pid = 1;
      break;
    case OPT_RAW:
      o->raw = 1;
      break;
    case ':':
      return fail(err, errlen, "option '%s' needs a value", argv[optind - 1]);
    default:
      return fail(err, errlen, "unknown option '%s' (try 'inclprof export --help')",
                  argv[optind - 1]);
    }
  }
  if (!format_given)
    return fail(err, errlen, "missing --format (csv, pprof, chrome, callgrind or folded)");
  const unsigned trees = FMT_BIT(IP_FMT_PPROF) | FMT_BIT(IP_FMT_CALLGRIND) | FMT_BIT(IP_FMT_FOLDED);
  const unsigned chrome = FMT_BIT(IP_FMT_CHROME);
  const struct {
    int given;
    unsigned formats;
    const char *option, *which;
  } fits[] = {
      {by_given, FMT_BIT(IP_FMT_CSV), "--by", "csv"},
      {o->merge_threads, trees, "--merge-threads", "pprof, folded or callgrind"},
      {o->value_given, trees, "--value", "pprof, folded or callgrind"},
      {min_given, chrome, "--min-duration", "chrome"},
      {max_given, chrome, "--max-events", "chrome"},
      {range_given, chrome, "--time-range", "chrome"},
  };
  for (size_t i = 0; i < sizeof fits / sizeof fits[0]; i++)
    if (fits[i].given && !(fits[i].formats & FMT_BIT(o->format)))
      return fail(err, errlen, "%s applies to --format %s, not %s", fits[i].option, fits[i].which,
                  ip_export_format_name(o->format));
  if (optind < argc) {
    o->inputs = argv + optind;
    o->n_inputs = (size_t)(argc - optind);
  } else {
    o->inputs = default_inputs;
    o->n_inputs = 1;
  }
  return IP_EXPORT_PARSE_OK;
}
