/* perf_grant.h - the grant socket: how a recording process that may not open
 * kernel events itself (a normal user at kernel.perf_event_paranoid >= 2)
 * gets its threads' kevents events from a privileged server of its
 * recording (docs/runtime.md, "Recording a program that does not run as
 * root").  The server is `sudo inclprof record --user NAME` (root) or
 * `inclprof-perfmon` (file capabilities); it binds an abstract unix
 * seqpacket socket and names it to the recording in IP_GRANT_ENV.  The
 * runtime (runtime/produce/perf_grant.c) connects once per thread, sends one
 * request naming a thread of its own process and reads one reply, with the
 * events' descriptors attached (SCM_RIGHTS) when granted.  The server
 * (perfmon/grant_server.c, perfmon/grant_check.c) grants only when it has
 * verified, from the kernel and not from the request, that the sender runs
 * as the recording's user, descends from the server, and that the thread is
 * the sender's; anything it cannot verify is refused.
 *
 * Version 1.  Both ends run on one machine: the structures are in its byte
 * order, fixed in size; a request of another size, magic or version is
 * refused with IP_GRANT_BAD_REQUEST or IP_GRANT_BAD_VERSION (the reply then
 * still has this layout).  A later version adds kinds or fields after these,
 * with a new version number. */
#ifndef INCLPROF_PERF_GRANT_H
#define INCLPROF_PERF_GRANT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#define IP_GRANT_VERSION     1
#define IP_GRANT_MAGIC       0x49504752u /* "IPGR" */
#define IP_GRANT_SOCKET_TYPE SOCK_SEQPACKET
/* The environment variable naming the server's socket to the recording: its
 * abstract name (without the leading NUL byte), IP_GRANT_NAME_PREFIX then the
 * server's pid and 16 random hex digits. */
#define IP_GRANT_ENV         "INCLPROF_GRANT"
#define IP_GRANT_NAME_PREFIX "inclprof-grant-"
#define IP_GRANT_NAME_MAX    64
/* How long the runtime waits for a reply, and the server for a request. */
#define IP_GRANT_TIMEOUT_MS 2000

/* What is asked for.  IP_GRANT_KEVENTS: the thread's two kevents events, as
 * pmu_attr.h defines them (ip_pmu_kevents_ring, ip_pmu_kevents_faults), each
 * removed from the thread when it calls exec. */
enum { IP_GRANT_KEVENTS = 1 };

struct ip_grant_request {
  uint32_t magic;   /* IP_GRANT_MAGIC */
  uint16_t version; /* IP_GRANT_VERSION */
  uint16_t kind;    /* IP_GRANT_KEVENTS */
  int32_t tid;      /* a thread of the sender's own process */
  uint32_t zero;    /* 0 */
};

/* The answer.  IP_GRANT_OK comes with `fds` descriptors (2 for
 * IP_GRANT_KEVENTS: [0] the ring's event, system calls and context
 * switches; [1] page faults, to be redirected into the ring); every other
 * status with none, and `why` says, in one line, what was refused. */
enum ip_grant_status {
  IP_GRANT_OK = 0,
  IP_GRANT_BAD_REQUEST = 1,  /* not a request of this contract */
  IP_GRANT_BAD_VERSION = 2,  /* another version of this contract */
  IP_GRANT_NOT_USER = 3,     /* the sender is not the recording's user (uids, gids, dumpable) */
  IP_GRANT_OUTSIDE = 4,      /* the sender does not descend from the server */
  IP_GRANT_NOT_THREAD = 5,   /* tid is not a thread of the sender's process */
  IP_GRANT_VANISHED = 6,     /* the process or the thread ended or changed while checked */
  IP_GRANT_UNVERIFIABLE = 7, /* the kernel did not say enough to verify it */
  IP_GRANT_OPEN_FAILED = 8,  /* verified, but the kernel refused to open the events */
};

#define IP_GRANT_WHY_MAX 200
struct ip_grant_reply {
  uint32_t magic;             /* IP_GRANT_MAGIC */
  uint16_t version;           /* IP_GRANT_VERSION (the server's) */
  uint16_t status;            /* enum ip_grant_status */
  uint32_t fds;               /* descriptors attached */
  uint32_t zero;              /* 0 */
  char why[IP_GRANT_WHY_MAX]; /* NUL-terminated */
};

/* The abstract address of the socket called name; its length for bind and
 * connect, or 0 when name is empty or too long. */
static inline socklen_t ip_grant_address(struct sockaddr_un *a, const char *name) {
  size_t n = strlen(name);
  memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  if (!n || n > IP_GRANT_NAME_MAX || n + 1 > sizeof a->sun_path)
    return 0;
  memcpy(a->sun_path + 1, name, n);
  return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

#endif
