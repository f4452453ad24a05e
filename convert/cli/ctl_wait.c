/* cli/ctl_wait.c - waits for the control socket of a process too young to
 * have bound it: a fork child's runtime binds <pid>.ctl about 5 ms after
 * the fork (runtime/entry/ctl_channel.c).  A process without one that may be
 * recorded (its memory maps the inclprof runtime, or its parent has a
 * control socket: a program linked with libinclprof.a) is waited for until
 * IP_CTL_WAIT_AGE_MS after its start, as the kernel counts it (its start
 * time in /proc/PID/stat, in clock ticks: the wait ends one tick later);
 * one older than that without a socket is not recorded, or has its control
 * off.  A process that ends meanwhile (a zombie too) ends the wait.  The
 * caller polls: several young processes are waited for at once. */
#include "cli/ctl_wait.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/ctl_client.h"
#include "cli/proc_tree.h"
#include "ctl_protocol.h"

/* Whether pid's memory maps the inclprof runtime (libinclprof.so). */
static int maps_runtime(pid_t pid) {
  char path[64], line[4400];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE *f = fopen(path, "re");
  if (!f)
    return 0;
  int found = 0;
  while (!found && fgets(line, sizeof line, f))
    found = strstr(line, "/libinclprof.") != NULL;
  fclose(f);
  return found;
}

/* Whether pid has a <pid>.ctl socket file in its trace directory. */
static int has_socket_file(pid_t pid, const char *dir) {
  char path[4096], sock[4200], err[1500];
  struct stat st;
  if (ip_ctl_find_dir(pid, dir, path, sizeof path, err, sizeof err) != 0)
    return 0;
  ip_ctl_path(sock, sizeof sock, path, (int)pid);
  return stat(sock, &st) == 0 && S_ISSOCK(st.st_mode);
}

long long ip_ctl_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_BOOTTIME, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

enum ip_ctl_wait ip_ctl_socket_now(pid_t pid, const char *dir, int may_wait, long long *deadline) {
  struct ip_proc_stat st;
  if (ip_proc_stat(pid, &st) != 0 || st.state == 'Z' || st.state == 'X')
    return IP_CTL_WAIT_GONE;
  if (has_socket_file(pid, dir))
    return IP_CTL_WAIT_READY;
  long tick = sysconf(_SC_CLK_TCK);
  if (tick <= 0)
    tick = 100;
  *deadline = (long long)st.start_ticks * 1000 / tick + IP_CTL_WAIT_AGE_MS + 1000 / tick;
  if (!may_wait || ip_ctl_now_ms() >= *deadline ||
      !(maps_runtime(pid) || (st.ppid > 1 && has_socket_file(st.ppid, dir))))
    return IP_CTL_WAIT_NONE;
  return IP_CTL_WAIT_YOUNG;
}

enum ip_ctl_wait ip_ctl_socket_poll(pid_t pid, const char *dir, long long deadline) {
  if (ip_proc_ended(pid))
    return IP_CTL_WAIT_GONE;
  if (ip_ctl_listening(pid))
    return IP_CTL_WAIT_READY;
  if (ip_ctl_now_ms() < deadline)
    return IP_CTL_WAIT_YOUNG;
  return has_socket_file(pid, dir) ? IP_CTL_WAIT_READY : IP_CTL_WAIT_NEVER;
}
