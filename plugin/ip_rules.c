/* ip_rules.c - include/exclude rules: compiling globs and "re:" regular
 * expressions, and deciding which rule selects a function. */
#include "ip_rules.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ip_rules_add(struct ip_config *cfg, int include, enum ip_rule_target target,
                 const char *pattern, const char *origin, char *err, size_t errlen)
{
  if (*pattern == '\0') {
    snprintf(err, errlen, "%s: empty pattern", origin);
    return -1;
  }
  if (cfg->n_rules == cfg->cap_rules) {
    size_t cap = cfg->cap_rules ? cfg->cap_rules * 2 : 8;
    struct ip_rule *grown = realloc(cfg->rules, cap * sizeof *grown);
    if (!grown) {
      snprintf(err, errlen, "%s: out of memory", origin);
      return -1;
    }
    cfg->rules = grown;
    cfg->cap_rules = cap;
  }
  struct ip_rule *r = &cfg->rules[cfg->n_rules];
  memset(r, 0, sizeof *r);
  r->include = include;
  r->target = target;
  r->is_regex = strncmp(pattern, "re:", 3) == 0;
  r->pattern = strdup(r->is_regex ? pattern + 3 : pattern);
  r->origin = strdup(origin);
  if (!r->pattern || !r->origin) {
    free(r->pattern);
    free(r->origin);
    snprintf(err, errlen, "%s: out of memory", origin);
    return -1;
  }
  if (r->is_regex) {
    int rc = regcomp(&r->re, r->pattern, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char msg[128];
      regerror(rc, &r->re, msg, sizeof msg);
      snprintf(err, errlen, "%s: bad regular expression '%s': %s", origin, r->pattern, msg);
      free(r->pattern);
      free(r->origin);
      return -1;
    }
  }
  cfg->n_rules++;
  return 0;
}

void ip_rules_free(struct ip_config *cfg)
{
  for (size_t i = 0; i < cfg->n_rules; i++) {
    if (cfg->rules[i].is_regex)
      regfree(&cfg->rules[i].re);
    free(cfg->rules[i].pattern);
    free(cfg->rules[i].origin);
  }
  free(cfg->rules);
  cfg->rules = NULL;
  cfg->n_rules = cfg->cap_rules = 0;
}

static int pattern_matches(const struct ip_rule *r, const char *s)
{
  if (r->is_regex)
    return regexec(&r->re, s, 0, NULL, 0) == 0;
  return fnmatch(r->pattern, s, 0) == 0;
}

/* A file rule without '/' also matches the file's base name. */
static int file_matches(const struct ip_rule *r, const char *file)
{
  if (pattern_matches(r, file))
    return 1;
  const char *slash = strrchr(file, '/');
  if (slash && !r->is_regex && !strchr(r->pattern, '/'))
    return pattern_matches(r, slash + 1);
  return 0;
}

static int rule_matches(const struct ip_rule *r, const char *const *names,
                        size_t n_names, const char *file)
{
  if (r->target == IP_RULE_FILE)
    return file_matches(r, file);
  for (size_t i = 0; i < n_names; i++)
    if (names[i] && pattern_matches(r, names[i]))
      return 1;
  return 0;
}

/* Decide one dimension: the last matching rule of TARGET, else "not
 * included" when that dimension has include rules. */
static enum ip_selection select_dimension(const struct ip_config *cfg, enum ip_rule_target target,
                                          const char *const *names, size_t n_names,
                                          const char *file, const struct ip_rule **why)
{
  int has_include = 0;
  const struct ip_rule *last = NULL;
  for (size_t i = 0; i < cfg->n_rules; i++) {
    const struct ip_rule *r = &cfg->rules[i];
    if (r->target != target)
      continue;
    has_include |= r->include;
    if (rule_matches(r, names, n_names, file))
      last = r;
  }
  *why = last;
  if (last)
    return last->include ? IP_SEL_INCLUDED : IP_SEL_EXCLUDED;
  return has_include ? IP_SEL_NOT_INCLUDED : IP_SEL_DEFAULT;
}

enum ip_selection ip_config_select(const struct ip_config *cfg,
                                   const char *const *names, size_t n_names,
                                   const char *file, const struct ip_rule **why)
{
  enum ip_selection by_file = select_dimension(cfg, IP_RULE_FILE, names, n_names, file, why);
  if (by_file == IP_SEL_EXCLUDED || by_file == IP_SEL_NOT_INCLUDED)
    return by_file;
  const struct ip_rule *file_rule = *why;
  enum ip_selection by_name = select_dimension(cfg, IP_RULE_NAME, names, n_names, file, why);
  if (by_name == IP_SEL_DEFAULT) {
    *why = file_rule;
    return IP_SEL_DEFAULT;
  }
  return by_name;
}

/* Does any rule of TARGET (a list of names, not a selection) match? */
static int listed(const struct ip_config *cfg, enum ip_rule_target target,
                  const char *const *names, size_t n_names)
{
  for (size_t i = 0; i < cfg->n_rules; i++)
    if (cfg->rules[i].target == target && rule_matches(&cfg->rules[i], names, n_names, ""))
      return 1;
  return 0;
}

int ip_config_calls_excluded(const struct ip_config *cfg,
                             const char *const *names, size_t n_names)
{
  return listed(cfg, IP_RULE_CALLS, names, n_names);
}

int ip_config_noinline(const struct ip_config *cfg, const char *const *names, size_t n_names)
{
  return listed(cfg, IP_RULE_NOINLINE, names, n_names);
}
