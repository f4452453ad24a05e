/* trace_dump.c - prints a trace file one record per line, for the runtime's
 * integration tests: "header ...", "function ...", "thread ...", "batch ...",
 * "gap ...", "trailer ...", and with -e one "ev TID T DT KIND GID" line per
 * event.  A TableRef prints "table FILE" and one "function ..." line per
 * entry of the table file beside the trace (with the trace's gid and
 * module); a callee's binding prints "binding gid=G module=M".  Exit 0 on a
 * clean end of file, 3 on damage (message on stderr), 2 if the file cannot
 * be opened. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/trace_reader.h"

static const char *mode_name(int m) {
  return m == INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS ? "kevents"
         : m == INCLPROF__TRANSITION_MODE__TRANSITIONS_PMU   ? "pmu"
                                                             : "none";
}

/* The entries of the table file a TableRef of the trace at path names. */
static void dump_table(const char *path, const Inclprof__TableRef *t) {
  char file[4096], err[512];
  const char *slash = strrchr(path, '/');
  snprintf(file, sizeof file, "%.*s%s", slash ? (int)(slash - path + 1) : 0, path, t->file);
  printf("table %s functions=%u\n", t->file, t->functions);
  ip_reader *r = ip_reader_open(file, err, sizeof err);
  if (!r) {
    fprintf(stderr, "%s\n", err);
    exit(2);
  }
  Inclprof__Record *rec;
  size_t run = 0, in_run = 0;
  while (ip_reader_next(r, &rec, err, sizeof err) == 1 && run + 1 < t->n_gid_runs) {
    if (rec->body_case != INCLPROF__RECORD__BODY_FUNCTION)
      continue;
    const Inclprof__Function *f = rec->function;
    if (t->gid_runs[run]) /* a run from gid 0: entries with no gid of their own */
      printf("function gid=%u name=%s flags=0x%x module=%u\n", t->gid_runs[run] + (uint32_t)in_run,
             f->name, f->flags, f->module ? t->module : 0);
    if (++in_run == t->gid_runs[run + 1]) {
      run += 2;
      in_run = 0;
    }
  }
  ip_reader_close(r);
}

int main(int argc, char **argv) {
  int events = argc > 2 && !strcmp(argv[1], "-e");
  const char *path = argv[argc - 1];
  if (argc < 2) {
    fprintf(stderr, "usage: trace_dump [-e] TRACE\n");
    return 2;
  }
  char err[512];
  ip_reader *r = ip_reader_open(path, err, sizeof err);
  if (!r) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  Inclprof__Record *rec;
  int rc;
  while ((rc = ip_reader_next(r, &rec, err, sizeof err)) == 1) {
    switch (rec->body_case) {
    case INCLPROF__RECORD__BODY_HEADER: {
      Inclprof__Header *h = rec->header;
      printf("header pid=%u forked_from=%u transitions=%s probe_cost=%.1f tps=%.0f sample_hz=%u "
             "note=%s\n",
             h->pid, h->forked_from, mode_name(h->transitions), h->probe_cost_ticks,
             h->ticks_per_second, h->sample_hz, h->transitions_note ? h->transitions_note : "");
      break;
    }
    case INCLPROF__RECORD__BODY_MODULE:
      printf("module id=%u path=%s\n", rec->module->id, rec->module->path);
      break;
    case INCLPROF__RECORD__BODY_FUNCTION:
      if (!rec->function->name)
        printf("binding gid=%u module=%u\n", rec->function->gid, rec->function->module);
      else
        printf("function gid=%u name=%s flags=0x%x module=%u\n", rec->function->gid,
               rec->function->name, rec->function->flags, rec->function->module);
      break;
    case INCLPROF__RECORD__BODY_TABLE_REF:
      dump_table(path, rec->table_ref);
      break;
    case INCLPROF__RECORD__BODY_THREAD:
      printf("thread tid=%u name=%s\n", rec->thread->tid, rec->thread->name);
      break;
    case INCLPROF__RECORD__BODY_THREAD_END:
      printf("thread_end tid=%u\n", rec->thread_end->tid);
      break;
    case INCLPROF__RECORD__BODY_EVENTS: {
      Inclprof__EventBatch *b = rec->events;
      printf("batch tid=%u seq=%" PRIu64 " n=%zu\n", b->tid, b->seq, b->n_dt);
      for (size_t i = 0; events && i < b->n_dt && i < b->n_code; i++)
        printf("ev %u %u %" PRIu64 " %u %u\n", b->tid, (unsigned)(b->dt[i] & 1), b->dt[i] >> 1,
               b->code[i] & 7, b->code[i] >> 3);
      break;
    }
    case INCLPROF__RECORD__BODY_GAP:
      printf("gap tid=%u ticks=%" PRIu64 "\n", rec->gap->tid,
             rec->gap->end_tick - rec->gap->start_tick);
      break;
    case INCLPROF__RECORD__BODY_MARK:
      printf("mark id=%u text=%s\n", rec->mark->id, rec->mark->text);
      break;
    case INCLPROF__RECORD__BODY_TRAILER: {
      Inclprof__Trailer *t = rec->trailer;
      printf("trailer clean=%d reason=%s events=%" PRIu64 " dropped=%" PRIu64 " samples=%" PRIu64
             " in_runtime=%" PRIu64 " handed_off=%" PRIu64 " inline=%" PRIu64 " crowded=%" PRIu64
             "\n",
             t->clean, t->exit_reason ? t->exit_reason : "", t->events, t->dropped_events,
             t->samples_taken, t->samples_in_runtime, t->buffers_handed_off, t->inline_flushes,
             t->crowded_flushes);
      break;
    }
    default:
      break;
    }
  }
  if (rc < 0)
    fprintf(stderr, "%s\n", err);
  ip_reader_close(r);
  return rc < 0 ? 3 : 0;
}
