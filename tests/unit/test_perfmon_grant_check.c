/* test_perfmon_grant_check.c - what the grant server verifies
 * (perfmon/grant_check.c), on this test's own processes: the /proc texts it
 * parses (a command name with spaces and parentheses), and grant_check over
 * a socketpair, whose peer is this process: its own thread is granted
 * against a policy of its own uid and an ancestor; another uid, a process
 * that is not an ancestor, a thread of another process and a thread that
 * does not exist are each refused with their status. */
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_main.h"
#include "grant_check.h"
#include "perf_grant.h"

START_TEST(stat_fields_after_a_tricky_command_name) {
  const char *stat = "4242 (a) b (c) R 77 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 "
                     "987654 1000 10 18446744073709551615";
  ck_assert_int_eq(grant_stat_ppid(stat), 77);
  ck_assert_uint_eq(grant_stat_start(stat), 987654ULL);
  ck_assert_int_eq(grant_stat_ppid("4242 no parenthesis"), -1);
  ck_assert_uint_eq(grant_stat_start("4242 (x) R 1"), 0ULL);
}
END_TEST

START_TEST(status_id_lines) {
  const char *status = "Name:\tx\nUmask:\t0022\nUid:\t1000\t1000\t1001\t1000\nGid:\t5\t5\t5\t5\n";
  unsigned long ids[4];
  ck_assert_int_eq(grant_status_ids(status, "Uid:", ids), 0);
  ck_assert_uint_eq(ids[2], 1001);
  ck_assert_int_eq(grant_status_ids(status, "Gid:", ids), 0);
  ck_assert_uint_eq(ids[3], 5);
  ck_assert_int_eq(grant_status_ids("Name:\tx\n", "Uid:", ids), -1);
  ck_assert_int_eq(grant_status_ids("Uid:\t1 2\n", "Uid:", ids), -1);
}
END_TEST

/* grant_check of tid against policy p, over a socketpair (peer: this
 * process); the status, why in why. */
static char why[IP_GRANT_WHY_MAX];
static int check_tid(uid_t uid, pid_t ancestor, pid_t tid) {
  int sv[2];
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
  struct grant_policy p = {uid, ancestor};
  struct grant_target t;
  int status = grant_check(&p, sv[0], tid, &t, why, sizeof why);
  if (status == IP_GRANT_OK)
    status = grant_recheck(&p, &t, why, sizeof why);
  grant_target_close(&t);
  close(sv[0]);
  close(sv[1]);
  return status;
}

static pid_t self_tid(void) { return (pid_t)syscall(SYS_gettid); }

START_TEST(own_thread_granted) {
  ck_assert_int_eq(check_tid(getuid(), getppid(), self_tid()), IP_GRANT_OK);
}
END_TEST

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static pid_t second_tid;
static void *second(void *arg) {
  (void)arg;
  __atomic_store_n(&second_tid, self_tid(), __ATOMIC_SEQ_CST);
  pthread_mutex_lock(&gate);
  pthread_mutex_unlock(&gate);
  return NULL;
}

START_TEST(another_thread_of_the_process_granted) {
  pthread_t th;
  pthread_mutex_lock(&gate);
  pthread_create(&th, NULL, second, NULL);
  while (!__atomic_load_n(&second_tid, __ATOMIC_SEQ_CST))
    usleep(1000);
  ck_assert_int_eq(check_tid(getuid(), getppid(), second_tid), IP_GRANT_OK);
  pthread_mutex_unlock(&gate);
  pthread_join(th, NULL);
}
END_TEST

START_TEST(another_uid_refused) {
  ck_assert_int_eq(check_tid(getuid() + 1, getppid(), self_tid()), IP_GRANT_NOT_USER);
  ck_assert_ptr_nonnull(strstr(why, "the recording's user"));
}
END_TEST

/* A child that waits until killed. */
static pid_t sleeper(void) {
  pid_t c = fork();
  if (c == 0) {
    pause();
    _exit(0);
  }
  return c;
}

START_TEST(not_a_descendant_refused) {
  pid_t c = sleeper();
  ck_assert_int_eq(check_tid(getuid(), c, self_tid()), IP_GRANT_OUTSIDE);
  ck_assert_ptr_nonnull(strstr(why, "does not descend from the server"));
  kill(c, SIGKILL);
  waitpid(c, NULL, 0);
}
END_TEST

START_TEST(another_process_thread_refused) {
  pid_t c = sleeper();
  ck_assert_int_eq(check_tid(getuid(), getppid(), c), IP_GRANT_NOT_THREAD);
  ck_assert_ptr_nonnull(strstr(why, "is not a thread of process"));
  kill(c, SIGKILL);
  waitpid(c, NULL, 0);
  ck_assert_int_eq(check_tid(getuid(), getppid(), c), IP_GRANT_VANISHED);
  ck_assert_ptr_nonnull(strstr(why, "does not exist"));
  ck_assert_int_eq(check_tid(getuid(), getppid(), 0), IP_GRANT_BAD_REQUEST);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("perfmon_grant_check");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, stat_fields_after_a_tricky_command_name);
  tcase_add_test(tc, status_id_lines);
  tcase_add_test(tc, own_thread_granted);
  tcase_add_test(tc, another_thread_of_the_process_granted);
  tcase_add_test(tc, another_uid_refused);
  tcase_add_test(tc, not_a_descendant_refused);
  tcase_add_test(tc, another_process_thread_refused);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ip_check_run(suite()); }
