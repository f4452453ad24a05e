/* settings.c - the one reader of the runtime's INCLPROF_* settings: every
 * variable's value is copied into ip_set once, when the library is loaded
 * (or, in a program linked with the static library whose instrumented
 * constructors run first, at the first registration), before the program
 * can change its environment.  The files that use a setting read ip_set
 * and say, where they use it, what a value they do not understand means.
 * ip_settings_reread is for unit tests that set variables at run time. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "perf_grant.h"
#include "base/base.h"
#include "settings_names.h"

struct ip_settings ip_set;

static const struct {
  const char *name;
  size_t field;
} variables[] = {
    {IP_ENV_OUTPUT, offsetof(struct ip_settings, output)},
    {IP_ENV_TRANSITIONS, offsetof(struct ip_settings, transitions)},
    {IP_ENV_WAKE_EDGES, offsetof(struct ip_settings, wake_edges)},
    {IP_ENV_FUTEX_WAITS, offsetof(struct ip_settings, futex_waits)},
    {IP_ENV_SAMPLE_HZ, offsetof(struct ip_settings, sample_hz)},
    {IP_ENV_MAX_SIZE, offsetof(struct ip_settings, max_size)},
    {IP_ENV_MAX_SIZE_POLICY, offsetof(struct ip_settings, max_size_policy)},
    {IP_ENV_CLOCK, offsetof(struct ip_settings, clock)},
    {IP_ENV_WRITER, offsetof(struct ip_settings, writer)},
    {IP_ENV_CARRY_ENV, offsetof(struct ip_settings, carry_env)},
    {IP_ENV_RUN, offsetof(struct ip_settings, run)},
    {IP_ENV_RECORD_NOTES, offsetof(struct ip_settings, record_notes)},
    {IP_ENV_PAUSED, offsetof(struct ip_settings, paused)},
    {IP_ENV_DELAY, offsetof(struct ip_settings, delay)},
    {IP_ENV_DURATION, offsetof(struct ip_settings, duration)},
    {IP_ENV_FLUSH_EVERY, offsetof(struct ip_settings, flush_every)},
    {IP_ENV_CTL, offsetof(struct ip_settings, ctl)},
    {IP_ENV_TABLES, offsetof(struct ip_settings, tables)},
    {IP_ENV_MODE, offsetof(struct ip_settings, mode)},
    {IP_ENV_INTERVAL, offsetof(struct ip_settings, interval)},
    {IP_GRANT_ENV, offsetof(struct ip_settings, grant)},
    {IP_ENV_SNAPSHOT_IF, offsetof(struct ip_settings, snapshot_if)},
    {IP_ENV_SNAPSHOT_MARGIN, offsetof(struct ip_settings, snapshot_margin)},
    {IP_ENV_SNAPSHOT_KEEP, offsetof(struct ip_settings, snapshot_keep)},
};

int ip_setting_named(const char *entry) {
  size_t len = strcspn(entry, "=");
  if (!entry[len])
    return 0;
  for (size_t i = 0; i < sizeof variables / sizeof variables[0]; i++)
    if (strlen(variables[i].name) == len && !memcmp(entry, variables[i].name, len))
      return 1;
  return 0;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

void ip_settings_reread(void) {
  for (size_t i = 0; i < sizeof variables / sizeof variables[0]; i++) {
    char **value = (char **)((char *)&ip_set + variables[i].field);
    ip_free(*value);
    const char *env = getenv(variables[i].name);
    *value = env ? ip_strdup(env) : NULL;
  }
}

void ip_settings_load(void) { pthread_once(&once, ip_settings_reread); }

__attribute__((constructor)) static void settings_at_load(void) { ip_settings_load(); }
