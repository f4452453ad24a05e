/* word_table.h - a hash table from word to count (open addressing, FNV-1a). */
#ifndef WORDFREQ_WORD_TABLE_H
#define WORDFREQ_WORD_TABLE_H

#include <stddef.h>

struct word_entry {
  char *word; /* NUL-terminated copy, NULL for an empty slot */
  unsigned long count;
};

struct word_table {
  struct word_entry *slots;
  size_t capacity; /* a power of two */
  size_t used;
};

int word_table_init(struct word_table *t);
void word_table_free(struct word_table *t);
/* Adds `count` occurrences of word[0..len); returns 0 or -1 (out of memory). */
int word_table_add(struct word_table *t, const char *word, size_t len, unsigned long count);
/* Adds every entry of `from` into `into`. */
int word_table_merge(struct word_table *into, const struct word_table *from);
/* Counts every space/newline-separated word of text[0..len) into t. */
int word_table_count_text(struct word_table *t, const char *text, size_t len);

#endif
