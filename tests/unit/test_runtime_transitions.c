/* test_runtime_transitions.c - the transition-mode decision (best first,
 * explicit requests, fallbacks with a note naming what failed), reading the
 * tracepoint id, and the real fallback from pmu on a machine without one. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "produce/produce.h"
#include "check_main.h"

#define NONE INCLPROF__TRANSITION_MODE__TRANSITIONS_NONE
#define KEV  INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS
#define PMU  INCLPROF__TRANSITION_MODE__TRANSITIONS_PMU

static char note[512];
static int decide(const char *req, int pmu_ok, int kev_ok) {
  return ip_transitions_decide(req, pmu_ok, kev_ok, "pmu: NOPMU", "kevents: NOKEV", note,
                               sizeof note);
}

START_TEST(auto_takes_the_best_available) {
  ck_assert_int_eq(decide(NULL, 1, 1), PMU);
  ck_assert_int_eq(decide("auto", 0, 1), KEV);
  ck_assert_ptr_nonnull(
      strstr(note, "no hardware counters usable here (pmu: NOPMU); using kernel events"));
  ck_assert_int_eq(decide("", 0, 0), NONE);
  ck_assert_ptr_nonnull(strstr(note, "NOPMU"));
  ck_assert_ptr_nonnull(strstr(note, "NOKEV"));
  ck_assert_ptr_nonnull(strstr(note, "Application values equal Elapsed"));
}
END_TEST

START_TEST(explicit_requests_and_fallbacks) {
  ck_assert_int_eq(decide("none", 1, 1), NONE);
  ck_assert_ptr_nonnull(strstr(note, "INCLPROF_TRANSITIONS=none"));
  ck_assert_int_eq(decide("kevents", 1, 1), KEV);
  ck_assert_int_eq(decide("kevents", 1, 0), NONE);
  ck_assert_ptr_nonnull(strstr(note, "NOKEV"));
  ck_assert_int_eq(decide("pmu", 0, 1), KEV);
  ck_assert_int_eq(decide("pmu", 1, 0), PMU);
}
END_TEST

START_TEST(unknown_request_is_auto_with_a_note) {
  ck_assert_int_eq(decide("fast", 0, 1), KEV);
  ck_assert_ptr_nonnull(strstr(note, "unknown INCLPROF_TRANSITIONS value 'fast'"));
}
END_TEST

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

START_TEST(tracepoint_id_is_read_from_the_first_usable_path) {
  char a[] = "/tmp/ip-tp-a-XXXXXX", b[] = "/tmp/ip-tp-b-XXXXXX";
  close(mkstemp(a));
  close(mkstemp(b));
  write_file(a, "garbage\n");
  write_file(b, "443\n");
  const char *paths[] = {"/nonexistent/id", a, b, NULL};
  char why[300] = "";
  ck_assert_int_eq(ip_tracepoint_id(paths, why, sizeof why), 443);
  const char *none[] = {"/nonexistent/id", a, NULL};
  ck_assert_int_eq(ip_tracepoint_id(none, why, sizeof why), -1);
  ck_assert_ptr_nonnull(strstr(why, "mount -t tracefs nodev /sys/kernel/tracing"));
  unlink(a);
  unlink(b);
}
END_TEST

/* On a machine without a usable PMU (like our VMs) asking for pmu must fall
 * back with a note saying why; with one, pmu is chosen. */
START_TEST(pmu_request_falls_back_cleanly) {
  setenv("INCLPROF_TRANSITIONS", "pmu", 1);
  ip_settings_reread();
  ip_transitions_choose();
  if (ip_st.mode != PMU) {
    ck_assert_msg(strstr(ip_st.note, "pmu: ") != NULL, "note: %s", ip_st.note);
    ck_assert(strstr(ip_st.note, "using kernel events") || strstr(ip_st.note, "no detection"));
  }
  unsetenv("INCLPROF_TRANSITIONS");
  ip_settings_reread();
}
END_TEST

int main(void) {
  Suite *s = suite_create("runtime_transitions");
  TCase *tc = tcase_create("decide");
  tcase_add_test(tc, auto_takes_the_best_available);
  tcase_add_test(tc, explicit_requests_and_fallbacks);
  tcase_add_test(tc, unknown_request_is_auto_with_a_note);
  tcase_add_test(tc, tracepoint_id_is_read_from_the_first_usable_path);
  tcase_add_test(tc, pmu_request_falls_back_cleanly);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
