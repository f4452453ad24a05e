/* ip_options.c - parsing and validating the plugin's KEY=VALUE settings, from
 * -fplugin-arg-inclprof-KEY=VALUE arguments and from filter files. */
#include "ip_options.h"
#include "ip_rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char ip_valid_keys[] =
    "include, exclude, include-file, exclude-file, min-size, filter, callsites, "
    "report, system-headers, verbose, tail-recursion, partial-inlining, exclude-calls, "
    "probe-form";

void ip_config_init(struct ip_config *cfg)
{
  memset(cfg, 0, sizeof *cfg);
  cfg->callsites = IP_CALLSITES_EXTERNAL;
}

void ip_config_free(struct ip_config *cfg)
{
  ip_rules_free(cfg);
  free(cfg->report_path);
  cfg->report_path = NULL;
}

/* A value of a rule key: one "re:" regex, or comma-separated globs. */
static int add_rules(struct ip_config *cfg, int include, enum ip_rule_target target,
                     const char *key, const char *value, const char *where,
                     char *err, size_t errlen)
{
  char origin[512];
  snprintf(origin, sizeof origin, "%s: %s=%s", where, key, value);
  if (strncmp(value, "re:", 3) == 0)
    return ip_rules_add(cfg, include, target, value, origin, err, errlen);
  const char *p = value;
  for (;;) {
    size_t n = strcspn(p, ",");
    char glob[512];
    if (n >= sizeof glob) {
      snprintf(err, errlen, "%s: pattern too long", origin);
      return -1;
    }
    memcpy(glob, p, n);
    glob[n] = '\0';
    if (ip_rules_add(cfg, include, target, glob, origin, err, errlen) != 0)
      return -1;
    if (p[n] == '\0')
      return 0;
    p += n + 1;
  }
}

static int parse_unsigned(const char *value, unsigned *out)
{
  if (*value < '0' || *value > '9')
    return -1;
  errno = 0;
  char *end;
  unsigned long v = strtoul(value, &end, 10);
  if (errno || *end != '\0' || v > 0xffffffffu)
    return -1;
  *out = (unsigned)v;
  return 0;
}

static int parse_bool(const char *value, int *out)
{
  if (!value || strcmp(value, "1") == 0 || strcmp(value, "yes") == 0) {
    *out = 1;
    return 0;
  }
  if (strcmp(value, "0") == 0 || strcmp(value, "no") == 0) {
    *out = 0;
    return 0;
  }
  return -1;
}

int ip_config_set(struct ip_config *cfg, const char *key, const char *value,
                  const char *where, char *err, size_t errlen)
{
  static const struct { const char *key; int include; enum ip_rule_target target; } rule_keys[] = {
    { "include", 1, IP_RULE_NAME },      { "exclude", 0, IP_RULE_NAME },
    { "include-file", 1, IP_RULE_FILE }, { "exclude-file", 0, IP_RULE_FILE },
    { "exclude-calls", 0, IP_RULE_CALLS },
  };
  int is_flag = strcmp(key, "verbose") == 0 || strcmp(key, "system-headers") == 0;
  int known = is_flag || strcmp(key, "min-size") == 0 || strcmp(key, "filter") == 0 ||
              strcmp(key, "callsites") == 0 || strcmp(key, "report") == 0 ||
              strcmp(key, "tail-recursion") == 0 || strcmp(key, "partial-inlining") == 0 ||
              strcmp(key, "probe-form") == 0;
  for (size_t i = 0; i < sizeof rule_keys / sizeof rule_keys[0]; i++)
    known |= strcmp(key, rule_keys[i].key) == 0;
  if (!known) {
    snprintf(err, errlen, "%s: unknown key '%s'; valid keys: %s", where, key, ip_valid_keys);
    return -1;
  }
  if (!is_flag && (!value || *value == '\0')) {
    snprintf(err, errlen, "%s: key '%s' needs a value (%s=VALUE)", where, key, key);
    return -1;
  }
  for (size_t i = 0; i < sizeof rule_keys / sizeof rule_keys[0]; i++)
    if (strcmp(key, rule_keys[i].key) == 0)
      return add_rules(cfg, rule_keys[i].include, rule_keys[i].target, key, value, where, err, errlen);
  if (is_flag) {
    int *flag = strcmp(key, "verbose") == 0 ? &cfg->verbose : &cfg->system_headers;
    if (parse_bool(value, flag) == 0)
      return 0;
    snprintf(err, errlen, "%s: bad value '%s' for %s (expected yes, no, 1 or 0)", where, value, key);
    return -1;
  }
  if (strcmp(key, "min-size") == 0) {
    if (parse_unsigned(value, &cfg->min_size) == 0)
      return 0;
    snprintf(err, errlen, "%s: bad value '%s' for min-size (expected a number of GIMPLE instructions)",
             where, value);
    return -1;
  }
  static const struct { const char *key; const char *values[3]; const char *expected; } choices[] = {
    { "callsites", { "none", "external", "all" }, "none, external or all" },
    { "tail-recursion", { "keep", "loop", NULL }, "keep or loop" },
    { "partial-inlining", { "no", "yes", NULL }, "no or yes" },
    { "probe-form", { "stub", "call", NULL }, "stub or call" },
  };
  int *choice_out[] = { NULL, &cfg->tail_recursion_loop, &cfg->partial_inlining, &cfg->probe_calls };
  for (size_t c = 0; c < sizeof choices / sizeof choices[0]; c++) {
    if (strcmp(key, choices[c].key) != 0)
      continue;
    for (int m = 0; m < 3 && choices[c].values[m]; m++)
      if (strcmp(value, choices[c].values[m]) == 0) {
        if (choice_out[c])
          *choice_out[c] = m;
        else
          cfg->callsites = (enum ip_callsites)m;
        return 0;
      }
    snprintf(err, errlen, "%s: bad value '%s' for %s (expected %s)", where, value, key,
             choices[c].expected);
    return -1;
  }
  if (strcmp(key, "report") == 0) {
    char *copy = strdup(value);
    if (!copy) {
      snprintf(err, errlen, "%s: out of memory", where);
      return -1;
    }
    free(cfg->report_path);
    cfg->report_path = copy;
    return 0;
  }
  return ip_config_read_filter_file(cfg, value, err, errlen);
}

static char *trim(char *s)
{
  while (*s == ' ' || *s == '\t')
    s++;
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
    s[--n] = '\0';
  return s;
}

int ip_config_read_filter_file(struct ip_config *cfg, const char *path, char *err, size_t errlen)
{
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errlen, "%s: cannot open filter file: %s", path, strerror(errno));
    return -1;
  }
  char line[1024], where[512];
  int rc = 0;
  for (unsigned lineno = 1; rc == 0 && fgets(line, sizeof line, f); lineno++) {
    snprintf(where, sizeof where, "%s:%u", path, lineno);
    if (!strchr(line, '\n') && !feof(f)) {
      snprintf(err, errlen, "%s: line too long (max %zu characters)", where, sizeof line - 2);
      rc = -1;
      break;
    }
    char *s = trim(line);
    if (*s == '\0' || *s == '#')
      continue;
    char *eq = strchr(s, '=');
    if (eq) {
      *eq = '\0';
      const char *key = trim(s);
      if (strcmp(key, "filter") == 0) {
        snprintf(err, errlen, "%s: 'filter' cannot be used inside a filter file", where);
        rc = -1;
      } else {
        rc = ip_config_set(cfg, key, trim(eq + 1), where, err, errlen);
      }
    } else if (strcmp(s, "verbose") == 0 || strcmp(s, "system-headers") == 0) {
      rc = ip_config_set(cfg, s, NULL, where, err, errlen);
    } else {
      snprintf(err, errlen, "%s: expected KEY=VALUE, got '%s'", where, s);
      rc = -1;
    }
  }
  if (rc == 0 && ferror(f)) {
    snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
    rc = -1;
  }
  fclose(f);
  return rc;
}
