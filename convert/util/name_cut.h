/* util/name_cut.h - names shortened to a width so that different functions
 * still read differently.  A demangled C++ name keeps its own name and the
 * end of its signature; what goes first, each piece replaced by "...", is a
 * return type, then the template arguments and namespaces of the scopes
 * before the name, then those inside the parameter list, then the name's own
 * template arguments; only then is a run of characters cut from the middle.
 * Other text (a path, a C name) loses its middle.  A table's names are cut
 * together so that two different names never come out the same. */
#ifndef INCLPROF_NAME_CUT_H
#define INCLPROF_NAME_CUT_H

#include <stddef.h>

/* IP_CUT_PLAIN: the text is not a function's name (a path, a process):
 * only its middle goes. */
#define IP_CUT_PLAIN 1u

/* Writes name shortened to at most width bytes into out (out_len > width,
 * or the whole name when it fits), never splitting a UTF-8 character.  The
 * bytes [keep_from, keep_to) of name stay whole where the width allows
 * (keep_to <= keep_from: nothing in particular).  Returns the length. */
size_t ip_name_cut(const char *name, size_t width, size_t keep_from, size_t keep_to, unsigned flags,
                   char *out, size_t out_len);

/* Cuts names[i] to widths[i] (0: the whole name) into out[i] (malloc'ed),
 * so that two different names never read the same: names that would are cut
 * again keeping the part where they differ, and as a last resort end in a
 * tag "~1", "~2"... in the order of the names. */
void ip_names_cut(const char *const *names, const size_t *widths, size_t n, unsigned flags,
                  char **out);

#endif
