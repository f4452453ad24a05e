/* cli/record_snapshot.h - the snapshot options of `inclprof record`
 * (record_snapshot.c). */
#ifndef INCLPROF_RECORD_SNAPSHOT_H
#define INCLPROF_RECORD_SNAPSHOT_H

#include <stddef.h>

/* Checks one --snapshot-if value (FUNCTION>DURATION, or several joined by
 * commas) and appends it to conds (comma-separated, at most len bytes): 0,
 * or -1 with why in err. */
int record_snapshot_add(char *conds, size_t len, const char *arg, char *err, size_t errlen);

/* Every function the conditions name is defined by the program prog (found
 * on PATH as exec would): 0, or -1 with why in err.  A program that is not
 * an ELF file with a symbol table is not checked. */
int record_snapshot_check(const char *conds, const char *prog, char *err, size_t errlen);

#endif
