/* phase_server.c - a server-like program for the service tests: it reads
 * commands, one a line, from the file named by its argument (a FIFO the test
 * keeps open) and answers each with a line in ACKS (its second argument)
 * once done, so a test drives it step by step:
 *   work N      the worker thread calls serve_request N times (each calls
 *               parse_request once), the main thread waits for it
 *   phase NAME  later calls count under NAME
 *   counts      writes "PHASE serve_request N" per phase to ACKS
 *   quit        ends the program
 * While it waits for a command the main thread is in wait_command and the
 * worker in worker_idle: both stay open across any pause. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PHASES 16

static volatile unsigned long sink;
static char phase_name[MAX_PHASES][32] = {"start"};
static unsigned long phase_calls[MAX_PHASES];
static int phase, phases = 1;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long pending = -1; /* calls asked of the worker; -1: none; -2: stop */

__attribute__((noinline)) static void parse_request(unsigned long i) { sink += i * 7; }

__attribute__((noinline)) static void serve_request(unsigned long i) {
  parse_request(i);
  sink ^= i;
}

__attribute__((noinline)) static long worker_idle(void) {
  pthread_mutex_lock(&mu);
  while (pending == -1)
    pthread_cond_wait(&cv, &mu);
  long n = pending;
  pthread_mutex_unlock(&mu);
  return n;
}

static void *worker(void *arg) {
  (void)arg;
  for (;;) {
    long n = worker_idle();
    if (n == -2)
      return NULL;
    for (long i = 0; i < n; i++)
      serve_request((unsigned long)i);
    pthread_mutex_lock(&mu);
    phase_calls[phase] += (unsigned long)n;
    pending = -1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
  }
}

/* Hands n calls to the worker and waits until they are made. */
static void work(long n) {
  pthread_mutex_lock(&mu);
  pending = n;
  pthread_cond_broadcast(&cv);
  while (pending != -1)
    pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
}

__attribute__((noinline)) static char *wait_command(char *line, int len, FILE *in) {
  return fgets(line, len, in);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: phase_server COMMANDS ACKS\n");
    return 2;
  }
  FILE *in = fopen(argv[1], "r");
  if (!in) {
    perror(argv[1]);
    return 1;
  }
  pthread_t w;
  pthread_create(&w, NULL, worker, NULL);
  char line[128];
  while (wait_command(line, sizeof line, in)) {
    line[strcspn(line, "\n")] = 0;
    FILE *ack = fopen(argv[2], "a");
    if (!ack)
      return 1;
    if (!strncmp(line, "work ", 5)) {
      work(atol(line + 5));
    } else if (!strncmp(line, "phase ", 6) && phases < MAX_PHASES) {
      phase = phases++;
      snprintf(phase_name[phase], sizeof phase_name[phase], "%s", line + 6);
    } else if (!strcmp(line, "counts")) {
      for (int i = 0; i < phases; i++)
        fprintf(ack, "%s serve_request %lu\n", phase_name[i], phase_calls[i]);
    } else if (!strcmp(line, "quit")) {
      fclose(ack);
      break;
    }
    fprintf(ack, "done %s\n", line);
    fclose(ack);
  }
  pthread_mutex_lock(&mu);
  pending = -2;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
  pthread_join(w, NULL);
  return 0;
}
