/* util/must_alloc.h - allocation for the converter: on failure print one line and
 * exit, so the profile code never runs on with a NULL pointer. */
#ifndef INCLPROF_MUST_ALLOC_H
#define INCLPROF_MUST_ALLOC_H

#include <stddef.h>

void *ip_must_realloc(void *p, size_t n, size_t size); /* n * size bytes, overflow-checked */
void *ip_must_calloc(size_t n, size_t size);
char *ip_must_strdup(const char *s); /* NULL stays NULL */

/* Grows *arr (elements of size) so that index need-1 fits; *cap doubles. */
void ip_must_grow(void **arr, size_t *cap, size_t need, size_t size);

#endif
