/* cli/record_user.h - `sudo inclprof record --user NAME`: the program runs
 * as NAME, its kernel events opened by this root process (record_user.c). */
#ifndef INCLPROF_RECORD_USER_H
#define INCLPROF_RECORD_USER_H

#include <limits.h>
#include <sys/types.h>

struct record_user {
  uid_t uid;
  gid_t gid;
  char name[64];
  char home[PATH_MAX];
  char shell[PATH_MAX];
};

/* The user called spec (a name, or a uid), from the password database into
 * u: 0, or -1 with a message on stderr. */
int record_user_lookup(const char *spec, struct record_user *u);

/* As root: starts the grant server for u's processes of this recording
 * (unless mode is "none") and forks.  The child becomes u - groups, uids,
 * HOME, USER, LOGNAME, SHELL, as sudo -u sets them - with the server named
 * in IP_GRANT_ENV, and returns 0 to go on recording as u; this process
 * serves until the child ends and exits with its status.  -1 (said on
 * stderr) when it cannot fork. */
int record_user_start(const struct record_user *u, const char *mode);

#endif
