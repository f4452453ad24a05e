/* perf_access.c - why the kernel refuses this process a transition
 * counter, in words that name what is missing: read access to tracefs (the
 * tracepoint's id), or the permission to open kernel events
 * (kernel.perf_event_paranoid against root, CAP_PERFMON or CAP_SYS_ADMIN). */
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "produce/produce.h"

/* kernel.perf_event_paranoid, or 2 (the kernel's default) when unreadable. */
static int paranoid_level(void) {
  char buf[16];
  return ip_read_small("/proc/sys/kernel/perf_event_paranoid", 0, buf, sizeof buf) > 0 ? atoi(buf)
                                                                                       : 2;
}

static int has_capability(unsigned cap) {
  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct d[2];
  memset(d, 0, sizeof d);
  if (ip_syscall(SYS_capget, &h, d) != 0)
    return 0;
  return (d[cap / 32].effective >> (cap % 32)) & 1u;
}

int ip_perf_refusal(char *why, size_t len) {
  int level = paranoid_level();
#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
  if (geteuid() == 0 || has_capability(CAP_PERFMON) || has_capability(CAP_SYS_ADMIN) || level <= 1)
    return 0;
  snprintf(why, len,
           "kernel.perf_event_paranoid is %d and this process has neither root nor CAP_PERFMON",
           level);
  return 1;
}

void ip_refusal_next_step(char *out, size_t len) {
  snprintf(out, len,
           "run as root, or record it with 'sudo inclprof record --user %u -- PROG' (or through "
           "inclprof-perfmon, installed with its capabilities), or use --transitions none",
           (unsigned)getuid());
}

void ip_tracefs_refusal(const char *path, char *why, size_t len) {
  char perf[160], next[200];
  int refused = ip_perf_refusal(perf, sizeof perf);
  ip_refusal_next_step(next, sizeof next);
  snprintf(
      why, len,
      "permission denied reading %s: tracefs is mounted, but this user may not read it%s%s; %s",
      path, refused ? ", and " : "", refused ? perf : "", next);
}
