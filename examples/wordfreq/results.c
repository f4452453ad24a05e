/* results.c - qsort of the word counts and the buffered, fsync'ed result file. */
#include "results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int by_count_then_word(const void *a, const void *b) {
  const struct word_entry *x = a, *y = b;
  if (x->count != y->count)
    return x->count < y->count ? 1 : -1;
  return strcmp(x->word, y->word);
}

int results_sort(struct results *r, const struct word_table *t) {
  r->entries = malloc((t->used ? t->used : 1) * sizeof *r->entries);
  if (!r->entries)
    return -1;
  r->n = 0;
  r->total_words = 0;
  for (size_t i = 0; i < t->capacity; i++)
    if (t->slots[i].word) {
      r->entries[r->n++] = t->slots[i];
      r->total_words += t->slots[i].count;
    }
  qsort(r->entries, r->n, sizeof *r->entries, by_count_then_word);
  return 0;
}

int results_write(const struct results *r, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f)
    return -1;
  for (size_t i = 0; i < r->n; i++)
    fprintf(f, "%lu %s\n", r->entries[i].count, r->entries[i].word);
  int failed = fflush(f) != 0 || fsync(fileno(f)) != 0;
  failed |= fclose(f) != 0;
  return failed ? -1 : 0;
}
