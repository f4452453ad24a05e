/* export/tree_spool.h - threads' call trees kept in a temporary file while
 * a load goes on: an export taking each file's trees as it is read writes
 * the threads it will need again, and reads them back one at a time. */
#ifndef INCLPROF_EXPORT_TREE_SPOOL_H
#define INCLPROF_EXPORT_TREE_SPOOL_H

#include <stddef.h>
#include <stdio.h>

#include "model/model.h"

typedef struct ip_tree_spool {
  FILE *f;       /* NULL when it could not be created or written */
  size_t n;      /* threads written */
  ip_thread cur; /* the thread read back last: its tree, samples by address and call lines */
} ip_tree_spool;

/* An unlinked temporary file in $TMPDIR (else /tmp), open for writing and
 * reading; NULL when none could be made. */
FILE *ip_temp_stream(void);

/* Opens an empty spool; sp->f is NULL when no temporary file could be made. */
void ip_tree_spool_open(ip_tree_spool *sp);
void ip_tree_spool_close(ip_tree_spool *sp);

/* Writes thread t's call tree, samples by address and call lines; t is
 * session thread `index` (or a copy of it). */
void ip_tree_spool_put(ip_tree_spool *sp, const ip_thread *t, size_t index);

/* Starts reading the threads back from the first; returns 0, or -1 when
 * the spool failed. */
int ip_tree_spool_rewind(ip_tree_spool *sp);
/* The next thread: a copy of its session thread with its tree, samples and
 * call lines read back (valid until the next call); NULL after the last one
 * or when the spool failed (sp->f then NULL). */
const ip_thread *ip_tree_spool_next(ip_tree_spool *sp, const ip_session *s);

#endif
