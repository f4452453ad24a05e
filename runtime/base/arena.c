/* arena.c - the runtime's own memory: every allocation of the runtime comes
 * from here, never from malloc, which the program may define itself (a
 * counting allocator, a pool, a test harness) and which would then see calls
 * it never made.  Blocks of 32 bytes to 64 KB come from size classes (powers
 * of two) carved from 1 MB chunks mapped with mmap, and go back to a free
 * list of their class; larger blocks are mappings of their own, unmapped
 * when freed, their pages made with the mapping (MAP_POPULATE): the runtime
 * writes such a block whole (a map's table, hashed into anywhere; an array,
 * a sort's buffers), and one system call makes its pages for a fraction of
 * a page fault's cost each (the maps and tables of a program of 60 000
 * table entries took 7 000 faults, 40 % of its recorded process's time on
 * this VM); a larger one grows by mremap, its pages kept.  Lock-free (a compare-and-swap per take or give back, the free
 * lists' heads carrying a tag against reuse), so safe from a signal
 * handler, and no chunk is ever unmapped: a block read after it went back
 * to its list still reads mapped memory.  Every block comes zeroed. */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/base.h"

#define MIN_SHIFT   5u  /* the smallest class: 32 bytes, its header included */
#define MAX_SHIFT   16u /* the largest: 64 KB; larger blocks are mappings */
#define N_CLASSES   (MAX_SHIFT - MIN_SHIFT + 1u)
#define CHUNK_BYTES (1u << 20)
#define KEEP_BYTES  (1u << MAX_SHIFT) /* what a losing chunk keeps */
#define HEADER      16u               /* before each block: its class, or its mapping's length */
#define PTR_BITS    48u               /* user-space addresses fit; the tag takes the rest */
#define PTR_MASK    ((1ull << PTR_BITS) - 1u)

struct head {
  uint64_t size; /* class index, or the mapping's bytes (> N_CLASSES) */
  uint64_t next; /* while free: the next free block of the class */
};

static _Atomic uint64_t free_list[N_CLASSES]; /* tag << 48 | block */
/* The next free byte of the chunk being carved; chunks are aligned to their
 * size, so an aligned cursor means no chunk (or a used-up one). */
static _Atomic uintptr_t cursor;

static unsigned class_of(size_t total) {
  unsigned c = 0;
  while (((size_t)1 << (MIN_SHIFT + c)) < total)
    c++;
  return c;
}

static void *map(size_t bytes, int populate) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0), -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  ip_mem_own(p, bytes, populate);
  return p;
}

static uint8_t *map_chunk(void) {
  uint8_t *p = map(2 * CHUNK_BYTES, 0);
  if (!p)
    return NULL;
  uint8_t *at = (uint8_t *)(((uintptr_t)p + CHUNK_BYTES - 1) & ~(uintptr_t)(CHUNK_BYTES - 1));
  if (at > p)
    munmap(p, (size_t)(at - p));
  munmap(at + CHUNK_BYTES, (size_t)(p + 2 * CHUNK_BYTES - (at + CHUNK_BYTES)));
  return at;
}

/* A fresh block of the class from the current chunk, or a new chunk. */
static struct head *carve(unsigned c) {
  size_t bytes = (size_t)1 << (MIN_SHIFT + c);
  for (;;) {
    uintptr_t at = atomic_load(&cursor);
    if (at & (CHUNK_BYTES - 1)) {
      uintptr_t end = (at & ~(uintptr_t)(CHUNK_BYTES - 1)) + CHUNK_BYTES;
      if (at + bytes <= end) {
        if (atomic_compare_exchange_weak(&cursor, &at, at + bytes))
          return (struct head *)at;
        continue;
      }
    }
    uint8_t *fresh = map_chunk();
    if (!fresh)
      return NULL;
    /* Whoever installs a chunk first wins; the other keeps its own
     * chunk's first block and gives the rest up. */
    if (!atomic_compare_exchange_strong(&cursor, &at, (uintptr_t)fresh + bytes))
      munmap(fresh + KEEP_BYTES, CHUNK_BYTES - KEEP_BYTES); /* whole pages of any size */
    return (struct head *)fresh;
  }
}

static struct head *take(unsigned c) {
  uint64_t top = atomic_load(&free_list[c]);
  for (;;) {
    struct head *h = (struct head *)(uintptr_t)(top & PTR_MASK);
    if (!h)
      return carve(c);
    uint64_t next = ((top >> PTR_BITS) + 1) << PTR_BITS | (h->next & PTR_MASK);
    if (atomic_compare_exchange_weak(&free_list[c], &top, next))
      return h;
  }
}

static void give_back(struct head *h, unsigned c) {
  uint64_t top = atomic_load(&free_list[c]);
  do {
    h->next = top & PTR_MASK;
  } while (!atomic_compare_exchange_weak(&free_list[c], &top,
                                         ((top >> PTR_BITS) + 1) << PTR_BITS | (uintptr_t)h));
}

void *ip_alloc(size_t n) {
  if (n > SIZE_MAX / 2)
    return NULL;
  size_t total = n + HEADER;
  struct head *h;
  if (total > ((size_t)1 << MAX_SHIFT)) {
    if (!(h = map(total, 1)))
      return NULL;
    h->size = total; /* fresh mapping: zero */
    return (uint8_t *)h + HEADER;
  }
  unsigned c = class_of(total);
  if (!(h = take(c)))
    return NULL;
  h->size = c;
  memset((uint8_t *)h + HEADER, 0, ((size_t)1 << (MIN_SHIFT + c)) - HEADER);
  return (uint8_t *)h + HEADER;
}

static size_t usable(const struct head *h) {
  return (h->size < N_CLASSES ? (size_t)1 << (MIN_SHIFT + h->size) : h->size) - HEADER;
}

void ip_free(void *p) {
  if (!p)
    return;
  struct head *h = (struct head *)((uint8_t *)p - HEADER);
  if (h->size < N_CLASSES)
    give_back(h, (unsigned)h->size);
  else
    munmap(h, h->size);
}

/* A mapping of its own grown in place or moved by the kernel (mremap: no
 * copy, and only the new pages made, where a new mapping would make all of
 * them again), or NULL. */
static void *grow_mapping(struct head *h, size_t n) {
  size_t total = n + HEADER, page = (size_t)sysconf(_SC_PAGESIZE);
  size_t had = (h->size + page - 1) & ~(page - 1);
  void *m = mremap(h, h->size, total, MREMAP_MAYMOVE);
  if (m == MAP_FAILED)
    return NULL;
  if (total > had) /* else faulted in at first touch, as a fresh page is */
    madvise((uint8_t *)m + had, total - had, MADV_POPULATE_WRITE);
  ((struct head *)m)->size = total;
  return (uint8_t *)m + HEADER;
}

void *ip_realloc(void *p, size_t n) {
  if (!p)
    return ip_alloc(n);
  struct head *h = (struct head *)((uint8_t *)p - HEADER);
  size_t have = usable(h);
  if (n <= have)
    return p;
  void *q = h->size >= N_CLASSES && n <= SIZE_MAX / 2 ? grow_mapping(h, n) : NULL;
  if (q)
    return q;
  q = ip_alloc(n);
  if (!q)
    return NULL;
  memcpy(q, p, have);
  ip_free(p);
  return q;
}

char *ip_strndup(const char *s, size_t max) {
  size_t n = strnlen(s, max);
  char *d = ip_alloc(n + 1);
  if (d)
    memcpy(d, s, n); /* zeroed: terminated */
  return d;
}

char *ip_strdup(const char *s) { return ip_strndup(s, SIZE_MAX); }
