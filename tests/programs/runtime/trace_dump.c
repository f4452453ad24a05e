/* trace_dump.c - prints a trace file one record per line, for the runtime's
 * integration tests: "header ...", "function ...", "thread ...", "batch ...",
 * "gap ...", "trailer ...", and with -e one "ev TID T DT KIND GID" line per
 * event.  Exit 0 on a clean end of file, 3 on damage (message on stderr),
 * 2 if the file cannot be opened. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "read/trace_reader.h"

static const char *mode_name(int m) {
  return m == INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS ? "kevents"
         : m == INCLPROF__TRANSITION_MODE__TRANSITIONS_PMU   ? "pmu"
                                                             : "none";
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
      printf("function gid=%u name=%s flags=0x%x module=%u\n", rec->function->gid,
             rec->function->name, rec->function->flags, rec->function->module);
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
