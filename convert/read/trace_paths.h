/* read/trace_paths.h - turns the command line's TRACE|DIR arguments into the list
 * of trace files to read (a directory means every *.ipb file in it). */
#ifndef INCLPROF_TRACE_PATHS_H
#define INCLPROF_TRACE_PATHS_H

#include <stddef.h>

typedef struct ip_paths {
  char **v;
  size_t n, cap;
} ip_paths;

/* Appends the trace files named by path.  Returns 0, or -1 with a one-line
 * message in err (unreadable path, directory without traces). */
int ip_paths_add(ip_paths *p, const char *path, char *err, size_t errlen);
void ip_paths_free(ip_paths *p);

#endif
