/* test_runtime_settings.c - the runtime's one reader of its INCLPROF_*
 * settings (runtime/base/settings.c): the values are those the process had when
 * the library was loaded, kept as copies, whatever the program sets later;
 * only the explicit re-read sees a change.  The binary runs itself again
 * with the environment under test, so that the load-time values are known. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "check_main.h"

START_TEST(values_are_those_at_load) {
  ck_assert_str_eq(ip_set.writer, "thread");
  ck_assert_str_eq(ip_set.max_size, "2M");
  ck_assert_ptr_null(ip_set.output);
  setenv("INCLPROF_WRITER", "inline", 1);
  setenv("INCLPROF_OUTPUT", "/tmp/elsewhere", 1);
  ip_settings_load();
  ck_assert_str_eq(ip_set.writer, "thread");
  ck_assert_ptr_null(ip_set.output);
}
END_TEST

START_TEST(reread_sees_the_environment_now) {
  setenv("INCLPROF_WRITER", "inline", 1);
  unsetenv("INCLPROF_MAX_SIZE");
  ip_settings_reread();
  ck_assert_str_eq(ip_set.writer, "inline");
  ck_assert_ptr_null(ip_set.max_size);
  setenv("INCLPROF_WRITER", "auto", 1);
  ck_assert_str_eq(ip_set.writer, "inline"); /* a copy, not the environment's string */
}
END_TEST

int main(int argc, char **argv) {
  (void)argc;
  const char *w = getenv("INCLPROF_WRITER");
  if (!w || strcmp(w, "thread")) {
    setenv("INCLPROF_WRITER", "thread", 1);
    setenv("INCLPROF_MAX_SIZE", "2M", 1);
    unsetenv("INCLPROF_OUTPUT");
    execv("/proc/self/exe", argv);
    return 1;
  }
  Suite *s = suite_create("runtime_settings");
  TCase *tc = tcase_create("settings");
  tcase_add_test(tc, values_are_those_at_load);
  tcase_add_test(tc, reread_sees_the_environment_now);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
