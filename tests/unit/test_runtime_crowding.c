/* test_runtime_crowding.c - when the writer's auto policy sees the process as
 * crowded: only once as many threads as the process may run on CPUs filled a
 * buffer within one 5 ms window, from the end of that window until the end
 * of the next; a thread counts once per window however many buffers it
 * fills. */
#include <check.h>
#include <sched.h>

#include "produce/produce.h"
#include "check_main.h"

#define MS 1000000ull /* ticks: the test's clock runs at 1 GHz */

static unsigned cpus(void) {
  cpu_set_t set;
  ck_assert_int_eq(sched_getaffinity(0, sizeof set, &set), 0);
  return (unsigned)CPU_COUNT(&set);
}

START_TEST(crowded_only_when_every_cpu_has_a_filler) {
  ip_st.ticks_per_second = 1e9;
  ip_crowding_init();
  unsigned n = cpus();
  static struct ip_rt_thread th[64];
  ck_assert_uint_le(n, 63);
  uint64_t t0 = 1000 * MS;
  /* the first note closes the empty window before it */
  ck_assert_int_eq(ip_crowding_note(&th[0], t0), 0);
  /* one thread short of the CPUs, each filling three buffers */
  for (int round = 0; round < 3; round++)
    for (unsigned i = 0; i + 1 < n; i++)
      ck_assert_int_eq(ip_crowding_note(&th[i], t0 + 1 + round), 0);
  /* the window closes with n - 1 fillers: not crowded */
  ck_assert_int_eq(ip_crowding_note(&th[0], t0 + 5 * MS), 0);
  for (unsigned i = 1; i < n; i++)
    ck_assert_int_eq(ip_crowding_note(&th[i], t0 + 5 * MS + i), 0);
  /* n fillers in that window: crowded from its end on, for one window */
  ck_assert_int_eq(ip_crowding_note(&th[0], t0 + 10 * MS), 1);
  ck_assert_int_eq(ip_crowding_note(&th[0], t0 + 12 * MS), 1);
  /* that window had one filler: no longer crowded once it ends */
  ck_assert_int_eq(ip_crowding_note(&th[n], t0 + 15 * MS), 0);
}
END_TEST

START_TEST(fork_child_starts_uncrowded) {
  ip_st.ticks_per_second = 1e9;
  ip_crowding_init();
  unsigned n = cpus();
  static struct ip_rt_thread th[64];
  uint64_t t0 = 5000 * MS;
  ip_crowding_note(&th[0], t0);
  for (unsigned i = 0; i < n; i++)
    ip_crowding_note(&th[i], t0 + 1 + i);
  ck_assert_int_eq(ip_crowding_note(&th[0], t0 + 5 * MS), 1);
  ip_crowding_after_fork_child();
  ck_assert_int_eq(ip_crowding_note(&th[0], t0 + 6 * MS), 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("runtime_crowding");
  TCase *tc = tcase_create("windows");
  tcase_add_test(tc, crowded_only_when_every_cpu_has_a_filler);
  tcase_add_test(tc, fork_child_starts_uncrowded);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
