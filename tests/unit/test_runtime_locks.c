/* test_runtime_locks.c - how the runtime takes its locks: a thread that
 * already holds a lock is refused at once (no self-deadlock), a signal
 * handler only tries, and a thread with an exit deadline gives up on a lock
 * another thread holds once the deadline passes - and not before. */
#include <check.h>
#include <pthread.h>
#include <time.h>

#include "base/base.h"
#include "check_main.h"

static pthread_mutex_t m;
static pthread_mutex_t holding = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t held_cv = PTHREAD_COND_INITIALIZER;
static int held, release;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Holds m until told to release it. */
static void *holder(void *arg) {
  (void)arg;
  ip_lock(&m, 0);
  pthread_mutex_lock(&holding);
  held = 1;
  pthread_cond_broadcast(&held_cv);
  while (!release)
    pthread_cond_wait(&held_cv, &holding);
  pthread_mutex_unlock(&holding);
  ip_unlock(&m);
  return NULL;
}

static pthread_t start_holder(void) {
  pthread_t t;
  held = release = 0;
  pthread_create(&t, NULL, holder, NULL);
  pthread_mutex_lock(&holding);
  while (!held)
    pthread_cond_wait(&held_cv, &holding);
  pthread_mutex_unlock(&holding);
  return t;
}

static void stop_holder(pthread_t t) {
  pthread_mutex_lock(&holding);
  release = 1;
  pthread_cond_broadcast(&held_cv);
  pthread_mutex_unlock(&holding);
  pthread_join(t, NULL);
}

START_TEST(a_holder_is_refused_instead_of_deadlocking) {
  ip_mutex_init(&m);
  ck_assert_int_eq(ip_lock(&m, 0), 1);
  ck_assert_int_eq(ip_lock(&m, 0), 0); /* again by the same thread: EDEADLK, at once */
  ck_assert_int_eq(ip_lock(&m, 1), 0);
  ip_unlock(&m);
  ck_assert_int_eq(ip_lock(&m, 1), 1); /* free: a try succeeds */
  ip_unlock(&m);
}
END_TEST

START_TEST(the_exit_deadline_bounds_the_wait) {
  ip_mutex_init(&m);
  pthread_t t = start_holder();
  ck_assert_int_eq(ip_lock(&m, 1), 0); /* a signal handler does not wait */
  ip_exit_deadline_start(200);
  double t0 = now_ms();
  ck_assert_int_eq(ip_lock(&m, 0), 0);
  double waited = now_ms() - t0;
  ck_assert_int_eq(ip_exit_deadline_passed(), 1);
  ip_exit_deadline_end();
  ck_assert_int_eq(ip_exit_deadline_passed(), 0);
  ck_assert_msg(waited >= 190, "gave up after %.1f ms, before the 200 ms deadline", waited);
  stop_holder(t);
  ck_assert_int_eq(ip_lock(&m, 0), 1); /* released: taken */
  ip_unlock(&m);
}
END_TEST

START_TEST(a_deadline_does_not_refuse_a_free_lock) {
  ip_mutex_init(&m);
  ip_exit_deadline_start(1000);
  ck_assert_int_eq(ip_exit_deadline_passed(), 0);
  ck_assert_int_eq(ip_lock(&m, 0), 1);
  ip_unlock(&m);
  ip_exit_deadline_end();
}
END_TEST

int main(void) {
  Suite *s = suite_create("runtime_locks");
  TCase *tc = tcase_create("locks");
  tcase_add_test(tc, a_holder_is_refused_instead_of_deadlocking);
  tcase_add_test(tc, the_exit_deadline_bounds_the_wait);
  tcase_add_test(tc, a_deadline_does_not_refuse_a_free_lock);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
