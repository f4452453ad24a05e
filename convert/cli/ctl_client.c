/* cli/ctl_client.c - finds a running process's trace directory and sends
 * one command to the control socket its runtime bound there (a unix
 * seqpacket socket, <pid>.ctl), waiting for the one-line answer.  The
 * directory is the one of the socket the process holds (its descriptors and
 * /proc/net/unix), else INCLPROF_OUTPUT of its environment: a server that
 * writes its title over its environment (redis, nginx) keeps the first.  Every
 * failure becomes one line naming the cause: not running, another user's
 * process, no runtime listening, no answer in time.  A socket whose process
 * is gone (killed with SIGKILL, so its runtime could not remove it) is
 * removed by whoever finds it: ctl, top and record. */
#include "cli/ctl_client.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <dirent.h>

#include "cli/cli_args.h"
#include "ctl_protocol.h"
#include "settings_names.h"

#define SO_ACCEPTCON_FLAG 0x10000 /* /proc/net/unix's flag of a listening socket */

static unsigned owner_of(pid_t pid) {
  char p[64];
  struct stat st;
  snprintf(p, sizeof p, "/proc/%d", (int)pid);
  return stat(p, &st) == 0 ? (unsigned)st.st_uid : 0;
}

static int not_running(pid_t pid, char *err, size_t errlen) {
  if (kill(pid, 0) != 0 && errno == ESRCH) {
    snprintf(err, errlen, "pid %d is not running", (int)pid);
    return 1;
  }
  return 0;
}

/* INCLPROF_OUTPUT from pid's environment into out ("" when not set). */
static int env_output(pid_t pid, char *out, size_t len, char *err, size_t errlen) {
  char p[64];
  snprintf(p, sizeof p, "/proc/%d/environ", (int)pid);
  FILE *f = fopen(p, "r");
  if (!f) {
    int e = errno;
    unsigned owner = owner_of(pid);
    if ((e == EACCES || e == EPERM) && owner != (unsigned)geteuid())
      snprintf(err, errlen, "pid %d belongs to another user (uid %u); run as that user or root",
               (int)pid, owner);
    else if (e == EACCES || e == EPERM)
      snprintf(err, errlen,
               "pid %d: permission denied reading its environment though it runs as this user "
               "(its /proc entries need it dumpable, or CAP_SYS_PTRACE); give its trace "
               "directory with -o DIR",
               (int)pid);
    else
      snprintf(err, errlen, "pid %d is not running", (int)pid);
    return -1;
  }
  out[0] = 0;
  char *var = NULL;
  size_t cap = 0;
  while (getdelim(&var, &cap, 0, f) > 0)
    if (!strncmp(var, IP_ENV_OUTPUT "=", sizeof IP_ENV_OUTPUT) && var[sizeof IP_ENV_OUTPUT]) {
      snprintf(out, len, "%s", var + sizeof IP_ENV_OUTPUT);
      break;
    }
  free(var);
  fclose(f);
  return 0;
}

/* Whether pid holds the socket whose inode is ino. */
static int holds_socket(pid_t pid, unsigned long ino) {
  char p[64], want[48], link[64];
  snprintf(p, sizeof p, "/proc/%d/fd", (int)pid);
  snprintf(want, sizeof want, "socket:[%lu]", ino);
  DIR *d = opendir(p);
  if (!d)
    return 0;
  int found = 0;
  for (const struct dirent *e; !found && (e = readdir(d));) {
    char fd[352];
    snprintf(fd, sizeof fd, "%s/%s", p, e->d_name);
    ssize_t n = readlink(fd, link, sizeof link - 1);
    if (n > 0) {
      link[n] = 0;
      found = !strcmp(link, want);
    }
  }
  closedir(d);
  return found;
}

/* The directory of the <pid>.ctl socket that pid has bound (as
 * /proc/net/unix names it, seen from pid: relative to its cwd, or through
 * its own /proc/self), into out, and whether it listens already (a socket
 * is bound, then listens); 0 when there is none. */
static int bound_socket_dir(pid_t pid, char *out, size_t len, int *listening) {
  FILE *f = fopen("/proc/net/unix", "r");
  if (!f)
    return 0;
  char line[4400], suffix[32];
  int n_suffix = snprintf(suffix, sizeof suffix, "/%d" IP_CTL_SUFFIX, (int)pid), found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    unsigned long ino;
    unsigned flags;
    int path_at = 0;
    if (sscanf(line, "%*s %*s %*s %x %*s %*s %lu %n", &flags, &ino, &path_at) != 2 || !path_at)
      continue;
    char *path = line + path_at;
    path[strcspn(path, "\n")] = 0;
    size_t plen = strlen(path);
    if (plen <= (size_t)n_suffix || strcmp(path + plen - (size_t)n_suffix, suffix) ||
        !holds_socket(pid, ino))
      continue;
    path[plen - (size_t)n_suffix] = 0;
    if (!strncmp(path, "/proc/self/", 11))
      snprintf(out, len, "/proc/%d/%s", (int)pid, path + 11);
    else if (path[0] == '/')
      snprintf(out, len, "%s", path);
    else
      snprintf(out, len, "/proc/%d/cwd/%s", (int)pid, path);
    *listening = (flags & SO_ACCEPTCON_FLAG) != 0;
    found = 1;
  }
  fclose(f);
  return found;
}

int ip_ctl_listening(pid_t pid) {
  char dir[4096];
  int listening = 0;
  return bound_socket_dir(pid, dir, sizeof dir, &listening) && listening;
}

int ip_ctl_find_dir(pid_t pid, const char *dir, char *out, size_t len, char *err, size_t errlen) {
  if (not_running(pid, err, errlen)) {
    if (dir)
      ip_ctl_sweep(dir);
    return -1;
  }
  if (dir) {
    snprintf(out, len, "%s", dir);
    return 0;
  }
  int listening;
  if (bound_socket_dir(pid, out, len, &listening))
    return 0;
  char env[4096];
  if (env_output(pid, env, sizeof env, err, errlen) != 0)
    return -1;
  const char *d = env[0] ? env : IP_DEFAULT_INPUT;
  if (d[0] == '/')
    snprintf(out, len, "%s", d);
  else
    snprintf(out, len, "/proc/%d/cwd/%s", (int)pid, d);
  return 0;
}

/* The socket's address: its path, or one through /proc/self/fd when the
 * path does not fit in sun_path (then *dir_fd is the directory, opened). */
static int sock_addr(struct sockaddr_un *a, const char *path, const char *dir, pid_t pid,
                     int *dir_fd) {
  *dir_fd = -1;
  if (ip_ctl_address(a, path, -1, (int)pid) == 0)
    return 0;
  *dir_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  return ip_ctl_address(a, path, *dir_fd, (int)pid);
}

static int connect_to(pid_t pid, const char *dir, char *reply, size_t len) {
  char path[4200];
  ip_ctl_path(path, sizeof path, dir, (int)pid);
  struct sockaddr_un a;
  int dir_fd, fd = -1;
  if (sock_addr(&a, path, dir, pid, &dir_fd) == 0 &&
      (fd = socket(AF_UNIX, IP_CTL_SOCKET_TYPE | SOCK_CLOEXEC, 0)) >= 0 &&
      connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
    if (dir_fd >= 0)
      close(dir_fd);
    return fd;
  }
  int e = errno;
  if (fd >= 0)
    close(fd);
  if (dir_fd >= 0)
    close(dir_fd);
  if (not_running(pid, reply, len))
    return -1;
  unsigned owner = owner_of(pid);
  if ((e == EACCES || e == EPERM) && owner != (unsigned)geteuid())
    snprintf(reply, len,
             "%s: permission denied: pid %d belongs to uid %u; run as that user or root", path,
             (int)pid, owner);
  else if ((e == EACCES || e == EPERM) && !strncmp(path, "/proc/", 6))
    snprintf(reply, len,
             "%s: permission denied though pid %d runs as this user (its /proc entries need it "
             "dumpable, or CAP_SYS_PTRACE); give its trace directory with -o DIR",
             path, (int)pid);
  else if (e == ENOENT || e == ENOTDIR)
    snprintf(reply, len,
             "pid %d has no control socket %s: it does not run with the inclprof runtime, or "
             "writes its trace elsewhere (give -o DIR), or has INCLPROF_CTL=0, or defines its "
             "own malloc (then only INCLPROF_CTL=1 gives it one), or is a fork child less than "
             "5 ms old (it binds its socket then)",
             (int)pid, path);
  else if (e == ECONNREFUSED)
    snprintf(reply, len, "nothing answers on %s: the runtime of pid %d has ended its trace", path,
             (int)pid);
  else
    snprintf(reply, len, "cannot connect to %s: %s", path, strerror(e));
  return -1;
}

int ip_ctl_request(pid_t pid, const char *dir, const char *cmd, int timeout_ms, char *reply,
                   size_t len) {
  int fd = connect_to(pid, dir, reply, len);
  if (fd < 0)
    return -1;
  if (send(fd, cmd, strlen(cmd), MSG_NOSIGNAL) < 0 && errno != EPIPE) {
    snprintf(reply, len, "cannot send to pid %d: %s", (int)pid, strerror(errno));
    close(fd);
    return -1;
  }
  struct pollfd p = {.fd = fd, .events = POLLIN};
  int r;
  while ((r = poll(&p, 1, timeout_ms)) < 0 && errno == EINTR)
    ;
  ssize_t n = r > 0 ? recv(fd, reply, len - 1, 0) : -1;
  close(fd);
  if (n <= 0) {
    snprintf(reply, len, "pid %d did not answer within %d ms", (int)pid, timeout_ms);
    return -1;
  }
  reply[n] = 0;
  return 0;
}

/* A control socket that a process now gone left behind: no process has its
 * pid, and nothing listens on it (a process that has just bound its socket
 * and not yet listened is alive). */
static int stale(const char *dir, pid_t pid) {
  if (kill(pid, 0) == 0 || errno != ESRCH)
    return 0;
  char path[4200];
  snprintf(path, sizeof path, "%s/%d.ctl", dir, (int)pid);
  struct sockaddr_un a;
  int dir_fd, refused = 0;
  if (sock_addr(&a, path, dir, pid, &dir_fd) == 0) {
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    refused = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) != 0 && errno == ECONNREFUSED;
    if (fd >= 0)
      close(fd);
  }
  if (dir_fd >= 0)
    close(dir_fd);
  return refused;
}

int ip_ctl_sweep(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  int removed = 0;
  const struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    char *end;
    long pid = strtol(e->d_name, &end, 10);
    if (pid > 0 && pid <= INT32_MAX && end != e->d_name && !strcmp(end, ".ctl") &&
        stale(dir, (pid_t)pid) && unlinkat(dirfd(d), e->d_name, 0) == 0)
      removed++;
  }
  closedir(d);
  return removed;
}
