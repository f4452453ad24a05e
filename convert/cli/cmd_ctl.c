/* cli/cmd_ctl.c - `inclprof ctl [-o DIR] [--children] PID
 * start|stop|mark TEXT|flush|status`: switches recording of a running
 * process on or off, marks an instant, writes every thread's buffered events
 * so far, or asks whether it records, through the control socket its runtime
 * bound in the trace directory (cli/ctl_client.c); with --children, the same
 * to every process descended from it that has one (cli/proc_tree.c).
 * Prints each runtime's answer; exit status 0 when every one did it, 1 when
 * one refused or could not be reached. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "cli/ctl_client.h"
#include "cli/cli_args.h"
#include "cli/proc_tree.h"
#include "ctl_protocol.h"

#define MAX_CHILDREN 65536

enum { OPT_OUTPUT = 'o', OPT_CHILDREN = 'c' };

static const ip_cli_opt options[] = {
    {"output", OPT_OUTPUT, "DIR", "the process's trace directory (default: its INCLPROF_OUTPUT)"},
    {"children", OPT_CHILDREN, NULL,
     "also every process descended from PID now that has a control\n"
     "socket; may follow the command too (ctl PID start --children)"},
};

static const ip_cli cli = {
    .name = "ctl",
    .synopsis = "[-o DIR] [--children] PID start|stop|mark TEXT|flush|status",
    .intro = "Controls the recording of a running process (started by 'inclprof record' or\n"
             "linked with -linclprof) through its control socket DIR/PID.ctl:\n"
             "  start, stop   switch recording on or off for every thread\n"
             "  mark TEXT     a named instant in the trace\n"
             "  flush         write every thread's buffered events now (read them with\n"
             "                report, info or export while the process runs)\n"
             "  status        whether it records, and its trace file\n"
             "With --children the command also goes to the processes PID has already\n"
             "forked (a server's workers), each through its own socket.",
    .epilog = "Exit status 0 when every process did it; 1 when one is not running, belongs to\n"
              "another user, has no runtime listening or did not answer; 2 for bad usage.",
    .opts = options,
    .n_opts = sizeof options / sizeof options[0],
    .stop_at_operand = 1,
};

struct ctl_opts {
  const char *dir;
  int children;
};

static int on_option(void *ctx, int id, const char *arg, ip_cli_msg *m) {
  (void)m;
  struct ctl_opts *o = ctx;
  if (id == OPT_CHILDREN)
    o->children = 1;
  else
    o->dir = arg;
  return 0;
}

static int usage_error(const char *fmt, const char *arg) {
  ip_cli_msg m = {.cli = &cli};
  ip_cli_fail(&m, fmt, arg);
  fprintf(stderr, "%s\n", m.text);
  return IP_EXIT_USAGE;
}

/* Whether pid has bound a control socket in its trace directory. */
static int has_socket(pid_t pid, const char *dir) {
  char path[4096], sock[4200], err[1500];
  struct stat st;
  if (ip_ctl_find_dir(pid, dir, path, sizeof path, err, sizeof err) != 0)
    return 0;
  ip_ctl_path(sock, sizeof sock, path, (int)pid);
  return stat(sock, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* Sends cmd to pid and prints its answer: 1 when it did it, 0 when not. */
static int send_to(pid_t pid, const char *dir, const char *cmd) {
  char path[4096], reply[1500];
  if (ip_ctl_find_dir(pid, dir, path, sizeof path, reply, sizeof reply) != 0 ||
      ip_ctl_request(pid, path, cmd, 5000, reply, sizeof reply) != 0) {
    fprintf(stderr, "inclprof ctl: %s\n", reply);
    return 0;
  }
  size_t ok_len = sizeof IP_CTL_OK - 1;
  int ok = !strncmp(reply, IP_CTL_OK, ok_len);
  fprintf(ok ? stdout : stderr, "inclprof ctl: pid %d: %s\n", (int)pid,
          ok ? reply + ok_len : reply);
  return ok;
}

/* pid and every descendant with a control socket; a process without one
 * is named and passed over, unless none had one. */
static int send_to_tree(pid_t pid, const char *dir, const char *cmd) {
  static pid_t kids[MAX_CHILDREN];
  long n = ip_proc_descendants(pid, kids, MAX_CHILDREN);
  if (n < 0) {
    fprintf(stderr, "inclprof ctl: cannot read /proc to find the children of pid %d\n", (int)pid);
    return IP_EXIT_ERROR;
  }
  int failed = 0, reached = 0;
  for (long i = -1; i < n; i++) {
    pid_t p = i < 0 ? pid : kids[i];
    if (!has_socket(p, dir)) {
      fprintf(stderr,
              "inclprof ctl: pid %d: passed over: no control socket (not recorded, or not yet: "
              "a fork child binds it about 5 ms after the fork)\n",
              (int)p);
      continue;
    }
    reached++;
    failed += !send_to(p, dir, cmd);
  }
  if (!reached)
    fprintf(stderr,
            "inclprof ctl: neither pid %d nor any of its %ld descendants has a control socket "
            "(run 'inclprof ctl %d status' to see why)\n",
            (int)pid, n, (int)pid);
  return reached && !failed ? IP_EXIT_OK : IP_EXIT_ERROR;
}

int cmd_ctl(int argc, char **argv) {
  struct ctl_opts o = {0};
  int first;
  int rc = ip_cli_parse_or_exit(&cli, argc, argv, on_option, &o, &first);
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
    if (argc - first == 3 && !strcmp(argv[first + 2], "--children"))
      o.children = 1;
    else if (argc - first != 2)
      return usage_error("%s takes no argument but --children", what);
    snprintf(cmd, sizeof cmd, "%s", what);
  } else {
    return usage_error("unknown command '%s' (" IP_CTL_COMMANDS ")", what);
  }
  if (o.children)
    return send_to_tree((pid_t)pid, o.dir, cmd);
  return send_to((pid_t)pid, o.dir, cmd) ? IP_EXIT_OK : IP_EXIT_ERROR;
}
