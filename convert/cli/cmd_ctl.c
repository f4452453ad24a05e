/* cli/cmd_ctl.c - `inclprof ctl [-o DIR] PID start|stop|mark TEXT|flush|status`:
 * switches recording of a running process on or off, marks an instant,
 * writes every thread's buffered events so far, or asks whether it
 * records, through the control socket its runtime bound in the trace
 * directory (cli/ctl_client.c).  Prints the runtime's answer; exit status
 * 0 when it did it, 1 when it refused or could not be reached. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/ctl_client.h"
#include "cli/cli_args.h"
#include "ctl_protocol.h"

static const ip_cli_opt options[] = {
    {"output", 'o', "DIR", "the process's trace directory (default: its INCLPROF_OUTPUT)"},
};

static const ip_cli cli = {
    .name = "ctl",
    .synopsis = "[-o DIR] PID start|stop|mark TEXT|flush|status",
    .intro = "Controls the recording of a running process (started by 'inclprof record' or\n"
             "linked with -linclprof) through its control socket DIR/PID.ctl:\n"
             "  start, stop   switch recording on or off for every thread\n"
             "  mark TEXT     a named instant in the trace\n"
             "  flush         write every thread's buffered events now (read them with\n"
             "                report, info or export while the process runs)\n"
             "  status        whether it records, and its trace file",
    .epilog = "Exit status 0 when the process did it; 1 when it is not running, belongs to\n"
              "another user, has no runtime listening or did not answer; 2 for bad usage.",
    .opts = options,
    .n_opts = sizeof options / sizeof options[0],
    .stop_at_operand = 1,
};

static int on_option(void *ctx, int id, const char *arg, ip_cli_msg *m) {
  (void)id;
  (void)m;
  *(const char **)ctx = arg;
  return 0;
}

static int usage_error(const char *fmt, const char *arg) {
  ip_cli_msg m = {.cli = &cli};
  ip_cli_fail(&m, fmt, arg);
  fprintf(stderr, "%s\n", m.text);
  return IP_EXIT_USAGE;
}

int cmd_ctl(int argc, char **argv) {
  const char *dir = NULL;
  int first;
  int rc = ip_cli_parse_or_exit(&cli, argc, argv, on_option, &dir, &first);
  if (rc >= 0)
    return rc;
  if (argc - first < 2)
    return usage_error("%s", "needs a PID and a command");
  uint64_t pid;
  if (ip_parse_u64(argv[first], 4194304, &pid) || pid < 1)
    return usage_error("bad PID '%s'", argv[first]);
  const char *what = argv[first + 1];
  char cmd[IP_CTL_COMMAND_MAX];
  if (!strcmp(what, "mark")) {
    if (argc - first != 3 || !argv[first + 2][0])
      return usage_error("%s", "mark needs one TEXT");
    snprintf(cmd, sizeof cmd, IP_CTL_MARK "%s", argv[first + 2]);
  } else if (!strcmp(what, IP_CTL_START) || !strcmp(what, IP_CTL_STOP) ||
             !strcmp(what, IP_CTL_FLUSH) || !strcmp(what, IP_CTL_STATUS)) {
    if (argc - first != 2)
      return usage_error("%s takes no argument", what);
    snprintf(cmd, sizeof cmd, "%s", what);
  } else {
    return usage_error("unknown command '%s' (" IP_CTL_COMMANDS ")", what);
  }
  char path[4096], reply[1500];
  if (ip_ctl_find_dir((pid_t)pid, dir, path, sizeof path, reply, sizeof reply) != 0 ||
      ip_ctl_request((pid_t)pid, path, cmd, 5000, reply, sizeof reply) != 0) {
    fprintf(stderr, "inclprof ctl: %s\n", reply);
    return IP_EXIT_ERROR;
  }
  size_t ok_len = sizeof IP_CTL_OK - 1;
  int ok = !strncmp(reply, IP_CTL_OK, ok_len);
  fprintf(ok ? stdout : stderr, "inclprof ctl: pid %llu: %s\n", (unsigned long long)pid,
          ok ? reply + ok_len : reply);
  return ok ? IP_EXIT_OK : IP_EXIT_ERROR;
}
