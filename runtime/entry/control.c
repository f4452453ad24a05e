/* control.c - the public calls of inclprof.h: pause/resume (a PAUSE or
 * RESUME event of the calling thread, and the process-wide switch of
 * windows.c: paused, a probe tests a null hook and skips its call), marks
 * and thread names.  Each starts the runtime if no unit has yet. */
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "inclprof.h"
#include "entry/entry.h"

static uint64_t control(unsigned kind, uint64_t payload) {
  return ((payload << 3 | kind) << 3) | IP_K_CONTROL;
}

IP_EXPORT void inclprof_stop(void) {
  if (!ip_init_once() || ip_process_is_child())
    return;
  ip_append_private(control(INCLPROF__EVENT_KIND__EV_PAUSE, 0));
  ip_recording_set(0, "inclprof_stop()");
}

IP_EXPORT void inclprof_start(void) {
  if (!ip_init_once() || ip_process_is_child())
    return;
  ip_recording_set(1, "inclprof_start()");
  ip_append_private(control(INCLPROF__EVENT_KIND__EV_RESUME, 0));
}

IP_EXPORT void inclprof_mark(const char *name) {
  if (!ip_init_once() || ip_process_is_child())
    return;
  uint32_t id = ip_mark_id(name);
  if (id)
    ip_append_private(control(INCLPROF__EVENT_KIND__EV_MARK, id));
}

/* A later Thread record for the same tid renames the thread. */
IP_EXPORT void inclprof_thread_name(const char *name) {
  if (!name || !ip_init_once() || ip_process_is_child())
    return;
  ip_syscall(SYS_prctl, PR_SET_NAME, name);
  if (ip_thread_ensure() != 0)
    return;
  char cut[64];
  strncpy(cut, name, sizeof cut - 1);
  cut[sizeof cut - 1] = 0;
  ip_write_thread(ip_tls.tid, cut, ip_tick_cold());
  /* What the kernel kept (15 bytes) is now known: a flush must not write it
   * back over the longer name. */
  memset(ip_tls.name, 0, sizeof ip_tls.name);
  ip_syscall(SYS_prctl, PR_GET_NAME, ip_tls.name);
}
