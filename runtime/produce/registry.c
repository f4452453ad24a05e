/* registry.c - translation units and identities: the units registered (see
 * units.c for the plugin's entry points), their descriptors (Function and
 * Module records, gids), the maps from descriptor
 * pointer and code address to gid (lock-free reads, so a flush in a signal
 * handler can use them; writes under reg_lock), lazy naming of call-site
 * callees and indirect-call targets at flush time, and mark names. */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fnv1a.h"
#include "rt.h"

#define FN_FROM_ADDRESS 0x100u
#define MAX_STR         IP_NAME_MAX

/* Guards every table below and the unit list; taken after ip_st.threads_lock,
 * before the output's log lock. */
static pthread_mutex_t reg_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;

void ip_registry_fork_prepare(void) { ip_lock(&reg_lock, 0); }
void ip_registry_fork_parent(void) { ip_unlock(&reg_lock); }
void ip_registry_fork_child(void) { ip_mutex_init(&reg_lock); }

static struct ip_map by_desc, by_addr,
    by_name; /* by_name: fnv(name)|1 of public instrumented fns */
/* The entries by_desc and by_addr had for units since unloaded (retired.c). */
static struct ip_map old_desc, old_addr;
static _Atomic uint32_t next_gid;

static uintptr_t name_key(const char *s) {
  return (uintptr_t)(ip_fnv1a64(IP_FNV1A64_BASIS, s, strlen(s)) | 1);
}

static void write_function(uint32_t gid, uint32_t module, const struct inclprof_fn *fn,
                           const char *name, uint64_t addr, uint32_t flags, int log_it) {
  struct ip_fn_text t;
  Inclprof__Function f = INCLPROF__FUNCTION__INIT;
  ip_function_fill(&f, &t, fn, name);
  f.gid = gid;
  f.has_module = 1;
  f.module = module;
  f.has_flags = 1;
  f.flags = flags;
  if (addr) {
    f.has_addr = 1;
    f.addr = addr;
  }
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_FUNCTION;
  rec.function = &f;
  ip_write_record(&rec, log_it);
}

/* ---- modules ---------------------------------------------------------- */
/* A module is one file loaded at one base: the main program is told by its
 * base (dladdr names it by argv[0]), a library by the file the kernel mapped
 * (/proc/self/maps), whatever path it was found by (LD_LIBRARY_PATH=.libs,
 * dlopen("./sub/libx.so")).  The same file at another base, or another file
 * at the same base after a dlclose, is another module. */
#define MAX_MODULES 4096
static char *module_path[MAX_MODULES];
static uintptr_t module_base[MAX_MODULES];
static uint32_t n_modules;
static _Atomic uintptr_t main_base; /* the main program's first loaded byte, once known */

static int first_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  uintptr_t lo = UINTPTR_MAX, page = (uintptr_t)sysconf(_SC_PAGESIZE);
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD) {
      uintptr_t at =
          (uintptr_t)info->dlpi_addr + (uintptr_t)(info->dlpi_phdr[i].p_vaddr & ~(page - 1));
      lo = at < lo ? at : lo;
    }
  *(uintptr_t *)data = lo;
  return 1; /* the first object is the main program */
}

/* Takes the loader's lock: called before reg_lock. */
static void note_main_base(void) {
  if (atomic_load_explicit(&main_base, memory_order_relaxed))
    return;
  uintptr_t lo = 0;
  dl_iterate_phdr(first_object, &lo);
  if (lo && lo != UINTPTR_MAX)
    atomic_store(&main_base, lo);
}

/* The file mapped at base, from /proc/self/maps; 0 when not found. */
static int mapped_file(uintptr_t base, char *out, size_t len) {
  FILE *f = fopen("/proc/self/maps", "re");
  if (!f)
    return 0;
  char line[MAX_STR + 200];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    char *end;
    if ((uintptr_t)strtoull(line, &end, 16) != base || *end != '-')
      continue;
    char *path = strchr(line, '/');
    if (!path)
      break;
    path[strcspn(path, "\n")] = 0;
    size_t n = strlen(path), del = sizeof " (deleted)" - 1;
    if (n > del && !strcmp(path + n - del, " (deleted)"))
      path[n - del] = 0;
    snprintf(out, len, "%s", path);
    found = 1;
  }
  fclose(f);
  return found;
}

/* The path of the object dladdr names `name` at base. */
static void object_path(const char *name, uintptr_t base, char *out, size_t len) {
  uintptr_t main = atomic_load_explicit(&main_base, memory_order_relaxed);
  if (base == main || !name || !*name) {
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    out[n > 0 ? n : 0] = 0;
  } else if (name[0] == '/' || !mapped_file(base, out, len)) {
    char *real = name[0] == '/' ? NULL : realpath(name, NULL);
    snprintf(out, len, "%s", real ? real : name);
    free(real);
  }
}

/* Caller holds reg_lock. */
static uint32_t module_id(const char *name, uintptr_t base) {
  char path[MAX_STR + 1];
  object_path(name, base, path, sizeof path);
  for (uint32_t i = 0; i < n_modules; i++)
    if (module_base[i] == base && !strcmp(module_path[i], path))
      return i + 1;
  if (n_modules == MAX_MODULES || !(module_path[n_modules] = strdup(path)))
    return 0;
  module_base[n_modules] = base;
  uint32_t id = ++n_modules;
  Inclprof__Module m = INCLPROF__MODULE__INIT;
  m.id = id;
  m.path = module_path[id - 1];
  m.has_load_address = 1;
  m.load_address = base;
  struct stat st;
  if (!stat(m.path, &st)) {
    m.has_file_mtime_ns = m.has_file_size = 1;
    m.file_mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
    m.file_size = (uint64_t)st.st_size;
  }
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_MODULE;
  rec.module = &m;
  ip_write_record(&rec, 1);
  return id;
}

/* Caller holds reg_lock. */
static uint32_t module_of_addr(const void *addr) {
  Dl_info di;
  if (!dladdr(addr, &di))
    return 0;
  return module_id(di.dli_fname, (uintptr_t)di.dli_fbase);
}

/* ---- units ------------------------------------------------------------ */
struct unit {
  struct inclprof_tu *tu;
  struct unit *next;
};
static struct unit *units;
static int paused;

/* Null hooks: the plugin's probes skip their call while a hook is null. */
static const struct inclprof_hooks hooks_off = {0};

static void set_hooks(struct inclprof_tu *tu) {
  const struct inclprof_hooks *h =
      paused || atomic_load(&ip_st.init_state) != 1 ? &hooks_off : ip_st.hooks;
  tu->hooks = *h;
}

/* Callee descriptors waiting for an instrumented function of their name to
 * register (then their call-site probes are switched off: the callee's own
 * probes suffice).  Chains per name: pending_head maps the name key to
 * 1 + the index of the newest node; node.next is 1 + the next index, 0 ends. */
struct pending {
  struct inclprof_fn *fn;
  uint32_t next;
};
static struct ip_map pending_head;
static struct pending *pending;
static uint32_t n_pending, cap_pending;

static void mark_instrumented(struct inclprof_fn *callee) {
  callee->runtime_flags |= INCLPROF_RT_CALLEE_INSTRUMENTED;
}

/* Caller holds reg_lock.  A table callee of a name whose instrumented
 * function has gid `gid`: its events share that gid, unless a batch named
 * the callee's own gid already. */
static void share_gid(const struct inclprof_fn *callee, uint32_t gid) {
  uint32_t own = ip_map_get(&by_desc, (uintptr_t)callee);
  if (own && own != gid && ip_bind_state(own) == IP_BIND_TODO) {
    ip_bind_set(own, 0);
    ip_map_put(&by_desc, (uintptr_t)callee, gid);
  }
}

/* Caller holds reg_lock.  A public callee of a unit being registered. */
static void callee_registered(struct inclprof_fn *fn) {
  uintptr_t key = name_key(fn->name);
  uint32_t gid = ip_map_get(&by_name, key);
  if (gid) {
    mark_instrumented(fn);
    share_gid(fn, gid);
    return;
  }
  if (n_pending == cap_pending) {
    uint32_t cap = cap_pending ? cap_pending * 2 : 256;
    struct pending *p = realloc(pending, cap * sizeof *p);
    if (!p)
      return; /* the callee keeps its probes: slower, still right */
    pending = p;
    cap_pending = cap;
  }
  pending[n_pending].fn = fn;
  pending[n_pending].next = ip_map_get(&pending_head, key);
  ip_map_put(&pending_head, key, ++n_pending);
}

/* Caller holds reg_lock.  An instrumented public function registered:
 * the callees of its name waiting so far are marked (and the chain emptied). */
static void instrumented_registered(const char *name, uint32_t gid) {
  uintptr_t key = name_key(name);
  for (uint32_t i = ip_map_get(&pending_head, key); i; i = pending[i - 1].next)
    if (pending[i - 1].fn) {
      mark_instrumented(pending[i - 1].fn);
      share_gid(pending[i - 1].fn, gid);
    }
  ip_map_put(&pending_head, key, 0);
}

static int cmp_ptr(const void *a, const void *b) {
  uintptr_t x = (uintptr_t) * (const void *const *)a, y = (uintptr_t) * (const void *const *)b;
  return (x > y) - (x < y);
}

/* Caller holds reg_lock.  A unit going away: forget its waiting callees
 * (their memory goes with it). */
static void callees_unregistered(const struct inclprof_tu *tu) {
  if (!n_pending || !tu->n_fns)
    return;
  const struct inclprof_fn **mine = malloc(tu->n_fns * sizeof *mine);
  if (!mine) { /* cannot sort: the slow way */
    for (uint32_t n = 0; n < n_pending; n++)
      for (uint32_t i = 0; i < tu->n_fns; i++)
        if (pending[n].fn == tu->fns[i])
          pending[n].fn = NULL;
    return;
  }
  memcpy(mine, tu->fns, tu->n_fns * sizeof *mine);
  qsort(mine, tu->n_fns, sizeof *mine, cmp_ptr);
  for (uint32_t n = 0; n < n_pending; n++) {
    const struct inclprof_fn *key = pending[n].fn;
    if (key && bsearch(&key, mine, tu->n_fns, sizeof *mine, cmp_ptr))
      pending[n].fn = NULL;
  }
  free(mine);
}

/* The object a callee named at call-site probes binds to: the definition
 * the dynamic linker finds for its name (the global scope, else the scope of
 * the caller's object, for a library opened with RTLD_LOCAL), else the
 * caller's own object (a direct call to a name no object exports stays in the
 * caller's).  Found once per descriptor, before reg_lock is taken: dlsym and
 * dladdr take the loader's lock.  di is zeroed when nothing is found. */
static void callee_object(const struct inclprof_fn *fn, Dl_info *di) {
  memset(di, 0, sizeof *di);
  Dl_info caller;
  if (!(fn->flags & INCLPROF_FN_CALLEE) || fn->addr || !dladdr(fn, &caller))
    return;
  void *def = NULL;
  if (fn->name && !(fn->flags & INCLPROF_FN_LOCAL)) {
    def = dlsym(RTLD_DEFAULT, fn->name);
    void *h = def ? NULL : dlopen(caller.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (h) {
      def = dlsym(h, fn->name);
      dlclose(h);
    }
  }
  if (!def || !dladdr(def, di))
    *di = caller;
}

/* Caller holds reg_lock; resolves a callee (or an unregistered function).
 * obj: the callee's object from callee_object, or NULL. */
static uint32_t resolve_desc_locked(const struct inclprof_fn *fn, const Dl_info *obj, int log_it) {
  uint32_t gid = ip_map_get(&by_desc, (uintptr_t)fn);
  if (gid)
    return gid;
  if ((fn->flags & INCLPROF_FN_CALLEE) && fn->name)
    gid = ip_map_get(&by_name, name_key(fn->name));
  if (!gid) {
    uint32_t module = 0;
    if (fn->addr)
      module = module_of_addr(fn->addr);
    else if (obj && obj->dli_fname)
      module = module_id(obj->dli_fname, (uintptr_t)obj->dli_fbase);
    gid = atomic_fetch_add(&next_gid, 1) + 1;
    write_function(gid, module, fn, NULL, (uint64_t)(uintptr_t)fn->addr, fn->flags, log_it);
    /* An instrumented function first met at its probes (its descriptor lives
     * in a COMDAT group, outside the unit's table) is found by address too. */
    if ((fn->flags & INCLPROF_FN_INSTRUMENTED) && fn->addr)
      ip_map_put(&by_addr, (uintptr_t)fn->addr, gid);
  }
  ip_map_put(&by_desc, (uintptr_t)fn, gid);
  return gid;
}

/* Caller holds reg_lock.  The unit's descriptors that no earlier unit
 * listed join its object's table: the instrumented functions (with their
 * gids, by descriptor, address and public name) and the call-site callees
 * (their gids given when the table is written, their binding at first use). */
static void unit_entries(const struct inclprof_tu *tu, uint32_t module) {
  for (uint32_t i = 0; i < tu->n_fns; i++) {
    const struct inclprof_fn *fn = tu->fns[i];
    if (!fn || !(fn->flags & INCLPROF_FN_INSTRUMENTED) || ip_map_get(&by_desc, (uintptr_t)fn))
      continue;
    uint32_t gid = atomic_fetch_add(&next_gid, 1) + 1;
    ip_tables_add(fn, gid, module);
    ip_map_put(&by_desc, (uintptr_t)fn, gid);
    if (fn->addr)
      ip_map_put(&by_addr, (uintptr_t)fn->addr, gid);
    if (!(fn->flags & INCLPROF_FN_LOCAL) && fn->name) {
      ip_map_put(&by_name, name_key(fn->name), gid);
      instrumented_registered(fn->name, gid);
    }
  }
  for (uint32_t i = 0; i < tu->n_fns; i++) {
    const struct inclprof_fn *fn = tu->fns[i];
    if (!fn || !(fn->flags & INCLPROF_FN_CALLEE) || fn->addr || ip_map_get(&by_desc, (uintptr_t)fn))
      continue;
    ip_tables_add(fn, 0, module);
    if (!(fn->flags & INCLPROF_FN_LOCAL) && fn->name)
      callee_registered((struct inclprof_fn *)fn); /* the plugin keeps callees writable */
  }
}

uint32_t ip_callee_gid(const struct inclprof_fn *fn) {
  uint32_t shared =
      fn->name && !(fn->flags & INCLPROF_FN_LOCAL) ? ip_map_get(&by_name, name_key(fn->name)) : 0;
  uint32_t gid = ip_map_get(&by_desc, (uintptr_t)fn);
  if (gid) /* named at a batch before its table was written (a signal handler's) */
    return gid == shared ? 0 : gid;
  if (shared) {
    ip_map_put(&by_desc, (uintptr_t)fn, shared);
    return 0;
  }
  gid = atomic_fetch_add(&next_gid, 1) + 1;
  ip_bind_set(gid, IP_BIND_TODO);
  ip_map_put(&by_desc, (uintptr_t)fn, gid);
  return gid;
}

void ip_units_add(struct inclprof_tu *tu) {
  note_main_base();
  uint8_t build_id[IP_BUILD_ID_MAX];
  size_t build_id_len = ip_build_id_of(tu, build_id, sizeof build_id);
  if (!ip_lock(&reg_lock, 0))
    return; /* re-entered from a signal handler: the unit stays unprofiled */
  uint32_t module = module_of_addr(tu);
  if (module)
    ip_tables_object(module, module_path[module - 1], module_base[module - 1], build_id,
                     build_id_len);
  unit_entries(tu, module);
  struct unit *u = malloc(sizeof *u);
  if (u) {
    u->tu = tu;
    u->next = units;
    units = u;
  }
  set_hooks(tu);
  ip_unlock(&reg_lock);
}

void ip_tables_close_pending(int in_signal) {
  if (!ip_tables_pending() || !ip_lock(&reg_lock, in_signal))
    return; /* the tables follow at a later batch */
  ip_tables_close_locked(in_signal);
  ip_unlock(&reg_lock);
}

/* The loaded extent [lo, hi) of the object holding p. */
struct extent {
  uintptr_t p, lo, hi;
};
static int extent_of(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct extent *e = data;
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD) {
      uintptr_t at = (uintptr_t)info->dlpi_addr + (uintptr_t)info->dlpi_phdr[i].p_vaddr;
      uintptr_t end = at + (uintptr_t)info->dlpi_phdr[i].p_memsz;
      lo = at < lo ? at : lo;
      hi = end > hi ? end : hi;
    }
  if (e->p < lo || e->p >= hi)
    return 0;
  e->lo = lo;
  e->hi = hi;
  return 1;
}

static void retire_addr(uintptr_t key, uint32_t val, void *until) {
  (void)val;
  ip_retire(&by_addr, &old_addr, key, *(const uint64_t *)until);
}

static void retire_desc(uintptr_t key, uint32_t val, void *until) {
  (void)val;
  ip_retire(&by_desc, &old_desc, key, *(const uint64_t *)until);
}

/* Caller holds reg_lock.  The unit's descriptors, its functions' addresses
 * and every code address of its object (e) leave the live maps: a library
 * loaded later at the same addresses is named anew, events before `until`
 * keep these names. */
static void retire_unit(const struct inclprof_tu *tu, const struct extent *e, uint64_t until) {
  for (uint32_t i = 0; tu->abi_version == INCLPROF_ABI_VERSION && i < tu->n_fns; i++) {
    const struct inclprof_fn *fn = tu->fns[i];
    if (!fn)
      continue;
    uint32_t gid = ip_map_get(&by_desc, (uintptr_t)fn);
    if ((fn->flags & INCLPROF_FN_INSTRUMENTED) && !(fn->flags & INCLPROF_FN_LOCAL) && fn->name &&
        gid && ip_map_get(&by_name, name_key(fn->name)) == gid)
      ip_map_put(&by_name, name_key(fn->name), 0);
    ip_retire(&by_desc, &old_desc, (uintptr_t)fn, until);
    if ((fn->flags & INCLPROF_FN_INSTRUMENTED) && fn->addr)
      ip_retire(&by_addr, &old_addr, (uintptr_t)fn->addr, until);
  }
  if (e->hi) {
    ip_map_each_in(&by_addr, e->lo, e->hi, retire_addr, &until);
    /* descriptors outside the unit's table (in COMDAT groups) live there too */
    ip_map_each_in(&by_desc, e->lo, e->hi, retire_desc, &until);
  }
}

/* Finds the object a table callee's name binds to, once, unless a batch
 * named it already (state IP_BIND_TODO); not under reg_lock (callee_object
 * takes the loader's lock). */
static void bind_known(const struct inclprof_fn *fn, uint32_t gid) {
  Dl_info obj;
  callee_object(fn, &obj);
  if (!ip_lock(&reg_lock, 0))
    return;
  if (ip_bind_state(gid) == IP_BIND_TODO)
    ip_bind_set(gid, IP_BIND_KNOWN +
                         (obj.dli_fname ? module_id(obj.dli_fname, (uintptr_t)obj.dli_fbase) : 0));
  ip_unlock(&reg_lock);
}

/* Before the first batch that names a table callee: the object its name
 * binds to (found now unless known; unknown when its unit is gone or in a
 * signal handler), as a Function record of its gid and module only.  Two
 * threads may both write it: the same record twice. */
static void bind_callee(const struct inclprof_fn *fn, uint32_t gid, int retired, int in_signal) {
  if (ip_bind_state(gid) == IP_BIND_TODO && !retired && !in_signal)
    bind_known(fn, gid);
  uint32_t st = ip_bind_state(gid);
  if (!st)
    return;
  ip_bind_write(gid, st >= IP_BIND_KNOWN ? st - IP_BIND_KNOWN : 0, !in_signal);
  ip_bind_set(gid, 0);
}

int ip_units_remove(struct inclprof_tu *tu) {
  ip_tables_close_pending(0); /* its table, and so its callees' gids */
  /* Name the unit's callees now: their strings go away with the unit (those
   * of a table only need the object their name binds to). */
  for (uint32_t i = 0; tu->abi_version == INCLPROF_ABI_VERSION && i < tu->n_fns; i++) {
    const struct inclprof_fn *fn = tu->fns[i];
    uint32_t gid = fn ? ip_map_get(&by_desc, (uintptr_t)fn) : 0;
    int retired = 0; /* named, and retired when another unit of its object left */
    if (fn && !gid)
      ip_retired_gid(&old_desc, (uintptr_t)fn, 0, &retired);
    if (gid && ip_bind_state(gid) == IP_BIND_TODO) {
      bind_known(fn, gid);
    } else if (fn && !gid && !retired) {
      int fixed = 1;
      ip_gid_of_desc(fn, UINT64_MAX, 0, &fixed);
    }
  }
  struct extent e = {(uintptr_t)tu, 0, 0};
  dl_iterate_phdr(extent_of, &e);
  uint64_t until = ip_tick();
  if (!ip_lock(&reg_lock, 0)) {
    tu->hooks = hooks_off;
    return 0;
  }
  if (tu->abi_version == INCLPROF_ABI_VERSION)
    callees_unregistered(tu);
  retire_unit(tu, &e, until);
  for (struct unit **pp = &units; *pp; pp = &(*pp)->next)
    if ((*pp)->tu == tu) {
      struct unit *dead = *pp;
      *pp = dead->next;
      free(dead);
      break;
    }
  tu->hooks = hooks_off;
  int last = units == NULL;
  ip_unlock(&reg_lock);
  return last;
}

unsigned ip_units_registered(void) {
  if (!ip_lock(&reg_lock, 0))
    return 1;
  unsigned n = 0;
  for (const struct unit *u = units; u; u = u->next)
    n++;
  ip_unlock(&reg_lock);
  return n;
}

/* Points every unit's hooks at the probes or sets them null (inclprof_stop,
 * inclprof_start, disabling). */
void ip_units_set_paused(int on) {
  if (!ip_lock(&reg_lock, 0))
    return;
  paused = on;
  for (struct unit *u = units; u; u = u->next)
    set_hooks(u->tu);
  ip_unlock(&reg_lock);
}

uint32_t ip_gid_of_desc(const struct inclprof_fn *fn, uint64_t tick, int in_signal, int *fixed) {
  int had = 0;
  uint32_t gid = ip_retired_gid(&old_desc, (uintptr_t)fn, tick, &had);
  if (had)
    *fixed = 0;
  if (!gid)
    gid = ip_map_get(&by_desc, (uintptr_t)fn);
  if (IP_LIKELY(gid)) {
    if (IP_UNLIKELY(ip_bind_state(gid)))
      bind_callee(fn, gid, had, in_signal);
    return gid;
  }
  Dl_info obj;
  if (!in_signal)
    callee_object(fn, &obj);
  if (ip_lock(&reg_lock, in_signal)) {
    /* Retired meanwhile: the descriptor's unit may be gone. */
    gid = ip_retired_gid(&old_desc, (uintptr_t)fn, tick, &had);
    if (had)
      *fixed = 0;
    if (!gid)
      gid = resolve_desc_locked(fn, in_signal ? NULL : &obj, !in_signal);
    ip_unlock(&reg_lock);
    return gid;
  }
  /* In a signal handler that interrupted the lock holder: an unmapped gid. */
  gid = atomic_fetch_add(&next_gid, 1) + 1;
  write_function(gid, 0, fn, NULL, (uint64_t)(uintptr_t)fn->addr, fn->flags, 0);
  return gid;
}

uint32_t ip_gid_of_addr(uintptr_t addr, uint64_t tick, int in_signal, int *fixed) {
  int had = 0;
  uint32_t gid = ip_retired_gid(&old_addr, addr, tick, &had);
  if (had)
    *fixed = 0;
  if (!gid)
    gid = ip_map_get(&by_addr, addr);
  if (IP_LIKELY(gid))
    return gid;
  char name[2 * sizeof addr + 3];
  snprintf(name, sizeof name, "0x%lx", (unsigned long)addr);
  if (!ip_lock(&reg_lock, in_signal)) {
    gid = atomic_fetch_add(&next_gid, 1) + 1;
    write_function(gid, 0, NULL, name, addr, FN_FROM_ADDRESS, 0);
    return gid;
  }
  gid = ip_retired_gid(&old_addr, addr, tick, &had);
  if (had)
    *fixed = 0;
  if (!gid)
    gid = ip_map_get(&by_addr, addr);
  if (!gid) {
    /* dladdr takes the loader's lock: not from a signal handler. */
    Dl_info di;
    uint32_t module = 0;
    const char *sym = name;
    if (!in_signal && dladdr((const void *)addr, &di)) {
      module = module_id(di.dli_fname, (uintptr_t)di.dli_fbase);
      if (di.dli_sname && di.dli_saddr == (void *)addr)
        sym = di.dli_sname;
    }
    gid = atomic_fetch_add(&next_gid, 1) + 1;
    write_function(gid, module, NULL, sym, addr, FN_FROM_ADDRESS, !in_signal);
    ip_map_put(&by_addr, addr, gid);
  }
  ip_unlock(&reg_lock);
  return gid;
}

/* ---- marks ------------------------------------------------------------- */
#define MAX_MARKS 4096
static char *mark_text[MAX_MARKS];
static uint32_t n_marks;

uint32_t ip_mark_id(const char *text) {
  if (!text)
    text = "";
  if (!ip_lock(&reg_lock, 0))
    return 0;
  uint32_t id = 0;
  for (uint32_t i = 0; i < n_marks && !id; i++)
    if (!strcmp(mark_text[i], text))
      id = i + 1;
  if (!id && n_marks < MAX_MARKS && (mark_text[n_marks] = strndup(text, MAX_STR))) {
    id = ++n_marks;
    Inclprof__MarkName m = INCLPROF__MARK_NAME__INIT;
    m.id = id;
    m.text = mark_text[id - 1];
    Inclprof__Record rec = INCLPROF__RECORD__INIT;
    rec.body_case = INCLPROF__RECORD__BODY_MARK;
    rec.mark = &m;
    ip_write_record(&rec, 1);
  }
  ip_unlock(&reg_lock);
  return id;
}
