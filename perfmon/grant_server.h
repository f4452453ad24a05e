/* grant_server.h - the server of the grant socket (grant_server.c; the
 * contract: include/inclprof/perf_grant.h), run by `sudo inclprof record
 * --user NAME` and by inclprof-perfmon. */
#ifndef INCLPROF_GRANT_SERVER_H
#define INCLPROF_GRANT_SERVER_H

#include <stddef.h>
#include <sys/types.h>

#include "grant_check.h"
#include "perf_grant.h"

/* Milliseconds the server's hold on the tracepoint outlives it (see
 * grant_server_end). */
#define GRANT_LINGER_MS 2000

struct grant_server {
  int listener;
  int keepers[2]; /* disabled events that keep the kevents events registered */
  int tracepoint_id;
  struct grant_policy policy;
  char name[IP_GRANT_NAME_MAX + 1]; /* the socket's abstract name, for IP_GRANT_ENV */
};

/* The id of the tracepoint raw_syscalls:sys_enter from tracefs, or -1 with
 * why (len bytes) naming what is missing. */
int grant_tracepoint_id(char *why, size_t len);

/* Opens the server of uid's processes that descend from this one: its hold
 * on the kevents events (which needs the permission to open them: root or
 * CAP_PERFMON) and its socket, under a fresh random name.  0, or -1 with why. */
int grant_server_open(struct grant_server *s, uid_t uid, int tracepoint_id, char *why, size_t len);

/* In the child forked to run the recording: closes the server's descriptors. */
void grant_server_child(struct grant_server *s);

/* Serves requests until the child `child` exits, reaping any other child
 * (the orphans of a subreaper); returns the child's wait status. */
int grant_server_serve(struct grant_server *s, pid_t child);

/* Closes the socket, and hands the hold on the events to a detached process
 * that keeps it GRANT_LINGER_MS, so that this process's exit does not wait
 * for the kernel to unregister the tracepoint (25-50 ms). */
void grant_server_end(struct grant_server *s);

/* The exit status of a command from the wait status of its process:
 * its own, or 128+N when signal N ended it. */
int grant_exit_status(int wait_status);

#endif
