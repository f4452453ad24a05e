/* export/locks.c - `inclprof export --format locks`: the critical path's
 * lock table (model/critical_locks.c) as RFC 4180 CSV, one row per
 * synchronisation object, sorted by the holders' time on the path:
 *   pid, object (its address, hex), kind (object, futex_word, thread),
 *   name (the data symbol holding it, or the joined thread's tid), then
 *   held_on_path_ns, on_path, waits, waited_ns, and the calls naming it:
 *   waited_in (sleeper's call < its caller), waited_in_calls (how many),
 *   released_by (the waker's call at the wake-up, "[thread exit]" for a
 *   join), released_by_calls.  Needs traces with futex waits. */
#include <stdlib.h>

#include "export/csv.h"
#include "export/exporter.h"

static void site(FILE *out, const ip_session *s, uint32_t thread, uint32_t node) {
  char buf[512];
  if (thread == IP_NO_THREAD)
    buf[0] = 0;
  else
    ip_call_site_name(s, &s->threads[thread], node, buf, sizeof buf);
  ip_csv_field(out, buf);
}

static int write_locks(ip_export_job *job, const ip_session *s) {
  int any = 0;
  for (size_t p = 0; p < s->n_processes; p++)
    any |= s->processes[p].futex_waits;
  const ip_process *agg = ip_session_aggregate(s);
  if (!any && agg) {
    fprintf(stderr,
            "inclprof export: --format locks needs a trace: %s is an aggregate profile (recorded "
            "with --aggregate), which keeps no futex wait; record without --aggregate\n",
            agg->trace_path);
    return -1;
  }
  if (!any) {
    fprintf(stderr, "inclprof export: --format locks needs the threads' futex waits, which these "
                    "traces do not have (record in kevents mode as root, with this version: "
                    "'inclprof info' says \"futex waits\" under transitions)\n");
    return -1;
  }
  ip_lock_row *rows;
  size_t n = ip_critical_locks(s, job->critical, &rows);
  FILE *out = job->out;
  fputs("pid,object,kind,name,held_on_path_ns,on_path,waits,waited_ns,waited_in,waited_in_calls,"
        "released_by,released_by_calls\n",
        out);
  for (size_t i = 0; i < n; i++) {
    const ip_lock_row *r = &rows[i];
    int join = r->exit_thread != IP_NO_THREAD;
    fprintf(out, "%u,0x%llx,%s,", s->processes[r->process].pid, (unsigned long long)r->object,
            join                     ? "thread"
            : r->how == IP_LOCK_WORD ? "futex_word"
                                     : "object");
    if (join)
      fprintf(out, "%u", s->threads[r->exit_thread].tid);
    else
      ip_csv_field(out, r->name);
    fprintf(out, ",%llu,%llu,%llu,%llu,", (unsigned long long)r->crit_ns,
            (unsigned long long)r->jumps, (unsigned long long)r->waits,
            (unsigned long long)r->waited_ns);
    site(out, s, r->waiter_thread, r->waiter_node);
    fprintf(out, ",%u,", r->n_waiter_sites);
    if (join)
      fputs("[thread exit],0\n", out);
    else {
      site(out, s, r->holder_thread, r->holder_node);
      fprintf(out, ",%u\n", r->n_holder_sites);
    }
  }
  free(rows);
  if (ferror(out)) {
    fprintf(stderr, "inclprof export: writing %s failed\n", job->out_name);
    return -1;
  }
  return 0;
}

const ip_exporter ip_exporter_locks = {
    .name = "locks",
    .readers = "any spreadsheet: the critical path's lock table",
    .default_output = "inclprof-locks.csv",
    .options = 0,
    .critical = 1, /* the call paths are kept: the rows name calls */
    .write = write_locks,
};
