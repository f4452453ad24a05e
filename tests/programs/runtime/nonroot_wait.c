/* nonroot_wait.c - waits whose length the program measures itself
 * (CLOCK_MONOTONIC around each sleep), for runtime_nonroot_kevents.sh:
 * wait_a_bit() sleeps 40 ms on the main thread, thread_wait() 30 ms on a
 * second thread, child_wait() 20 ms in a forked child.  Prints
 * "main NS", "thread NS" and "child NS", the sleeps as measured. */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Sleeps ms milliseconds; how long it took, in ns. */
static long long sleep_ms(long ms) {
  struct timespec ts = {0, ms * 1000000L};
  long long t0 = now_ns();
  nanosleep(&ts, NULL);
  return now_ns() - t0;
}

__attribute__((noinline)) long long wait_a_bit(void) { return sleep_ms(40); }
__attribute__((noinline)) long long thread_wait(void) { return sleep_ms(30); }
__attribute__((noinline)) long long child_wait(void) { return sleep_ms(20); }

static void *thread_main(void *arg) {
  *(long long *)arg = thread_wait();
  return NULL;
}

int main(void) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0)
    return 1;
  pid_t child = fork();
  if (child == 0) {
    long long ns = child_wait();
    (void)!write(pipe_fds[1], &ns, sizeof ns);
    _exit(0);
  }
  long long child_ns = 0, thread_ns = 0;
  pthread_t th;
  pthread_create(&th, NULL, thread_main, &thread_ns);
  long long main_ns = wait_a_bit();
  pthread_join(th, NULL);
  (void)!read(pipe_fds[0], &child_ns, sizeof child_ns);
  waitpid(child, NULL, 0);
  printf("main %lld\nthread %lld\nchild %lld\n", main_ns, thread_ns, child_ns);
  return 0;
}
