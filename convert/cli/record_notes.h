/* cli/record_notes.h - the file in which the runtime of a `record` run
 * leaves its lines for the user (record_notes.c). */
#ifndef INCLPROF_RECORD_NOTES_H
#define INCLPROF_RECORD_NOTES_H

#include <limits.h>

struct record_notes {
  char path[PATH_MAX];  /* "" when none could be made */
  char unrecorded[600]; /* the cause of the first process not recorded, "" when none */
  int n_unrecorded;     /* the processes not recorded */
};

/* Makes the file and names it in INCLPROF_RECORD_NOTES for the program. */
void record_notes_make(struct record_notes *n);

/* Reads the file once the program has ended, and removes it: the first
 * "CAUSE; the program continues unprofiled" into n->unrecorded, all of them
 * counted in n->n_unrecorded; each other
 * line the runtime wrote (a setting it did not understand, a profile it
 * could not write) on stderr once, however many processes wrote it.  The
 * lines on recordings that stopped early are passed over: their Trailer
 * names them. */
void record_notes_take(struct record_notes *n);

#endif
