/* bare_record.c - the thread-local buffer of the bare hook, the event
 * count it reports when the benchmark exits, and the raw write of a full
 * buffer for the writing floor (BARE_WRITE). */
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC */
#include "bare_record.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__thread struct bare_record bare_buf[BARE_CAPACITY];
__thread unsigned bare_pos;
__thread uint64_t bare_wraps;

static int bare_fd = -1;

__attribute__((constructor)) static void open_out(void) {
  const char *path = getenv("BARE_OUT");
  if (path && *path)
    bare_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
}

__attribute__((noinline, cold)) void bare_write(void) {
  if (bare_fd >= 0 && write(bare_fd, bare_buf, sizeof bare_buf) < 0)
    bare_fd = -1;
}

void bare_report(void) {
  fprintf(stderr, "hook_events=%llu\n",
          (unsigned long long)(bare_wraps * BARE_CAPACITY + bare_pos));
}

__attribute__((destructor)) static void report_at_exit(void) { bare_report(); }
