/* read/trace_paths.h - turns the command line's TRACE|DIR arguments into the list
 * of trace files to read (a directory means every *.ipb file in it). */
#ifndef INCLPROF_TRACE_PATHS_H
#define INCLPROF_TRACE_PATHS_H

#include <stddef.h>

typedef struct ip_file_id {
  unsigned long long dev, ino;
} ip_file_id;

typedef struct ip_paths {
  char **v;
  ip_file_id *id; /* of v[i] */
  size_t n, cap, id_cap;
  size_t n_repeated; /* files named again (by another path too): left out */
  char *repeated;    /* the first such path */
  char *table;       /* the first function table file (*.ipt) named: left out */
} ip_paths;

/* Appends the trace files named by path; a file already in the list (the
 * same device and inode) is counted in n_repeated instead, a function
 * table file (*.ipt, read through the traces that name it: a glob of a
 * trace directory names them too) is left out.  Returns 0, or
 * -1 with a one-line message in err (unreadable path, directory without
 * traces: it names the subdirectories that hold some). */
int ip_paths_add(ip_paths *p, const char *path, char *err, size_t errlen);
void ip_paths_free(ip_paths *p);

#endif
