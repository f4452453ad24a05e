/* ip_options.c - parsing and validating the plugin's KEY=VALUE settings, from
 * -fplugin-arg-inclprof-KEY=VALUE arguments and from filter files. */
#include "ip_options.h"
#include "ip_rules.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every key the plugin takes: the parser, the messages and the plugin's
 * help text are all made from this table, and each entry names the field of
 * struct ip_config it sets. */
enum ip_key_kind { KEY_RULE, KEY_FLAG, KEY_NUMBER, KEY_CHOICE, KEY_PATH, KEY_FILTER };
struct ip_key {
  const char *key;
  enum ip_key_kind kind;
  size_t field;            /* offsetof(struct ip_config, ...): an int (KEY_FLAG,
                              KEY_CHOICE: the value's index), an unsigned
                              (KEY_NUMBER) or a char * (KEY_PATH) */
  const char *values[3];   /* KEY_CHOICE: the values; KEY_NUMBER: what it counts */
  int include;             /* KEY_RULE */
  enum ip_rule_target target;
  const char *help;
};
#define FIELD(f) offsetof(struct ip_config, f)
static const struct ip_key keys[] = {
  { "include", KEY_RULE, 0, { NULL }, 1, IP_RULE_NAME, "instrument only functions matching PAT" },
  { "exclude", KEY_RULE, 0, { NULL }, 0, IP_RULE_NAME, "no probes in functions matching PAT" },
  { "include-file", KEY_RULE, 0, { NULL }, 1, IP_RULE_FILE, "only functions from files matching PAT" },
  { "exclude-file", KEY_RULE, 0, { NULL }, 0, IP_RULE_FILE, "no functions from files matching PAT" },
  { "exclude-calls", KEY_RULE, 0, { NULL }, 0, IP_RULE_CALLS,
    "no call-site probes around direct calls to functions matching PAT" },
  { "noinline", KEY_RULE, 0, { NULL }, 1, IP_RULE_NOINLINE,
    "never inline functions matching PAT, so that every call is counted" },
  { "min-size", KEY_NUMBER, FIELD(min_size), { "a number of GIMPLE instructions" }, 0, IP_RULE_NAME,
    "skip functions of fewer GIMPLE instructions, unless they loop" },
  { "filter", KEY_FILTER, 0, { NULL }, 0, IP_RULE_NAME, "read KEY=VALUE lines from a filter file" },
  { "callsites", KEY_CHOICE, FIELD(callsites), { "none", "external", "all" }, 0, IP_RULE_NAME,
    "which calls get call-site probes (default external)" },
  { "report", KEY_PATH, FIELD(report_path), { NULL }, 0, IP_RULE_NAME,
    "append every decision to a report file" },
  { "list-instrumented", KEY_PATH, FIELD(list_path), { NULL }, 0, IP_RULE_NAME,
    "append the names of the public functions given probes to a file" },
  { "known-instrumented", KEY_PATH, FIELD(known_path), { NULL }, 0, IP_RULE_NAME,
    "no call-site probes around calls to the functions a list-instrumented file names" },
  { "system-headers", KEY_FLAG, FIELD(system_headers), { NULL }, 0, IP_RULE_NAME,
    "also instrument functions from system headers" },
  { "verbose", KEY_FLAG, FIELD(verbose), { NULL }, 0, IP_RULE_NAME, "every decision on stderr too" },
  { "tail-recursion", KEY_CHOICE, FIELD(tail_recursion_loop), { "keep", "loop", NULL }, 0,
    IP_RULE_NAME, "keep self-recursion as written, or let GCC make it a loop" },
  { "partial-inlining", KEY_CHOICE, FIELD(partial_inlining), { "no", "yes", NULL }, 0, IP_RULE_NAME,
    "let GCC split instrumented functions" },
  { "probe-form", KEY_CHOICE, FIELD(probe_calls), { "stub", "call", NULL }, 0, IP_RULE_NAME,
    "x86-64 probes as a test and a stub, or as calls" },
  { "tail-calls", KEY_CHOICE, FIELD(tail_jump), { "call", "jump", NULL }, 0, IP_RULE_NAME,
    "make tail calls calls, or keep them jumps with the exit probe before" },
};
#define N_KEYS (sizeof keys / sizeof keys[0])

static void key_list(char *buf, size_t len)
{
  size_t at = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < N_KEYS && at < len; i++)
    at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "", keys[i].key);
}

const char *ip_config_help(void)
{
  static char help[4096];
  if (help[0])
    return help;
  size_t at = (size_t)snprintf(help, sizeof help,
                               "inclprof: entry/exit and call-site probes for the inclprof "
                               "profiler; keys (-fplugin-arg-inclprof-KEY=VALUE):");
  for (size_t i = 0; i < N_KEYS && at < sizeof help; i++) {
    const struct ip_key *k = &keys[i];
    const char *arg = k->kind == KEY_RULE ? "=PAT" : k->kind == KEY_NUMBER ? "=N"
                      : k->kind == KEY_FLAG ? "" : k->kind == KEY_CHOICE ? "=" : "=FILE";
    at += (size_t)snprintf(help + at, sizeof help - at, " %s%s", k->key, arg);
    for (int v = 0; k->kind == KEY_CHOICE && v < 3 && k->values[v] && at < sizeof help; v++)
      at += (size_t)snprintf(help + at, sizeof help - at, "%s%s", v ? "|" : "", k->values[v]);
    if (at < sizeof help)
      at += (size_t)snprintf(help + at, sizeof help - at, " (%s);", k->help);
  }
  if (at < sizeof help)
    snprintf(help + at, sizeof help - at, " see man inclprof-plugin");
  return help;
}

void ip_config_init(struct ip_config *cfg)
{
  memset(cfg, 0, sizeof *cfg);
  cfg->callsites = IP_CALLSITES_EXTERNAL;
}

void ip_config_free(struct ip_config *cfg)
{
  ip_rules_free(cfg);
  free(cfg->report_path);
  free(cfg->list_path);
  free(cfg->known_path);
  cfg->report_path = cfg->list_path = cfg->known_path = NULL;
}

/* A value of a rule key: one "re:" regex, or comma-separated globs (the
 * blanks around each left out: "f, g" is f and g). */
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
    size_t lead = strspn(p, " \t"), len = n;
    while (len > lead && (p[len - 1] == ' ' || p[len - 1] == '\t'))
      len--;
    len = len > lead ? len - lead : 0;
    char glob[512];
    if (len >= sizeof glob) {
      snprintf(err, errlen, "%s: pattern too long", origin);
      return -1;
    }
    memcpy(glob, p + (lead < n ? lead : n), len);
    glob[len] = '\0';
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

static const struct ip_key *find_key(const char *key)
{
  for (size_t i = 0; i < N_KEYS; i++)
    if (strcmp(key, keys[i].key) == 0)
      return &keys[i];
  return NULL;
}

int ip_config_set(struct ip_config *cfg, const char *key, const char *value,
                  const char *where, char *err, size_t errlen)
{
  const struct ip_key *k = find_key(key);
  if (!k) {
    char list[512];
    key_list(list, sizeof list);
    snprintf(err, errlen, "%s: unknown key '%s'; valid keys: %s", where, key, list);
    return -1;
  }
  if (k->kind != KEY_FLAG && (!value || *value == '\0')) {
    snprintf(err, errlen, "%s: key '%s' needs a value (%s=VALUE)", where, key, key);
    return -1;
  }
  void *field = (char *)cfg + k->field;
  switch (k->kind) {
  case KEY_RULE:
    return add_rules(cfg, k->include, k->target, key, value, where, err, errlen);
  case KEY_FLAG:
    if (parse_bool(value, (int *)field) == 0)
      return 0;
    snprintf(err, errlen, "%s: bad value '%s' for %s (expected yes, no, 1 or 0)", where, value, key);
    return -1;
  case KEY_NUMBER:
    if (parse_unsigned(value, (unsigned *)field) == 0)
      return 0;
    snprintf(err, errlen, "%s: bad value '%s' for %s (expected %s)", where, value, key, k->values[0]);
    return -1;
  case KEY_CHOICE: {
    for (int m = 0; m < 3 && k->values[m]; m++)
      if (strcmp(value, k->values[m]) == 0) {
        *(int *)field = m;
        return 0;
      }
    char expected[128];
    snprintf(expected, sizeof expected, "%s%s%s%s%s", k->values[0],
             k->values[2] ? ", " : " or ", k->values[1], k->values[2] ? " or " : "",
             k->values[2] ? k->values[2] : "");
    snprintf(err, errlen, "%s: bad value '%s' for %s (expected %s)", where, value, key, expected);
    return -1;
  }
  case KEY_PATH: {
    char *copy = strdup(value);
    if (!copy) {
      snprintf(err, errlen, "%s: out of memory", where);
      return -1;
    }
    free(*(char **)field);
    *(char **)field = copy;
    return 0;
  }
  default:
    return ip_config_read_filter_file(cfg, value, err, errlen);
  }
}

/* A key that may stand alone (no value means yes). */
static int is_flag(const char *key)
{
  const struct ip_key *k = find_key(key);
  return k && k->kind == KEY_FLAG;
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

/* Whether a rule's value holds what reads as a comment or a second rule:
 * a blank followed by '#', or by a known KEY and '=' ("f   exclude=g" or
 * "f  # note" on one line).  No function or file name has either. */
static int holds_second_rule(const char *value)
{
  if (strncmp(value, "re:", 3) == 0)
    return 0; /* a regex may hold anything */
  for (const char *p = value; *p; p++) {
    if (p == value || (p[-1] != ' ' && p[-1] != '\t'))
      continue;
    if (*p == '#')
      return 1;
    size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz-");
    char key[32];
    if (n == 0 || n >= sizeof key || p[n] != '=')
      continue;
    memcpy(key, p, n);
    key[n] = '\0';
    if (find_key(key))
      return 1;
  }
  return 0;
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
        const char *value = trim(eq + 1);
        const struct ip_key *k = find_key(key);
        if (k && k->kind == KEY_RULE && holds_second_rule(value)) {
          snprintf(err, errlen,
                   "%s: '%s=%s' holds a comment or a second KEY=VALUE: write one rule a line, "
                   "comments on lines of their own",
                   where, key, value);
          rc = -1;
        } else {
          rc = ip_config_set(cfg, key, value, where, err, errlen);
        }
      }
    } else if (is_flag(s)) {
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
