/* cli/commands.h - the subcommands of the `inclprof` command, one file each
 * (cmd_<name>.c).  Each takes the arguments after its name (argv[0] is the
 * command name) and returns the process exit status. */
#ifndef INCLPROF_COMMANDS_H
#define INCLPROF_COMMANDS_H

int cmd_record(int argc, char **argv);  /* run a program under the runtime */
int cmd_info(int argc, char **argv);    /* describe trace files */
int cmd_report(int argc, char **argv);  /* the data values as a table / tree */
int cmd_export(int argc, char **argv);  /* csv, pprof, chrome, callgrind, folded */
int cmd_suggest(int argc, char **argv); /* a filter file from the probe cost */
int cmd_diff(int argc, char **argv);    /* compare the runs of two builds */
int cmd_ctl(int argc, char **argv);     /* control a running process's recording */
int cmd_top(int argc, char **argv);     /* a running process's hottest functions, live */

#endif
