/* cli/record_perfmon.c - `record` for a user who may not open the kevents
 * events (kernel.perf_event_paranoid >= 2, no CAP_PERFMON): when
 * inclprof-perfmon is installed beside this command with its file
 * capabilities, `record` execs it to run itself again; the helper serves
 * the grant socket (include/inclprof/perf_grant.h) to the recording and the
 * new `record` finds IP_GRANT_ENV set, which the helper always sets (empty
 * when it cannot serve), so that this happens once. */
#include "cli/record_perfmon.h"

#include "perf_grant.h"
#include "pmu_attr.h"
#include "settings_names.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

int record_kevents_permitted(void) {
  if (geteuid() == 0)
    return 1;
  static const char *const paths[] = {IP_SYS_ENTER_ID_PATHS};
  int id = -1;
  for (size_t i = 0; i < sizeof paths / sizeof paths[0] && id <= 0; i++) {
    FILE *f = fopen(paths[i], "re");
    if (f && fscanf(f, "%d", &id) != 1)
      id = -1;
    if (f)
      fclose(f);
  }
  if (id <= 0)
    return 0;
  struct perf_event_attr a;
  ip_pmu_sys_enter(&a, (uint64_t)id);
  a.disabled = 1;
  int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd >= 0)
    close(fd);
  return fd >= 0;
}

/* The helper beside this command, with file capabilities the kernel will
 * honour (not on a nosuid mount), into out. */
static int find_helper(char *out, size_t len) {
  static const char *const rel[] = {"/inclprof-perfmon"};
  struct statvfs vfs;
  return ip_find_beside_command(rel, 1, out, len) == 0 && access(out, X_OK) == 0 &&
                 getxattr(out, "security.capability", NULL, 0) > 0 && statvfs(out, &vfs) == 0 &&
                 !(vfs.f_flag & ST_NOSUID)
             ? 0
             : -1;
}

void record_perfmon_exec(const char *mode, int argc, char **argv) {
  const char *env_mode = getenv(IP_ENV_TRANSITIONS);
  if (!mode)
    mode = env_mode;
  if ((mode && (!strcmp(mode, "none") || !strcmp(mode, "pmu"))) || getenv(IP_GRANT_ENV) ||
      record_kevents_permitted())
    return;
  char helper[PATH_MAX], self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0 || find_helper(helper, sizeof helper) != 0)
    return;
  self[n] = 0;
  char **args = calloc((size_t)argc + 4, sizeof *args);
  if (!args)
    return;
  args[0] = helper;
  args[1] = "--";
  args[2] = self;
  for (int i = 0; i < argc; i++)
    args[3 + i] = argv[i];
  execv(helper, args);
  fprintf(stderr, "inclprof record: cannot run %s: %s; recording without kernel events\n", helper,
          strerror(errno));
  free(args);
}
