/* model/process_alive.c - whether the process that wrote a trace still
 * runs here: same host, the pid alive, running the same executable, and
 * started (/proc/PID/stat, against the boot time of /proc/stat) no later
 * than the trace's Header says its runtime started - so a later process
 * that reuses the pid is not taken for it. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "model/profile.h"

/* When pid started, in ns since the epoch; 0 when not known. */
static uint64_t started_unix_ns(uint32_t pid) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%u/stat", pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  const char *p = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
  unsigned long long start = 0;
  /* after ")": state is field 3; starttime is field 22 */
  if (!p || sscanf(p + 2,
                   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
                   "%*d %*d %llu",
                   &start) != 1)
    return 0;
  unsigned long long btime = 0;
  f = fopen("/proc/stat", "r");
  if (!f)
    return 0;
  char line[256];
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "btime %llu", &btime) == 1)
      break;
  fclose(f);
  long hz = sysconf(_SC_CLK_TCK);
  if (!btime || hz <= 0)
    return 0;
  return (btime * 1000000000ull) + start * (1000000000ull / (unsigned long long)hz);
}

int ip_process_running(const ip_process *p) {
  char host[256] = "";
  if (gethostname(host, sizeof host - 1) != 0 || !p->hostname || strcmp(host, p->hostname))
    return 0;
  if (kill((pid_t)p->pid, 0) != 0 && errno != EPERM)
    return 0;
  uint64_t began = started_unix_ns(p->pid);
  /* the boot time has a resolution of a second */
  if (began && p->start_unix_ns && began > p->start_unix_ns + 2000000000ull)
    return 0;
  char link[64], exe[PATH_MAX];
  snprintf(link, sizeof link, "/proc/%u/exe", p->pid);
  ssize_t n = readlink(link, exe, sizeof exe - 1);
  if (n <= 0)
    return errno == EACCES; /* alive, but not ours to look at */
  exe[n] = 0;
  return p->executable && !strcmp(exe, p->executable);
}
