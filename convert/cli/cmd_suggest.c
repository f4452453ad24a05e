/* cli/cmd_suggest.c - `inclprof suggest`: from one or more traces, the probe
 * cost of every function, a filter file for the plugin that leaves the most
 * distorted functions uninstrumented until the estimated overhead is under
 * --max-overhead, a table of the decisions, and the rebuild flag. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "inclprof_abi.h"
#include "analysis/analysis.h"
#include "model/model.h"
#include "util/util.h"
#include "cli/cli_args.h"

enum { OPT_MAX_OVERHEAD = 256, OPT_KEEP, OPT_MAX_FOLD, OPT_TOP };

static const ip_cli_opt options[] = {
    {"max-overhead", OPT_MAX_OVERHEAD, "PCT",
     "exclude functions until no thread's probes cost more than PCT % of\nits own time on CPU "
     "(default 5)"},
    {"keep", OPT_KEEP, "FN",
     "never exclude FN (a glob on the assembler or demangled name;\nrepeatable)"},
    {"max-fold", OPT_MAX_FOLD, "PCT",
     "keep a function whose exclusion would hand more than PCT % of the\nsession, untraced, to its "
     "callers' Exclusive time (default 30)"},
    {"output", 'o', "FILTER", "the filter file to write (default inclprof.filter)"},
    {"top", OPT_TOP, "N",
     "table rows: the excluded functions and the N costliest others\n(default 20)"},
};

static const ip_cli cli = {
    .name = "suggest",
    .synopsis = "[TRACE|DIR...] [OPTIONS]",
    .intro = "Estimate what the probes of every function cost (its traced events times the\n"
             "calibrated probe cost: % of its own time on CPU and of the session) and\n"
             "write a filter file for the plugin that leaves the most distorted functions\n"
             "uninstrumented until the estimate is under --max-overhead.  main, the threads'\n"
             "outermost functions and --keep functions stay.  Several traces (runs or\n"
             "processes) are merged.  Default input: " IP_DEFAULT_INPUT ".",
    .epilog = "Exit status: 0 ok, 1 unusable input or unwritable filter, 2 bad usage, 3 from a\n"
              "damaged trace.",
    .opts = options,
    .n_opts = sizeof options / sizeof options[0],
};

typedef struct suggest_args {
  ip_suggest_opts so;
  const char *out;
  size_t top;
  const char **keep; /* --keep values, so.keep once parsed */
} suggest_args;

static int parse_pct(const char *arg, double *out) {
  char *end;
  errno = 0;
  double v = strtod(arg, &end);
  if (errno || end == arg || *end || !(v >= 0 && v <= 100))
    return -1;
  *out = v;
  return 0;
}

static int on_option(void *ctx, int id, const char *arg, ip_cli_msg *m) {
  suggest_args *a = ctx;
  uint64_t n;
  switch (id) {
  case OPT_MAX_OVERHEAD:
    return parse_pct(arg, &a->so.max_overhead_pct)
               ? ip_cli_fail(m, "bad --max-overhead '%s' (a percentage, 0 to 100)", arg)
               : 0;
  case OPT_MAX_FOLD:
    return parse_pct(arg, &a->so.max_fold_pct)
               ? ip_cli_fail(m, "bad --max-fold '%s' (a percentage, 0 to 100)", arg)
               : 0;
  case OPT_KEEP:
    a->keep = ip_must_realloc(a->keep, a->so.n_keep + 1, sizeof *a->keep);
    a->keep[a->so.n_keep++] = arg;
    a->so.keep = a->keep;
    return 0;
  case OPT_TOP:
    if (ip_parse_u64(arg, SIZE_MAX, &n))
      return ip_cli_fail(m, "bad --top count '%s'", arg);
    a->top = (size_t)n;
    return 0;
  default:
    if (!strcmp(arg, "-"))
      return ip_cli_fail(m, "-o - would mix the filter into the table; give a file");
    a->out = arg;
    return 0;
  }
}

/* A pattern that matches exactly this name (glob characters escaped; the
 * assembler names written here hold no comma). */
static void put_literal(FILE *f, const char *name) {
  for (const char *p = name; *p; p++) {
    if (strchr("*?[]\\", *p))
      fputc('\\', f);
    fputc(*p, f);
  }
}

/* The threads the probes slow most (at most 5): their time on CPU and the
 * probes' share of it before and after. */
static void print_threads(const ip_session *s, const ip_suggest *g) {
  printf("threads slowed most (probe cost against the thread's own time on CPU in "
         "instrumented code):\n");
  for (size_t i = 0; i < g->n_threads && i < 5; i++) {
    const ip_suggest_thread *t = &g->threads[i];
    char name[512], cpu[32];
    ip_fmt_ns(cpu, sizeof cpu, t->cpu_ns);
    printf("  %-32s on CPU %10s  probes %7.2f%% before, %7.2f%% after%s\n",
           ip_row_name(s, IP_BY_THREAD, t->thread, name, sizeof name), cpu,
           ip_suggest_thread_pct(g, t, t->events_before),
           ip_suggest_thread_pct(g, t, t->events_after),
           ip_suggest_thread_counts(g, t) ? "" : "  (negligible: under 0.1% of the wall time)");
  }
  printf("\n");
}

/* The filter's text, into f. */
static void write_filter(FILE *f, const ip_session *s, const ip_suggest *g, const suggest_args *a,
                         size_t n_inputs) {
  fprintf(f,
          "# inclprof suggest: a filter for the plugin (-fplugin-arg-inclprof-filter=%s)\n"
          "# from %zu input(s); estimated probe cost %.2f%% of the session before, %.2f%% after\n"
          "# (limit %g%%); each excluded function loses its own probes (exclude) and\n"
          "# the call-site probes around calls to it (exclude-calls)\n",
          a->out, n_inputs, ip_suggest_pct(g, g->events_before), ip_suggest_pct(g, g->events_after),
          a->so.max_overhead_pct);
  for (size_t i = 0; i < g->n; i++) {
    const ip_suggest_fn *x = &g->fns[i];
    if (x->verdict != IP_EXCLUDE)
      continue;
    const ip_func *fn = &s->funcs[x->func];
    int own = (fn->flags & INCLPROF_FN_INSTRUMENTED) != 0;
    fprintf(f, "# %s: %llu calls, probes %.2f%% of the session, %.0f%% of its time on CPU\n",
            fn->pretty, (unsigned long long)x->calls, ip_suggest_pct(g, x->events_before),
            x->cpu_incl ? 100.0 * (double)x->events_before * g->probe_cost_ns / (double)x->cpu_incl
                        : 100.0);
    if (own) {
      fputs("exclude = ", f);
      put_literal(f, fn->name);
      fputc('\n', f);
    }
    fputs("exclude-calls = ", f);
    put_literal(f, fn->name);
    fputc('\n', f);
  }
}

static double fold_pct(const ip_suggest *g, const ip_suggest_fn *x) {
  return g->session_ns ? 100.0 * (double)x->fold_ns / (double)g->session_ns : 0;
}

static void decision(char *buf, size_t n, const ip_session *s, const ip_suggest *g,
                     const ip_suggest_fn *x, double max_fold, double max_pct) {
  const char *into = x->fold_into == UINT32_MAX ? "the callers" : s->funcs[x->fold_into].pretty;
  switch (x->verdict) {
  case IP_EXCLUDE:
    if (x->fold_into == UINT32_MAX)
      snprintf(buf, n, "exclude: its %.2f%% of the session go to its callers' Exclusive",
               fold_pct(g, x));
    else
      snprintf(buf, n, "exclude: its %.2f%% of the session go to %s's Exclusive", fold_pct(g, x),
               into);
    return;
  case IP_KEEP_ROOT:
    snprintf(buf, n, "keep: main or a thread's outermost function");
    return;
  case IP_KEEP_NAMED:
    snprintf(buf, n, "keep: --keep");
    return;
  case IP_KEEP_FOLD:
    snprintf(buf, n,
             "keep: excluding it would fold %.2f%% of the session (over %g%%) untraced into %s",
             fold_pct(g, x), max_fold, into);
    return;
  case IP_KEEP_CHEAP:
    snprintf(buf, n, "keep: its probes cost under %g%% of the session", IP_SUGGEST_MIN_GAIN_PCT);
    return;
  case IP_KEEP_FAIR:
    snprintf(buf, n, "keep: its probes are under %g%% of its own time on CPU", max_pct);
    return;
  case IP_KEEP_UNDER:
    snprintf(buf, n, "keep");
    return;
  }
}

static void print_table(const ip_session *s, const ip_suggest *g, const suggest_args *a) {
  ip_ttable t;
  ip_tt_init(&t, 9);
  ip_tt_names(&t, 7, 0);
  const char *head[] = {"Calls",       "Events",      "Probe cost", "Before",  "After",
                        "Of own incl", "Trace bytes", "Function",   "Decision"};
  for (size_t i = 0; i < 9; i++)
    ip_tt_add(&t, "%s", head[i]);
  size_t shown = 0, hidden = 0;
  for (size_t i = 0; i < g->n; i++) {
    const ip_suggest_fn *x = &g->fns[i];
    if (x->verdict != IP_EXCLUDE && shown >= a->top) {
      hidden++;
      continue;
    }
    shown += x->verdict != IP_EXCLUDE;
    char cost[32], bytes[32], why[512];
    double cost_ns = (double)x->events_before * g->probe_cost_ns;
    ip_fmt_ns(cost, sizeof cost, (uint64_t)cost_ns);
    ip_fmt_bytes(bytes, sizeof bytes, (uint64_t)((double)x->events_before * g->bytes_per_event));
    decision(why, sizeof why, s, g, x, a->so.max_fold_pct, a->so.max_overhead_pct);
    ip_tt_add(&t, "%llu", (unsigned long long)x->calls);
    ip_tt_add(&t, "%llu", (unsigned long long)x->events_before);
    ip_tt_add(&t, "%s", cost);
    ip_tt_add(&t, "%.2f%%", ip_suggest_pct(g, x->events_before));
    ip_tt_add(&t, "%.2f%%", ip_suggest_pct(g, x->events_after));
    ip_tt_add(&t, "%.1f%%", x->cpu_incl ? 100.0 * cost_ns / (double)x->cpu_incl : 100.0);
    ip_tt_add(&t, "%s", bytes);
    ip_tt_add(&t, "%s", s->funcs[x->func].pretty);
    ip_tt_add(&t, "%s", why);
  }
  ip_tt_print_fit(&t, stdout, 0, ip_cli_terminal_width());
  ip_tt_free(&t);
  if (hidden)
    printf("(%zu more functions kept, each cheaper; --top N shows more)\n", hidden);
}

int cmd_suggest(int argc, char **argv) {
  suggest_args a = {
      .so = {.max_overhead_pct = 5, .max_fold_pct = 30}, .out = "inclprof.filter", .top = 20};
  int first;
  int rc = ip_cli_parse_or_exit(&cli, argc, argv, on_option, &a, &first);
  if (rc >= 0) {
    free(a.keep);
    return rc;
  }
  /* opened before the traces are read, so that an unwritable -o fails first */
  ip_output filter;
  if (ip_output_open(&filter, "suggest", "-o", a.out)) {
    free(a.keep);
    return IP_EXIT_ERROR;
  }
  ip_session s;
  ip_load_opts lo = {0};
  if (ip_load_inputs(&s, argc, argv, first, &lo)) {
    ip_output_close(&filter, 0);
    free(a.keep);
    return IP_EXIT_ERROR;
  }
  rc = ip_exit_status(&s);
  size_t n_inputs = first < argc ? (size_t)(argc - first) : 1;
  for (size_t k = 0; k < a.so.n_keep; k++) {
    int found = 0;
    for (uint32_t f = 0; f < s.n_funcs && !found; f++)
      found = ip_func_matches(&s.funcs[f], a.so.keep[k]);
    if (!found) {
      fprintf(stderr,
              "inclprof suggest: --keep %s names no function of the trace (use a name of "
              "'inclprof report')\n",
              a.so.keep[k]);
      rc = IP_EXIT_USAGE;
    }
  }
  if (rc == IP_EXIT_USAGE || !s.total.el_incl) {
    if (rc != IP_EXIT_USAGE)
      fprintf(stderr, "inclprof suggest: the trace holds no instrumented time (no function ran); "
                      "profile a run of a program built with the plugin\n");
    ip_session_free(&s);
    ip_output_close(&filter, 0);
    free(a.keep);
    return rc == IP_EXIT_USAGE ? rc : IP_EXIT_ERROR;
  }
  ip_suggest g;
  ip_suggest_run(&s, &a.so, &g);
  char total[32], before[32], after[32];
  ip_fmt_ns(total, sizeof total, g.session_ns);
  ip_fmt_bytes(before, sizeof before, (uint64_t)((double)g.events_before * g.bytes_per_event));
  ip_fmt_bytes(after, sizeof after, (uint64_t)((double)g.events_after * g.bytes_per_event));
  printf("session: Elapsed Inclusive %s over %zu thread(s) in %zu file(s); probe cost %.1f ns per "
         "event, %.1f trace bytes per event\n",
         total, s.n_threads, s.n_files, g.probe_cost_ns, g.bytes_per_event);
  char wall[32];
  ip_fmt_ns(wall, sizeof wall, g.wall_ns);
  printf("estimate: the probes slow the most slowed thread by %.2f%% of its time on CPU before, "
         "%.2f%% after (limit %g%%); in all they take %.2f%% of the thread-summed session and "
         "%.1f ms of CPU against a wall time of %s; events %llu -> %llu; trace %s -> %s\n",
         ip_suggest_worst_pct(&g, 0), ip_suggest_worst_pct(&g, 1), a.so.max_overhead_pct,
         ip_suggest_pct(&g, g.events_before), (double)g.events_before * g.probe_cost_ns / 1e6, wall,
         (unsigned long long)g.events_before, (unsigned long long)g.events_after, before, after);
  print_threads(&s, &g);
  print_table(&s, &g, &a);
  if (ip_suggest_worst_pct(&g, 1) > a.so.max_overhead_pct)
    printf("\nThe limit is not reached: the rest of the cost is in functions kept (main, thread "
           "roots,\n--keep, distorted less than the limit, or too much time to fold: --max-fold\n"
           "raises that limit).\n");
  if (!g.n_excluded) {
    /* Nothing to gain from a rebuild: no filter is written. */
    ip_output_close(&filter, 0);
    printf("\nnothing to exclude: %s; keep the build as it is (no filter written)\n",
           ip_suggest_worst_pct(&g, 0) <= a.so.max_overhead_pct
               ? "no thread is slowed by more than the limit"
               : "every function left is kept for the reason its row gives");
  } else if (write_filter(filter.f, &s, &g, &a, n_inputs), ip_output_close(&filter, 1)) {
    rc = IP_EXIT_ERROR;
  } else {
    char *abs = realpath(a.out, NULL), plugin[4200];
    static const char *const rel[] = {"/inclprof.so", "/../lib/inclprof/inclprof.so"};
    printf("\nwrote %s: %zu function(s) excluded.  Rebuild with the plugin and this filter\n"
           "(the filter argument after -fplugin; under -flto on the link command too):\n"
           "  -fplugin=%s -fplugin-arg-inclprof-filter=%s\n",
           a.out, g.n_excluded,
           ip_find_beside_command(rel, 2, plugin, sizeof plugin) ? "inclprof" : plugin,
           abs ? abs : a.out);
    free(abs);
  }
  ip_suggest_free(&g);
  ip_session_free(&s);
  free(a.keep);
  return rc;
}
