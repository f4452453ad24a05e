/* snapshots.c - writes the snapshots of slow calls whose windows have
 * ended: the windows from snapshot_watch.c, the ring's files as they are
 * from trace_write.c, each window written by snapshot_write.c.  The control
 * thread calls it once a window's margin has passed, after writing every
 * thread's buffered events; the end of the trace calls it for every window
 * still waiting.  One writer at a time; a fork child, whose copy of the
 * lock may be held by the parent's control thread, makes it anew. */
#include "entry/entry.h"

static pthread_mutex_t save_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;

void ip_snapshots_save(int all) {
  if (!ip_snapshots_on() || !ip_lock(&save_lock, 0))
    return;
  if (!all && atomic_load(&ip_st.init_state) != 1) { /* the trace has ended: so have its windows */
    ip_unlock(&save_lock);
    return;
  }
  /* The files first: a window taken is no longer waiting, and a rotation
   * keeps aside only the segment of a window waiting. */
  struct ip_snapshot_source src;
  if (ip_trace_snapshot_source(&src) == 0) {
    struct ip_snapshot_want w[IP_SNAPSHOTS_WANTED];
    unsigned n = ip_snapshots_take(all, w, IP_SNAPSHOTS_WANTED);
    ip_snapshots_save_all(&src, w, n);
    ip_snapshot_source_free(&src);
    ip_trace_snapshot_release(all);
  }
  ip_unlock(&save_lock);
}

void ip_snapshots_fork_child(void) { ip_mutex_init(&save_lock); }
