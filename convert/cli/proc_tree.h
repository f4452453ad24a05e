/* cli/proc_tree.h - a running process's descendants, from /proc
 * (proc_tree.c): what `inclprof ctl --children` reaches; and one process's
 * state, parent and start time. */
#ifndef INCLPROF_PROC_TREE_H
#define INCLPROF_PROC_TREE_H

#include <stddef.h>
#include <sys/types.h>

/* The processes descended from pid now (children, their children...),
 * parents before their children, into out (at most max); their number, or
 * -1 when /proc cannot be read. */
long ip_proc_descendants(pid_t pid, pid_t *out, size_t max);

/* What /proc/PID/stat says of a process. */
struct ip_proc_stat {
  char state;                     /* R, S, D, T, Z (ended, not yet waited for), X... */
  pid_t ppid;                     /* its parent */
  unsigned long long start_ticks; /* its start, in clock ticks since boot */
};

/* pid's stat into st: 0, or -1 when it cannot be read (gone). */
int ip_proc_stat(pid_t pid, struct ip_proc_stat *st);

/* Whether pid has ended: gone, or a zombie (ended, not yet waited for). */
int ip_proc_ended(pid_t pid);

#endif
