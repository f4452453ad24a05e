/* test_plugin_names.c - the plugin's name normalisation and stable ids
 * (plugin/ip_names.c). */
#include "../../plugin/ip_names.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "check_main.h"

START_TEST(fnv1a_matches_reference_values) {
  /* Published FNV-1a 64 test vectors. */
  ck_assert_uint_eq(ip_fnv1a64(IP_FNV1A64_BASIS, "", 0), 0xcbf29ce484222325ull);
  ck_assert_uint_eq(ip_fnv1a64(IP_FNV1A64_BASIS, "a", 1), 0xaf63dc4c8601ec8cull);
  ck_assert_uint_eq(ip_fnv1a64(IP_FNV1A64_BASIS, "foobar", 6), 0x85944171f73967e8ull);
}
END_TEST

START_TEST(clone_suffixes_are_stripped) {
  ck_assert_uint_eq(ip_normalized_len("foo"), 3);
  ck_assert_uint_eq(ip_normalized_len("foo.constprop.0"), 3);
  ck_assert_uint_eq(ip_normalized_len("foo.isra.12"), 3);
  ck_assert_uint_eq(ip_normalized_len("foo.part.3"), 3);
  ck_assert_uint_eq(ip_normalized_len("foo.lto_priv.0"), 3);
  ck_assert_uint_eq(ip_normalized_len("_Z3fooi.isra.0.constprop.1"), 7);
  ck_assert_uint_eq(ip_normalized_len("foo.lto_priv.0.part.0"), 3);
}
END_TEST

START_TEST(other_dots_are_kept) {
  ck_assert_uint_eq(ip_normalized_len("foo.cold"), 8);
  ck_assert_uint_eq(ip_normalized_len("foo.constprop"), 13); /* no number */
  ck_assert_uint_eq(ip_normalized_len("foo.0"), 5);
  ck_assert_uint_eq(ip_normalized_len(".isra.0"), 7); /* nothing before it */
  ck_assert_uint_eq(ip_normalized_len("x.constpropx.0"), 14);
  ck_assert_uint_eq(ip_normalized_len(""), 0);
}
END_TEST

START_TEST(function_id_hashes_name_nul_file) {
  uint64_t expect = ip_fnv1a64(IP_FNV1A64_BASIS, "helper\0a.c", 10);
  ck_assert_uint_eq(ip_function_id("helper", "a.c"), expect);
  ck_assert_uint_eq(ip_function_id("helper.constprop.0", "a.c"), expect);
  ck_assert_uint_ne(ip_function_id("helper", "b.c"), expect);
  /* The separator keeps ("ab","c") apart from ("a","bc"). */
  ck_assert_uint_ne(ip_function_id("ab", "c"), ip_function_id("a", "bc"));
}
END_TEST

START_TEST(callee_id_hashes_the_name_alone) {
  ck_assert_uint_eq(ip_callee_id("write"), ip_fnv1a64(IP_FNV1A64_BASIS, "write", 5));
  ck_assert_uint_eq(ip_callee_id("g.isra.0"), ip_callee_id("g"));
}
END_TEST

int main(void) {
  Suite *s = suite_create("plugin_names");
  TCase *tc = tcase_create("names");
  tcase_add_test(tc, fnv1a_matches_reference_values);
  tcase_add_test(tc, clone_suffixes_are_stripped);
  tcase_add_test(tc, other_dots_are_kept);
  tcase_add_test(tc, function_id_hashes_name_nul_file);
  tcase_add_test(tc, callee_id_hashes_the_name_alone);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
