/* ip_options.h - the plugin's configuration: -fplugin-arg-inclprof-KEY=VALUE
 * arguments and filter files are parsed and validated here, and functions are
 * matched against the include/exclude rules (plain C, unit-tested without
 * GCC). */
#ifndef IP_OPTIONS_H
#define IP_OPTIONS_H

#include <regex.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ip_callsites { IP_CALLSITES_NONE, IP_CALLSITES_EXTERNAL, IP_CALLSITES_ALL };

/* IP_RULE_CALLS: exclude-calls, no call-site probes around direct calls to
 * matching functions; IP_RULE_NOINLINE: noinline, matching functions are never
 * inlined (neither consulted by ip_config_select). */
enum ip_rule_target { IP_RULE_NAME, IP_RULE_FILE, IP_RULE_CALLS, IP_RULE_NOINLINE };

struct ip_rule {
  int include;              /* 1: include rule, 0: exclude rule */
  enum ip_rule_target target;
  int is_regex;             /* pattern had the "re:" prefix */
  char *pattern;            /* glob, or the regex without "re:" */
  regex_t re;               /* compiled when is_regex */
  char *origin;             /* "KEY=VALUE" and where it came from, for reports */
};

struct ip_config {
  struct ip_rule *rules;    /* in the order given; the last match decides */
  size_t n_rules, cap_rules;
  unsigned min_size;        /* 0: no size threshold */
  int callsites;            /* enum ip_callsites */
  int system_headers;       /* 1: also instrument functions from system headers */
  int tail_recursion_loop;  /* 1: let GCC turn self-recursion into loops (tail-recursion=loop) */
  int partial_inlining;     /* 1: let GCC split instrumented functions (partial-inlining=yes) */
  int probe_calls;          /* 1: probes are calls on x86-64 too (probe-form=call) */
  int tail_jump;            /* 1: tail calls stay jumps, the exit probe before (tail-calls=jump) */
  int verbose;
  char *report_path;        /* NULL: no report */
  char *list_path;          /* list-instrumented: NULL, or the list to append to */
  char *known_path;         /* known-instrumented: NULL, or the list to read */
};

/* The plugin's help text: every key with its values and what it does. */
const char *ip_config_help(void);

void ip_config_init(struct ip_config *cfg);
void ip_config_free(struct ip_config *cfg);

/* Apply one KEY=VALUE (VALUE may be NULL for "-fplugin-arg-inclprof-KEY").
 * WHERE names the source for messages ("argument", "FILE:LINE").  Returns 0,
 * or -1 with a one-line message in ERR. */
int ip_config_set(struct ip_config *cfg, const char *key, const char *value,
                  const char *where, char *err, size_t errlen);

/* Read a filter file: one KEY=VALUE per line (any key but "filter"), blank
 * lines and '#' comments ignored.  Returns 0, or -1 with "PATH:LINE: ..." in
 * ERR. */
int ip_config_read_filter_file(struct ip_config *cfg, const char *path,
                               char *err, size_t errlen);

enum ip_selection {
  IP_SEL_DEFAULT,       /* no rule matched and none required: instrument */
  IP_SEL_INCLUDED,      /* a name include rule matched: instrument, even if small */
  IP_SEL_EXCLUDED,      /* an exclude rule matched last */
  IP_SEL_NOT_INCLUDED   /* include rules exist for a dimension, none matched */
};

/* Match a function against the rules.  NAMES are the spellings of its name
 * (assembler name, demangled name, ...); FILE its source file.  *WHY gets the
 * deciding rule (NULL when none).  File rules are consulted first, then name
 * rules; in each dimension the last matching rule wins. */
enum ip_selection ip_config_select(const struct ip_config *cfg,
                                   const char *const *names, size_t n_names,
                                   const char *file, const struct ip_rule **why);

/* Whether an exclude-calls rule matches one of NAMES: direct calls to that
 * function get no call-site probes. */
int ip_config_calls_excluded(const struct ip_config *cfg,
                             const char *const *names, size_t n_names);

/* Whether a noinline rule matches one of NAMES: GCC inlines no call to that
 * function. */
int ip_config_noinline(const struct ip_config *cfg, const char *const *names, size_t n_names);

#ifdef __cplusplus
}
#endif

#endif
