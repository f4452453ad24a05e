/* cli/ctl_client.h - talking to a running process's runtime through its
 * control socket, INCLPROF_OUTPUT/<pid>.ctl (ctl_client.c): what `inclprof
 * ctl` and `inclprof top` send. */
#ifndef INCLPROF_CTL_CLIENT_H
#define INCLPROF_CTL_CLIENT_H

#include <stddef.h>
#include <sys/types.h>

/* The trace directory of pid: dir when given, else its INCLPROF_OUTPUT
 * (/proc/PID/environ; relative to /proc/PID/cwd), else its ./inclprof.data.
 * 0, or -1 with one line in err saying why (not running, another user's). */
int ip_ctl_find_dir(pid_t pid, const char *dir, char *out, size_t len, char *err, size_t errlen);

/* Whether pid listens on a <pid>.ctl socket of its own (/proc/net/unix:
 * bound, held by pid, listening); 0 when not or not known. */
int ip_ctl_listening(pid_t pid);

/* Sends cmd to pid's runtime in dir and waits up to timeout_ms for its
 * answer ("ok: ...", "refused: ...", "error: ...").  0 with the answer in
 * reply, or -1 with one line in reply saying why none came. */
int ip_ctl_request(pid_t pid, const char *dir, const char *cmd, int timeout_ms, char *reply,
                   size_t len);

/* Removes from dir the control sockets of processes that are gone (no
 * process has the pid, nothing listens); how many. */
int ip_ctl_sweep(const char *dir);

#endif
