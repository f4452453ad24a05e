/* work_queue.h - a bounded, blocking FIFO of text chunks shared by the reader
 * thread (producer) and the worker threads (consumers). */
#ifndef WORDFREQ_WORK_QUEUE_H
#define WORDFREQ_WORK_QUEUE_H

#include <pthread.h>
#include <stddef.h>

struct chunk {
  char *text; /* malloc'ed, owned by whoever popped it */
  size_t len;
};

#define WORK_QUEUE_CAPACITY 8

struct work_queue {
  pthread_mutex_t lock;
  pthread_cond_t not_empty;
  pthread_cond_t not_full;
  struct chunk items[WORK_QUEUE_CAPACITY];
  size_t head, count;
  int closed;
};

void work_queue_init(struct work_queue *q);
void work_queue_destroy(struct work_queue *q);
/* Blocks while the queue is full. */
void work_queue_push(struct work_queue *q, struct chunk c);
/* No more pushes: wakes every waiting consumer. */
void work_queue_close(struct work_queue *q);
/* Blocks while empty; returns 0 once the queue is closed and drained. */
int work_queue_pop(struct work_queue *q, struct chunk *out);

#endif
