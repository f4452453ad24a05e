/* cli/main.c - `inclprof COMMAND [ARGS]`: dispatches to the subcommands;
 * run as inclprof-hold (argv[0]), it is record's kevents holder
 * (cli/record_hold.c). */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/record_hold.h"
#include "version.h"

static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} commands[] = {
    {"record", cmd_record, "run a program and trace it into a directory"},
    {"info", cmd_info, "describe trace files: header, threads, events, damage"},
    {"report", cmd_report, "print the data values per function/module/thread/process"},
    {"export", cmd_export,
     "write csv, pprof, chrome, callgrind, folded, html, speedscope or perfetto files"},
    {"suggest", cmd_suggest, "write a filter file that removes the costliest probes"},
    {"diff", cmd_diff, "compare two builds' runs: changes beyond run-to-run noise"},
    {"ctl", cmd_ctl, "switch a running process's recording on/off, mark, flush"},
    {"top", cmd_top, "a running process's hottest functions, refreshed live"},
};

static void usage(FILE *out) {
  fprintf(out, "usage: inclprof COMMAND [OPTIONS] [ARGS]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
  fprintf(out, "\n'inclprof COMMAND --help' (or 'inclprof help COMMAND') describes a command's "
               "options;\n'inclprof --version' prints the version.\n");
}

int main(int argc, char **argv) {
  if (argc > 0 && !strcmp(argv[0], RECORD_HOLD_NAME))
    return record_hold_main();
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (!strcmp(argv[1], "help") && argc > 2) {
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
      if (!strcmp(argv[2], commands[i].name)) {
        char *help[] = {argv[2], "--help", NULL};
        return commands[i].run(2, help);
      }
    fprintf(stderr, "inclprof: unknown command '%s' (try 'inclprof --help')\n", argv[2]);
    return 2;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("inclprof %s\n", INCLPROF_VERSION);
    return 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(argv[1], commands[i].name))
      return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "inclprof: unknown command '%s' (try 'inclprof --help')\n", argv[1]);
  return 2;
}
