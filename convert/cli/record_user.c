/* cli/record_user.c - `sudo inclprof record --user NAME -- PROG`: PROG runs
 * as NAME and still gets its kernel events.  This process, root, opens the
 * grant server (perfmon/grant_server.c) for NAME's processes that descend
 * from it, then forks: the child becomes NAME for good and runs the rest of
 * `record` (the trace directory, the program, the summary), so that no file
 * of the recording is written as root; this process only serves the
 * socket and exits with the child's status. */
#include "cli/record_user.h"

#include "grant_server.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int record_user_lookup(const char *spec, struct record_user *u) {
  const struct passwd *pw = getpwnam(spec);
  char *end;
  unsigned long id = strtoul(spec + (spec[0] == '#'), &end, 10);
  if (!pw && *spec && !*end)
    pw = getpwuid((uid_t)id);
  if (!pw) {
    fprintf(stderr, "inclprof record: --user %s: no such user in the password database\n", spec);
    return -1;
  }
  memset(u, 0, sizeof *u);
  u->uid = pw->pw_uid;
  u->gid = pw->pw_gid;
  snprintf(u->name, sizeof u->name, "%s", pw->pw_name);
  snprintf(u->home, sizeof u->home, "%s", pw->pw_dir ? pw->pw_dir : "/");
  snprintf(u->shell, sizeof u->shell, "%s",
           pw->pw_shell && *pw->pw_shell ? pw->pw_shell : "/bin/sh");
  return 0;
}

/* Becomes u for good (every uid and gid, u's groups) with the environment
 * sudo -u gives; exits when any step fails: the child never goes on as root. */
static void become(const struct record_user *u) {
  if (initgroups(u->name, u->gid) != 0 || setresgid(u->gid, u->gid, u->gid) != 0 ||
      setresuid(u->uid, u->uid, u->uid) != 0) {
    fprintf(stderr, "inclprof record: cannot become user %s: %s\n", u->name, strerror(errno));
    _exit(2);
  }
  if (u->uid != 0 && (setresuid(0, 0, 0) == 0 || geteuid() == 0)) {
    fprintf(stderr, "inclprof record: user %s could become root again; stopping\n", u->name);
    _exit(2);
  }
  char mail[128];
  snprintf(mail, sizeof mail, "/var/mail/%s", u->name);
  if (setenv("HOME", u->home, 1) || setenv("USER", u->name, 1) || setenv("LOGNAME", u->name, 1) ||
      setenv("SHELL", u->shell, 1) || (getenv("MAIL") && setenv("MAIL", mail, 1))) {
    fprintf(stderr, "inclprof record: cannot set the environment of user %s\n", u->name);
    _exit(2);
  }
}

int record_user_start(const struct record_user *u, const char *mode) {
  struct grant_server s;
  int serving = 0;
  if (!mode || strcmp(mode, "none")) {
    char why[300] = "";
    int tp = grant_tracepoint_id(why, sizeof why);
    serving = tp >= 0 && grant_server_open(&s, u->uid, tp, why, sizeof why) == 0;
    if (!serving)
      fprintf(stderr, "inclprof record: no kernel events for user %s's processes: %s\n", u->name,
              why);
  }
  struct sigaction ign = {.sa_handler = SIG_IGN}, dfl = {.sa_handler = SIG_DFL};
  struct sigaction old_int, old_quit, old_chld;
  sigaction(SIGINT, &ign, &old_int); /* the terminal's ^C and ^\ are for the program */
  sigaction(SIGQUIT, &ign, &old_quit);
  sigaction(SIGCHLD, &dfl, &old_chld);
  pid_t child = fork();
  if (child < 0) {
    fprintf(stderr, "inclprof record: cannot fork: %s\n", strerror(errno));
    return -1;
  }
  if (child == 0) {
    if (serving)
      grant_server_child(&s);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    sigaction(SIGCHLD, &old_chld, NULL);
    become(u);
    if (setenv(IP_GRANT_ENV, serving ? s.name : "", 1) != 0)
      _exit(2);
    return 0;
  }
  int status = 0;
  if (serving) {
    status = grant_server_serve(&s, child);
    grant_server_end(&s);
  } else
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
      ;
  exit(grant_exit_status(status));
}
