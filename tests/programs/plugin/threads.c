/* threads.c - 8 threads recursing; fork; vfork + exec; a signal handler that
 * is itself instrumented, fired by a fast timer while probes run. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t handled;

__attribute__((noinline)) int recurse(int n) { return n <= 0 ? 0 : 1 + recurse(n - 1); }

__attribute__((noinline)) void *worker(void *arg)
{
  long sum = 0;
  for (int i = 0; i < 200; i++)
    sum += recurse(20);
  return (void *)sum;
}

__attribute__((noinline)) int run_threads(void)
{
  pthread_t t[8];
  long total = 0;
  for (int i = 0; i < 8; i++)
    pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < 8; i++) {
    void *r;
    pthread_join(t[i], &r);
    total += (long)r;
  }
  return total == 8 * 200 * 20 ? 0 : 1;
}

__attribute__((noinline)) int do_fork(void)
{
  pid_t pid = fork();
  if (pid == 0)
    _exit(recurse(3) == 3 ? 0 : 1);
  int status;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

__attribute__((noinline)) int do_vfork(void)
{
  pid_t pid = vfork();
  if (pid == 0) {
    execl("/bin/true", "true", (char *)NULL);
    _exit(127);
  }
  int status;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

__attribute__((noinline)) void on_alarm(int sig)
{
  (void)sig;
  handled++;
}

__attribute__((noinline)) int do_signals(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval it = { { 0, 200 }, { 0, 200 } };
  setitimer(ITIMER_REAL, &it, NULL);
  long n = 0;
  while (handled < 20)
    n += recurse(10);
  struct itimerval off = { { 0, 0 }, { 0, 0 } };
  setitimer(ITIMER_REAL, &off, NULL);
  return n > 0 ? 0 : 1;
}

int main(void)
{
  int rc = run_threads() | do_fork() | do_vfork() | do_signals();
  printf("%d\n", rc);
  return rc;
}
