/* results.h - sorting the merged counts and writing the result file. */
#ifndef WORDFREQ_RESULTS_H
#define WORDFREQ_RESULTS_H

#include "word_table.h"

struct results {
  struct word_entry *entries; /* sorted: count descending, then word */
  size_t n;
  unsigned long total_words;
};

/* Collects and sorts the entries of t (which keeps owning the words). */
int results_sort(struct results *r, const struct word_table *t);
/* Writes "count word" lines to path and fsyncs it; returns 0 or -1 (errno set). */
int results_write(const struct results *r, const char *path);

#endif
