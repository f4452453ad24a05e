/* grant_check.h - what the grant server verifies before it opens kernel
 * events for a thread, and again after (grant_check.c). */
#ifndef INCLPROF_GRANT_CHECK_H
#define INCLPROF_GRANT_CHECK_H

#include <stddef.h>
#include <sys/types.h>

/* Whose threads a server may serve: those of processes running as uid that
 * descend from the process ancestor (the server itself). */
struct grant_policy {
  uid_t uid;
  pid_t ancestor;
};

/* The process and thread a request names, pinned while they are checked and
 * their events opened: a pidfd and a /proc directory for the process, and a
 * pidfd for the thread (or, on kernels before 6.9, which have no thread
 * pidfds, the thread's start time). */
struct grant_target {
  pid_t pid, tid;
  int pidfd, proc_fd, tid_pidfd;
  unsigned long long tid_start;
};

/* Checks the sender on the connected socket conn and the thread tid it names
 * against policy p, and pins them in t: an enum ip_grant_status, with why
 * (len bytes) saying what was refused.  t is to be closed with
 * grant_target_close whatever the result. */
int grant_check(const struct grant_policy *p, int conn, pid_t tid, struct grant_target *t,
                char *why, size_t len);

/* After the events are opened: the process and the thread are still the
 * ones checked, alive, and still the user's.  IP_GRANT_OK, else the refusal. */
int grant_recheck(const struct grant_policy *p, const struct grant_target *t, char *why,
                  size_t len);

void grant_target_close(struct grant_target *t);

/* The parent pid from the text of a /proc/PID/stat file ("PID (COMM) S PPID
 * ..."; COMM may hold spaces and parentheses), or -1. */
pid_t grant_stat_ppid(const char *stat);

/* Field 22 of a /proc/PID/stat text (the start time, in clock ticks after
 * boot), or 0. */
unsigned long long grant_stat_start(const char *stat);

/* The four ids of the line "Uid:" (or "Gid:", as key) of a /proc/PID/status
 * text into ids: 0, or -1 when the line is missing or short. */
int grant_status_ids(const char *status, const char *key, unsigned long ids[4]);

#endif
