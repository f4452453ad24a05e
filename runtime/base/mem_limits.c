/* mem_limits.c - the program's bounds on memory, which the runtime's own
 * mappings count against: an address-space limit (RLIMIT_AS, `ulimit -v`)
 * and locked memory (after the program's mlockall(MCL_FUTURE) every new
 * mapping is locked and faulted in, the runtime's too, against
 * RLIMIT_MEMLOCK).  Under either the runtime is tight: it keeps at most
 * IP_TIGHT_SPARES spare buffers (buffer_pool.c, writer.c), which otherwise
 * grow to 16 (4 MB) and took that much from the program's own malloc
 * (buffer_pool.c says so once).  Under MCL_FUTURE it also unlocks each mapping of its
 * own as soon as it is made, giving back the locked memory (and the pages
 * of an area not yet used), so that the program's later mappings find the
 * room a plain run leaves them. */
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/base.h"

static atomic_int future_locked; /* the program's mlockall(MCL_FUTURE) is in force */
static atomic_int tight = -1;    /* -1: to be read again */

void ip_mem_limits_changed(void) { atomic_store(&tight, -1); }

void ip_mem_future_locked(int on) {
  atomic_store(&future_locked, on);
  atomic_store(&tight, -1);
}

void ip_mem_fork_child(void) { ip_mem_future_locked(0); /* locks are not inherited */ }

int ip_mem_tight(void) {
  int t = atomic_load(&tight);
  if (t >= 0)
    return t;
  struct rlimit as;
  t = (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) ? 1
      : atomic_load(&future_locked)                                    ? 2
                                                                       : 0;
  atomic_store(&tight, t);
  return t;
}

void ip_mem_own(void *p, size_t len, int used) {
  if (!p || !atomic_load(&future_locked))
    return;
  munlock(p, len);
  if (!used)
    madvise(p, len, MADV_DONTNEED);
}
