/* cli/record_dir.h - the trace directory of one `inclprof record` run
 * (record_dir.c). */
#ifndef INCLPROF_RECORD_DIR_H
#define INCLPROF_RECORD_DIR_H

/* Moves the trace files already in dir to dir.old (replacing the traces
 * there), saying so in one line; -1 after a one-line message when they
 * cannot be moved (the run must not mix with them). */
int record_dir_set_aside(const char *dir);

#define RECORD_TALLY_PIDS 64
struct record_tally {
  int files;   /* trace files in the directory */
  int running; /* processes of the run still running (the program's descendants) */
  long running_pids[RECORD_TALLY_PIDS];
};

/* Counts dir's trace files (each is called with every one) and the
 * processes of the run still running. */
struct record_tally record_dir_tally(const char *dir,
                                     void (*each)(const char *dir, const char *name));

/* How many snapshots of slow calls dir/snapshots/ holds (record --snapshot-if). */
int record_dir_snapshots(const char *dir);

#endif
