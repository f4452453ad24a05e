/* cli/cli_args.c - the command-line convention of the converter's commands
 * (see cli/cli_args.h): table-driven getopt_long, generated usage text, one
 * error format, numbers and inputs. */
#include "cli/cli_args.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util/util.h"

#define HELP_ID 'h'

int ip_cli_fail(ip_cli_msg *m, const char *fmt, ...) {
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  snprintf(m->text, sizeof m->text, "inclprof %s: %s; try 'inclprof %s --help'", m->cli->name, what,
           m->cli->name);
  return IP_CLI_ERROR;
}

static int has_short(const ip_cli_opt *o) { return o->id < 128 && isalpha(o->id); }

/* getopt_long's tables from cli's: "+:" (operands end the options for
 * record) or ":" (a missing value is reported as such), then the short forms. */
static struct option *long_options(const ip_cli *cli, char *shorts) {
  struct option *lo = ip_must_realloc(NULL, cli->n_opts + 2, sizeof *lo);
  size_t n = 0;
  if (cli->stop_at_operand)
    shorts[n++] = '+';
  shorts[n++] = ':';
  for (size_t i = 0; i < cli->n_opts; i++) {
    const ip_cli_opt *o = &cli->opts[i];
    lo[i] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL, o->id};
    if (has_short(o)) {
      shorts[n++] = (char)o->id;
      if (o->arg)
        shorts[n++] = ':';
    }
  }
  lo[cli->n_opts] = (struct option){"help", no_argument, NULL, HELP_ID};
  lo[cli->n_opts + 1] = (struct option){NULL, 0, NULL, 0};
  shorts[n++] = HELP_ID;
  shorts[n] = 0;
  return lo;
}

/* The option getopt stopped at, as the user wrote it. */
static const char *offending(char **argv, char letter[3]) {
  const char *a = argv[optind - 1];
  if (optopt && a[0] == '-' && a[1] != '-') {
    letter[0] = '-';
    letter[1] = (char)optopt;
    letter[2] = 0;
    return letter;
  }
  return a;
}

int ip_cli_parse(const ip_cli *cli, int argc, char **argv, ip_cli_handler on_opt, void *ctx,
                 int *first, ip_cli_msg *m) {
  char *shorts = ip_must_realloc(NULL, 3 * cli->n_opts + 4, 1);
  struct option *lo = long_options(cli, shorts);
  m->cli = cli;
  m->text[0] = 0;
  optind = 0; /* GNU: full re-initialisation, so parsing can run more than once */
  opterr = 0;
  int c, rc = IP_CLI_OK;
  char letter[3];
  while (rc == IP_CLI_OK && (c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
    if (c == HELP_ID)
      rc = IP_CLI_HELP;
    else if (c == ':')
      rc = ip_cli_fail(m, "option '%s' needs a value", offending(argv, letter));
    else if (c == '?')
      rc = ip_cli_fail(m, "unknown option '%s'", offending(argv, letter));
    else
      rc = on_opt(ctx, c, optarg, m) ? IP_CLI_ERROR : IP_CLI_OK;
  }
  *first = optind;
  free(lo);
  free(shorts);
  return rc;
}

int ip_cli_parse_or_exit(const ip_cli *cli, int argc, char **argv, ip_cli_handler on_opt, void *ctx,
                         int *first) {
  ip_cli_msg m;
  switch (ip_cli_parse(cli, argc, argv, on_opt, ctx, first, &m)) {
  case IP_CLI_HELP:
    ip_cli_usage(cli, stdout);
    return IP_EXIT_OK;
  case IP_CLI_ERROR:
    fprintf(stderr, "%s\n", m.text);
    return IP_EXIT_USAGE;
  default:
    return -1;
  }
}

/* "  -o, --output DIR" or "      --raw" (every command has -h, so a long-only
 * option is indented past the short forms). */
static int option_column(const ip_cli_opt *o, char *buf, size_t len) {
  char shortform[8] = "    ";
  if (has_short(o))
    snprintf(shortform, sizeof shortform, "-%c, ", o->id);
  return snprintf(buf, len, "  %s--%s%s%s", shortform, o->name, o->arg ? " " : "",
                  o->arg ? o->arg : "");
}

static void print_help(FILE *out, const char *col, int width, const char *help) {
  fprintf(out, "%-*s", width, col);
  for (const char *p = help; *p; p++) {
    fputc(*p, out);
    if (*p == '\n')
      fprintf(out, "%*s", width, "");
  }
  fputc('\n', out);
}

void ip_cli_usage(const ip_cli *cli, FILE *out) {
  static const ip_cli_opt help = {"help", HELP_ID, NULL, "this text"};
  int width = 0;
  char col[96];
  for (size_t i = 0; i <= cli->n_opts; i++) {
    int w = option_column(i < cli->n_opts ? &cli->opts[i] : &help, col, sizeof col);
    width = w + 2 > width ? w + 2 : width;
  }
  fprintf(out, "usage: inclprof %s %s\n%s\n\n", cli->name, cli->synopsis, cli->intro);
  for (size_t i = 0; i <= cli->n_opts; i++) {
    const ip_cli_opt *o = i < cli->n_opts ? &cli->opts[i] : &help;
    option_column(o, col, sizeof col);
    print_help(out, col, width, o->help);
  }
  if (cli->epilog)
    fprintf(out, "\n%s\n", cli->epilog);
}

int ip_cli_selection_opt(ip_selection *sel, int id, const char *arg, ip_cli_msg *m) {
  uint64_t n;
  if (id != IP_CLI_THREAD && id != IP_CLI_PROCESS)
    return 1;
  int thread = id == IP_CLI_THREAD;
  if (ip_parse_u64(arg, UINT32_MAX, &n))
    return ip_cli_fail(m, "bad --%s '%s' (a %s id)", thread ? "thread" : "process", arg,
                       thread ? "thread" : "process");
  if (thread) {
    sel->has_tid = 1;
    sel->tid = (uint32_t)n;
  } else {
    sel->has_pid = 1;
    sel->pid = (uint32_t)n;
  }
  return 0;
}

int ip_cli_jobs_opt(unsigned *jobs, const char *arg, ip_cli_msg *m) {
  uint64_t n;
  if (ip_parse_u64(arg, 256, &n) || !n)
    return ip_cli_fail(m, "bad --jobs '%s' (a number of cores, 1 to 256)", arg);
  *jobs = (unsigned)n;
  return 0;
}

unsigned ip_cli_default_jobs(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 256 ? 256 : (unsigned)n;
}

size_t ip_cli_terminal_width(void) {
  const char *env = getenv("COLUMNS");
  uint64_t cols;
  if (env && *env && !ip_parse_u64(env, 10000, &cols) && cols >= 40)
    return (size_t)cols;
  /* the output's terminal, or, when the output goes through a pipe or into
     a file, the terminal of the messages (inclprof report | less) */
  int fds[] = {STDOUT_FILENO, STDERR_FILENO};
  for (size_t i = 0; i < sizeof fds / sizeof *fds; i++) {
    struct winsize ws;
    if (isatty(fds[i]) && ioctl(fds[i], TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
      return ws.ws_col;
  }
  return 0;
}

int ip_parse_u64(const char *s, uint64_t max, uint64_t *out) {
  if (!s || !isdigit((unsigned char)*s))
    return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end || v > max)
    return -1;
  *out = v;
  return 0;
}

void ip_cli_inputs(int argc, char **argv, int first, char ***inputs, size_t *n_inputs) {
  static char *default_inputs[] = {IP_DEFAULT_INPUT};
  if (first < argc) {
    *inputs = argv + first;
    *n_inputs = (size_t)(argc - first);
  } else {
    *inputs = default_inputs;
    *n_inputs = 1;
  }
}

int ip_load_inputs(ip_session *s, int argc, char **argv, int first, const ip_load_opts *o) {
  char **inputs;
  size_t n;
  ip_cli_inputs(argc, argv, first, &inputs, &n);
  return ip_session_load(s, inputs, n, o);
}

int ip_load_inputs_critical(ip_session *s, int argc, char **argv, int first, const ip_load_opts *o,
                            ip_critical *c) {
  char **inputs;
  size_t n;
  ip_cli_inputs(argc, argv, first, &inputs, &n);
  return ip_session_load_critical(s, inputs, n, o, c);
}

int ip_exit_status(const ip_session *s) { return s->n_damaged ? IP_EXIT_DAMAGED : IP_EXIT_OK; }
