/* threads.c - three worker threads of different lengths calling
 * middle() -> leaf() twice, then a last middle() on the main thread: known
 * call paths per thread for the export tests (export_c_threads.sh,
 * export_pictures.sh). */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static volatile long sink;
static void leaf(int n) { for (int i = 0; i < n * 200; i++) sink += i; }
static void middle(int n) { leaf(n); leaf(n + 1); }
static void *worker(void *arg) {
  int n = (int)(long)arg;
  for (int i = 0; i < 20 * n; i++) middle(n);
  usleep(1000);
  return NULL;
}
int main(void) {
  pthread_t t[3];
  for (long i = 0; i < 3; i++) pthread_create(&t[i], NULL, worker, (void *)(i + 1));
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  middle(3);
  printf("done\n");
  return 0;
}
