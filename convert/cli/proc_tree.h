/* cli/proc_tree.h - a running process's descendants, from /proc
 * (proc_tree.c): what `inclprof ctl --children` reaches. */
#ifndef INCLPROF_PROC_TREE_H
#define INCLPROF_PROC_TREE_H

#include <stddef.h>
#include <sys/types.h>

/* The processes descended from pid now (children, their children...),
 * parents before their children, into out (at most max); their number, or
 * -1 when /proc cannot be read. */
long ip_proc_descendants(pid_t pid, pid_t *out, size_t max);

#endif
