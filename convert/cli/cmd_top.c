/* cli/cmd_top.c - `inclprof top [-o DIR] [--seconds D] [--interval D]
 * [--sort elapsed|application] [-n ROWS] [--once] PID|DIR`: a refreshing
 * terminal view of a running process's hottest functions over the last
 * seconds, with exact calls per second.  Each refresh asks the process to
 * flush (its control socket, cli/ctl_client.c), reads its trace anew and
 * shows what grew since the oldest refresh inside the window
 * (cli/top_rates.c).  On a terminal: plain ANSI escapes on the alternate
 * screen; q or Ctrl-C quits and the terminal is restored.  Elsewhere (a file,
 * a pipe) each refresh is plain text after a blank line.  --once: two reads
 * an interval apart, one plain table.  It ends by itself when the process
 * ends. */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/ctl_client.h"
#include "cli/top_rates.h"
#include "duration_syntax.h"
#include "cli/cli_args.h"
#include "ctl_protocol.h"
#include "model/model.h"
#include "util/util.h"

enum { OPT_SECONDS = 256, OPT_INTERVAL, OPT_SORT, OPT_ONCE };

static const ip_cli_opt options[] = {
    {"output", 'o', "DIR", "the process's trace directory (default: its INCLPROF_OUTPUT)"},
    {"seconds", OPT_SECONDS, "DURATION", "the window the rates cover (default 5s)"},
    {"interval", OPT_INTERVAL, "DURATION", "refresh this often (default 1s)"},
    {"sort", OPT_SORT, "COLUMN", "elapsed (default) or application: the Exclusive time to sort by"},
    {"rows", 'n', "N", "show N functions (default: what fits the terminal)"},
    {"once", OPT_ONCE, NULL, "print one plain table of the rates over one --interval, then exit"},
};

static const ip_cli cli = {
    .name = "top",
    .synopsis = "[-o DIR] [--seconds D] [--interval D] [--sort elapsed|application] [-n N]\n"
                "        [--once] PID|DIR",
    .intro = "Shows the functions of a running process that took the most time over the last\n"
             "seconds, with their exact calls per second, refreshed until q, Ctrl-C or the\n"
             "process's end.  Each refresh asks the process to write its threads' events\n"
             "('inclprof ctl PID flush').  DIR: the running process with a trace there.\n"
             "Without a terminal each refresh is printed as plain text (no escapes).",
    .epilog = "Exit status 0; 1 when the process cannot be found or read; 2 for bad usage.",
    .opts = options,
    .n_opts = sizeof options / sizeof options[0],
};

typedef struct top_args {
  const char *dir;
  uint64_t window_ns, interval_ns, rows;
  int by_app, once;
  int screen; /* on a terminal: redraw the alternate screen */
} top_args;

static int on_option(void *ctx, int id, const char *arg, ip_cli_msg *m) {
  top_args *a = ctx;
  switch (id) {
  case 'o':
    a->dir = arg;
    return 0;
  case OPT_SECONDS:
  case OPT_INTERVAL:
    if (ip_duration_parse(arg, id == OPT_SECONDS ? &a->window_ns : &a->interval_ns) ||
        (id == OPT_SECONDS ? a->window_ns : a->interval_ns) < 10000000)
      return ip_cli_fail(m, "bad --%s '%s' (a duration of at least 10ms, like 500ms or 5s)",
                         id == OPT_SECONDS ? "seconds" : "interval", arg);
    return 0;
  case OPT_SORT:
    if (strcmp(arg, "elapsed") && strcmp(arg, "application"))
      return ip_cli_fail(m, "bad --sort '%s' (elapsed or application)", arg);
    a->by_app = !strcmp(arg, "application");
    return 0;
  case OPT_ONCE:
    a->once = 1;
    return 0;
  default: /* 'n' */
    if (ip_parse_u64(arg, 100000, &a->rows) || !a->rows)
      return ip_cli_fail(m, "bad --rows '%s' (a number from 1)", arg);
    return 0;
  }
}

static volatile sig_atomic_t interrupted;
static void on_signal(int sig) {
  (void)sig;
  interrupted = 1;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* In DIR: the pid of the running process whose control socket is there and
 * whose trace changed last; 0 when there is none. */
static long running_in(const char *dir) {
  ip_ctl_sweep(dir);
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  long best = 0;
  time_t newest = 0;
  const struct dirent *e;
  while ((e = readdir(d))) {
    char *end;
    long pid = strtol(e->d_name, &end, 10);
    if (pid <= 0 || strcmp(end, IP_CTL_SUFFIX) || (kill((pid_t)pid, 0) != 0 && errno == ESRCH))
      continue;
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%ld.ipb", dir, pid);
    if (stat(path, &st) == 0 && (!best || st.st_mtime >= newest)) {
      best = pid;
      newest = st.st_mtime;
    }
  }
  closedir(d);
  return best;
}

/* Who to watch: PID (its directory from -o or its environment) or DIR. */
static int target(const char *arg, const top_args *a, long *pid, char *dir, size_t len) {
  uint64_t v;
  if (!ip_parse_u64(arg, 4194304, &v) && v > 0) {
    char err[1200];
    *pid = (long)v;
    if (ip_ctl_find_dir((pid_t)v, a->dir, dir, len, err, sizeof err) == 0)
      return 0;
    fprintf(stderr, "inclprof top: %s\n", err);
    return -1;
  }
  snprintf(dir, len, "%s", arg);
  *pid = running_in(dir);
  if (*pid)
    return 0;
  fprintf(stderr,
          "inclprof top: no running process with a control socket in %s; give its PID, or "
          "record it with 'inclprof record -o %s'\n",
          dir, dir);
  return -1;
}

static size_t terminal_rows(void) {
  struct winsize ws;
  if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 8)
    return ws.ws_row - 7u;
  return 20;
}

/* One refresh: flush, read, and show unless quiet.  0 while the process
 * runs. */
static int refresh(long pid, const char *dir, const char *trace, const top_args *a, top_history *h,
                   int quiet) {
  char reply[1500], status[1500] = "";
  int live = ip_ctl_request((pid_t)pid, dir, IP_CTL_FLUSH, 3000, reply, sizeof reply) == 0;
  if (live && ip_ctl_request((pid_t)pid, dir, IP_CTL_STATUS, 3000, status, sizeof status) == 0 &&
      !strncmp(status, IP_CTL_OK, sizeof IP_CTL_OK - 1))
    status[strcspn(status, ",")] = 0; /* "ok: recording on" */
  else
    status[0] = 0;
  int running = kill((pid_t)pid, 0) == 0 || errno != ESRCH;
  ip_session s;
  char *paths[] = {(char *)trace};
  char err[600] = "";
  ip_load_opts lo = {
      .quiet = 1, .jobs = ip_cli_default_jobs(), .error = err, .error_len = sizeof err};
  int loaded = ip_session_load(&s, paths, 1, &lo) == 0;
  if (loaded)
    top_history_add(h, &s, now_ns(), a->window_ns);
  if (!quiet || !loaded) {
    char win[32];
    ip_fmt_ns(win, sizeof win, a->window_ns);
    printf("%sinclprof top - pid %ld%s%s - %s - window %s%s\n", a->screen ? "\033[H\033[2J" : "",
           pid, status[0] ? " - " : "", status[0] ? status + sizeof IP_CTL_OK - 1 : "",
           running ? (live ? "live" : reply) : "the process has ended", win,
           a->screen ? " - q quits" : "");
    if (loaded)
      top_history_print(h, stdout, a->by_app,
                        a->rows     ? a->rows
                        : a->screen ? terminal_rows()
                                    : 20,
                        ip_cli_terminal_width());
    else
      printf("%s\n", err);
    fflush(stdout);
  }
  if (loaded)
    ip_session_free(&s);
  return running ? 0 : -1;
}

/* Waits up to ns for q on standard input (once it ends, for the time
 * only); 1 when the user quits. */
static int wait_key(uint64_t ns) {
  static int input_ended;
  struct pollfd p = {.fd = 0, .events = POLLIN};
  if (poll(&p, !input_ended, (int)(ns / 1000000)) <= 0)
    return interrupted;
  char c;
  ssize_t n = read(0, &c, 1);
  if (n <= 0)
    input_ended = 1;
  return (n == 1 && (c == 'q' || c == 'Q')) || interrupted;
}

int cmd_top(int argc, char **argv) {
  top_args a = {.window_ns = 5000000000ull, .interval_ns = 1000000000ull};
  int first;
  int rc = ip_cli_parse_or_exit(&cli, argc, argv, on_option, &a, &first);
  if (rc >= 0)
    return rc;
  if (argc - first != 1) {
    ip_cli_msg m = {.cli = &cli};
    ip_cli_fail(&m, "needs one PID or DIR");
    fprintf(stderr, "%s\n", m.text);
    return IP_EXIT_USAGE;
  }
  long pid;
  char dir[4096], trace[4200];
  if (target(argv[first], &a, &pid, dir, sizeof dir) != 0)
    return IP_EXIT_ERROR;
  snprintf(trace, sizeof trace, "%s/%ld.ipb", dir, pid);
  if (access(trace, R_OK) != 0) {
    fprintf(stderr, "inclprof top: pid %ld has no readable trace %s; give its directory with -o\n",
            pid, trace);
    return IP_EXIT_ERROR;
  }
  struct sigaction sa = {.sa_handler = on_signal};
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  top_history h = {0};
  if (a.once) { /* the first read is the base of the rates the second shows */
    int ended = refresh(pid, dir, trace, &a, &h, 1) != 0;
    if (ended) /* nothing to wait for: the totals since the trace began */
      top_history_free(&h);
    else
      poll(NULL, 0, (int)(a.interval_ns / 1000000));
    if (!interrupted)
      ended = refresh(pid, dir, trace, &a, &h, 0) != 0;
    top_history_free(&h);
    if (ended)
      printf("inclprof top: pid %ld has ended; its trace: %s\n", pid, trace);
    return IP_EXIT_OK;
  }
  a.screen = isatty(1);
  struct termios old, raw;
  int tty = a.screen && tcgetattr(0, &old) == 0;
  if (tty) {
    raw = old;
    raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    tcsetattr(0, TCSANOW, &raw);
  }
  if (a.screen)
    printf("\033[?1049h\033[?25l"); /* the alternate screen, no cursor */
  int ended = 0;
  for (int n = 0; !interrupted; n++) {
    if (!a.screen && n)
      putchar('\n');
    if (refresh(pid, dir, trace, &a, &h, 0) != 0) {
      ended = 1;
      break;
    }
    if (wait_key(a.interval_ns))
      break;
  }
  if (a.screen)
    printf("\033[?25h\033[?1049l");
  fflush(stdout);
  if (tty)
    tcsetattr(0, TCSANOW, &old);
  top_history_free(&h);
  if (ended)
    printf("inclprof top: pid %ld has ended; its trace: %s\n", pid, trace);
  return IP_EXIT_OK;
}
