/* work_queue.c - mutex + two condition variables around a ring of chunks. */
#include "work_queue.h"

void work_queue_init(struct work_queue *q) {
  pthread_mutex_init(&q->lock, NULL);
  pthread_cond_init(&q->not_empty, NULL);
  pthread_cond_init(&q->not_full, NULL);
  q->head = q->count = 0;
  q->closed = 0;
}

void work_queue_destroy(struct work_queue *q) {
  pthread_cond_destroy(&q->not_full);
  pthread_cond_destroy(&q->not_empty);
  pthread_mutex_destroy(&q->lock);
}

void work_queue_push(struct work_queue *q, struct chunk c) {
  pthread_mutex_lock(&q->lock);
  while (q->count == WORK_QUEUE_CAPACITY)
    pthread_cond_wait(&q->not_full, &q->lock);
  q->items[(q->head + q->count) % WORK_QUEUE_CAPACITY] = c;
  q->count++;
  pthread_cond_signal(&q->not_empty);
  pthread_mutex_unlock(&q->lock);
}

void work_queue_close(struct work_queue *q) {
  pthread_mutex_lock(&q->lock);
  q->closed = 1;
  pthread_cond_broadcast(&q->not_empty);
  pthread_mutex_unlock(&q->lock);
}

int work_queue_pop(struct work_queue *q, struct chunk *out) {
  pthread_mutex_lock(&q->lock);
  while (q->count == 0 && !q->closed)
    pthread_cond_wait(&q->not_empty, &q->lock);
  int got = q->count > 0;
  if (got) {
    *out = q->items[q->head];
    q->head = (q->head + 1) % WORK_QUEUE_CAPACITY;
    q->count--;
    pthread_cond_signal(&q->not_full);
  }
  pthread_mutex_unlock(&q->lock);
  return got;
}
