/* cli/cmd_export.c - `inclprof export`: load the traces, write one file in the
 * chosen format.  The file appears under its name only when complete (it is
 * written as NAME.part and renamed); a failed export leaves nothing behind. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cli_args.h"
#include "cli/commands.h"
#include "export/callgrind.h"
#include "export/chrome.h"
#include "export/csv.h"
#include "export/folded.h"
#include "export/options.h"
#include "export/pprof.h"
#include "export/progress.h"
#include "util/must_alloc.h"
#include "model/profile.h"

typedef struct output {
  FILE *f;
  const char *name;  /* as the user gave it ("-" = stdout) */
  char *part;        /* NAME.part while writing, NULL for stdout */
} output;

static int open_output(output *out, const char *name) {
  out->name = name;
  out->part = NULL;
  if (!strcmp(name, "-")) {
    out->f = stdout;
    return 0;
  }
  out->part = ip_must_realloc(NULL, strlen(name) + sizeof ".part", 1);
  sprintf(out->part, "%s.part", name);
  out->f = fopen(out->part, "wb");
  if (!out->f) {
    fprintf(stderr, "inclprof export: %s: cannot write: %s\n", name, strerror(errno));
    free(out->part);
    return -1;
  }
  return 0;
}

/* Finishes the output: flushed and renamed when ok, removed otherwise. */
static int close_output(output *out, int ok) {
  int err = 0;
  if (fflush(out->f) || ferror(out->f))
    err = errno ? errno : EIO;
  if (out->part && fclose(out->f) && !err)
    err = errno ? errno : EIO;
  if (ok && err)
    fprintf(stderr, "inclprof export: %s: write failed: %s\n", out->name, strerror(err));
  if (out->part) {
    if (ok && !err && rename(out->part, out->name)) {
      err = errno;
      fprintf(stderr, "inclprof export: %s: cannot rename %s to it: %s\n", out->name, out->part, strerror(err));
    }
    if (!ok || err)
      unlink(out->part);
    free(out->part);
  }
  return ok && !err ? 0 : -1;
}

/* What the loaded session must have for the options to make sense. */
static int check_session(const ip_session *s, const ip_export_opts *o) {
  char why[128];
  if (ip_selection_check(s, &o->sel, why, sizeof why)) {
    fprintf(stderr, "inclprof export: %s in %s%s\n", why, o->inputs[0], o->n_inputs > 1 ? " and the other traces" : "");
    return -1;
  }
  if (o->value == IP_VALUE_SAMPLES && !ip_session_sampled(s)) {
    fprintf(stderr, "inclprof export: --value samples: %s%s holds no samples (record with INCLPROF_SAMPLE_HZ=N)\n",
            o->inputs[0], o->n_inputs > 1 ? " and the other traces" : "");
    return -1;
  }
  return 0;
}

static int write_format(const ip_session *s, const ip_export_opts *o, output *out) {
  switch (o->format) {
  case IP_FMT_CSV:
    return ip_export_csv(s, o->by, &o->sel, out->f);
  case IP_FMT_PPROF:
    return ip_export_pprof(s, o, out->f, out->name);
  case IP_FMT_CALLGRIND:
    ip_export_callgrind(s, o, out->f);
    return 0;
  case IP_FMT_FOLDED:
    ip_export_folded(s, o, out->f);
    return 0;
  case IP_FMT_CHROME: /* written while loading */
    return 0;
  }
  return -1;
}

int cmd_export(int argc, char **argv) {
  ip_export_opts o;
  char err[512];
  switch (ip_export_parse_args(argc, argv, &o, err, sizeof err)) {
  case IP_EXPORT_PARSE_HELP:
    ip_export_usage(stdout);
    return 0;
  case IP_EXPORT_PARSE_ERROR:
    fprintf(stderr, "%s\n", err);
    return IP_EXIT_USAGE;
  default:
    break;
  }
  output out;
  if (open_output(&out, o.output ? o.output : ip_export_default_output(o.format)))
    return IP_EXIT_ERROR;

  ip_chrome_writer *chrome = o.format == IP_FMT_CHROME ? ip_chrome_begin(out.f, &o) : NULL;
  ip_progress progress;
  ip_load_opts lo = {.raw = o.raw};
  lo.visitor = ip_progress_start(&progress, chrome ? ip_chrome_visitor(chrome) : NULL, o.inputs, o.n_inputs);
  ip_session s;
  memset(&s, 0, sizeof s);
  int ok = !ip_session_load(&s, o.inputs, o.n_inputs, &lo);
  ip_progress_finish(&progress);
  ok = ok && !check_session(&s, &o);
  if (chrome) {
    if (ok && ip_chrome_over_limit(chrome))
      fprintf(stderr, "inclprof export: --max-events %" PRIu64 ": left out %" PRIu64 " later calls\n", o.max_events,
              ip_chrome_over_limit(chrome));
    if (ok)
      ip_chrome_end(chrome, &s);
    else
      ip_chrome_discard(chrome);
  }
  ok = ok && !write_format(&s, &o, &out);
  int status = ip_exit_status(&s);
  ip_session_free(&s);
  if (close_output(&out, ok))
    return IP_EXIT_ERROR;
  if (strcmp(out.name, "-"))
    fprintf(stderr, "inclprof export: wrote %s\n", out.name);
  return status;
}
