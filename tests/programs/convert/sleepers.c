/* sleepers.c - three threads that each sleep 200 ms at the same time while
 * main waits for them: the session's thread-summed Elapsed total is about
 * four times the run's wall time, and each worker spends nearly all of its
 * own life inside its instrumented function. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) void *sleeping_in_a_worker_thread_while_the_others_sleep_too(void *arg) {
  (void)arg;
  usleep(200000);
  return NULL;
}

int main(void) {
  pthread_t t[3];
  for (int i = 0; i < 3; i++)
    pthread_create(&t[i], NULL, sleeping_in_a_worker_thread_while_the_others_sleep_too, NULL);
  for (int i = 0; i < 3; i++)
    pthread_join(t[i], NULL);
  printf("slept\n");
  return 0;
}
