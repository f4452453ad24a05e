/* cli/cmd_ctl.c - `inclprof ctl [-o DIR] [--children] PID
 * start|stop|mark TEXT|flush|status`: switches recording of a running
 * process on or off, marks an instant, writes every thread's buffered events
 * so far, or asks whether it records, through the control socket its runtime
 * bound in the trace directory (cli/ctl_client.c); with --children, the same
 * to every process descended from it that has one (cli/proc_tree.c), the
 * tree read again until it holds no process not yet reached (one forked
 * meanwhile).  A process too young to have bound its socket (a fork child
 * binds it about 5 ms after the fork) is waited for (cli/ctl_wait.c).
 * Prints each runtime's answer; exit status 0 when every one did it, 1 when
 * one refused or could not be reached. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/ctl_client.h"
#include "cli/cli_args.h"
#include "cli/ctl_wait.h"
#include "cli/proc_tree.h"
#include "ctl_protocol.h"

#define MAX_CHILDREN  65536
#define MAX_ANCESTORS 4096
#define MAX_ROUNDS    10   /* tree readings, each reaching the processes new to it */
#define MAX_YOUNG     1024 /* processes waited for at once */

enum { OPT_OUTPUT = 'o', OPT_CHILDREN = 'c' };

static const ip_cli_opt options[] = {
    {"output", OPT_OUTPUT, "DIR", "the process's trace directory (default: its INCLPROF_OUTPUT)"},
    {"children", OPT_CHILDREN, NULL,
     "also every process descended from PID that has a control socket\n"
     "(a fork child still binding it is waited for); may follow the\n"
     "command too (ctl PID start --children)"},
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
             "forked (a server's workers), each through its own socket.  A process in\n"
             "its first " IP_CTL_WAIT_AGE_TEXT
             " ms that has the runtime but no socket yet (a fork child\n"
             "binds it about 5 ms after the fork) is waited for.",
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

/* Sends cmd to pid and prints its answer, saying how long its socket was
 * waited for: 1 when it did it, 0 when not, -1 (unless alone: then 0) when
 * it ended before it answered (not printed). */
static int send_to(pid_t pid, const char *dir, const char *cmd, int waited_ms, int alone) {
  char path[4096], reply[1500];
  if (ip_ctl_find_dir(pid, dir, path, sizeof path, reply, sizeof reply) != 0 ||
      ip_ctl_request(pid, path, cmd, 5000, reply, sizeof reply) != 0) {
    if (!alone && ip_proc_ended(pid))
      return -1;
    fprintf(stderr, "inclprof ctl: %s\n", reply);
    return 0;
  }
  size_t ok_len = sizeof IP_CTL_OK - 1;
  int ok = !strncmp(reply, IP_CTL_OK, ok_len);
  char waited[160] = "";
  if (waited_ms > 0)
    snprintf(waited, sizeof waited,
             " (its control socket waited for %d ms: a fork child binds it about 5 ms after the "
             "fork)",
             waited_ms);
  fprintf(ok ? stdout : stderr, "inclprof ctl: pid %d: %s%s\n", (int)pid,
          ok ? reply + ok_len : reply, waited);
  return ok;
}

static void pause_poll(void) {
  struct timespec step = {0, IP_CTL_WAIT_POLL_US * 1000L};
  nanosleep(&step, NULL);
}

/* pid alone: waited for while it is a fork child still binding its socket. */
static int send_to_one(pid_t pid, const char *dir, const char *cmd) {
  long long deadline, since = ip_ctl_now_ms();
  enum ip_ctl_wait w = ip_ctl_socket_now(pid, dir, 1, &deadline);
  int waited = w == IP_CTL_WAIT_YOUNG;
  while (w == IP_CTL_WAIT_YOUNG) {
    pause_poll();
    w = ip_ctl_socket_poll(pid, dir, deadline);
  }
  if (w == IP_CTL_WAIT_NEVER) {
    fprintf(stderr,
            "inclprof ctl: pid %d has no control socket " IP_CTL_WAIT_AGE_TEXT
            " ms after its start though it has the inclprof runtime: its control is off "
            "(INCLPROF_CTL=0, its own malloc) or it has run no instrumented code\n",
            (int)pid);
    return IP_EXIT_ERROR;
  }
  waited = waited ? (int)(ip_ctl_now_ms() - since) : 0;
  return send_to(pid, dir, cmd, waited, 1) == 1 ? IP_EXIT_OK : IP_EXIT_ERROR;
}

/* The processes of a tree being reached: how many answered, how many
 * failed, and those still waited for (each with the end of its wait). */
struct tally {
  int reached, failed;
  size_t n_young;
  pid_t young[MAX_YOUNG];
  long long deadline[MAX_YOUNG];
};

/* What becomes of one process of the tree: served when ready, else named
 * on stderr and passed over.  A process that ends before it answers is no
 * failure. */
static void reach(pid_t p, const char *dir, const char *cmd, enum ip_ctl_wait w, int waited,
                  struct tally *t) {
  switch (w) {
  case IP_CTL_WAIT_YOUNG:
    return;
  case IP_CTL_WAIT_GONE:
    fprintf(stderr, "inclprof ctl: pid %d: passed over: it has ended\n", (int)p);
    return;
  case IP_CTL_WAIT_NONE:
    fprintf(stderr,
            "inclprof ctl: pid %d: passed over: no control socket (not recorded, or its "
            "control is off)\n",
            (int)p);
    return;
  case IP_CTL_WAIT_NEVER:
    fprintf(stderr,
            "inclprof ctl: pid %d: passed over: no control socket " IP_CTL_WAIT_AGE_TEXT
            " ms after its start though it has the inclprof runtime (its control is off, or it "
            "has run no instrumented code)\n",
            (int)p);
    return;
  case IP_CTL_WAIT_READY:
    break;
  }
  int done = send_to(p, dir, cmd, waited, 0);
  if (done < 0)
    fprintf(stderr, "inclprof ctl: pid %d: passed over: it ended before it answered\n", (int)p);
  else
    t->reached++, t->failed += !done;
}

/* Waits for the young processes of t together, each served as soon as it
 * listens, or passed over at the end of its wait. */
static void reach_young(const char *dir, const char *cmd, long long since, struct tally *t) {
  while (t->n_young) {
    pause_poll();
    for (size_t i = t->n_young; i-- > 0;) {
      enum ip_ctl_wait w = ip_ctl_socket_poll(t->young[i], dir, t->deadline[i]);
      if (w == IP_CTL_WAIT_YOUNG)
        continue;
      reach(t->young[i], dir, cmd, w, (int)(ip_ctl_now_ms() - since), t);
      t->n_young--;
      t->young[i] = t->young[t->n_young];
      t->deadline[i] = t->deadline[t->n_young];
    }
  }
}

static int among(pid_t p, const pid_t *set, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (set[i] == p)
      return 1;
  return 0;
}

/* This command's ancestors, into out: processes of the tree that run it
 * (a shell, the program that started it) and are not waited for. */
static size_t own_ancestors(pid_t *out, size_t max) {
  size_t n = 0;
  struct ip_proc_stat st;
  for (pid_t p = getppid(); p > 1 && n < max && ip_proc_stat(p, &st) == 0; p = st.ppid)
    out[n++] = p;
  return n;
}

/* pid and every descendant with a control socket, the tree read again
 * until it holds no process not yet reached; one without a socket is named
 * and passed over, unless none had one. */
static int send_to_tree(pid_t pid, const char *dir, const char *cmd) {
  static pid_t kids[MAX_CHILDREN], seen[MAX_CHILDREN], mine[MAX_ANCESTORS];
  static struct tally t;
  size_t n_seen = 0, n_mine = own_ancestors(mine, MAX_ANCESTORS);
  for (int round = 0, fresh = 1; fresh && round < MAX_ROUNDS; round++) {
    long n = ip_proc_descendants(pid, kids, MAX_CHILDREN);
    if (n < 0) {
      fprintf(stderr, "inclprof ctl: cannot read /proc to find the children of pid %d\n", (int)pid);
      return IP_EXIT_ERROR;
    }
    fresh = 0;
    long long since = ip_ctl_now_ms();
    for (long i = round ? 0 : -1; i < n; i++) {
      pid_t p = i < 0 ? pid : kids[i];
      if (p == getpid() || among(p, seen, n_seen) || n_seen == MAX_CHILDREN)
        continue;
      seen[n_seen++] = p;
      fresh = 1;
      long long deadline;
      int may_wait = !among(p, mine, n_mine) && t.n_young < MAX_YOUNG;
      enum ip_ctl_wait w = ip_ctl_socket_now(p, dir, may_wait, &deadline);
      if (w == IP_CTL_WAIT_YOUNG) {
        t.young[t.n_young] = p;
        t.deadline[t.n_young++] = deadline;
      }
      reach(p, dir, cmd, w, 0, &t);
    }
    reach_young(dir, cmd, since, &t);
  }
  if (!t.reached)
    fprintf(stderr,
            "inclprof ctl: neither pid %d nor any of its %ld descendants has a control socket "
            "(run 'inclprof ctl %d status' to see why)\n",
            (int)pid, n_seen ? (long)n_seen - 1 : 0L, (int)pid);
  return t.reached && !t.failed ? IP_EXIT_OK : IP_EXIT_ERROR;
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
  return send_to_one((pid_t)pid, o.dir, cmd);
}
