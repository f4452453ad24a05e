/* cli/proc_tree.c - a running process's descendants: every process's parent
 * from /proc/PID/stat (the fields after the command name, which may itself
 * hold spaces and parentheses: read after its last ')'), then the tree
 * walked from pid breadth first, so that a parent comes before its
 * children; and one process's state, parent and start time from the same
 * line. */
#include "cli/proc_tree.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

struct proc {
  pid_t pid, ppid;
};

int ip_proc_stat(pid_t pid, struct ip_proc_stat *st) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return -1;
  buf[n] = 0;
  const char *close_paren = strrchr(buf, ')');
  int ppid;
  /* state, ppid, then 17 fields up to starttime (the 22nd of the line) */
  if (!close_paren ||
      sscanf(close_paren + 1,
             " %c %d %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
             &st->state, &ppid, &st->start_ticks) != 3)
    return -1;
  st->ppid = (pid_t)ppid;
  return 0;
}

int ip_proc_ended(pid_t pid) {
  struct ip_proc_stat st;
  return ip_proc_stat(pid, &st) != 0 || st.state == 'Z' || st.state == 'X';
}

/* The parent of pid; 0 when it cannot be read (gone). */
static pid_t parent_of(pid_t pid) {
  struct ip_proc_stat st;
  return ip_proc_stat(pid, &st) == 0 ? st.ppid : 0;
}

long ip_proc_descendants(pid_t pid, pid_t *out, size_t max) {
  DIR *d = opendir("/proc");
  if (!d)
    return -1;
  struct proc *all = NULL;
  size_t n = 0, cap = 0;
  for (const struct dirent *e; (e = readdir(d));) {
    if (!isdigit((unsigned char)e->d_name[0]))
      continue;
    pid_t p = (pid_t)atoi(e->d_name), pp = parent_of(p);
    if (!pp)
      continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 1024;
      all = ip_must_realloc(all, cap, sizeof *all);
    }
    all[n++] = (struct proc){p, pp};
  }
  closedir(d);
  size_t found = 0;
  for (size_t head = 0;; head++) {
    pid_t parent = head == 0 ? pid : (head - 1 < found ? out[head - 1] : 0);
    if (!parent)
      break;
    for (size_t i = 0; i < n && found < max; i++)
      if (all[i].ppid == parent)
        out[found++] = all[i].pid;
  }
  free(all);
  return (long)found;
}
