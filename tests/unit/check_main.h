/* check_main.h - how every Check test binary ends: run its suite, print
 * Check's summary (tests/run-unit.sh reads it), exit 1 if anything failed. */
#ifndef INCLPROF_TEST_CHECK_MAIN_H
#define INCLPROF_TEST_CHECK_MAIN_H

#include <check.h>

static inline int ip_check_run(Suite *s) {
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}

#endif
