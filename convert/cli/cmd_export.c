/* cli/cmd_export.c - `inclprof export`: load the traces, write one file in the
 * chosen format, whole or not at all (util/output_file.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "export/export.h"
#include "cli/export_options.h"
#include "model/model.h"
#include "cli/cli_args.h"
#include "util/util.h"

/* What the loaded session must have for the options to make sense. */
static int check_session(const ip_session *s, const ip_export_args *a) {
  char why[128];
  const char *more = a->n_inputs > 1 ? " and the other traces" : "";
  if (ip_selection_check(s, &a->opts.sel, why, sizeof why)) {
    fprintf(stderr, "inclprof export: %s in %s%s (inclprof info lists them)\n", why, a->inputs[0],
            more);
    return -1;
  }
  if (a->opts.value == IP_VALUE_SAMPLES && !ip_session_sampled(s)) {
    fprintf(stderr,
            "inclprof export: --value samples: %s%s holds no samples (record with "
            "'inclprof record --sample-hz N')\n",
            a->inputs[0], more);
    return -1;
  }
  return 0;
}

/* --slowest FN: a first read of the traces finds FN's slowest calls; each
 * becomes a window of the selection.  Returns the windows (malloc'ed), or
 * NULL after a one-line message. */
static ip_sel_window *slowest_windows(ip_export_args *a) {
  ip_slowest w;
  ip_slowest_init(&w, a->opts.slowest, a->opts.slowest_calls ? a->opts.slowest_calls : 10, 0);
  ip_load_opts lo = {.raw = a->raw, .jobs = a->jobs, .visitor = ip_slowest_visitor(&w)};
  ip_session s;
  int loaded = !ip_session_load(&s, a->inputs, a->n_inputs, &lo);
  if (loaded)
    ip_session_free(&s);
  size_t n = loaded ? ip_slowest_found(&w) : 0;
  if (loaded && !n)
    fprintf(stderr,
            "inclprof export: --slowest: no call of '%s' ended in the traces ('inclprof report' "
            "lists the functions)\n",
            a->opts.slowest);
  ip_sel_window *win = n ? ip_must_calloc(n, sizeof *win) : NULL;
  for (size_t i = 0; i < n; i++)
    win[i] = (ip_sel_window){w.calls[i].thread, w.calls[i].depth, w.calls[i].start_ns,
                             w.calls[i].start_ns + w.calls[i].el_ns};
  a->opts.sel.windows = win;
  a->opts.sel.n_windows = n;
  ip_slowest_free(&w);
  return win;
}

/* Loads the traces (a streaming format sees every call as they are
 * replayed), then writes the export.  Returns the exit status, or -1 on
 * failure. */
static int export(const ip_export_args *a, const ip_output *out) {
  const ip_exporter *fmt = a->format;
  ip_export_job job = {.opts = &a->opts, .out = out->f, .out_name = out->name};
  ip_progress progress;
  ip_load_opts lo = {
      .raw = a->raw, .jobs = a->jobs, .latency = fmt->latency, .operations = fmt->operations};
  /* A format taking each file's trees as it is read keeps what a table
   * keeps: memory holds a few files' trees whatever the number of files. */
  int by_file = fmt->file_done && !a->opts.critical;
  if (fmt->sums_only || by_file)
    lo.keep = a->opts.sel.has_tid || a->opts.sel.has_pid || a->opts.sel.has_range ? IP_KEEP_SUMS
                                                                                  : IP_KEEP_TOTALS;
  if (by_file) {
    lo.file_done = fmt->file_done;
    lo.file_done_ctx = &job;
  }
  ip_session s;
  memset(&s, 0, sizeof s);
  lo.visitor =
      ip_progress_start(&progress, fmt->begin ? fmt->begin(&job) : NULL, a->inputs, a->n_inputs);
  ip_critical crit = {0};
  job.critical = &crit;
  int ok = fmt->critical || a->opts.critical
               ? !ip_session_load_critical(&s, a->inputs, a->n_inputs, &lo, &crit)
               : !ip_session_load(&s, a->inputs, a->n_inputs, &lo);
  ip_progress_finish(&progress);
  ok = ok && !check_session(&s, a);
  const ip_process *agg = ok && (fmt->begin || a->opts.critical) ? ip_session_aggregate(&s) : NULL;
  if (agg) { /* a timeline needs every call's time: only a trace has them */
    if (a->opts.critical)
      fprintf(stderr,
              "inclprof export: --critical needs a trace: %s is an aggregate profile (recorded "
              "with --aggregate), which keeps no wake-up of one thread by another; record "
              "without --aggregate\n",
              agg->trace_path);
    else
      fprintf(stderr,
              "inclprof export: --format %s needs a trace: %s is an aggregate profile (recorded "
              "with --aggregate); record without it, or export csv, pprof, callgrind, folded or "
              "html\n",
              fmt->name, agg->trace_path);
    fmt->discard(&job);
    ip_session_free(&s);
    ip_critical_free(&crit);
    return -2;
  }
  if (ok && a->opts.critical && !crit.any_edges) {
    fprintf(stderr,
            "inclprof export: --critical needs the threads' wake-ups, which these traces do not "
            "have (record in kevents mode as root, with this version: 'inclprof info' says "
            "\"wake-ups\" under transitions)\n");
    ok = 0;
  }
  if (!ok && fmt->begin)
    fmt->discard(&job);
  if (!ok && by_file)
    fmt->files_discard(&job);
  ok = ok && !fmt->write(&job, &s);
  int status = ip_exit_status(&s);
  ip_session_free(&s);
  ip_critical_free(&crit);
  return ok ? status : -1;
}

int cmd_export(int argc, char **argv) {
  ip_export_args a;
  ip_cli_msg m;
  switch (ip_export_parse_args(argc, argv, &a, &m)) {
  case IP_CLI_HELP:
    ip_export_usage(stdout);
    return IP_EXIT_OK;
  case IP_CLI_ERROR:
    fprintf(stderr, "%s\n", m.text);
    return IP_EXIT_USAGE;
  default:
    break;
  }
  ip_sel_window *windows = NULL;
  if (a.opts.slowest && !(windows = slowest_windows(&a)))
    return IP_EXIT_ERROR;
  ip_output out;
  if (ip_output_open(&out, "export", "-o", a.output ? a.output : a.format->default_output)) {
    free(windows);
    return IP_EXIT_ERROR;
  }
  int status = export(&a, &out);
  free(windows);
  if (status == -2) { /* the input cannot give this format */
    ip_output_close(&out, 0);
    return IP_EXIT_USAGE;
  }
  if (ip_output_close(&out, status >= 0))
    return IP_EXIT_ERROR;
  if (strcmp(out.name, "-"))
    fprintf(stderr, "inclprof export: wrote %s\n", out.name);
  return status;
}
