/* exit_state.c - what the process and its threads still alive look like
 * when it ends, written after the final flush and with the Trailer: each
 * thread's name as the kernel has it then (/proc/self/task/TID/comm: a name
 * a server thread gave itself after its last flush), a ThreadEnd at the
 * exit's tick marked alive_at_exit, so the converter closes the thread there
 * rather than at its last event, and the command line as ps shows it then
 * (a title written over argv since the Header). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sink/sink.h"

/* The kernel's name of thread tid (15 bytes at most); 0 when unreadable. */
static int task_comm(uint32_t tid, char out[17]) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%u/comm", (unsigned)tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  ssize_t n = read(fd, out, 16);
  ip_close(fd);
  if (n <= 0)
    return 0;
  if (out[n - 1] == '\n')
    n--;
  memset(out + n, 0, (size_t)(17 - n));
  return 1;
}

/* The kernel worked for t since its last event: its ring moved. */
static int moved_since_last_event(const struct ip_rt_thread *t) {
  if (ip_st.mode == INCLPROF__TRANSITION_MODE__TRANSITIONS_PMU)
    return 1;
  return ip_st.mode == INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS && *t->tr_src != t->tr_last;
}

void ip_exit_state(int in_signal, int keep_going) {
  if (!ip_lock(&ip_st.threads_lock, in_signal))
    return;
  uint64_t now = ip_tick_cold();
  for (struct ip_rt_thread *t = ip_st.threads; t; t = t->next) {
    if (t == &ip_tls || t->state != IP_TS_READY || t->ended_at_exit)
      continue;
    char comm[17];
    if (task_comm(t->tid, comm) && memcmp(comm, t->name, sizeof comm) != 0) {
      memcpy(t->name, comm, sizeof comm);
      ip_write_thread(t->tid, comm, now);
    }
    if (keep_going)
      continue;
    t->ended_at_exit = 1;
    Inclprof__ThreadEnd te = INCLPROF__THREAD_END__INIT;
    te.tid = t->tid;
    te.has_end_tick = te.has_alive_at_exit = te.has_transitional = 1;
    te.end_tick = now;
    te.alive_at_exit = 1;
    te.transitional = moved_since_last_event(t);
    Inclprof__Record rec = INCLPROF__RECORD__INIT;
    rec.body_case = INCLPROF__RECORD__BODY_THREAD_END;
    rec.thread_end = &te;
    ip_write_record(&rec, 0);
  }
  ip_unlock(&ip_st.threads_lock);
}

size_t ip_exit_argv(char *buf, size_t len, char **argv, size_t max) {
  /* thread-self: the main thread may have ended (pthread_exit) before the
   * process, and /proc/self with it. */
  int fd = open("/proc/thread-self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  size_t n = 0;
  for (ssize_t r; n < len - 1 && (r = read(fd, buf + n, len - 1 - n)) > 0;)
    n += (size_t)r;
  ip_close(fd);
  buf[n] = 0;
  size_t argc = 0;
  for (size_t i = 0; i < n && argc < max; i += strlen(buf + i) + 1)
    argv[argc++] = buf + i;
  return argc;
}
