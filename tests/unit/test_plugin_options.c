/* test_plugin_options.c - the plugin's KEY=VALUE validation, filter files and
 * include/exclude rule precedence (plugin/ip_options.c, plugin/ip_rules.c). */
#include "../../plugin/ip_options.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check_main.h"

static struct ip_config cfg;
static char err[1024];

static void setup(void) {
  ip_config_init(&cfg);
  err[0] = '\0';
}

static void teardown(void) { ip_config_free(&cfg); }

static int set(const char *key, const char *value) {
  return ip_config_set(&cfg, key, value, "argument", err, sizeof err);
}

static enum ip_selection select_fn(const char *name, const char *file) {
  const char *names[] = {name};
  const struct ip_rule *why;
  return ip_config_select(&cfg, names, 1, file, &why);
}

/* Write TEXT to a new temporary file; returns its path (static buffer). */
static const char *temp_file(const char *text) {
  static char path[64];
  strcpy(path, "/tmp/test_plugin_options.XXXXXX");
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
  close(fd);
  return path;
}

START_TEST(defaults) {
  ck_assert_int_eq(cfg.callsites, IP_CALLSITES_EXTERNAL);
  ck_assert_uint_eq(cfg.min_size, 0);
  ck_assert_int_eq(cfg.system_headers, 0);
  ck_assert_int_eq(cfg.tail_recursion_loop, 0);
  ck_assert_int_eq(cfg.partial_inlining, 0);
  ck_assert_int_eq(cfg.probe_calls, 0);
  ck_assert_ptr_null(cfg.report_path);
  ck_assert_int_eq(select_fn("anything", "a.c"), IP_SEL_DEFAULT);
}
END_TEST

START_TEST(unknown_key_lists_valid_keys) {
  ck_assert_int_eq(set("inlcude", "foo"), -1);
  ck_assert_str_eq(err, "argument: unknown key 'inlcude'; valid keys: include, exclude, "
                        "include-file, exclude-file, exclude-calls, noinline, min-size, filter, "
                        "callsites, "
                        "report, list-instrumented, known-instrumented, system-headers, verbose, "
                        "tail-recursion, partial-inlining, probe-form, tail-calls");
}
END_TEST

/* The help and the parser are made from one table: every key the parser
 * names in its message is in the help, as KEY followed by '=' or ' '. */
START_TEST(help_names_every_key) {
  ck_assert_int_eq(set("nothing-of-the-kind", "1"), -1);
  const char *list = strstr(err, "valid keys: ") + 12, *help = ip_config_help();
  int n = 0;
  for (const char *p = list; *p; n++) {
    size_t len = strcspn(p, ",");
    char want[64];
    snprintf(want, sizeof want, " %.*s", (int)len, p);
    const char *at = strstr(help, want);
    ck_assert_msg(at && (at[len + 1] == '=' || at[len + 1] == ' '), "help lacks '%s': %s", want + 1,
                  help);
    p += len;
    p += strspn(p, ", ");
  }
  ck_assert_int_eq(n, 18);
}
END_TEST

START_TEST(bad_values_are_rejected) {
  ck_assert_int_eq(set("min-size", "12x"), -1);
  ck_assert_ptr_nonnull(strstr(err, "bad value '12x' for min-size"));
  ck_assert_int_eq(set("min-size", "-1"), -1);
  ck_assert_int_eq(set("min-size", "99999999999"), -1);
  ck_assert_int_eq(set("callsites", "some"), -1);
  ck_assert_ptr_nonnull(strstr(err, "expected none, external or all"));
  ck_assert_int_eq(set("verbose", "maybe"), -1);
  ck_assert_int_eq(set("tail-recursion", "unroll"), -1);
  ck_assert_str_eq(err, "argument: bad value 'unroll' for tail-recursion (expected keep or loop)");
  ck_assert_int_eq(set("partial-inlining", "1"), -1);
  ck_assert_str_eq(err, "argument: bad value '1' for partial-inlining (expected no or yes)");
  ck_assert_int_eq(set("probe-form", "asm"), -1);
  ck_assert_str_eq(err, "argument: bad value 'asm' for probe-form (expected stub or call)");
  ck_assert_int_eq(set("include", NULL), -1);
  ck_assert_str_eq(err, "argument: key 'include' needs a value (include=VALUE)");
  ck_assert_int_eq(set("report", ""), -1);
  ck_assert_int_eq(set("exclude", "re:a("), -1);
  ck_assert_ptr_nonnull(strstr(err, "bad regular expression 'a('"));
  ck_assert_int_eq(set("include", "a,,b"), -1);
  ck_assert_ptr_nonnull(strstr(err, "empty pattern"));
}
END_TEST

START_TEST(good_values_are_stored) {
  ck_assert_int_eq(set("min-size", "40"), 0);
  ck_assert_uint_eq(cfg.min_size, 40);
  ck_assert_int_eq(set("callsites", "all"), 0);
  ck_assert_int_eq(cfg.callsites, IP_CALLSITES_ALL);
  ck_assert_int_eq(set("callsites", "none"), 0);
  ck_assert_int_eq(cfg.callsites, IP_CALLSITES_NONE);
  ck_assert_int_eq(set("tail-recursion", "loop"), 0);
  ck_assert_int_eq(cfg.tail_recursion_loop, 1);
  ck_assert_int_eq(set("tail-recursion", "keep"), 0);
  ck_assert_int_eq(cfg.tail_recursion_loop, 0);
  ck_assert_int_eq(set("partial-inlining", "yes"), 0);
  ck_assert_int_eq(cfg.partial_inlining, 1);
  ck_assert_int_eq(set("probe-form", "call"), 0);
  ck_assert_int_eq(cfg.probe_calls, 1);
  ck_assert_int_eq(set("probe-form", "stub"), 0);
  ck_assert_int_eq(cfg.probe_calls, 0);
  ck_assert_int_eq(set("verbose", NULL), 0);
  ck_assert_int_eq(cfg.verbose, 1);
  ck_assert_int_eq(set("system-headers", "yes"), 0);
  ck_assert_int_eq(cfg.system_headers, 1);
  ck_assert_int_eq(set("report", "r.txt"), 0);
  ck_assert_str_eq(cfg.report_path, "r.txt");
  ck_assert_int_eq(set("list-instrumented", "fns.list"), 0);
  ck_assert_str_eq(cfg.list_path, "fns.list");
  ck_assert_int_eq(set("known-instrumented", "old.list"), 0);
  ck_assert_str_eq(cfg.known_path, "old.list");
  ck_assert_int_eq(set("known-instrumented", ""), -1);
}
END_TEST

START_TEST(globs_split_on_commas_regexes_do_not) {
  ck_assert_int_eq(set("include", "hot_*,main"), 0);
  ck_assert_uint_eq(cfg.n_rules, 2);
  ck_assert_int_eq(set("exclude", "re:^x{1,2}$"), 0);
  ck_assert_uint_eq(cfg.n_rules, 3);
  ck_assert_int_eq(select_fn("hot_loop", "a.c"), IP_SEL_INCLUDED);
  ck_assert_int_eq(select_fn("main", "a.c"), IP_SEL_INCLUDED);
  ck_assert_int_eq(select_fn("cold", "a.c"), IP_SEL_NOT_INCLUDED);
  ck_assert_int_eq(select_fn("xx", "a.c"), IP_SEL_EXCLUDED);
  /* the blanks around a comma are not part of a glob */
  ck_assert_int_eq(set("exclude", "cold , \tlukewarm"), 0);
  ck_assert_uint_eq(cfg.n_rules, 5);
  ck_assert_int_eq(select_fn("cold", "a.c"), IP_SEL_EXCLUDED);
  ck_assert_int_eq(select_fn("lukewarm", "a.c"), IP_SEL_EXCLUDED);
}
END_TEST

START_TEST(last_matching_rule_wins) {
  ck_assert_int_eq(set("exclude", "std::*"), 0);
  ck_assert_int_eq(set("include", "std::sort*"), 0);
  ck_assert_int_eq(select_fn("std::sort<int*>", "a.cc"), IP_SEL_INCLUDED);
  ck_assert_int_eq(select_fn("std::swap", "a.cc"), IP_SEL_EXCLUDED);
  /* An include rule exists, so an unmatched function is left out. */
  ck_assert_int_eq(select_fn("main", "a.cc"), IP_SEL_NOT_INCLUDED);
  ck_assert_int_eq(set("exclude", "std::sort<int*>"), 0);
  ck_assert_int_eq(select_fn("std::sort<int*>", "a.cc"), IP_SEL_EXCLUDED);
}
END_TEST

START_TEST(regex_is_unanchored_glob_is_anchored) {
  ck_assert_int_eq(set("exclude", "re:debug"), 0);
  ck_assert_int_eq(set("exclude", "log"), 0);
  ck_assert_int_eq(select_fn("my_debug_dump", "a.c"), IP_SEL_EXCLUDED);
  ck_assert_int_eq(select_fn("my_log", "a.c"), IP_SEL_DEFAULT);
  ck_assert_int_eq(select_fn("log", "a.c"), IP_SEL_EXCLUDED);
}
END_TEST

START_TEST(file_rules_come_first) {
  ck_assert_int_eq(set("exclude-file", "*/third_party/*"), 0);
  ck_assert_int_eq(set("include", "hot"), 0);
  ck_assert_int_eq(select_fn("hot", "src/third_party/z.c"), IP_SEL_EXCLUDED);
  ck_assert_int_eq(select_fn("hot", "src/main.c"), IP_SEL_INCLUDED);
}
END_TEST

START_TEST(file_rule_without_slash_matches_base_name) {
  ck_assert_int_eq(set("include-file", "main.c"), 0);
  ck_assert_int_eq(select_fn("f", "/home/u/src/main.c"), IP_SEL_DEFAULT);
  ck_assert_int_eq(select_fn("f", "/home/u/src/util.c"), IP_SEL_NOT_INCLUDED);
  ck_assert_int_eq(set("include-file", "src/*.h"), 0);
  ck_assert_int_eq(select_fn("f", "src/x.h"), IP_SEL_DEFAULT);
  ck_assert_int_eq(select_fn("f", "other/src/x.h"), IP_SEL_NOT_INCLUDED);
}
END_TEST

START_TEST(any_spelling_of_the_name_matches) {
  ck_assert_int_eq(set("exclude", "ns::*"), 0);
  const char *names[] = {"_ZN2ns3fooEi", "ns::foo(int)", "ns::foo"};
  const struct ip_rule *why = NULL;
  ck_assert_int_eq(ip_config_select(&cfg, names, 3, "a.cc", &why), IP_SEL_EXCLUDED);
  ck_assert_ptr_nonnull(why);
  ck_assert_str_eq(why->origin, "argument: exclude=ns::*");
}
END_TEST

START_TEST(exclude_calls_names_callees_not_bodies) {
  ck_assert_int_eq(set("exclude-calls", "find_slot,str*"), 0);
  const char *slot[] = {"find_slot"}, *cmp[] = {"_Z3cmpv", "strncmp"}, *other[] = {"main"};
  ck_assert_int_eq(ip_config_calls_excluded(&cfg, slot, 1), 1);
  ck_assert_int_eq(ip_config_calls_excluded(&cfg, cmp, 2), 1);
  ck_assert_int_eq(ip_config_calls_excluded(&cfg, other, 1), 0);
  /* the body of find_slot is still instrumented: exclude-calls is no name rule */
  ck_assert_int_eq(select_fn("find_slot", "a.c"), IP_SEL_DEFAULT);
}
END_TEST

/* noinline names functions GCC must not inline; like exclude-calls, it is
 * no selection rule. */
START_TEST(noinline_names_functions_not_bodies) {
  ck_assert_int_eq(set("noinline", "step*,re:lambda"), 0);
  const char *step[] = {"step_once"}, *lambda[] = {"main::{lambda(int)#1}::operator()(int) const"},
             *other[] = {"main"};
  ck_assert_int_eq(ip_config_noinline(&cfg, step, 1), 1);
  ck_assert_int_eq(ip_config_noinline(&cfg, lambda, 1), 1);
  ck_assert_int_eq(ip_config_noinline(&cfg, other, 1), 0);
  ck_assert_int_eq(ip_config_calls_excluded(&cfg, step, 1), 0);
  ck_assert_int_eq(select_fn("main", "a.c"), IP_SEL_DEFAULT);
}
END_TEST

START_TEST(filter_file_rules_and_comments) {
  const char *path = temp_file("# hot paths only\n"
                               "\n"
                               "  include = hot_*   \n"
                               "exclude=re:_slow$\n"
                               "min-size=10\n"
                               "callsites=none\n"
                               "verbose\n");
  ck_assert_int_eq(set("filter", path), 0);
  unlink(path);
  ck_assert_uint_eq(cfg.n_rules, 2);
  ck_assert_uint_eq(cfg.min_size, 10);
  ck_assert_int_eq(cfg.callsites, IP_CALLSITES_NONE);
  ck_assert_int_eq(cfg.verbose, 1);
  ck_assert_int_eq(select_fn("hot_path", "a.c"), IP_SEL_INCLUDED);
  ck_assert_int_eq(select_fn("hot_path_slow", "a.c"), IP_SEL_EXCLUDED);
  char expect[128];
  snprintf(expect, sizeof expect, "%s:3: include=hot_*", path);
  ck_assert_str_eq(cfg.rules[0].origin, expect);
}
END_TEST

START_TEST(filter_file_errors_name_file_and_line) {
  char expect[256];
  const char *path = temp_file("include=a\nbogus line\n");
  ck_assert_int_eq(set("filter", path), -1);
  snprintf(expect, sizeof expect, "%s:2: expected KEY=VALUE, got 'bogus line'", path);
  ck_assert_str_eq(err, expect);
  unlink(path);

  path = temp_file("# x\nmin-size=big\n");
  ck_assert_int_eq(set("filter", path), -1);
  snprintf(expect, sizeof expect, "%s:2: bad value 'big' for min-size", path);
  ck_assert_int_eq(strncmp(err, expect, strlen(expect)), 0);
  unlink(path);

  path = temp_file("filter=other.txt\n");
  ck_assert_int_eq(set("filter", path), -1);
  snprintf(expect, sizeof expect, "%s:1: 'filter' cannot be used inside a filter file", path);
  ck_assert_str_eq(err, expect);
  unlink(path);

  path = temp_file("frobnicate=1\n");
  ck_assert_int_eq(set("filter", path), -1);
  snprintf(expect, sizeof expect, "%s:1: unknown key 'frobnicate'", path);
  ck_assert_int_eq(strncmp(err, expect, strlen(expect)), 0);
  unlink(path);

  path = temp_file("include=hot_*   exclude=hot_debug\n");
  ck_assert_int_eq(set("filter", path), -1);
  snprintf(expect, sizeof expect,
           "%s:1: 'include=hot_*   exclude=hot_debug' holds a comment or a second KEY=VALUE", path);
  ck_assert_int_eq(strncmp(err, expect, strlen(expect)), 0);
  unlink(path);

  path = temp_file("exclude=cold_*  # rarely called\n");
  ck_assert_int_eq(set("filter", path), -1);
  snprintf(expect, sizeof expect, "%s:1: 'exclude=cold_*  # rarely called' holds a comment", path);
  ck_assert_int_eq(strncmp(err, expect, strlen(expect)), 0);
  unlink(path);

  /* blanks inside a name, '=' in an operator's name and '#' in a regex stay */
  path = temp_file("include=operator new, Foo::operator=, operator==\nexclude=re:a #b\n");
  ck_assert_int_eq(set("filter", path), 0);
  unlink(path);

  ck_assert_int_eq(set("filter", "/nonexistent/filter.txt"), -1);
  ck_assert_str_eq(err,
                   "/nonexistent/filter.txt: cannot open filter file: No such file or directory");
}
END_TEST

int main(void) {
  Suite *s = suite_create("plugin_options");
  TCase *tc = tcase_create("options");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, defaults);
  tcase_add_test(tc, unknown_key_lists_valid_keys);
  tcase_add_test(tc, help_names_every_key);
  tcase_add_test(tc, bad_values_are_rejected);
  tcase_add_test(tc, good_values_are_stored);
  tcase_add_test(tc, globs_split_on_commas_regexes_do_not);
  tcase_add_test(tc, last_matching_rule_wins);
  tcase_add_test(tc, regex_is_unanchored_glob_is_anchored);
  tcase_add_test(tc, file_rules_come_first);
  tcase_add_test(tc, file_rule_without_slash_matches_base_name);
  tcase_add_test(tc, any_spelling_of_the_name_matches);
  tcase_add_test(tc, exclude_calls_names_callees_not_bodies);
  tcase_add_test(tc, noinline_names_functions_not_bodies);
  tcase_add_test(tc, filter_file_rules_and_comments);
  tcase_add_test(tc, filter_file_errors_name_file_and_line);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
