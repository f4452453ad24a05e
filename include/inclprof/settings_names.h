/* settings_names.h - the names of the environment variables that carry
 * inclprof's settings into a recorded process: `inclprof record` sets them
 * (convert/cli/), the runtime reads them (runtime/base/settings.c) and
 * carries them into new processes (env_carry.c).  Their
 * values and meanings: docs/commands/inclprof-runtime.md. */
#ifndef INCLPROF_SETTINGS_NAMES_H
#define INCLPROF_SETTINGS_NAMES_H

#define IP_ENV_PREFIX "INCLPROF_" /* every setting's name begins so */

#define IP_ENV_OUTPUT          "INCLPROF_OUTPUT"
#define IP_ENV_TRANSITIONS     "INCLPROF_TRANSITIONS"
#define IP_ENV_WAKE_EDGES      "INCLPROF_WAKE_EDGES"
#define IP_ENV_FUTEX_WAITS     "INCLPROF_FUTEX_WAITS"
#define IP_ENV_SAMPLE_HZ       "INCLPROF_SAMPLE_HZ"
#define IP_ENV_MAX_SIZE        "INCLPROF_MAX_SIZE"
#define IP_ENV_MAX_SIZE_POLICY "INCLPROF_MAX_SIZE_POLICY"
#define IP_ENV_CLOCK           "INCLPROF_CLOCK"
#define IP_ENV_WRITER          "INCLPROF_WRITER"
#define IP_ENV_CARRY_ENV       "INCLPROF_CARRY_ENV"
#define IP_ENV_RUN             "INCLPROF_RUN"
#define IP_ENV_RECORD_NOTES    "INCLPROF_RECORD_NOTES"
#define IP_ENV_PAUSED          "INCLPROF_PAUSED"
#define IP_ENV_DELAY           "INCLPROF_DELAY"
#define IP_ENV_DURATION        "INCLPROF_DURATION"
#define IP_ENV_FLUSH_EVERY     "INCLPROF_FLUSH_EVERY"
#define IP_ENV_CTL             "INCLPROF_CTL"
#define IP_ENV_TABLES          "INCLPROF_TABLES"
#define IP_ENV_MODE            "INCLPROF_MODE"
#define IP_ENV_INTERVAL        "INCLPROF_INTERVAL"
#define IP_ENV_SNAPSHOT_IF     "INCLPROF_SNAPSHOT_IF"
#define IP_ENV_SNAPSHOT_MARGIN "INCLPROF_SNAPSHOT_MARGIN"
#define IP_ENV_SNAPSHOT_KEEP   "INCLPROF_SNAPSHOT_KEEP"
/* The grant server's socket (IP_GRANT_ENV) is named in perf_grant.h. */

#endif
