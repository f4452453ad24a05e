/* word_table.c - the counting hash table and the tokenizer feeding it. */
#include "word_table.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_word(const char *word, size_t len) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < len; i++) {
    h ^= (unsigned char)word[i];
    h *= 1099511628211ull;
  }
  return h;
}

int word_table_init(struct word_table *t) {
  t->capacity = 1024;
  t->used = 0;
  t->slots = calloc(t->capacity, sizeof *t->slots);
  return t->slots ? 0 : -1;
}

void word_table_free(struct word_table *t) {
  for (size_t i = 0; i < t->capacity; i++)
    free(t->slots[i].word);
  free(t->slots);
  t->slots = NULL;
}

static struct word_entry *find_slot(struct word_entry *slots, size_t capacity, const char *word,
                                    size_t len) {
  size_t i = (size_t)hash_word(word, len) & (capacity - 1);
  while (slots[i].word && (strncmp(slots[i].word, word, len) || slots[i].word[len]))
    i = (i + 1) & (capacity - 1);
  return &slots[i];
}

static int grow(struct word_table *t) {
  size_t capacity = t->capacity * 2;
  struct word_entry *slots = calloc(capacity, sizeof *slots);
  if (!slots)
    return -1;
  for (size_t i = 0; i < t->capacity; i++)
    if (t->slots[i].word)
      *find_slot(slots, capacity, t->slots[i].word, strlen(t->slots[i].word)) = t->slots[i];
  free(t->slots);
  t->slots = slots;
  t->capacity = capacity;
  return 0;
}

int word_table_add(struct word_table *t, const char *word, size_t len, unsigned long count) {
  if ((t->used + 1) * 4 > t->capacity * 3 && grow(t) < 0)
    return -1;
  struct word_entry *e = find_slot(t->slots, t->capacity, word, len);
  if (!e->word) {
    e->word = strndup(word, len);
    if (!e->word)
      return -1;
    t->used++;
  }
  e->count += count;
  return 0;
}

int word_table_merge(struct word_table *into, const struct word_table *from) {
  for (size_t i = 0; i < from->capacity; i++) {
    const struct word_entry *e = &from->slots[i];
    if (e->word && word_table_add(into, e->word, strlen(e->word), e->count) < 0)
      return -1;
  }
  return 0;
}

int word_table_count_text(struct word_table *t, const char *text, size_t len) {
  size_t i = 0;
  while (i < len) {
    while (i < len && (text[i] == ' ' || text[i] == '\n'))
      i++;
    size_t start = i;
    while (i < len && text[i] != ' ' && text[i] != '\n')
      i++;
    if (i > start && word_table_add(t, text + start, i - start, 1) < 0)
      return -1;
  }
  return 0;
}
