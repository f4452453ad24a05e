/* cli/info_snapshots.h - the snapshots of a trace directory, listed by
 * `inclprof info` (info_snapshots.c). */
#ifndef INCLPROF_INFO_SNAPSHOTS_H
#define INCLPROF_INFO_SNAPSHOTS_H

/* Lists dir/snapshots/ (record --snapshot-if) when there is one: each
 * snapshot's slow call, its duration, when, and its window; nothing when
 * dir is not a directory or has none. */
void info_snapshots(const char *dir);

#endif
