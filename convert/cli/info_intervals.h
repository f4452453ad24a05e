/* cli/info_intervals.h - the interval profiles of a trace directory
 * (record --aggregate --interval), counted for record's summary and
 * listed by `inclprof info` (info_intervals.c). */
#ifndef INCLPROF_INFO_INTERVALS_H
#define INCLPROF_INFO_INTERVALS_H

#include <stddef.h>

/* How many DIR/<pid>.intervals/ directories dir holds; *files: the
 * profiles (.ipb) in them all; first: the path of the first directory (by
 * name), "" when there is none. */
int interval_dirs(const char *dir, int *files, char *first, size_t len);

/* Lists dir's DIR/<pid>.intervals/ directories, one line each with its
 * profiles' count; nothing when dir is not a directory or has none. */
void info_intervals(const char *dir);

#endif
