/* text_gen.h - deterministic generator of English-looking text, so every run
 * of wordfreq counts exactly the same words. */
#ifndef WORDFREQ_TEXT_GEN_H
#define WORDFREQ_TEXT_GEN_H

#include <stddef.h>

/* Writes `lines` lines of generated text to `path`; returns 0 or -1 (errno set). */
int text_generate_file(const char *path, unsigned long lines, unsigned seed);

#endif
