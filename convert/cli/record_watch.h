/* cli/record_watch.h - waiting for the recorded program while watching its
 * trace directory grow (record_watch.c). */
#ifndef INCLPROF_RECORD_WATCH_H
#define INCLPROF_RECORD_WATCH_H

#include <sys/types.h>

/* Bytes a minute above which `record` warns that the trace grows too fast. */
#define RECORD_WATCH_WARN_PER_MINUTE (2ull << 30)

/* Waits for pid like waitpid(pid, status, 0) (0, or -1 with errno).  Once a
 * second meanwhile it sums the sizes of dir's trace files; after the first
 * second, if they grow at more than RECORD_WATCH_WARN_PER_MINUTE (or the
 * size a minute INCLPROF_RATE_WARNING gives; 0 silences it), it says so once
 * on stderr with the rate, the projected size and what to do. */
int record_watch_wait(pid_t pid, int *status, const char *dir);

#endif
