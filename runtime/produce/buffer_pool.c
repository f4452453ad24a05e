/* buffer_pool.c - the event buffers of threads, and a small pool of spare
 * ones.  Every buffer has the same geometry (IP_BUF_EVENTS slots, the
 * signal-handler headroom and a junk slot), is pre-faulted, and has every
 * slot empty (arg 0) while nobody records into it, so buffers move freely
 * between threads: a thread whose buffer is full hands it to the writer
 * thread (writer.c) and takes a spare from the pool with one atomic
 * exchange; the writer gives the buffer back once it is written (encoding
 * empties every slot it takes).  The pool holds at most
 * IP_POOL_SLOTS spares (IP_TIGHT_SPARES under a bound on the program's
 * memory, mem_limits.c); a buffer that finds no free slot is unmapped. */
#include <string.h>
#include <sys/mman.h>

#include "produce/produce.h"

static _Atomic(struct ip_event *) spare[IP_POOL_SLOTS];

size_t ip_buffer_bytes(void) { return (IP_BUF_EVENTS + IP_HEADROOM + 1) * sizeof(struct ip_event); }

/* A new zeroed buffer, its pages faulted in now: a page fault while
 * recording would mark an interval transitional because of the profiler.
 * Lazy (the own buffer of a thread beyond the first IP_EAGER_THREADS): its
 * pages come as it fills, a fault per 256 events, and a thread that makes
 * few calls takes a page, not 260 KB: 2 000 threads alive at once took
 * 555 MB more than the program's own. */
struct ip_event *ip_buffer_new(int lazy) {
  void *m = mmap(NULL, ip_buffer_bytes(), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return NULL;
  ip_mem_own(m, ip_buffer_bytes(), 1);
  if (!lazy)
    madvise(m, ip_buffer_bytes(), MADV_POPULATE_WRITE);
  return m;
}

void ip_buffer_free(struct ip_event *b) { munmap(b, ip_buffer_bytes()); }

/* Empties every slot of a buffer.  In a fork child the buffer's pages are
 * shared with the parent until written: writing zeros over them would copy
 * each page first, where dropping them and faulting in zero pages copies
 * nothing. */
void ip_buffer_clear(struct ip_event *b) {
  if (madvise(b, ip_buffer_bytes(), MADV_DONTNEED) != 0) {
    memset(b, 0, ip_buffer_bytes());
    return;
  }
  madvise(b, ip_buffer_bytes(), MADV_POPULATE_WRITE);
}

/* A fork child's buffer: a new mapping in place of the one inherited from
 * the parent, whose pages stay shared with the parent until written (they
 * cost the child no memory; dropping them costs the child's start as much
 * as faulting in new ones).  Only its first IP_CHILD_FAULTED_BYTES are
 * faulted in before the child's first line (a page takes this VM 1.3 us),
 * and the thread's end is set there: a child that reaches it flushes
 * (flush_inline faults the rest in, in the flush's Gap, when it keeps the
 * buffer; a buffer handed to the writer has it faulted in before it enters
 * the pool).  ip_buffer_child_settle faults in the rest and unmaps the
 * inherited one, off the fork's path (the control thread, 5 ms after the
 * fork), or at once when the child has no such thread.  Without memory for
 * a new one, the inherited one is emptied and kept. */
#define IP_CHILD_FAULTED_BYTES (32u * 1024)
static _Atomic(struct ip_event *) inherited, unfaulted;

struct ip_event *ip_buffer_renew_in_child(struct ip_event *old, size_t *faulted) {
  ip_buffer_child_settle(); /* an earlier fork's, should this child be a child's */
  *faulted = IP_BUF_EVENTS;
  void *m = mmap(NULL, ip_buffer_bytes(), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) {
    ip_buffer_clear(old);
    return old;
  }
  madvise(m, IP_CHILD_FAULTED_BYTES, MADV_POPULATE_WRITE);
  atomic_store(&inherited, old);
  atomic_store(&unfaulted, (struct ip_event *)m);
  *faulted = IP_CHILD_FAULTED_BYTES / sizeof(struct ip_event);
  return m;
}

void ip_buffer_child_fault_rest(struct ip_event *b) {
  struct ip_event *expected = b;
  if (atomic_load_explicit(&unfaulted, memory_order_relaxed) == b &&
      atomic_compare_exchange_strong(&unfaulted, &expected, NULL))
    madvise((char *)b + IP_CHILD_FAULTED_BYTES, ip_buffer_bytes() - IP_CHILD_FAULTED_BYTES,
            MADV_POPULATE_WRITE);
}

void ip_buffer_child_settle(void) {
  struct ip_event *b = atomic_load(&unfaulted);
  if (b)
    ip_buffer_child_fault_rest(b);
  struct ip_event *old = atomic_exchange(&inherited, NULL);
  if (old)
    ip_buffer_free(old);
}

int ip_pool_tight(void) {
  static atomic_int said;
  int t = ip_mem_tight();
  if (t && !atomic_exchange(&said, 1))
    ip_say("inclprof: the program's memory is bounded (%s): the runtime keeps %u spare buffer%s "
           "instead of up to %u, and the program's threads write more of their buffers "
           "themselves\n",
           t == 1 ? "an address-space limit, ulimit -v" : "mlockall locks every new mapping",
           IP_TIGHT_SPARES, IP_TIGHT_SPARES == 1 ? "" : "s", IP_POOL_SLOTS);
  return t;
}

/* A spare buffer, or NULL when the pool is empty.  The first slot that
 * looks full is taken with one exchange (it may have been taken meanwhile:
 * then the next one). */
struct ip_event *ip_pool_take(void) {
  for (unsigned i = 0; i < IP_POOL_SLOTS; i++)
    if (atomic_load_explicit(&spare[i], memory_order_relaxed)) {
      struct ip_event *b = atomic_exchange(&spare[i], NULL);
      if (b)
        return b;
    }
  return NULL;
}

/* Gives back a buffer whose slots are empty: into a free slot, or unmapped
 * (also when the program's memory is bounded and the pool holds
 * IP_TIGHT_SPARES). */
void ip_pool_put(struct ip_event *b) {
  ip_buffer_child_fault_rest(b); /* pre-faulted, as every spare is */
  if (ip_pool_tight() && ip_pool_spares() >= IP_TIGHT_SPARES) {
    ip_buffer_free(b);
    return;
  }
  if (atomic_load(&ip_st.n_threads) >= IP_EAGER_THREADS) /* perhaps a lazy thread's */
    madvise(b, ip_buffer_bytes(), MADV_POPULATE_WRITE);
  for (unsigned i = 0; i < IP_POOL_SLOTS; i++) {
    struct ip_event *none = NULL;
    if (atomic_compare_exchange_strong(&spare[i], &none, b))
      return;
  }
  ip_buffer_free(b);
}

unsigned ip_pool_spares(void) {
  unsigned n = 0;
  for (unsigned i = 0; i < IP_POOL_SLOTS; i++)
    n += atomic_load_explicit(&spare[i], memory_order_relaxed) != NULL;
  return n;
}
