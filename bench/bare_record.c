/* bare_record.c - the thread-local buffer of the bare hook and the event
 * count it reports when the benchmark exits. */
#include "bare_record.h"

#include <stdio.h>

__thread struct bare_record bare_buf[BARE_CAPACITY];
__thread unsigned bare_pos;
__thread uint64_t bare_wraps;

void bare_report(void) {
  fprintf(stderr, "hook_events=%llu\n",
          (unsigned long long)(bare_wraps * BARE_CAPACITY + bare_pos));
}

__attribute__((destructor)) static void report_at_exit(void) { bare_report(); }
