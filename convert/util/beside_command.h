/* util/beside_command.h - files installed with the inclprof command: the
 * runtime and the plugin sit next to it in a build tree, or under ../lib
 * when installed. */
#ifndef INCLPROF_BESIDE_COMMAND_H
#define INCLPROF_BESIDE_COMMAND_H

#include <stddef.h>

/* The first of the n paths rel (each relative to the directory of this
 * executable, starting with '/') that can be read, written into out.
 * Returns 0, or -1 when none can. */
int ip_find_beside_command(const char *const *rel, size_t n, char *out, size_t len);

#endif
