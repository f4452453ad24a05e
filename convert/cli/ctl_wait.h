/* cli/ctl_wait.h - waiting for a young process's control socket
 * (ctl_wait.c): what `inclprof ctl` does for a fork child in its first
 * milliseconds. */
#ifndef INCLPROF_CTL_WAIT_H
#define INCLPROF_CTL_WAIT_H

#include <sys/types.h>

/* How long after its start a process that may be recorded is waited for. */
#define IP_CTL_WAIT_AGE_MS   50
#define IP_CTL_WAIT_AGE_TEXT "50" /* the same, for messages */
#define IP_CTL_WAIT_POLL_US  500  /* how often a young process's socket is looked for */

enum ip_ctl_wait {
  IP_CTL_WAIT_READY, /* it has its socket */
  IP_CTL_WAIT_YOUNG, /* none yet, but it may be recorded and is young: to be waited for */
  IP_CTL_WAIT_NONE,  /* no socket, not to be waited for: older, or not recorded */
  IP_CTL_WAIT_NEVER, /* it was waited for, but bound none in its first IP_CTL_WAIT_AGE_MS */
  IP_CTL_WAIT_GONE,  /* it has ended (a zombie too) */
};

/* Milliseconds of CLOCK_BOOTTIME, the clock of the deadlines. */
long long ip_ctl_now_ms(void);

/* Whether pid has a control socket in dir (NULL: its own trace directory)
 * now: READY, GONE, NONE, or (when may_wait) YOUNG with the end of its
 * wait in *deadline. */
enum ip_ctl_wait ip_ctl_socket_now(pid_t pid, const char *dir, int may_wait, long long *deadline);

/* A YOUNG process looked at again: READY once it listens, GONE, YOUNG
 * until deadline, then NEVER. */
enum ip_ctl_wait ip_ctl_socket_poll(pid_t pid, const char *dir, long long deadline);

#endif
