/* util/output_file.h - a command's output file that appears under its name
 * only when complete: a regular file is written as NAME.part and renamed;
 * a failed write leaves nothing behind.  "-" is stdout, and an output that
 * exists and is not a regular file (a device, a pipe) is written directly.
 * A failed write is reported with the error of the write that failed. */
#ifndef INCLPROF_OUTPUT_FILE_H
#define INCLPROF_OUTPUT_FILE_H

#include <stdio.h>

typedef struct ip_output {
  FILE *f;
  const char *cmd;             /* for messages: "export", "suggest", "diff" */
  const char *option;          /* for messages: the option that names it ("-o") */
  const char *name;            /* as the user gave it ("-" = stdout) */
  char *part;                  /* NAME.part while writing, NULL when written directly */
  struct ip_output_sink *sink; /* f's descriptor and its first write error (not stdout) */
} ip_output;

/* Opens name for command cmd, given by its option.  Returns 0, or -1 after
 * printing the one-line error "inclprof CMD: NAME: cannot write: REASON;
 * give a writable path with OPTION". */
int ip_output_open(ip_output *out, const char *cmd, const char *option, const char *name);

/* Finishes the output: flushed and renamed when ok, removed otherwise.
 * Returns 0, or -1 (after a one-line error when ok was set). */
int ip_output_close(ip_output *out, int ok);

#endif
