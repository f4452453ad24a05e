/* cli/record_hold.h - keeping the kernel's registration of the kevents
 * tracepoint while `record` runs (record_hold.c). */
#ifndef INCLPROF_RECORD_HOLD_H
#define INCLPROF_RECORD_HOLD_H

/* Milliseconds the holder stays after the last record using it has ended. */
#define RECORD_HOLD_LINGER_MS 2000

/* When the program will use kevents (mode, INCLPROF_TRANSITIONS, is
 * "kevents", or auto on a machine without a kernel-mode instruction
 * counter), joins this user's holder, starting one if none runs: a process,
 * detached from this one, that keeps a disabled perf event open on the
 * tracepoint raw_syscalls:sys_enter and one on page faults for as long as a
 * joined record runs and RECORD_HOLD_LINGER_MS after.  Returns the
 * connection (close-on-exec) to keep open for the run, or -1 when there is
 * none (the program then registers the tracepoint itself, as it does
 * outside `record`). */
int record_hold_join(const char *mode);

/* The holder's name: its argv[0] when this command is run again as the
 * holder, and its thread name. */
#define RECORD_HOLD_NAME "inclprof-hold"

/* The holder run again from record (argv[0] RECORD_HOLD_NAME, its start-up
 * pipe on descriptor 3): holds, then exits; 2 when descriptor 3 is not a
 * pipe (not started by record). */
int record_hold_main(void);

#endif
