/* main.c - wordfreq: generates a text file, counts its words with worker
 * threads fed through a work queue by a reader thread, merges the counts,
 * sorts them and writes the result file.
 *   usage: wordfreq [-t THREADS] [-l LINES] [-d DIR]
 * Output: DIR/wordfreq-input.txt, DIR/wordfreq-result.txt, a summary on stdout. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* With inclprof's control header (installed, or -I.../runtime), threads are
 * named in the trace as well; without it the program builds all the same.
 * The INCLPROF_* macros do nothing when the runtime is not loaded. */
#if defined(__has_include) && __has_include(<inclprof.h>)
#include <inclprof.h>
#define NAME_THIS_THREAD(name) INCLPROF_THREAD_NAME(name)
#else
#define NAME_THIS_THREAD(name) pthread_setname_np(pthread_self(), name)
#endif

#include "results.h"
#include "text_gen.h"
#include "word_table.h"
#include "work_queue.h"

#define MAX_THREADS 64
#define CHUNK_SIZE  (128 * 1024)

struct reader_args {
  const char *path;
  struct work_queue *queue;
  int failed;
};

struct worker_args {
  struct work_queue *queue;
  struct word_table table;
  int index;
  int failed;
};

/* Reads the input in CHUNK_SIZE pieces cut after the last newline, so no
 * word is split between two chunks. */
static void *reader_main(void *p) {
  struct reader_args *a = p;
  NAME_THIS_THREAD("reader");
  int fd = open(a->path, O_RDONLY | O_CLOEXEC);
  char *carry = NULL;
  size_t carry_len = 0;
  a->failed = fd < 0;
  while (!a->failed) {
    char *buf = malloc(carry_len + CHUNK_SIZE);
    if (!buf) {
      a->failed = 1;
      break;
    }
    memcpy(buf, carry, carry_len);
    ssize_t n = read(fd, buf + carry_len, CHUNK_SIZE);
    if (n < 0 && errno == EINTR) {
      free(buf);
      continue;
    }
    if (n <= 0) {
      a->failed = n < 0;
      if (carry_len)
        work_queue_push(a->queue, (struct chunk){buf, carry_len});
      else
        free(buf);
      break;
    }
    size_t len = carry_len + (size_t)n, cut = len;
    while (cut > 0 && buf[cut - 1] != '\n')
      cut--;
    free(carry);
    carry_len = len - cut;
    carry = malloc(carry_len ? carry_len : 1);
    if (!carry) {
      free(buf);
      a->failed = 1;
      break;
    }
    memcpy(carry, buf + cut, carry_len);
    work_queue_push(a->queue, (struct chunk){buf, cut});
  }
  free(carry);
  if (fd >= 0)
    close(fd);
  work_queue_close(a->queue);
  return NULL;
}

static void *worker_main(void *p) {
  struct worker_args *a = p;
  char name[16];
  snprintf(name, sizeof name, "worker-%d", a->index);
  NAME_THIS_THREAD(name);
  struct chunk c;
  while (work_queue_pop(a->queue, &c)) {
    if (word_table_count_text(&a->table, c.text, c.len) < 0)
      a->failed = 1;
    free(c.text);
  }
  return NULL;
}

static int parse_args(int argc, char **argv, int *threads, unsigned long *lines, const char **dir) {
  int opt;
  while ((opt = getopt(argc, argv, "t:l:d:")) != -1) {
    char *end = NULL;
    if (opt == 't')
      *threads = (int)strtol(optarg, &end, 10);
    else if (opt == 'l')
      *lines = strtoul(optarg, &end, 10);
    else if (opt == 'd')
      *dir = optarg;
    else
      return -1;
    if (end && *end)
      return -1;
  }
  return optind == argc && *threads >= 1 && *threads <= MAX_THREADS && *lines > 0 ? 0 : -1;
}

static int count_in_threads(const char *input, int threads, struct word_table *total) {
  struct work_queue queue;
  struct worker_args workers[MAX_THREADS];
  pthread_t tids[MAX_THREADS], reader;
  struct reader_args ra = {input, &queue, 0};
  int failed = 0;
  work_queue_init(&queue);
  for (int i = 0; i < threads; i++) {
    workers[i] = (struct worker_args){.queue = &queue, .index = i};
    if (word_table_init(&workers[i].table) < 0)
      return -1;
    pthread_create(&tids[i], NULL, worker_main, &workers[i]);
  }
  pthread_create(&reader, NULL, reader_main, &ra);
  pthread_join(reader, NULL);
  for (int i = 0; i < threads; i++) {
    pthread_join(tids[i], NULL);
    failed |= workers[i].failed || word_table_merge(total, &workers[i].table) < 0;
    word_table_free(&workers[i].table);
  }
  work_queue_destroy(&queue);
  return failed || ra.failed ? -1 : 0;
}

int main(int argc, char **argv) {
  int threads = 4;
  unsigned long lines = 250000;
  const char *dir = ".";
  if (parse_args(argc, argv, &threads, &lines, &dir) < 0) {
    fprintf(stderr, "usage: wordfreq [-t THREADS(1-%d)] [-l LINES] [-d DIR]\n", MAX_THREADS);
    return 2;
  }
  char input[4096], output[4096];
  snprintf(input, sizeof input, "%s/wordfreq-input.txt", dir);
  snprintf(output, sizeof output, "%s/wordfreq-result.txt", dir);
  if (text_generate_file(input, lines, 42) < 0) {
    fprintf(stderr, "wordfreq: %s: %s\n", input, strerror(errno));
    return 1;
  }
  struct word_table total;
  struct results res;
  if (word_table_init(&total) < 0 || count_in_threads(input, threads, &total) < 0 ||
      results_sort(&res, &total) < 0) {
    fprintf(stderr, "wordfreq: %s: counting failed\n", input);
    return 1;
  }
  if (results_write(&res, output) < 0) {
    fprintf(stderr, "wordfreq: %s: %s\n", output, strerror(errno));
    return 1;
  }
  printf(
      "wordfreq: %lu words, %zu distinct, %d workers; most frequent: \"%s\" x %lu; result in %s\n",
      res.total_words, res.n, threads, res.entries[0].word, res.entries[0].count, output);
  free(res.entries);
  word_table_free(&total);
  return 0;
}
