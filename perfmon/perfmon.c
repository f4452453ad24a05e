/* perfmon.c - inclprof-perfmon [--] PROG [ARGS...]: runs PROG, and while it
 * runs serves the grant socket (grant_server.c) to PROG's descendants that
 * run as the user who started it: each of their threads gets its kevents
 * events, which that user may not open (kernel.perf_event_paranoid >= 2).
 * `inclprof record` runs itself through it when it is installed with its
 * capabilities and the user lacks the permission (docs/runtime.md,
 * "Recording a program that does not run as root").
 *
 * Installed with two capabilities, permitted and not effective
 * (setcap cap_perfmon,cap_dac_read_search=p): CAP_DAC_READ_SEARCH is raised
 * only to read the tracepoint's id (tracefs is root's) and this process's
 * own environment (see below), then dropped for good; CAP_PERFMON is raised
 * to open the events and is all the server keeps.  PROG runs with no
 * capability (dropped in the child before exec), as the user, with the
 * environment the helper was given: the loader removes LD_LIBRARY_PATH,
 * TMPDIR and the like from a capability-raising program's environment, so
 * it is read back from /proc/self/environ.  Without its capabilities (a
 * copy, a nosuid mount, no_new_privs) it says so on stderr and runs PROG
 * without serving; PROG's exit status is the helper's (128+N when signal N
 * ended it). */
#include "caps.h"
#include "grant_server.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <unistd.h>

extern char **environ;

static const char usage[] =
    "usage: inclprof-perfmon [--] PROG [ARGS...]\n"
    "Runs PROG and opens the kernel events (system calls, context switches, page faults)\n"
    "of the threads of its processes that run as your user, for the inclprof runtime.\n"
    "Installed with CAP_PERFMON and CAP_DAC_READ_SEARCH (permitted) by make install;\n"
    "'inclprof record' uses it by itself when you lack the permission.\n";

/* The environment this process was started with, from /proc/self/environ
 * (readable with CAP_DAC_READ_SEARCH: the process is not dumpable), without
 * any IP_GRANT_ENV entry and with room for one more; NULL when it cannot be
 * read. */
static char **original_environment(void) {
  int fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  for (ssize_t r = 1; buf && r > 0;) {
    if (n == cap) {
      char *more = realloc(buf, 2 * cap + 1);
      if (!more) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = more;
      cap *= 2;
    }
    r = read(fd, buf + n, cap - n);
    if (r < 0 && errno == EINTR)
      r = 1;
    else if (r > 0)
      n += (size_t)r;
    else if (r < 0) {
      free(buf);
      buf = NULL;
    }
  }
  close(fd);
  if (!buf)
    return NULL;
  buf[n] = 0;
  size_t count = 0;
  for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
    count++;
  char **env = calloc(count + 2, sizeof *env);
  if (!env)
    return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
    if (strncmp(buf + i, IP_GRANT_ENV "=", strlen(IP_GRANT_ENV "=")))
      env[k++] = buf + i;
  return env;
}

/* env with IP_GRANT_ENV=name added at its end (env has room for it). */
static void add_grant_name(char **env, const char *name) {
  size_t k = 0;
  while (env[k])
    k++;
  char *entry = malloc(strlen(IP_GRANT_ENV "=") + strlen(name) + 1);
  if (entry) {
    sprintf(entry, IP_GRANT_ENV "=%s", name);
    env[k] = entry;
    env[k + 1] = NULL;
  }
}

/* Replaces this process with argv, capabilities dropped; 127 if it cannot. */
static int run(char **argv, char **env) {
  caps_set(0, 0);
  execvpe(argv[0], argv, env);
  fprintf(stderr, "inclprof-perfmon: cannot run %s: %s\n", argv[0], strerror(errno));
  return 127;
}

int main(int argc, char **argv) {
  int first = 1;
  if (first < argc && !strcmp(argv[first], "--"))
    first++;
  else if (first < argc && (!strcmp(argv[first], "-h") || !strcmp(argv[first], "--help"))) {
    fputs(usage, stdout);
    return 0;
  }
  if (first >= argc || argv[first][0] == '-') {
    fputs(usage, stderr);
    return 2;
  }
  /* An ignored SIGCHLD would reap PROG before its status is read; PROG gets
   * the disposition this process was given. */
  struct sigaction dfl = {.sa_handler = SIG_DFL}, old_chld;
  sigaction(SIGCHLD, &dfl, &old_chld);
  uint64_t perm = caps_permitted();
  uint64_t dac = perm & CAP_BIT(CAP_DAC_READ_SEARCH), perfmon = perm & CAP_BIT(CAP_PERFMON);
  char why[300] = "cannot raise CAP_PERFMON";
  caps_set(perm, dac | perfmon);
  struct grant_server s;
  int serving = 0;
  if (!perfmon)
    snprintf(why, sizeof why, "it has no CAP_PERFMON");
  else {
    int tp = grant_tracepoint_id(why, sizeof why);
    serving = tp >= 0 && grant_server_open(&s, getuid(), tp, why, sizeof why) == 0;
  }
  char **env = original_environment();
  caps_set(perfmon, serving ? perfmon : 0); /* CAP_DAC_READ_SEARCH is gone for good */
  if (!env && getauxval(AT_SECURE))
    fprintf(stderr,
            "inclprof-perfmon: cannot read back this process's environment (it has no "
            "CAP_DAC_READ_SEARCH): %s runs without the loader's variables "
            "(LD_LIBRARY_PATH, TMPDIR...)\n",
            argv[first]);
  if (!env) {
    size_t k = 0;
    while (environ[k])
      k++;
    env = calloc(k + 2, sizeof *env);
    if (!env)
      return run(argv + first, environ);
    for (size_t i = 0, j = 0; i < k; i++)
      if (strncmp(environ[i], IP_GRANT_ENV "=", strlen(IP_GRANT_ENV "=")))
        env[j++] = environ[i];
  }
  /* Set even when empty: `record` then knows it ran through this helper. */
  add_grant_name(env, serving ? s.name : "");
  if (!serving) {
    char self[512] = "inclprof-perfmon";
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0)
      self[n] = 0;
    fprintf(stderr,
            "inclprof-perfmon: %s: no kernel events for %s (as root: setcap "
            "cap_perfmon,cap_dac_read_search=p %s)\n",
            why, argv[first], self);
    sigaction(SIGCHLD, &old_chld, NULL);
    return run(argv + first, env);
  }
  /* The recording's orphans stay its processes: they come back here. */
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
  sigaction(SIGINT, &ign, &old_int); /* the terminal's ^C and ^\ are for PROG */
  sigaction(SIGQUIT, &ign, &old_quit);
  pid_t child = fork();
  if (child < 0) {
    fprintf(stderr, "inclprof-perfmon: cannot fork: %s\n", strerror(errno));
    return 2;
  }
  if (child == 0) {
    grant_server_child(&s);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    sigaction(SIGCHLD, &old_chld, NULL);
    _exit(run(argv + first, env));
  }
  int status = grant_server_serve(&s, child);
  grant_server_end(&s);
  return grant_exit_status(status);
}
