/* cli/proc_tree.c - a running process's descendants: every process's parent
 * from /proc/PID/stat (the field after the command name, which may itself
 * hold spaces and parentheses: read after its last ')'), then the tree
 * walked from pid breadth first, so that a parent comes before its
 * children. */
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

/* The parent of pid from /proc/PID/stat; 0 when it cannot be read (gone). */
static pid_t parent_of(pid_t pid) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return 0;
  buf[n] = 0;
  const char *close_paren = strrchr(buf, ')');
  int ppid;
  char state;
  if (!close_paren || sscanf(close_paren + 1, " %c %d", &state, &ppid) != 2)
    return 0;
  return (pid_t)ppid;
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
