/* model/critical_locks.c - the lock table of the critical path (see "Lock
 * table" in docs/converter.md): every sleep that began in a futex wait is a
 * wait on the synchronisation object of that futex word, found from the
 * call that slept (a mutex's word is its first, a condition variable's
 * sleeps wait on a word 40 or 44 bytes in up to glibc 2.40, 32 or 36 from
 * 2.41, the process's libc.so.6 telling which) and named by the data symbol
 * that holds it when it is a global or static object.  Per object: its
 * blocking waits and their time, the path's jumps through them, the time
 * the path spent on a waking thread (the holder) while a thread it woke
 * slept on the object, the call that waited most and the waker's call at
 * the wake-up that ended most of it. */
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/critical.h"
#include "model/profile.h"
#include "model/symbolize.h"
#include "util/util.h"

/* glibc's pthread_cond_t: its waiters sleep on __g_signals[0] or [1], 40 and
 * 44 bytes into the 8-byte-aligned object up to glibc 2.40; 2.41 dropped
 * __g_refs[2] before them, so 32 and 36 from then on (x86-64 and AArch64
 * alike). */
#define COND_SIGNALS_AT_2_40  40u
#define COND_SIGNALS_AT_2_41  32u
#define FUTEX_CMD_MASK        127u
#define FUTEX_WAIT_BITSET_CMD 9u

const char *ip_call_site_name(const ip_session *s, const ip_thread *th, uint32_t node, char *buf,
                              size_t n) {
  if (!node || node >= th->n_nodes) {
    snprintf(buf, n, "[no function]");
    return buf;
  }
  const ip_node *nd = &th->nodes[node];
  const char *f = s->funcs[nd->func].pretty;
  uint32_t up = nd->parent;
  if (up && up < th->n_nodes)
    snprintf(buf, n, "%s < %s", f, s->funcs[th->nodes[up].func].pretty);
  else
    snprintf(buf, n, "%s", f);
  return buf;
}

static int starts(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

unsigned ip_cond_signals_at(unsigned glibc_minor) {
  if (!glibc_minor)
    return 0;
  return glibc_minor <= 40 ? COND_SIGNALS_AT_2_40 : COND_SIGNALS_AT_2_41;
}

int ip_lock_object(const char *fn, uint64_t word, uint32_t op, unsigned cond_signals_at,
                   uint64_t *object) {
  *object = word;
  if (starts(fn, "pthread_mutex_") || starts(fn, "sem_") || starts(fn, "pthread_join") ||
      starts(fn, "pthread_timedjoin") || starts(fn, "pthread_clockjoin"))
    return IP_LOCK_KNOWN;
  if (starts(fn, "pthread_cond_") && strstr(fn, "wait")) {
    if ((op & FUTEX_CMD_MASK) == FUTEX_WAIT_BITSET_CMD) {
      if (!cond_signals_at)
        return IP_LOCK_WORD; /* a glibc of unknown version: its layout is not known */
      *object = (word & ~(uint64_t)7) - cond_signals_at;
      return IP_LOCK_KNOWN;
    }
    return IP_LOCK_KNOWN; /* the mutex, taken again after the wake-up */
  }
  return IP_LOCK_WORD;
}

/* A call site: the sleeper's (or waker's) call path, by thread and node,
 * and the time (or count) it had on this object. */
typedef struct site {
  uint32_t thread, node;
  uint32_t fn, caller; /* session function ids: sites of one name are one */
  uint64_t ns;
} site;

/* A sleep on the object, [from, to) in its process's ticks, that thread
 * (session index) ended. */
typedef struct window {
  uint32_t thread;
  uint64_t from, to;
} window;

typedef struct obj {
  ip_lock_row row;
  site *waiters, *holders;
  size_t n_waiters, cap_waiters, n_holders, cap_holders;
  window *windows;
  size_t n_windows, cap_windows;
} obj;

static int cmp_window(const void *a, const void *b) {
  const window *x = a, *y = b;
  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  return x->from < y->from ? -1 : x->from > y->from;
}

static void site_add(site **v, size_t *n, size_t *cap, const ip_thread *th, uint32_t thread,
                     uint32_t node, uint64_t ns) {
  uint32_t fn = node && node < th->n_nodes ? th->nodes[node].func : UINT32_MAX;
  uint32_t up = node && node < th->n_nodes ? th->nodes[node].parent : 0;
  uint32_t caller = up && up < th->n_nodes ? th->nodes[up].func : UINT32_MAX;
  for (size_t i = 0; i < *n; i++)
    if ((*v)[i].fn == fn && (*v)[i].caller == caller) {
      (*v)[i].ns += ns;
      return;
    }
  ip_must_grow((void **)v, cap, *n + 1, sizeof **v);
  (*v)[(*n)++] = (site){thread, node, fn, caller, ns};
}

/* The site with the most time, and how many there are. */
static void top_site(const site *v, size_t n, uint32_t *thread, uint32_t *node, uint32_t *count) {
  size_t best = 0;
  for (size_t i = 1; i < n; i++)
    if (v[i].ns > v[best].ns)
      best = i;
  *thread = n ? v[best].thread : IP_NO_THREAD;
  *node = n ? v[best].node : 0;
  *count = (uint32_t)n;
}

static obj *obj_for(obj **v, size_t *n, size_t *cap, ip_u64map *by, uint32_t process,
                    uint64_t object, uint64_t word, int how) {
  uint64_t key = object * 0x9e3779b97f4a7c15ull ^ process;
  uint32_t at = ip_u64map_get(by, key);
  if (at != UINT32_MAX) { /* that key's object, or (seldom) another's: then searched */
    if ((*v)[at].row.process == process && (*v)[at].row.object == object)
      return &(*v)[at];
    for (size_t i = 0; i < *n; i++)
      if ((*v)[i].row.process == process && (*v)[i].row.object == object)
        return &(*v)[i];
  }
  ip_must_grow((void **)v, cap, *n + 1, sizeof **v);
  obj *o = &(*v)[*n];
  memset(o, 0, sizeof *o);
  o->row.process = process;
  o->row.object = object;
  o->row.word = word;
  o->row.how = how;
  o->row.exit_thread = IP_NO_THREAD;
  ip_u64map_put(by, key, (uint32_t)(*n)++);
  return o;
}

/* Whether a module is inclprof's runtime library (libinclprof.so, preloaded
 * or linked; the static libinclprof.a's locks are the executable's symbols):
 * its locks are the recorder's, not the program's. */
static int runtime_module(const char *path) {
  const char *base = strrchr(path, '/');
  return !strncmp(base ? base + 1 : path, "libinclprof.", strlen("libinclprof."));
}

/* The data symbol of the process's modules that holds addr: "name" or
 * "name+0xN" into buf, followed by " (inclprof's runtime)" in the runtime's
 * own module; 0 when none does (heap, stack). */
static int data_symbol(const ip_session *s, const ip_process *p, ip_symbolizer *z, uint64_t addr,
                       char *buf, size_t len) {
  for (size_t m = 0; m < p->n_mods; m++) {
    const ip_proc_module *pm = &p->mods[m];
    if (!pm->load_address)
      continue;
    ip_sym_module sm = {s->modules[pm->module].path, pm->load_address, pm->has_stat, pm->mtime_ns,
                        pm->size};
    uint64_t v;
    Dwfl_Module *mod = ip_symbolize_dwfl(z, &sm, addr, &v);
    if (!mod)
      continue;
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *name = dwfl_module_addrinfo(mod, v, &off, &sym, NULL, NULL, NULL);
    if (!name || !*name || GELF_ST_TYPE(sym.st_info) != STT_OBJECT || (off && off >= sym.st_size))
      continue;
    const char *own = runtime_module(sm.path) ? " (inclprof's runtime)" : "";
    if (off)
      snprintf(buf, len, "%s+0x%llx%s", name, (unsigned long long)off, own);
    else
      snprintf(buf, len, "%s%s", name, own);
    return 1;
  }
  return 0;
}

/* The newest GLIBC_2.N symbol version that the ELF file defines: N, or 0. */
static unsigned newest_glibc_version(Elf *elf) {
  unsigned newest = 0;
  for (Elf_Scn *scn = elf ? elf_nextscn(elf, NULL) : NULL; scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    Elf_Data *d =
        gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_verdef ? elf_getdata(scn, NULL) : NULL;
    for (size_t off = 0, i = 0; d && i < sh.sh_info; i++) {
      GElf_Verdef vd;
      GElf_Verdaux va;
      if (!gelf_getverdef(d, (int)off, &vd) || !gelf_getverdaux(d, (int)(off + vd.vd_aux), &va))
        break;
      const char *name = elf_strptr(elf, sh.sh_link, va.vda_name);
      unsigned minor;
      if (name && sscanf(name, "GLIBC_2.%u", &minor) == 1 && minor > newest)
        newest = minor;
      if (!vd.vd_next)
        break;
      off += vd.vd_next;
    }
  }
  return newest;
}

/* The minor version of the glibc that process p ran with (41 for 2.41): the
 * newest GLIBC_2.N version its libc.so.6 defines; 0 when not known (no such
 * module, as in a static program, or its file missing or changed since
 * recording). */
static unsigned glibc_minor(const ip_session *s, const ip_process *p, ip_symbolizer *z) {
  for (size_t m = 0; m < p->n_mods; m++) {
    const ip_proc_module *pm = &p->mods[m];
    const char *path = s->modules[pm->module].path, *base = strrchr(path, '/');
    if (!pm->load_address || strcmp(base ? base + 1 : path, "libc.so.6"))
      continue;
    ip_sym_module sm = {path, pm->load_address, pm->has_stat, pm->mtime_ns, pm->size};
    Dwfl_Module *mod = ip_symbolize_module(z, &sm);
    Dwarf_Addr bias;
    return mod ? newest_glibc_version(dwfl_module_getelf(mod, &bias)) : 0;
  }
  return 0;
}

static int cmp_crit(const void *a, const void *b) {
  const ip_lock_row *x = a, *y = b;
  if (x->crit_ns != y->crit_ns)
    return x->crit_ns > y->crit_ns ? -1 : 1;
  if (x->waited_ns != y->waited_ns)
    return x->waited_ns > y->waited_ns ? -1 : 1;
  return x->object < y->object ? -1 : x->object > y->object;
}

/* The path's time on each waking thread while one of the sleeps it ended
 * lasted (overlapping sleeps counted once), ns. */
static uint64_t held_on_path(const ip_session *s, const ip_critical *c, window *w, size_t n) {
  if (!n)
    return 0;
  qsort(w, n, sizeof *w, cmp_window);
  double ns = 0;
  for (size_t i = 0; i < n;) {
    uint32_t t = w[i].thread;
    size_t pieces = t < c->n_threads ? c->thread_n[t] : 0, k = 0;
    uint64_t on = 0;
    while (i < n && w[i].thread == t) {
      uint64_t from = w[i].from, to = w[i].to;
      for (i++; i < n && w[i].thread == t && w[i].from <= to; i++)
        to = w[i].to > to ? w[i].to : to; /* overlapping sleeps: one stretch */
      while (k < pieces && ip_critical_piece(c, t, k)->to <= from)
        k++; /* the thread's pieces are oldest first and do not overlap */
      for (size_t q = k; q < pieces; q++) {
        const ip_cp_piece *p = ip_critical_piece(c, t, q);
        if (p->from >= to)
          break;
        uint64_t a = p->from > from ? p->from : from, z = p->to < to ? p->to : to;
        on += z > a ? z - a : 0;
      }
    }
    ns += (double)on * ip_critical_tick_ns(s, t);
  }
  return (uint64_t)ns;
}

/* The objects found so far, as the sleeps and jumps add to them, and each
 * process's condition variable layout (ip_cond_signals_at; UINT_MAX: not
 * looked up yet). */
typedef struct tally {
  const ip_session *s;
  ip_symbolizer *z;
  unsigned *cond_at;
  obj *v;
  size_t n, cap;
  ip_u64map by;
} tally;

/* The object of thread's sleep o, added if new; NULL when it was no futex wait. */
static obj *obj_of(tally *t, uint32_t thread, const ip_offcpu *o) {
  if (!o->blocked || !o->futex)
    return NULL;
  const ip_session *s = t->s;
  const ip_thread *th = &s->threads[thread];
  const char *fn =
      o->out_node && o->out_node < th->n_nodes ? s->funcs[th->nodes[o->out_node].func].pretty : "";
  unsigned *at = &t->cond_at[th->process];
  if (*at == UINT_MAX)
    *at = ip_cond_signals_at(glibc_minor(s, &s->processes[th->process], t->z));
  uint64_t object;
  int how = ip_lock_object(fn ? fn : "", o->futex, o->futex_op, *at, &object);
  return obj_for(&t->v, &t->n, &t->cap, &t->by, th->process, object, o->futex, how);
}

/* A sleep: its object's waits, waiter and the waker's window and call. */
static void on_sleep(void *ctx, uint32_t i, const ip_offcpu *o, uint32_t w) {
  tally *t = ctx;
  const ip_session *s = t->s;
  obj *b = obj_of(t, i, o);
  if (!b)
    return;
  uint64_t slept = (uint64_t)((double)(o->in - o->out) * ip_critical_tick_ns(s, i));
  b->row.waits++;
  b->row.waited_ns += slept;
  site_add(&b->waiters, &b->n_waiters, &b->cap_waiters, &s->threads[i], i, o->out_node, slept);
  if (w == IP_NO_THREAD)
    return;
  ip_must_grow((void **)&b->windows, &b->cap_windows, b->n_windows + 1, sizeof *b->windows);
  b->windows[b->n_windows++] = (window){w, o->out, o->wake > o->out ? o->wake : o->out};
  if (o->exit_edge)
    b->row.exit_thread = w;
  else
    site_add(&b->holders, &b->n_holders, &b->cap_holders, &s->threads[w], w, o->wake_node, slept);
}

/* A jump of the path through a sleep: its object's count of them. */
static void on_jump(void *ctx, const ip_cp_piece *p, const ip_offcpu *o) {
  tally *t = ctx;
  obj *b = obj_of(t, p->woke, o);
  if (b)
    b->row.jumps++;
}

size_t ip_critical_locks(const ip_session *s, const ip_critical *c, ip_lock_row **out) {
  ip_symbolizer *z = ip_symbolizer_new();
  tally t = {.s = s,
             .z = z,
             .cond_at = ip_must_calloc(s->n_processes ? s->n_processes : 1, sizeof *t.cond_at)};
  for (size_t p = 0; p < s->n_processes; p++)
    t.cond_at[p] = UINT_MAX;
  ip_critical_each_sleep(s, c, on_sleep, &t);
  /* The path's jumps: the piece that begins where the path left a sleeper
   * for its waker. */
  ip_critical_each_jump(c, on_jump, &t);
  ip_u64map_free(&t.by);
  free(t.cond_at);
  obj *v = t.v;
  size_t n = t.n;
  ip_lock_row *rows = ip_must_calloc(n ? n : 1, sizeof *rows);
  for (size_t i = 0; i < n; i++) {
    ip_lock_row *r = &v[i].row;
    top_site(v[i].waiters, v[i].n_waiters, &r->waiter_thread, &r->waiter_node, &r->n_waiter_sites);
    top_site(v[i].holders, v[i].n_holders, &r->holder_thread, &r->holder_node, &r->n_holder_sites);
    data_symbol(s, &s->processes[r->process], z, r->object, r->name, sizeof r->name);
    r->crit_ns = held_on_path(s, c, v[i].windows, v[i].n_windows);
    free(v[i].windows);
    rows[i] = *r;
    free(v[i].waiters);
    free(v[i].holders);
  }
  ip_symbolizer_free(z);
  free(v);
  qsort(rows, n, sizeof *rows, cmp_crit);
  *out = rows;
  return n;
}
