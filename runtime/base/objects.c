/* objects.c - the objects the loader has mapped (the program, its
 * libraries, those opened with dlopen), as the registry needs them: which
 * object holds an address (and its build-id, which names a shared function
 * table), and which object a call of a name binds to.
 * Both are answered from the objects themselves (dl_iterate_phdr, then each
 * object's own GNU or SysV symbol hash table), never with dladdr, whose
 * linear scan of the dynamic symbols cost a program linked with
 * -rdynamic seconds at exit, nor with dlsym, which allocates through the
 * program's malloc when a name is missing.  A name's lookup costs about as
 * much as the dynamic linker's own: one hash and a few probes per object.
 *
 * While the program runs, every answer comes from inside dl_iterate_phdr,
 * which keeps the objects it shows mapped until it returns.  A signal
 * handler cannot call it (it takes the loader's lock): it reads instead a
 * copy of the objects loaded with the program (the runtime's own load or
 * first use), which are never unloaded, made once when that is safe.
 *
 * A name binds as the dynamic linker binds it: to the first object loaded
 * with the program that defines it (the program, LD_PRELOAD libraries, then
 * the libraries in load order), else to the caller's own object (a library
 * opened RTLD_LOCAL), else to a library opened later, else to the caller's
 * object.  A definition that is one of the runtime's interposers (section
 * inclprof_interpose, entry/interpose.c) is passed over: the function the
 * program called is the next definition, libc's. */
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

/* The ELF types of this process's word size. */
#if UINTPTR_MAX > 0xffffffffu
typedef Elf64_Sym elf_sym;
typedef Elf64_Dyn elf_dyn;
typedef Elf64_Addr elf_addr;
typedef Elf64_Half elf_half;
typedef Elf64_Word elf_word;
#define ELF_ST_BIND ELF64_ST_BIND
#define ELF_ST_TYPE ELF64_ST_TYPE
#else
typedef Elf32_Sym elf_sym;
typedef Elf32_Dyn elf_dyn;
typedef Elf32_Addr elf_addr;
typedef Elf32_Half elf_half;
typedef Elf32_Word elf_word;
#define ELF_ST_BIND ELF32_ST_BIND
#define ELF_ST_TYPE ELF32_ST_TYPE
#endif

/* The runtime's interposers (the linker names the section's bounds; a
 * build without them has none). */
extern const char __start_inclprof_interpose[] __attribute__((weak)) IP_HIDDEN;
extern const char __stop_inclprof_interpose[] __attribute__((weak)) IP_HIDDEN;

static int is_interposer(uintptr_t a) {
  return a >= (uintptr_t)__start_inclprof_interpose && a < (uintptr_t)__stop_inclprof_interpose;
}

/* An object's dynamic symbols, as its dynamic section points at them. */
struct symbols {
  const elf_sym *sym;
  const char *str;
  const elf_half *ver;
  const uint32_t *gnu;
  const elf_word *sysv;
  uintptr_t bias;
};

/* An object as a walk sees it (name: the loader's, or a kept copy; phdr:
 * its program headers, mapped with it). */
struct view {
  uintptr_t lo, hi, base, bias;
  const char *name;
  int is_main;
  const ElfW(Phdr) * phdr;
  unsigned phnum;
};

/* One object as a copy keeps it (for signal handlers). */
struct kept {
  struct view o;
  struct symbols s;
};

static struct kept *kept;       /* the objects loaded with the program */
static _Atomic unsigned n_kept; /* set once, after kept is filled */
static atomic_int kept_taken;

/* ---- an object's extent and symbols ------------------------------------ */
static void describe(const struct dl_phdr_info *info, struct view *o) {
  uintptr_t lo = UINTPTR_MAX, hi = 0, page = (uintptr_t)getpagesize();
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD) {
      uintptr_t at = (uintptr_t)info->dlpi_addr + (uintptr_t)info->dlpi_phdr[i].p_vaddr;
      uintptr_t end = at + (uintptr_t)info->dlpi_phdr[i].p_memsz;
      lo = at < lo ? at : lo;
      hi = end > hi ? end : hi;
    }
  o->base = lo == UINTPTR_MAX ? 0 : lo & ~(page - 1);
  o->lo = o->base;
  o->hi = hi;
  o->bias = (uintptr_t)info->dlpi_addr;
  o->name = info->dlpi_name ? info->dlpi_name : "";
  o->phdr = info->dlpi_phdr;
  o->phnum = info->dlpi_phnum;
}

/* The GNU build-id among the notes [p, end) of one PT_NOTE segment, into
 * out; its length, 0 when none is there. */
static size_t note_build_id(const uint8_t *p, const uint8_t *end, uint8_t *out, size_t cap) {
  while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
    const ElfW(Nhdr) *n = (const void *)p;
    const uint8_t *name = p + sizeof *n;
    size_t name_room = (n->n_namesz + 3u) & ~(size_t)3, desc_room = (n->n_descsz + 3u) & ~(size_t)3;
    if (name_room + desc_room > (size_t)(end - name))
      return 0;
    const uint8_t *desc = name + name_room;
    if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
        n->n_descsz > 0 && n->n_descsz <= cap) {
      memcpy(out, desc, n->n_descsz);
      return n->n_descsz;
    }
    p = desc + desc_room;
  }
  return 0;
}

/* The object's build-id (the note the linker's --build-id wrote, which
 * names its contents), from its PT_NOTE segments in memory. */
static size_t build_id_of(const struct view *o, uint8_t *out, size_t cap) {
  size_t len = 0;
  for (unsigned i = 0; o->phdr && i < o->phnum && !len; i++)
    if (o->phdr[i].p_type == PT_NOTE) {
      const uint8_t *p = (const uint8_t *)(o->bias + (uintptr_t)o->phdr[i].p_vaddr);
      len = note_build_id(p, p + o->phdr[i].p_memsz, out, cap);
    }
  return len;
}

/* A copy the caller keeps after the walk (the loader's name is freed with
 * the object). */
static void copy_out(struct ip_object *to, const struct view *from) {
  to->lo = from->lo, to->hi = from->hi, to->base = from->base, to->is_main = from->is_main;
  size_t n = strnlen(from->name, sizeof to->name - 1);
  memcpy(to->name, from->name, n);
  to->name[n] = 0;
  to->build_id_len = build_id_of(from, to->build_id, sizeof to->build_id);
}

/* A dynamic-section pointer: glibc relocates them in place, other loaders
 * (and glibc on some targets) leave the link-time value. */
static const void *dyn_ptr(elf_addr v, const struct dl_phdr_info *info, const struct view *o) {
  uintptr_t p = (uintptr_t)v;
  if (p < (uintptr_t)info->dlpi_addr)
    p += (uintptr_t)info->dlpi_addr;
  return p >= o->lo && p < o->hi ? (const void *)p : NULL;
}

static void symbols_of(const struct dl_phdr_info *info, const struct view *o, struct symbols *s) {
  memset(s, 0, sizeof *s);
  s->bias = (uintptr_t)info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
      continue;
    const elf_dyn *d = (const elf_dyn *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    for (; d->d_tag != DT_NULL; d++)
      switch (d->d_tag) {
      case DT_SYMTAB:
        s->sym = dyn_ptr(d->d_un.d_ptr, info, o);
        break;
      case DT_STRTAB:
        s->str = dyn_ptr(d->d_un.d_ptr, info, o);
        break;
      case DT_VERSYM:
        s->ver = dyn_ptr(d->d_un.d_ptr, info, o);
        break;
      case DT_GNU_HASH:
        s->gnu = dyn_ptr(d->d_un.d_ptr, info, o);
        break;
      case DT_HASH:
        s->sysv = dyn_ptr(d->d_un.d_ptr, info, o);
        break;
      default:
        break;
      }
  }
  if (!s->sym || !s->str)
    s->gnu = NULL, s->sysv = NULL;
}

/* The address symbol ix defines for name, or 0: a definition (not an
 * undefined reference, not a local, not a non-default version). */
static uintptr_t defines(const struct symbols *s, uint32_t ix, const char *name) {
  const elf_sym *sym = &s->sym[ix];
  unsigned bind = ELF_ST_BIND(sym->st_info), type = ELF_ST_TYPE(sym->st_info);
  if (sym->st_shndx == SHN_UNDEF || !sym->st_value || bind == STB_LOCAL || type == STT_TLS ||
      type == STT_SECTION || type == STT_FILE || (s->ver && (s->ver[ix] & 0x8000)) ||
      strcmp(s->str + sym->st_name, name))
    return 0;
  return s->bias + (uintptr_t)sym->st_value;
}

static uint32_t gnu_hash(const char *name) {
  uint32_t h = 5381;
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    h = h * 33 + *p;
  return h;
}

static uint32_t sysv_hash(const char *name) {
  uint32_t h = 0;
  for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
    h = (h << 4) + *p;
    uint32_t g = h & 0xf0000000u;
    if (g)
      h ^= g >> 24;
    h &= ~g;
  }
  return h;
}

/* The address of the object's own definition of name, or 0: its interposer
 * definitions skipped.  h: gnu_hash(name). */
static uintptr_t lookup(const struct symbols *s, const char *name, uint32_t h) {
  uintptr_t at;
  if (s->gnu) {
    const uint32_t *t = s->gnu;
    uint32_t nbuckets = t[0], symoffset = t[1], bloom_size = t[2], shift = t[3];
    if (!nbuckets || !bloom_size)
      return 0;
    const elf_addr *bloom = (const elf_addr *)(t + 4);
    const uint32_t *buckets = (const uint32_t *)(bloom + bloom_size);
    const uint32_t *chain = buckets + nbuckets;
    const unsigned bits = sizeof(elf_addr) * 8;
    elf_addr word = bloom[(h / bits) % bloom_size];
    elf_addr mask = ((elf_addr)1 << (h % bits)) | ((elf_addr)1 << ((h >> shift) % bits));
    if ((word & mask) != mask)
      return 0;
    uint32_t ix = buckets[h % nbuckets];
    if (ix < symoffset)
      return 0;
    for (;; ix++) {
      uint32_t c = chain[ix - symoffset];
      if ((c | 1) == (h | 1) && (at = defines(s, ix, name)) && !is_interposer(at))
        return at;
      if (c & 1)
        return 0;
    }
  }
  if (s->sysv) {
    const elf_word *t = s->sysv;
    elf_word nbucket = t[0];
    if (!nbucket)
      return 0;
    const elf_word *bucket = t + 2, *chain = bucket + nbucket;
    for (elf_word ix = bucket[sysv_hash(name) % nbucket]; ix; ix = chain[ix])
      if ((at = defines(s, ix, name)) && !is_interposer(at))
        return at;
  }
  return 0;
}

/* ---- the objects loaded with the program, for signal handlers ----------- */
static int count_objects(struct dl_phdr_info *info, size_t size, void *data) {
  (void)info, (void)size;
  (*(unsigned *)data)++;
  return 0;
}

struct keep_walk {
  unsigned n, cap;
};

/* cppcheck-suppress constParameterCallback ; dl_iterate_phdr's callback type */
static int keep_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct keep_walk *w = data;
  if (w->n == w->cap)
    return 1;
  struct kept *k = &kept[w->n];
  describe(info, &k->o);
  symbols_of(info, &k->o, &k->s);
  const char *name = ip_strndup(k->o.name, IP_OBJECT_NAME - 1);
  k->o.name = name ? name : "";
  k->o.is_main = w->n == 0;
  w->n++;
  return 0;
}

void ip_objects_keep(void) {
  if (atomic_exchange(&kept_taken, 1))
    return;
  unsigned n = 0;
  dl_iterate_phdr(count_objects, &n);
  if (!n || !(kept = ip_alloc(n * sizeof *kept)))
    return;
  struct keep_walk w = {0, n};
  dl_iterate_phdr(keep_object, &w);
  atomic_store(&n_kept, w.n);
}

/* Is the object starting at base one of those loaded with the program? */
static int is_kept(uintptr_t base) {
  unsigned n = atomic_load(&n_kept);
  for (unsigned i = 0; i < n; i++)
    if (kept[i].o.base == base)
      return 1;
  return 0;
}

/* ---- names of code addresses ------------------------------------------- */
/* Per object, made once when a first address of it is named: its dynamic
 * symbols sorted by address (as dladdr would pick among aliases: the first
 * in the table), so that each later name is a binary search instead of
 * dladdr's scan of every symbol.  A table is looked up by the object's base,
 * extent and symbol table; the symbol it answers is checked against the
 * object before its name is read, so one for an object since unloaded never
 * names another.  Tables are never freed (a signal handler may read one). */
struct named {
  uintptr_t addr;
  uint32_t ix;
};
struct name_table {
  uintptr_t base, hi;
  const elf_sym *sym;
  struct named *e;
  uint32_t n;
  struct name_table *next;
};
static struct name_table *_Atomic name_tables;
static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;

/* Another thread may have been making a table at the fork: the child's lock
 * is made anew (a table is in the list only once it is complete). */
void ip_objects_fork_child(void) {
  pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
  tables_lock = fresh;
}

/* How many entries the dynamic symbol table has (its hash tables say). */
static uint32_t symbol_count(const struct symbols *s) {
  if (s->sysv)
    return s->sysv[1];
  if (!s->gnu)
    return 0;
  const uint32_t *t = s->gnu;
  uint32_t nbuckets = t[0], symoffset = t[1], bloom_size = t[2], last = 0;
  const uint32_t *buckets = (const uint32_t *)((const elf_addr *)(t + 4) + bloom_size);
  const uint32_t *chain = buckets + nbuckets;
  for (uint32_t i = 0; i < nbuckets; i++)
    last = buckets[i] > last ? buckets[i] : last;
  if (last < symoffset)
    return symoffset;
  while (!(chain[last - symoffset] & 1))
    last++;
  return last + 1;
}

/* A symbol dladdr would name an address by. */
static int nameable(const elf_sym *sym) {
  unsigned bind = ELF_ST_BIND(sym->st_info), type = ELF_ST_TYPE(sym->st_info);
  unsigned vis = sym->st_other & 3;
  return (bind == STB_GLOBAL || bind == STB_WEAK) && type != STT_TLS && type != STT_SECTION &&
         type != STT_FILE && sym->st_shndx != SHN_UNDEF && sym->st_shndx != SHN_ABS &&
         sym->st_value && vis != STV_HIDDEN && vis != STV_INTERNAL;
}

static int named_before(const struct named *a, const struct named *b) {
  return a->addr < b->addr || (a->addr == b->addr && a->ix < b->ix);
}

static void sift_down(struct named *e, size_t at, size_t n) {
  for (;;) {
    size_t big = at, l = 2 * at + 1, r = l + 1;
    if (l < n && named_before(&e[big], &e[l]))
      big = l;
    if (r < n && named_before(&e[big], &e[r]))
      big = r;
    if (big == at)
      return;
    struct named t = e[at];
    e[at] = e[big], e[big] = t;
    at = big;
  }
}

/* Heapsort: no allocation (qsort may call malloc). */
static void sort_named(struct named *e, size_t n) {
  for (size_t i = n / 2; i-- > 0;)
    sift_down(e, i, n);
  for (size_t end = n; end > 1; end--) {
    struct named t = e[0];
    e[0] = e[end - 1], e[end - 1] = t;
    sift_down(e, 0, end - 1);
  }
}

static struct name_table *find_table(const struct view *o, const struct symbols *s) {
  for (struct name_table *t = atomic_load(&name_tables); t; t = t->next)
    if (t->base == o->base && t->hi == o->hi && t->sym == s->sym)
      return t;
  return NULL;
}

/* Caller holds tables_lock, inside dl_iterate_phdr (o is mapped). */
static struct name_table *make_table(const struct view *o, const struct symbols *s) {
  uint32_t count = symbol_count(s);
  struct name_table *t = ip_alloc(sizeof *t);
  struct named *e = count ? ip_alloc(count * sizeof *e) : NULL;
  if (!t || (count && !e)) {
    ip_free(t);
    ip_free(e);
    return NULL;
  }
  uint32_t n = 0;
  for (uint32_t ix = 1; ix < count; ix++)
    if (nameable(&s->sym[ix]))
      e[n++] = (struct named){s->bias + (uintptr_t)s->sym[ix].st_value, ix};
  sort_named(e, n);
  uint32_t kept_n = 0;
  for (uint32_t i = 0; i < n; i++)
    if (!kept_n || e[kept_n - 1].addr != e[i].addr)
      e[kept_n++] = e[i];
  *t = (struct name_table){o->base, o->hi, s->sym, e, kept_n, atomic_load(&name_tables)};
  atomic_store(&name_tables, t);
  return t;
}

/* The name of the symbol at exactly addr in object o, into name; 0 when
 * none.  In a signal handler only a table already made is read. */
static int name_at(const struct view *o, const struct symbols *s, uintptr_t addr, char *name,
                   size_t len, int in_signal) {
  if (!s->sym || !s->str || !len)
    return 0;
  struct name_table *t = find_table(o, s);
  if (!t && !in_signal) {
    pthread_mutex_lock(&tables_lock);
    if (!(t = find_table(o, s)))
      t = make_table(o, s);
    pthread_mutex_unlock(&tables_lock);
  }
  if (!t)
    return 0;
  size_t lo = 0, hi = t->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->e[mid].addr < addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == t->n || t->e[lo].addr != addr)
    return 0;
  const elf_sym *sym = &s->sym[t->e[lo].ix];
  if (s->bias + (uintptr_t)sym->st_value != addr || !nameable(sym))
    return 0;
  snprintf(name, len, "%s", s->str + sym->st_name);
  return 1;
}

/* ---- lookups ---------------------------------------------------------- */
/* What one walk over the objects finds: the object holding addr and, for
 * a name, its definitions (see the top of this file). */
struct walk {
  uintptr_t addr;
  char *addr_name; /* when wanted: the symbol at exactly addr (addr_name_len bytes) */
  size_t addr_name_len;
  int in_signal;
  const char *name;
  uint32_t h;
  unsigned index;
  int have_holder, have_first, have_own, have_later;
  struct ip_object holder, first, later;
  uintptr_t first_at, own_at, later_at;
};

static void consider(struct walk *w, const struct view *o, const struct symbols *s,
                     int loaded_with_program) {
  int holds = w->addr >= o->lo && w->addr < o->hi;
  if (holds && !w->have_holder) {
    copy_out(&w->holder, o);
    w->have_holder = 1;
    if (w->addr_name && !name_at(o, s, w->addr, w->addr_name, w->addr_name_len, w->in_signal))
      w->addr_name[0] = 0;
  }
  if (!w->name || (w->have_first && w->have_holder))
    return;
  uintptr_t at;
  if (loaded_with_program && !w->have_first && (at = lookup(s, w->name, w->h))) {
    copy_out(&w->first, o);
    w->first_at = at, w->have_first = 1;
  } else if (holds && (at = lookup(s, w->name, w->h))) {
    w->own_at = at, w->have_own = 1;
  } else if (!loaded_with_program && !w->have_later && (at = lookup(s, w->name, w->h))) {
    copy_out(&w->later, o);
    w->later_at = at, w->have_later = 1;
  }
}

/* cppcheck-suppress constParameterCallback ; dl_iterate_phdr's callback type */
static int walk_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct walk *w = data;
  struct view o;
  describe(info, &o);
  o.is_main = w->index++ == 0;
  struct symbols s;
  symbols_of(info, &o, &s);
  unsigned kept_n = atomic_load(&n_kept);
  consider(w, &o, &s, kept_n ? is_kept(o.base) : 1);
  return !w->name && w->have_holder;
}

static void walk(struct walk *w, int in_signal) {
  if (!in_signal) {
    dl_iterate_phdr(walk_object, w);
    return;
  }
  unsigned n = atomic_load(&n_kept);
  for (unsigned i = 0; i < n && !(!w->name && w->have_holder); i++)
    consider(w, &kept[i].o, &kept[i].s, 1);
}

int ip_object_of(uintptr_t addr, struct ip_object *out, int in_signal) {
  struct walk w = {.addr = addr};
  walk(&w, in_signal);
  if (w.have_holder)
    *out = w.holder;
  return w.have_holder;
}

int ip_object_named(uintptr_t addr, struct ip_object *out, char *name, size_t len, uintptr_t *real,
                    int in_signal) {
  struct walk w = {.addr = addr, .addr_name = name, .addr_name_len = len, .in_signal = in_signal};
  name[0] = 0;
  *real = addr;
  walk(&w, in_signal);
  if (!w.have_holder)
    return 0;
  *out = w.holder;
  /* One of the runtime's interposers: the function the program meant is
   * the next definition of its name (libc's). */
  struct ip_object next;
  uintptr_t at;
  if (name[0] && is_interposer(addr) && ip_object_binding(name, addr, &next, &at, in_signal) && at)
    *out = next, *real = at;
  return 1;
}

int ip_object_binding(const char *name, uintptr_t caller, struct ip_object *out, uintptr_t *at,
                      int in_signal) {
  struct walk w = {.addr = caller, .name = name, .h = gnu_hash(name)};
  walk(&w, in_signal);
  *at = 0;
  if (w.have_first)
    *out = w.first, *at = w.first_at;
  else if (w.have_own && w.have_holder)
    *out = w.holder, *at = w.own_at;
  else if (w.have_later)
    *out = w.later, *at = w.later_at;
  else if (w.have_holder)
    *out = w.holder;
  else
    return 0;
  return 1;
}

/* ---- the allocator the loader calls ------------------------------------- */
/* Allocator libraries that are thread-safe whatever thread calls them, by
 * the file name's stem (the name up to ".so"). */
static const char *const safe_allocators[] = {"libjemalloc",
                                              "libtcmalloc",
                                              "libtcmalloc_minimal",
                                              "libtcmalloc_debug",
                                              "libtcmalloc_minimal_debug",
                                              "libtcmalloc_and_profiler",
                                              "libmimalloc",
                                              "libmimalloc-secure",
                                              "libmimalloc-debug",
                                              "libhoard",
                                              "libsnmallocshim",
                                              "libsnmallocshim-checks"};

/* Is the loader's name one of safe_allocators, as a shared object
 * (stem.so, stem.so.N...)? */
static int safe_allocator_name(const char *path) {
  const char *file = strrchr(path, '/');
  file = file ? file + 1 : path;
  for (size_t i = 0; i < sizeof safe_allocators / sizeof safe_allocators[0]; i++) {
    size_t n = strlen(safe_allocators[i]);
    if (!strncmp(file, safe_allocators[i], n) && !strncmp(file + n, ".so", 3) &&
        (file[n + 3] == 0 || file[n + 3] == '.'))
      return 1;
  }
  return 0;
}

/* Does the object starting at base name the plugin's registration in its
 * dynamic symbols (a unit built with the plugin calls it; the runtime
 * linked in defines it)? */
struct probed_walk {
  uintptr_t base;
  int found, probed;
};

/* cppcheck-suppress constParameterCallback ; dl_iterate_phdr's callback type */
static int probed_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct probed_walk *w = data;
  struct view o;
  describe(info, &o);
  if (o.base != w->base)
    return 0;
  struct symbols s;
  symbols_of(info, &o, &s);
  uint32_t count = s.sym && s.str ? symbol_count(&s) : 0;
  for (uint32_t ix = 1; ix < count && !w->probed; ix++)
    w->probed = !strcmp(s.str + s.sym[ix].st_name, "__inclprof_register_tu");
  w->found = 1;
  return 1;
}

/* glibc allocates a new thread's TLS vector through the malloc the program's
 * symbols bind to: the program's own, when it defines one.  One of
 * safe_allocators without probes is called as safely as libc's. */
int ip_objects_program_allocator(void) {
  static const char *const names[] = {"malloc", "calloc", "realloc", "free"};
  struct ip_object libc_obj, o;
  uintptr_t at;
  if (!ip_object_binding("__libc_calloc", 0, &libc_obj, &at, 0) || !at)
    return 0; /* not glibc */
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (!ip_object_binding(names[i], 0, &o, &at, 0) || !at || o.base == libc_obj.base)
      continue;
    if (o.is_main || !safe_allocator_name(o.name))
      return 1;
    struct probed_walk w = {.base = o.base};
    dl_iterate_phdr(probed_object, &w);
    if (!w.found || w.probed)
      return 1;
  }
  return 0;
}

__attribute__((constructor)) static void keep_at_load(void) { ip_objects_keep(); }
