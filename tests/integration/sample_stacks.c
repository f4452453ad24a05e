/* sample_stacks.c - prints the call stack of every sample of a trace file,
 * in the order the samples were taken, one line each, the functions from
 * the outermost joined by ';' (the shape of the folded format).  For
 * sampling_independent.sh: whether consecutive samples land independently
 * of each other.  Usage: sample_stacks TRACE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"

#define MAX_FUNCS 65536
#define MAX_DEPTH 256

int main(int argc, char **argv) {
  char err[512];
  if (argc != 2) {
    fprintf(stderr, "usage: sample_stacks TRACE\n");
    return 2;
  }
  ip_reader *r = ip_reader_open(argv[1], err, sizeof err);
  if (!r) {
    fprintf(stderr, "sample_stacks: %s\n", err);
    return 1;
  }
  static char *names[MAX_FUNCS];
  uint32_t stack[MAX_DEPTH];
  size_t depth = 0;
  Inclprof__Record *rec;
  int rc;
  while ((rc = ip_reader_next(r, &rec, err, sizeof err)) == 1) {
    if (rec->body_case == INCLPROF__RECORD__BODY_FUNCTION) {
      if (rec->function->gid < MAX_FUNCS && !names[rec->function->gid])
        names[rec->function->gid] = strdup(rec->function->name ? rec->function->name : "?");
      continue;
    }
    if (rec->body_case != INCLPROF__RECORD__BODY_EVENTS)
      continue;
    const Inclprof__EventBatch *b = rec->events;
    for (size_t i = 0; i < b->n_code; i++) {
      uint32_t kind = b->code[i] & 7, fn = b->code[i] >> 3;
      if (kind == INCLPROF__EVENT_KIND__EV_SAMPLE) {
        for (size_t d = 0; d < depth; d++)
          printf("%s%s", d ? ";" : "",
                 stack[d] < MAX_FUNCS && names[stack[d]] ? names[stack[d]] : "?");
        printf("%s\n", depth ? "" : "-");
      } else if (kind == INCLPROF__EVENT_KIND__EV_ENTER || kind == INCLPROF__EVENT_KIND__EV_CALL) {
        if (kind == INCLPROF__EVENT_KIND__EV_ENTER && depth && stack[depth - 1] == fn)
          continue; /* a call-site frame joined by its callee's entry */
        if (depth < MAX_DEPTH)
          stack[depth++] = fn;
      } else if (kind == INCLPROF__EVENT_KIND__EV_EXIT || kind == INCLPROF__EVENT_KIND__EV_RET) {
        size_t d = depth; /* pops down to fn's frame; an exit of no open frame is ignored */
        while (d && stack[d - 1] != fn)
          d--;
        if (d)
          depth = d - 1;
      }
    }
  }
  ip_reader_close(r);
  if (rc < 0) {
    fprintf(stderr, "sample_stacks: %s\n", err);
    return 1;
  }
  return 0;
}
