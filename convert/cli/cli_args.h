/* cli/cli_args.h - the command-line convention every `inclprof` command
 * follows: options described once in a table (getopt_long underneath, the
 * usage text generated from the same table), one error format
 * ("inclprof CMD: ...; try 'inclprof CMD --help'"), strict numbers, the
 * trace inputs (default inclprof.data) and the exit statuses. */
#ifndef INCLPROF_CLI_ARGS_H
#define INCLPROF_CLI_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/model.h"

#define IP_EXIT_OK      0
#define IP_EXIT_ERROR   1 /* nothing usable: unreadable, not a trace, ... */
#define IP_EXIT_USAGE   2
#define IP_EXIT_DAMAGED 3 /* output produced from the part before damage */

#define IP_DEFAULT_INPUT "inclprof.data"

/* One option of a command.  id is what the command's handler receives
 * (a letter for options with a short form, else a value >= 256). */
typedef struct ip_cli_opt {
  const char *name; /* long name, without "--" */
  int id;           /* short form when it is a printable letter */
  const char *arg;  /* the value's name in the help ("DIR"); NULL: a flag */
  const char *help; /* the help text; '\n' starts an indented continuation line */
} ip_cli_opt;

/* The options every command that loads traces shares, with their ids. */
enum { IP_CLI_THREAD = 200, IP_CLI_PROCESS, IP_CLI_RAW };
#define IP_CLI_SELECTION_OPTS                                                                      \
  {"thread", IP_CLI_THREAD, "TID", "only threads with this tid"}, {                                \
    "process", IP_CLI_PROCESS, "PID", "only this process"                                          \
  }
#define IP_CLI_RAW_OPT                                                                             \
  { "raw", IP_CLI_RAW, NULL, "keep probe cost and runtime gaps (no compensation)" }

/* --jobs N: how many cores replay the threads of a trace file. */
enum { IP_CLI_JOBS = 210 };
#define IP_CLI_JOBS_OPT                                                                            \
  {                                                                                                \
    "jobs", IP_CLI_JOBS, "N",                                                                      \
        "replay threads on N cores (default: the CPUs online; 1: one thread)"                      \
  }

/* A command: its name, its usage line after "inclprof NAME ", text before
 * and after the options, and the options (--help is always there). */
typedef struct ip_cli {
  const char *name;
  const char *synopsis;
  const char *intro;
  const char *epilog; /* may be NULL */
  const ip_cli_opt *opts;
  size_t n_opts;
  int stop_at_operand; /* options end at the first operand (record's program) */
} ip_cli;

/* A usage error: the whole line, "inclprof CMD: ...; try 'inclprof CMD --help'". */
typedef struct ip_cli_msg {
  const ip_cli *cli;
  char text[384];
} ip_cli_msg;

/* Fills m with one usage error line; returns -1 (for a handler to return). */
int ip_cli_fail(ip_cli_msg *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Called for each option in order: 0, or ip_cli_fail's -1. */
typedef int (*ip_cli_handler)(void *ctx, int id, const char *arg, ip_cli_msg *m);

enum { IP_CLI_OK = 0, IP_CLI_HELP = 1, IP_CLI_ERROR = -1 };

/* Parses argv[1..] (argv[0] is the command's name).  Returns IP_CLI_OK with
 * *first = the index of the first operand, IP_CLI_HELP (--help seen), or
 * IP_CLI_ERROR with the message in m. */
int ip_cli_parse(const ip_cli *cli, int argc, char **argv, ip_cli_handler on_opt, void *ctx,
                 int *first, ip_cli_msg *m);

/* ip_cli_parse, with the outcome printed: the help on stdout, an error on
 * stderr.  Returns -1 when the command goes on, else its exit status. */
int ip_cli_parse_or_exit(const ip_cli *cli, int argc, char **argv, ip_cli_handler on_opt, void *ctx,
                         int *first);

/* Prints the usage text generated from cli. */
void ip_cli_usage(const ip_cli *cli, FILE *out);

/* The options shared by every command that loads traces: --thread and
 * --process into sel.  1 when id is not one of them. */
int ip_cli_selection_opt(ip_selection *sel, int id, const char *arg, ip_cli_msg *m);

/* --jobs N into *jobs (1 to 256): 0, or ip_cli_fail's -1. */
int ip_cli_jobs_opt(unsigned *jobs, const char *arg, ip_cli_msg *m);
/* The default of --jobs: the CPUs online (1 if unknown). */
unsigned ip_cli_default_jobs(void);

/* The width a table's lines fit: $COLUMNS when set, else the width of the
 * terminal that standard output is, else that of standard error's (output
 * through a pager or grep still fits the terminal it is read on); 0 (whole
 * names) with no terminal and no $COLUMNS, so that scripts get whole names. */
size_t ip_cli_terminal_width(void);

/* Parses a whole decimal number that fits in max; -1 otherwise. */
int ip_parse_u64(const char *s, uint64_t max, uint64_t *out);

/* The trace inputs: argv[first..argc), or inclprof.data when there are none. */
void ip_cli_inputs(int argc, char **argv, int first, char ***inputs, size_t *n_inputs);

/* Loads the inputs argv[first..argc) (ip_cli_inputs).  Returns 0 or -1 (the
 * message is printed). */
int ip_load_inputs(ip_session *s, int argc, char **argv, int first, const ip_load_opts *o);

/* The same with the critical path (ip_session_load_critical). */
int ip_load_inputs_critical(ip_session *s, int argc, char **argv, int first, const ip_load_opts *o,
                            ip_critical *c);

/* The exit status after output from a loaded session: IP_EXIT_DAMAGED when
 * any file was read only up to damage. */
int ip_exit_status(const ip_session *s);

#endif
