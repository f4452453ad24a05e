/* test_plugin_names.c - the plugin's name normalisation and stable ids
 * (plugin/ip_names.c). */
#include "../../plugin/ip_names.h"

#include <check.h>
#include <stdio.h>
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

/* The runtime keys a callee by its id, without hashing its name: one
 * FNV-1a step more (the '\0' ip_fnv1a64_str hashes) is the key of the
 * name of an instrumented function, for a name with no clone suffix. */
START_TEST(callee_id_is_the_runtime_name_key) {
  static const char *const names[] = {"write", "_ZN3fmt2v86detail9vformat_toIcEEvRNS1_6bufferIT_EE",
                                      "palloc", "x"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    ck_assert_uint_eq(ip_callee_id(names[i]) * IP_FNV1A64_PRIME,
                      ip_fnv1a64_str(IP_FNV1A64_BASIS, names[i]));
  ck_assert_uint_ne(ip_callee_id("g.isra.0") * IP_FNV1A64_PRIME,
                    ip_fnv1a64_str(IP_FNV1A64_BASIS, "g.isra.0"));
}
END_TEST

static const char *ramp_of(const char *name, enum ip_coro_part want) {
  static char buf[128];
  const char *ramp = NULL;
  size_t len = 0;
  ck_assert_int_eq(ip_coroutine_part(name, &ramp, &len), want);
  if (want == IP_CORO_NONE)
    return "";
  snprintf(buf, sizeof buf, "%.*s", (int)len, ramp);
  return buf;
}

/* The ramp's mangled name is read back from the frame type's length-prefixed
 * name in the part's own mangled name (as GCC 11 to 16 write it). */
START_TEST(coroutine_parts_name_their_ramp) {
  ck_assert_str_eq(
      ramp_of("_Z14handle_requestPZ14handle_requestiE25_Z14handle_requesti.Frame.actor",
              IP_CORO_BODY),
      "_Z14handle_requesti");
  ck_assert_str_eq(
      ramp_of("_Z14handle_requestPZ14handle_requestiE25_Z14handle_requesti.Frame.destroy",
              IP_CORO_DESTROY),
      "_Z14handle_requesti");
  ck_assert_str_eq(
      ramp_of("_ZN3srv1S5serveEPZNS0_5serveEiE23_ZN3srv1S5serveEi.Frame.actor.constprop.0",
              IP_CORO_BODY),
      "_ZN3srv1S5serveEi");
  ck_assert_str_eq(
      ramp_of("_Z4tmplPZ4tmplIdE4taskT_E23_Z4tmplIdE4taskT_.Frame.destroy", IP_CORO_DESTROY),
      "_Z4tmplIdE4taskT_");
  ck_assert_str_eq(
      ramp_of("_ZN3lamMUliE_clEPZNKS_clEiE24_ZNK3lamMUliE_clEi.Frame.actor", IP_CORO_BODY),
      "_ZNK3lamMUliE_clEi");
  ramp_of("_Z14handle_requesti", IP_CORO_NONE);
  ramp_of("f.actor", IP_CORO_NONE);
  ramp_of("_Z1fP99x.Frame.actor", IP_CORO_NONE); /* no length that fits */
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
  tcase_add_test(tc, callee_id_is_the_runtime_name_key);
  tcase_add_test(tc, coroutine_parts_name_their_ramp);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
