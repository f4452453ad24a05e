/* ctl_protocol.h - the control socket between a recording process and
 * `inclprof ctl` / `inclprof top` (docs/runtime.md, "Control from outside"): the
 * runtime (runtime/entry/ctl_channel.c) binds DIR/PID.ctl, a unix seqpacket
 * socket, in its trace directory; a client connects, sends one command and
 * reads one answer (convert/cli/ctl_client.c).  The commands and the
 * answers' first words are named here once. */
#ifndef INCLPROF_CTL_PROTOCOL_H
#define INCLPROF_CTL_PROTOCOL_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#define IP_CTL_SOCKET_TYPE SOCK_SEQPACKET
#define IP_CTL_SUFFIX      ".ctl" /* the socket is <pid>.ctl in the trace directory */
#define IP_CTL_COMMAND_MAX 512    /* bytes of a command, a mark's text included */

/* The commands, one per message, without a newline (one is ignored). */
#define IP_CTL_START    "start"  /* recording on for every thread */
#define IP_CTL_STOP     "stop"   /* recording off */
#define IP_CTL_MARK     "mark "  /* followed by the text: a mark on the control thread */
#define IP_CTL_FLUSH    "flush"  /* every thread's buffered events written now */
#define IP_CTL_STATUS   "status" /* answered "ok: recording on|off, trace PATH" */
#define IP_CTL_COMMANDS "start, stop, mark TEXT, flush, status" /* as messages list them */

/* The answer: one line that starts with one of these. */
#define IP_CTL_OK      "ok: "      /* done; what follows says what */
#define IP_CTL_ERROR   "error: "   /* not done: why */
#define IP_CTL_REFUSED "refused: " /* the sender may not control the process: why */

/* Writes dir/pid.ctl into out (len bytes); the length snprintf gives. */
static inline int ip_ctl_path(char *out, size_t len, const char *dir, int pid) {
  return snprintf(out, len, "%s/%d" IP_CTL_SUFFIX, dir, pid);
}

/* The address of the socket at path, pid's in the directory dir_fd (opened
 * O_PATH, or -1): path itself when it fits in sun_path, else the same file
 * through /proc/self/fd/DIR_FD.  0, or -1 when it does not fit and there is
 * no dir_fd. */
static inline int ip_ctl_address(struct sockaddr_un *a, const char *path, int dir_fd, int pid) {
  memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  if (strlen(path) < sizeof a->sun_path) {
    memcpy(a->sun_path, path, strlen(path) + 1);
    return 0;
  }
  if (dir_fd < 0)
    return -1;
  snprintf(a->sun_path, sizeof a->sun_path, "/proc/self/fd/%d/%d" IP_CTL_SUFFIX, dir_fd, pid);
  return 0;
}

#endif
