/* cli/cmd_diff.c - `inclprof diff BASE NEW` and `inclprof diff BASE... --
 * NEW...`: the data values of two builds side by side, largest change first,
 * marking only the changes beyond run-to-run noise (analysis/diff.h), as a text
 * table, CSV, or pprof files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "export/export.h"
#include "analysis/analysis.h"
#include "model/model.h"
#include "cli/cli_args.h"
#include "util/util.h"

enum { OPT_BY = 256, OPT_THRESHOLD, OPT_CSV, OPT_PPROF, OPT_TOP, OPT_VALUE, OPT_FORCE };

static const ip_cli_opt options[] = {
    {"by", OPT_BY, "LEVEL", IP_LEVEL_NAMES " (default function)"},
    {"threshold", OPT_THRESHOLD, "PCT",
     "mark a change only when it is at least PCT % of BASE's session\n(default 1)"},
    {"csv", OPT_CSV, NULL, "print CSV (every value of both sides) instead of the table"},
    {"pprof", OPT_PPROF, "PREFIX",
     "also write PREFIX.base.pb.gz, PREFIX.new.pb.gz (for go tool pprof\n-diff_base) and "
     "PREFIX.diff.pb.gz (NEW - BASE)"},
    {"top", OPT_TOP, "N", "only the first N rows of the table (default all)"},
    {"value", OPT_VALUE, "elapsed|application",
     "the time compared, sorted by and tested (default elapsed);\napplication leaves out the "
     "intervals "
     "in which the kernel worked for\nthe thread (waiting for a CPU on a loaded machine, I/O)"},
    {"force", OPT_FORCE, NULL,
     "compare programs of different names that share fewer than\nhalf of BASE's rows"},
};

static const ip_cli cli = {
    .name = "diff",
    .synopsis = "BASE NEW | BASE... -- NEW... [OPTIONS]",
    .intro = "Compare the profiles of two builds.  Each side is one or more runs (a trace\n"
             "directory or file per run); rows are matched by name.  Every value is the\n"
             "median over a side's runs; rows are sorted by the change of Exclusive time.\n"
             "With 3 or more runs a side, a noise test on the per-run Exclusive values\n"
             "tells a change from run-to-run noise (the smaller p of Welch's t-test on their\n"
             "logarithms and the Mann-Whitney rank test): a change is marked '*' when\n"
             "p < 0.01 and it is at least --threshold % of BASE's session.  Builds\n"
             "whose file names differ (app, app.v2) are compared as long as they share\n"
             "half of BASE's rows.",
    .epilog = "Exit status: 0 ok, 1 unusable input (unreadable, empty, programs that are\n"
              "not two builds of one), 2 bad usage, 3 printed from a damaged trace (read\n"
              "around the damage, which is named on stderr).",
    .opts = options,
    .n_opts = sizeof options / sizeof options[0],
};

typedef struct diff_args {
  ip_level by;
  int application;
  double threshold;
  int csv;
  const char *pprof;
  size_t top;
  int force;
} diff_args;

static int on_option(void *ctx, int id, const char *arg, ip_cli_msg *m) {
  diff_args *a = ctx;
  uint64_t n;
  char *end;
  switch (id) {
  case OPT_BY:
    return ip_level_parse(arg, &a->by) ? ip_cli_fail(m, "bad --by level '%s'", arg) : 0;
  case OPT_THRESHOLD:
    errno = 0;
    a->threshold = strtod(arg, &end);
    if (errno || end == arg || *end || !(a->threshold >= 0 && a->threshold <= 100))
      return ip_cli_fail(m, "bad --threshold '%s' (a percentage, 0 to 100)", arg);
    return 0;
  case OPT_CSV:
    a->csv = 1;
    return 0;
  case OPT_VALUE:
    if (strcmp(arg, "elapsed") && strcmp(arg, "application"))
      return ip_cli_fail(m, "bad --value '%s' (elapsed or application)", arg);
    a->application = !strcmp(arg, "application");
    return 0;
  case OPT_PPROF:
    a->pprof = arg;
    return 0;
  case OPT_FORCE:
    a->force = 1;
    return 0;
  default:
    if (ip_parse_u64(arg, SIZE_MAX, &n))
      return ip_cli_fail(m, "bad --top count '%s'", arg);
    a->top = (size_t)n;
    return 0;
  }
}

static void csv_field(const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, stdout);
    return;
  }
  putchar('"');
  for (; *s; s++) {
    if (*s == '"')
      putchar('"');
    putchar(*s);
  }
  putchar('"');
}

static const char *status(const ip_diff_row *r) {
  return !r->present[IP_DIFF_BASE] ? "new_only" : !r->present[IP_DIFF_NEW] ? "base_only" : "both";
}

static const char *value_name(const ip_diff *d) {
  return d->application ? "application" : "elapsed";
}

static void print_csv(const ip_diff *d) {
  printf("%s,%sbase_calls,new_calls,base_elapsed_inclusive_ns,new_elapsed_inclusive_ns,"
         "base_elapsed_exclusive_ns,new_elapsed_exclusive_ns,base_application_inclusive_ns,"
         "new_application_inclusive_ns,base_application_exclusive_ns,"
         "new_application_exclusive_ns,delta_%s_exclusive_ns,delta_%s_inclusive_ns,"
         "delta_session_pct,%sp_value,beyond_noise,status\n",
         ip_level_name(d->by), d->by == IP_BY_FUNCTION ? "file," : "", value_name(d), value_name(d),
         d->by == IP_BY_FUNCTION ? "base_p99_ns,new_p99_ns," : "");
  for (size_t i = 0; i < d->n; i++) {
    const ip_diff_row *r = &d->rows[i];
    csv_field(r->name);
    putchar(',');
    if (d->by == IP_BY_FUNCTION) {
      csv_field(r->file);
      putchar(',');
    }
    const ip_values *b = &r->med[0], *n = &r->med[1];
    char p[32] = ""; /* empty: too few runs a side for the test */
    if (d->runs[0] >= IP_DIFF_MIN_RUNS && d->runs[1] >= IP_DIFF_MIN_RUNS)
      snprintf(p, sizeof p, "%.4g", r->p);
    printf("%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%lld,%lld,%.4f,",
           (unsigned long long)b->calls, (unsigned long long)n->calls,
           (unsigned long long)b->el_incl, (unsigned long long)n->el_incl,
           (unsigned long long)b->el_excl, (unsigned long long)n->el_excl,
           (unsigned long long)b->app_incl, (unsigned long long)n->app_incl,
           (unsigned long long)b->app_excl, (unsigned long long)n->app_excl,
           (long long)r->delta_excl, (long long)r->delta_incl, r->delta_pct);
    if (d->by == IP_BY_FUNCTION)
      printf("%llu,%llu,", (unsigned long long)r->p99[0], (unsigned long long)r->p99[1]);
    printf("%s,%d,%s\n", p, r->marked, status(r));
  }
}

/* The rank test's p when the two sides do not overlap at all. */
static double separated_p(size_t nx, size_t ny) {
  double *x = ip_must_calloc(nx, sizeof *x), *y = ip_must_calloc(ny, sizeof *y);
  for (size_t i = 0; i < nx; i++)
    x[i] = (double)i;
  for (size_t i = 0; i < ny; i++)
    y[i] = (double)(nx + i);
  double p = ip_mann_whitney_p(x, nx, y, ny);
  free(x);
  free(y);
  return p;
}

static void fmt_delta(char *buf, size_t n, int64_t v) {
  char t[32];
  ip_fmt_ns(t, sizeof t, (uint64_t)llabs(v));
  snprintf(buf, n, "%s%s", v < 0 ? "-" : "+", t);
}

static void print_table(const ip_diff *d, const diff_args *a) {
  printf("BASE: %zu run(s) of %s, median session %.3f ms; NEW: %zu run(s) of %s, median session "
         "%.3f ms (%s time)\n",
         d->runs[0], d->program[0], (double)d->session_med[0] / 1e6, d->runs[1], d->program[1],
         (double)d->session_med[1] / 1e6, value_name(d));
  if (strcmp(d->program[0], d->program[1]))
    printf("(two programs' names: their rows are matched by name; %zu of BASE's %zu rows are "
           "in both)\n",
           d->shared, d->base_rows);
  if (d->runs[0] < IP_DIFF_MIN_RUNS || d->runs[1] < IP_DIFF_MIN_RUNS) {
    printf("(fewer than %d runs a side: no noise test, nothing is marked)\n", IP_DIFF_MIN_RUNS);
  } else {
    /* What the tests can find with these runs: Welch's, a change of this many
     * standard errors of the runs' mean log (its df is at most nx + ny - 2);
     * the rank test, every run of one side above every run of the other. */
    double df = (double)(d->runs[0] + d->runs[1] - 2);
    printf("noise test: the smaller p of Welch's t-test on the logarithms of the per-run times "
           "(with %zu + %zu runs it marks a change of %.1f standard errors or more) and the rank "
           "test (every run of one side above the other's gives p = %.3f)\n",
           d->runs[0], d->runs[1], ip_t_critical(IP_DIFF_ALPHA, df),
           separated_p(d->runs[0], d->runs[1]));
  }
  printf("'*': beyond run-to-run noise (p < %g) and at least %g%% of the session\n\n",
         IP_DIFF_ALPHA, a->threshold);
  int p99 = d->by == IP_BY_FUNCTION;
  ip_ttable t;
  ip_tt_init(&t, 12 + (p99 ? 2 : 0));
  const char *head[] = {"",           "Calls base", "Calls new", "Excl base", "Excl new",
                        "Delta excl", "% session",  "Incl base", "Incl new",  "Delta incl",
                        "p",          "p99 base",   "p99 new"};
  for (size_t i = 0; i < 11 + (p99 ? 2 : 0); i++)
    ip_tt_add(&t, "%s", head[i]);
  ip_tt_add(&t, "%s", ip_level_name(d->by));
  size_t marked = 0;
  for (size_t i = 0; i < d->n && (!a->top || i < a->top); i++) {
    const ip_diff_row *r = &d->rows[i];
    char c[6][40];
    ip_fmt_ns(c[0], sizeof c[0], ip_diff_excl(d, &r->med[0]));
    ip_fmt_ns(c[1], sizeof c[1], ip_diff_excl(d, &r->med[1]));
    fmt_delta(c[2], sizeof c[2], r->delta_excl);
    ip_fmt_ns(c[3], sizeof c[3], ip_diff_incl(d, &r->med[0]));
    ip_fmt_ns(c[4], sizeof c[4], ip_diff_incl(d, &r->med[1]));
    fmt_delta(c[5], sizeof c[5], r->delta_incl);
    ip_tt_add(&t, "%s", r->marked ? "*" : "");
    ip_tt_add(&t, "%llu", (unsigned long long)r->med[0].calls);
    ip_tt_add(&t, "%llu", (unsigned long long)r->med[1].calls);
    for (int k = 0; k < 3; k++)
      ip_tt_add(&t, "%s", c[k]);
    ip_tt_add(&t, "%+.2f%%", r->delta_pct);
    for (int k = 3; k < 6; k++)
      ip_tt_add(&t, "%s", c[k]);
    if (d->runs[0] >= IP_DIFF_MIN_RUNS && d->runs[1] >= IP_DIFF_MIN_RUNS)
      ip_tt_add(&t, "%.3f", r->p);
    else
      ip_tt_add(&t, "-");
    for (int side = 0; p99 && side < 2; side++) {
      char b[32];
      ip_fmt_ns(b, sizeof b, r->p99[side]);
      ip_tt_add(&t, "%s", r->present[side] ? b : "-");
    }
    const char *only = !r->present[0]   ? "  [only in NEW]"
                       : !r->present[1] ? "  [only in BASE]"
                                        : "";
    ip_tt_add(&t, "%s%s", r->name, only);
    marked += r->marked;
  }
  ip_tt_print_fit(&t, stdout, 0, ip_cli_terminal_width());
  ip_tt_free(&t);
  printf("\n%zu change(s) beyond noise\n", marked);
}

static int run_diff(const diff_args *a, char **ops, size_t n_ops, int n_before) {
  size_t n[2];
  if (n_before < 0) {
    if (n_ops != 2) {
      fprintf(stderr, "inclprof diff: give BASE and NEW (one run each), or BASE... -- NEW...; try "
                      "'inclprof diff --help'\n");
      return IP_EXIT_USAGE;
    }
    n[0] = n[1] = 1;
  } else {
    n[0] = (size_t)n_before;
    n[1] = n_ops - n[0];
    if (!n[0] || !n[1]) {
      fprintf(stderr,
              "inclprof diff: the %s side has no run; give BASE... -- NEW... with at least one "
              "trace directory on each side\n",
              n[0] ? "NEW" : "BASE");
      return IP_EXIT_USAGE;
    }
  }
  ip_diff d;
  char *const *paths[2] = {ops, ops + n[0]};
  if (ip_diff_build(&d, a->by, a->application, paths, n, a->threshold, a->force))
    return IP_EXIT_ERROR;
  if (a->csv)
    print_csv(&d);
  else
    print_table(&d, a);
  int rc = d.n_damaged ? IP_EXIT_DAMAGED : IP_EXIT_OK;
  if (a->pprof && ip_diff_write_pprof(&d, a->pprof))
    rc = IP_EXIT_ERROR;
  ip_diff_free(&d);
  return rc;
}

/* Whether arg, an option of the table, takes the next argument as its value. */
static int takes_value(const char *arg) {
  if (strncmp(arg, "--", 2) || strchr(arg, '='))
    return 0;
  for (size_t i = 0; i < cli.n_opts; i++)
    if (!strcmp(arg + 2, options[i].name))
      return options[i].arg != NULL;
  return 0;
}

int cmd_diff(int argc, char **argv) {
  diff_args a = {.by = IP_BY_FUNCTION, .threshold = 1};
  /* Options may stand anywhere: the first "--" is dropped and the operands
   * before it counted (getopt keeps the operands in their order). */
  char **args = ip_must_calloc((size_t)argc + 1, sizeof *args);
  int n_args = 0, n_before = -1, operands = 0;
  for (int i = 0; i < argc; i++) {
    if (i > 0 && n_before < 0 && !strcmp(argv[i], "--")) {
      n_before = operands;
      continue;
    }
    args[n_args++] = argv[i];
    if (i == 0 || n_before >= 0)
      continue;
    if (argv[i][0] != '-' || !argv[i][1])
      operands++;
    else if (takes_value(argv[i]) && i + 1 < argc)
      args[n_args++] = argv[++i];
  }
  int first;
  int rc = ip_cli_parse_or_exit(&cli, n_args, args, on_option, &a, &first);
  if (rc < 0)
    rc = run_diff(&a, args + first, (size_t)(n_args - first), n_before);
  free(args);
  return rc;
}
