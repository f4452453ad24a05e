/* test_runtime_entry_set.c - the set of instrumented entry addresses the
 * indirect-call probes look up: every address added is found and no other,
 * through the table's growth; a removed address is no longer found while
 * those after it in its probe chain still are; an address added again after
 * its removal is found again. */
#include <check.h>
#include <stdint.h>

#include "base/base.h"
#include "check_main.h"

/* Distinct code-like addresses (16-aligned, from one base). */
static uintptr_t addr(unsigned i) { return (uintptr_t)0x555500001000u + (uintptr_t)i * 16u; }

START_TEST(added_addresses_are_found_through_growth) {
  enum { N = 5000 }; /* several growths from the first 1024 slots */
  for (unsigned i = 0; i < N; i++)
    ip_entry_add(addr(2 * i));
  for (unsigned i = 0; i < N; i++) {
    ck_assert_int_eq(ip_entry_known(addr(2 * i)), 1);
    ck_assert_int_eq(ip_entry_known(addr(2 * i + 1)), 0);
  }
  ck_assert_int_eq(ip_entry_known(0), 0);
  ck_assert_int_eq(ip_entry_known(IP_ENTRY_GONE), 0);
}
END_TEST

START_TEST(removed_addresses_leave_their_chains_whole) {
  enum { N = 3000, BASE = 100000 };
  for (unsigned i = 0; i < N; i++)
    ip_entry_add(addr(BASE + i));
  for (unsigned i = 0; i < N; i += 3)
    ip_entry_remove(addr(BASE + i));
  for (unsigned i = 0; i < N; i++)
    ck_assert_int_eq(ip_entry_known(addr(BASE + i)), i % 3 != 0);
  for (unsigned i = 0; i < N; i += 3)
    ip_entry_add(addr(BASE + i)); /* a library loaded again where it was */
  for (unsigned i = 0; i < N; i++)
    ck_assert_int_eq(ip_entry_known(addr(BASE + i)), 1);
  ip_entry_remove(addr(BASE + 3 * N)); /* never added: nothing changes */
  ck_assert_int_eq(ip_entry_known(addr(BASE + 1)), 1);
}
END_TEST

int main(void) {
  Suite *s = suite_create("runtime_entry_set");
  TCase *tc = tcase_create("entry_set");
  tcase_add_test(tc, added_addresses_are_found_through_growth);
  tcase_add_test(tc, removed_addresses_leave_their_chains_whole);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
