/* cli/record_perfmon.h - `record` run through inclprof-perfmon when this
 * user may not open the kevents events (record_perfmon.c). */
#ifndef INCLPROF_RECORD_PERFMON_H
#define INCLPROF_RECORD_PERFMON_H

/* Whether this process may open the kevents events itself: root, or the
 * tracepoint's id readable and its event opened. */
int record_kevents_permitted(void);

/* When the run would use kevents (mode: --transitions, NULL for auto), this
 * user may not open its events, no grant server serves this process yet
 * (IP_GRANT_ENV unset) and inclprof-perfmon is installed beside this command
 * with its capabilities: replaces this process by the helper running this
 * same `record` command (argc, argv: record's, argv[0] the command's name).
 * Returns only when it does not (or the exec failed). */
void record_perfmon_exec(const char *mode, int argc, char **argv);

#endif
