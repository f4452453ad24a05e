/* export/csv.c - RFC 4180 CSV of the data values (see export/csv.h).
 * Key columns by level: function,module,file,line | module | pid,tid,thread |
 * pid,executable; then calls, the four values in ns, their percentages (of
 * the session's Elapsed / Application Inclusive totals), the sample counts
 * and their percentages (of the session's samples), then the wait breakdown
 * (inclusive and exclusive, 0 without kernel-event records); per function,
 * the distribution of its calls' Elapsed Inclusive time (p50, p90, p99,
 * p99.9, max: model/latency.h); when a process recorded wake edges, the
 * critical path's Critical Inclusive and Exclusive time (model/critical.h);
 * per coroutine body, when the traces hold coroutine operations, its
 * operations (model/operations.h: count, runs, latency total, p50, p90,
 * p99, max, ran, suspended; 0 on other rows).
 * Lines end in LF. */
#include "export/csv.h"

#include <stdlib.h>
#include <string.h>

static const char *const key_columns[] = {"function,module,file,line", "module", "pid,tid,thread",
                                          "pid,executable"};

#define VALUE_COLUMNS                                                                              \
  "calls,elapsed_inclusive_ns,elapsed_exclusive_ns,application_inclusive_ns,"                      \
  "application_exclusive_ns,elapsed_inclusive_pct,elapsed_exclusive_pct,"                          \
  "application_inclusive_pct,application_exclusive_pct,inclusive_samples,"                         \
  "exclusive_samples,inclusive_samples_pct,exclusive_samples_pct"                                  \
  ",offcpu_preempted_inclusive_ns,offcpu_preempted_exclusive_ns,"                                  \
  "offcpu_blocked_inclusive_ns,offcpu_blocked_exclusive_ns,syscall_inclusive_ns,"                  \
  "syscall_exclusive_ns,page_fault_inclusive_ns,page_fault_exclusive_ns,"                          \
  "page_faults_inclusive,page_faults_exclusive"
#define LATENCY_COLUMNS  ",p50_ns,p90_ns,p99_ns,p999_ns,max_ns"
#define CRITICAL_COLUMNS ",critical_inclusive_ns,critical_exclusive_ns"
#define OPERATION_COLUMNS                                                                          \
  ",operations,operation_runs,operation_latency_ns,operation_p50_ns,operation_p90_ns,"             \
  "operation_p99_ns,operation_max_ns,operation_ran_ns,operation_suspended_ns"

void ip_csv_field(FILE *out, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, out);
    return;
  }
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

static void keys(FILE *out, const ip_session *s, ip_level l, uint32_t k) {
  if (l == IP_BY_FUNCTION) {
    const ip_func *f = &s->funcs[k];
    ip_csv_field(out, f->pretty);
    fputc(',', out);
    ip_csv_field(out, s->modules[f->module].path);
    fputc(',', out);
    ip_csv_field(out, f->file);
    fprintf(out, ",%u", f->line);
  } else if (l == IP_BY_MODULE) {
    ip_csv_field(out, s->modules[k].path);
  } else if (l == IP_BY_THREAD) {
    const ip_thread *t = &s->threads[k];
    fprintf(out, "%u,%u,", s->processes[t->process].pid, t->tid);
    ip_csv_field(out, t->name ? t->name : "");
  } else {
    fprintf(out, "%u,", s->processes[k].pid);
    ip_csv_field(out, s->processes[k].executable);
  }
}

static void values(FILE *out, const ip_session *s, const ip_values *v) {
  const ip_values *t = &s->total;
  fprintf(out, ",%llu,%llu,%llu,%llu,%llu,%.6f,%.6f,%.6f,%.6f,%llu,%llu,%.6f,%.6f",
          (unsigned long long)v->calls, (unsigned long long)v->el_incl,
          (unsigned long long)v->el_excl, (unsigned long long)v->app_incl,
          (unsigned long long)v->app_excl, ip_pct(v->el_incl, t->el_incl),
          ip_pct(v->el_excl, t->el_incl), ip_pct(v->app_incl, t->app_incl),
          ip_pct(v->app_excl, t->app_incl), (unsigned long long)v->smp_incl,
          (unsigned long long)v->smp_excl, ip_pct(v->smp_incl, t->smp_incl),
          ip_pct(v->smp_excl, t->smp_incl));
  for (int k = 0; k < IP_WAIT_N; k++)
    fprintf(out, ",%llu,%llu", (unsigned long long)v->wait_incl[k],
            (unsigned long long)v->wait_excl[k]);
}

static void quantiles(FILE *out, const ip_lat *h) {
  static const double q[] = {0.5, 0.9, 0.99, 0.999};
  for (size_t i = 0; i < sizeof q / sizeof *q; i++)
    fprintf(out, ",%llu", (unsigned long long)ip_lat_quantile(h, q[i]));
  fprintf(out, ",%llu", (unsigned long long)h->max);
}

static void operation_cells(FILE *out, const ip_coro_ops *c) {
  static const ip_coro_ops none;
  if (!c)
    c = &none;
  fprintf(out, ",%llu,%llu,%llu", (unsigned long long)c->n, (unsigned long long)c->runs,
          (unsigned long long)c->latency_ns);
  static const double q[] = {0.5, 0.9, 0.99};
  for (size_t i = 0; i < sizeof q / sizeof *q; i++)
    fprintf(out, ",%llu", (unsigned long long)ip_lat_quantile(&c->latency, q[i]));
  fprintf(out, ",%llu,%llu,%llu", (unsigned long long)c->latency.max, (unsigned long long)c->ran_ns,
          (unsigned long long)c->suspended_ns);
}

int ip_export_csv(const ip_session *s, ip_level level, const ip_selection *sel, FILE *out) {
  ip_row *rows;
  size_t n = ip_aggregate(s, level, sel, &rows);
  ip_rows_sort(s, level, rows, n, IP_SORT_ELAPSED_INCL);
  ip_lat_pair *lat = level == IP_BY_FUNCTION ? ip_lat_by_function(s, sel) : NULL;
  ip_operations ops = {0};
  uint32_t *coro_of = NULL; /* function -> 1 + its index in ops.by_coro, 0 none */
  if (level == IP_BY_FUNCTION) {
    ip_operations_build(s, &ops);
    if (ops.n_coro) {
      coro_of = calloc(s->n_funcs + 1, sizeof *coro_of);
      if (!coro_of) {
        ip_operations_free(&ops);
        ip_lat_free_all(lat, s->n_funcs);
        free(rows);
        return -1;
      }
      for (size_t i = 0; i < ops.n_coro; i++)
        coro_of[ops.by_coro[i].func] = (uint32_t)i + 1;
    }
  }
  int critical = ip_session_has_critical(s);
  fprintf(out, "%s," VALUE_COLUMNS "%s%s%s\n", key_columns[level], lat ? LATENCY_COLUMNS : "",
          critical ? CRITICAL_COLUMNS : "", coro_of ? OPERATION_COLUMNS : "");
  for (size_t i = 0; i < n; i++) {
    keys(out, s, level, rows[i].key);
    values(out, s, &rows[i].v);
    if (lat)
      quantiles(out, &lat[rows[i].key].el);
    if (critical)
      fprintf(out, ",%llu,%llu", (unsigned long long)rows[i].v.crit_incl,
              (unsigned long long)rows[i].v.crit_excl);
    if (coro_of)
      operation_cells(out, coro_of[rows[i].key] ? &ops.by_coro[coro_of[rows[i].key] - 1] : NULL);
    fputc('\n', out);
  }
  free(coro_of);
  ip_operations_free(&ops);
  ip_lat_free_all(lat, s->n_funcs);
  free(rows);
  return ferror(out) ? -1 : 0;
}

/* `inclprof export --format csv` */
static int write_csv(ip_export_job *job, const ip_session *s) {
  return ip_export_csv(s, job->opts->by, &job->opts->sel, job->out);
}

const ip_exporter ip_exporter_csv = {
    .name = "csv",
    .readers = "any spreadsheet",
    .default_output = "inclprof.csv",
    .options = IP_EXOPT_BY,
    .sums_only = 1,
    .latency = IP_LAT_ELAPSED,
    .critical = 1,
    .operations = 1,
    .write = write_csv,
};
