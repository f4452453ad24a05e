/* registry.c - translation units and identities: the units registered (see
 * units.c for the plugin's entry points), their descriptors (Function and
 * Module records, gids: an object's Function records go into its shared
 * table, shared_tables.c), the maps from descriptor
 * pointer and code address to gid (lock-free reads, so a flush in a signal
 * handler can use them; writes under reg_lock), lazy naming of call-site
 * callees and indirect-call targets at flush time (their objects found by
 * objects.c before reg_lock is taken: no loader call under it), and mark
 * names. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fnv1a.h"
#include "produce/produce.h"

#define FN_FROM_ADDRESS 0x100u
#define MAX_STR         IP_NAME_MAX

/* Guards every table below and the unit list; taken after ip_st.threads_lock,
 * before the output's log lock. */
static pthread_mutex_t reg_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;

void ip_registry_fork_prepare(void) { ip_lock(&reg_lock, 0); }
void ip_registry_fork_parent(void) { ip_unlock(&reg_lock); }
void ip_registry_fork_child(void) { ip_mutex_init(&reg_lock); }

/* by_name: a public name's key -> the gid of the instrumented function of
 * that name, or, while none has registered, NAME_PENDING | the chain of
 * the callees of that name waiting for one (see pending below): one map
 * for both, the name looked up once per callee and per function. */
static struct ip_map by_desc, by_addr, by_name;
#define NAME_PENDING 0x80000000u /* above any gid a process reaches */
/* The entries by_desc and by_addr had for units since unloaded (retired.c). */
static struct ip_map old_desc, old_addr;
static _Atomic uint32_t next_gid;
/* Set once by_desc holds a call-site callee's gid (one named at a batch, or
 * given at a table's close): until then no callee need be looked up there,
 * which spared every process of PostgreSQL 200 000 lookups. */
static int callee_gids_given;

/* A name's key in by_name: the FNV-1a hash of the name, never 0. */
static uintptr_t hash_key(uint64_t name_hash) { return (uintptr_t)(name_hash | 1); }
static uintptr_t name_key(const char *s) { return hash_key(ip_fnv1a64_str(IP_FNV1A64_BASIS, s)); }

/* The gid of the instrumented function named by key, or 0. */
static uint32_t instrumented_gid(uintptr_t key) {
  uint32_t v = ip_map_get(&by_name, key);
  return v & NAME_PENDING ? 0 : v;
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
 * base (the first object the loader lists), a library by the file the kernel
 * mapped (/proc/self/maps), whatever path it was found by
 * (LD_LIBRARY_PATH=.libs, dlopen("./sub/libx.so")).  The same file at
 * another base, or another file at the same base after a dlclose, is another
 * module.  The objects come from objects.c (no loader call here: these run
 * under reg_lock); a module's extent stays known while its object is loaded,
 * so a signal handler can name an object opened after start-up. */
#define MAX_MODULES 4096
struct module {
  char *path, *name; /* the file; the loader's name for it */
  uintptr_t base;
  _Atomic uintptr_t lo, hi; /* its extent while loaded (0, 0 after its unload) */
};
static struct module modules[MAX_MODULES];
static _Atomic uint32_t n_modules;

/* The file mapped at base, from /proc/self/maps (read without stdio, whose
 * buffers come from malloc); 0 when not found. */
static int mapped_file(uintptr_t base, char *out, size_t len) {
  int fd = open("/proc/thread-self/maps",
                O_RDONLY | O_CLOEXEC); /* /proc/self ends with the main thread */
  if (fd < 0)
    fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  char buf[4096];
  size_t have = 0;
  int found = 0, eof = 0;
  while (!found && !eof) {
    ssize_t r = read(fd, buf + have, sizeof buf - 1 - have);
    if (r <= 0)
      eof = 1;
    else
      have += (size_t)r;
    buf[have] = 0;
    char *line = buf, *nl;
    while (!found && ((nl = strchr(line, '\n')) || (eof && *line))) {
      if (nl)
        *nl = 0;
      char *end;
      if ((uintptr_t)strtoull(line, &end, 16) == base && *end == '-') {
        char *path = strchr(line, '/');
        size_t n = path ? strlen(path) : 0, del = sizeof " (deleted)" - 1;
        if (n > del && !strcmp(path + n - del, " (deleted)"))
          path[n - del] = 0;
        if (path)
          snprintf(out, len, "%s", path);
        found = path != NULL;
        eof = 1; /* the first mapping at base names the object, or nothing does */
      }
      line = nl ? nl + 1 : line + strlen(line);
    }
    have -= (size_t)(line - buf);
    memmove(buf, line, have);
    if (have == sizeof buf - 1)
      have = 0; /* a line longer than the buffer: not one we want */
  }
  ip_close(fd);
  return found;
}

/* The path of object o (in a signal handler, without realpath). */
static void object_path(const struct ip_object *o, char *out, size_t len, int in_signal) {
  if (o->is_main || !o->name[0]) {
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    out[n > 0 ? n : 0] = 0;
  } else if (o->name[0] == '/' || !mapped_file(o->base, out, len)) {
    char real[PATH_MAX];
    const char *p = o->name[0] != '/' && !in_signal && realpath(o->name, real) ? real : o->name;
    snprintf(out, len, "%.*s", (int)len - 1, p);
  }
}

/* Caller holds reg_lock.  The module of object o (made on first use, its
 * Module record written). */
static uint32_t module_id(const struct ip_object *o, int in_signal) {
  uint32_t n = atomic_load_explicit(&n_modules, memory_order_relaxed);
  for (uint32_t i = 0; i < n; i++)
    if (modules[i].base == o->base && !strcmp(modules[i].name, o->name) &&
        atomic_load_explicit(&modules[i].hi, memory_order_relaxed))
      return i + 1;
  char path[MAX_STR + 1];
  object_path(o, path, sizeof path, in_signal);
  for (uint32_t i = 0; i < n; i++)
    if (modules[i].base == o->base && !strcmp(modules[i].path, path)) {
      atomic_store(&modules[i].lo, o->lo);
      atomic_store(&modules[i].hi, o->hi);
      return i + 1;
    }
  struct module *m = &modules[n];
  if (n == MAX_MODULES || !(m->path = ip_strdup(path)) || !(m->name = ip_strdup(o->name)))
    return 0;
  m->base = o->base;
  atomic_store(&m->lo, o->lo);
  atomic_store(&m->hi, o->hi);
  uint32_t id = n + 1;
  atomic_store_explicit(&n_modules, id, memory_order_release);
  Inclprof__Module mr = INCLPROF__MODULE__INIT;
  mr.id = id;
  mr.path = m->path;
  mr.has_load_address = 1;
  mr.load_address = o->base;
  struct stat st;
  if (!stat(mr.path, &st)) {
    mr.has_file_mtime_ns = mr.has_file_size = 1;
    mr.file_mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
    mr.file_size = (uint64_t)st.st_size;
  }
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_MODULE;
  rec.module = &mr;
  ip_write_record(&rec, !in_signal);
  return id;
}

/* In a signal handler, for an object opened after start-up: the module
 * whose extent holds addr, made while the object was loaded (lock-free). */
static uint32_t module_by_extent(uintptr_t addr) {
  uint32_t n = atomic_load_explicit(&n_modules, memory_order_acquire);
  for (uint32_t i = 0; i < n; i++)
    if (addr >= atomic_load(&modules[i].lo) && addr < atomic_load(&modules[i].hi))
      return i + 1;
  return 0;
}

/* Caller holds reg_lock (or tried it, in a signal handler).  o: the
 * object found before the lock was taken, or NULL. */
static uint32_t module_of(const struct ip_object *o, uintptr_t addr, int in_signal) {
  if (o)
    return module_id(o, in_signal);
  return in_signal ? module_by_extent(addr) : 0;
}

/* Caller holds reg_lock: object e was unloaded. */
static void modules_unloaded(uintptr_t lo, uintptr_t hi) {
  uint32_t n = atomic_load_explicit(&n_modules, memory_order_relaxed);
  for (uint32_t i = 0; i < n; i++)
    if (atomic_load(&modules[i].lo) >= lo && atomic_load(&modules[i].lo) < hi) {
      atomic_store(&modules[i].hi, 0);
      atomic_store(&modules[i].lo, 0);
    }
}

/* ---- units ------------------------------------------------------------ */
struct unit {
  struct inclprof_tu *tu;
  struct unit *next;
};
static struct unit *units;
/* Units that left at exit.  Their objects stay mapped, so they keep their
 * hooks and entry addresses: code of theirs that the exit's other
 * destructors run is recorded until the trace ends, and leaving writes
 * nothing to the program's pages (in a fork child each such write copies
 * a page).  A pause, or a full buffer after the end, reaches them too. */
static struct unit *units_left;
static int paused;

/* Null hooks: the plugin's probes skip their call while a hook is null. */
static const struct inclprof_hooks hooks_off = {0};

/* A unit of ABI 2 has no coroutine_frame hook, one of ABI 3 no landing
 * hook: its inclprof_hooks ends before them. */
static void hooks_write(struct inclprof_tu *tu, const struct inclprof_hooks *h) {
  struct inclprof_hooks *to = &tu->hooks;
  to->enter = h->enter;
  to->exit = h->exit;
  to->call = h->call;
  to->ret = h->ret;
  to->call_indirect = h->call_indirect;
  to->ret_indirect = h->ret_indirect;
  if (tu->abi_version >= 3)
    to->coroutine_frame = h->coroutine_frame;
  if (tu->abi_version >= 4)
    to->landing = h->landing;
}

static void set_hooks_off(struct inclprof_tu *tu) { hooks_write(tu, &hooks_off); }

static void set_hooks(struct inclprof_tu *tu) {
  const struct inclprof_hooks *h =
      paused || atomic_load(&ip_st.init_state) != 1 ? &hooks_off : ip_st.hooks;
  hooks_write(tu, h);
}

/* Callee descriptors waiting for an instrumented function of their name to
 * register (then their call-site probes are switched off: the callee's own
 * probes suffice).  Chains per name: by_name maps the name key to
 * NAME_PENDING | 1 + the index of the newest node; node.next is 1 + the
 * next index, 0 ends. */
struct pending {
  struct inclprof_fn *fn;
  uint32_t next;
};
static struct pending *pending;
static uint32_t n_pending, cap_pending;

static void mark_instrumented(struct inclprof_fn *callee) {
  callee->runtime_flags |= INCLPROF_RT_CALLEE_INSTRUMENTED;
}

/* Caller holds reg_lock.  A table callee of a name whose instrumented
 * function has gid `gid`: its events share that gid, unless a batch named
 * the callee's own gid already. */
static void share_gid(const struct inclprof_fn *callee, uint32_t gid) {
  uint32_t own = callee_gids_given ? ip_map_get(&by_desc, (uintptr_t)callee) : 0;
  if (own && own != gid && ip_bind_state(own) == IP_BIND_TODO) {
    ip_bind_set(own, 0);
    ip_map_put(&by_desc, (uintptr_t)callee, gid);
  }
}

/* Caller holds reg_lock.  A public callee of a unit being registered. */
static void callee_registered(struct inclprof_fn *fn, uintptr_t key) {
  uint32_t v = ip_map_get(&by_name, key);
  if (v && !(v & NAME_PENDING)) {
    mark_instrumented(fn);
    share_gid(fn, v);
    return;
  }
  if (n_pending == cap_pending) {
    uint32_t cap = cap_pending ? cap_pending * 2 : 256;
    struct pending *p = ip_realloc(pending, cap * sizeof *p);
    if (!p)
      return; /* the callee keeps its probes: slower, still right */
    pending = p;
    cap_pending = cap;
  }
  pending[n_pending].fn = fn;
  pending[n_pending].next = v & ~NAME_PENDING;
  ip_map_put(&by_name, key, NAME_PENDING | ++n_pending);
}

/* Caller holds reg_lock.  An instrumented public function registered:
 * its name's key now gives its gid, and the callees of its name waiting
 * so far are marked. */
static void instrumented_registered(uintptr_t key, uint32_t gid) {
  uint32_t v = ip_map_get(&by_name, key);
  for (uint32_t i = v & NAME_PENDING ? v & ~NAME_PENDING : 0; i; i = pending[i - 1].next)
    if (pending[i - 1].fn) {
      mark_instrumented(pending[i - 1].fn);
      share_gid(pending[i - 1].fn, gid);
    }
  ip_map_put(&by_name, key, gid);
}

/* Caller holds reg_lock.  Object [lo, hi) going away: forget its waiting
 * callees (their memory goes with it). */
static void callees_unloaded(uintptr_t lo, uintptr_t hi) {
  for (uint32_t n = 0; n < n_pending; n++)
    if ((uintptr_t)pending[n].fn >= lo && (uintptr_t)pending[n].fn < hi)
      pending[n].fn = NULL;
}

/* The object of a descriptor's function: the one holding its address, or,
 * for a callee named at call-site probes, the object its name binds to (the
 * definition the dynamic linker finds, see objects.c), else the caller's
 * own object (a direct call to a name no object exports).  Found before
 * reg_lock is taken.  0 when none is known. */
static int desc_object(const struct inclprof_fn *fn, struct ip_object *o, int in_signal) {
  if (fn->addr)
    return ip_object_of((uintptr_t)fn->addr, o, in_signal);
  if (!(fn->flags & INCLPROF_FN_CALLEE))
    return 0;
  uintptr_t at;
  if (fn->name && !(fn->flags & INCLPROF_FN_LOCAL))
    return ip_object_binding(fn->name, (uintptr_t)fn, o, &at, in_signal);
  return ip_object_of((uintptr_t)fn, o, in_signal);
}

/* Caller holds reg_lock; resolves a callee (or an unregistered function).
 * obj: the function's object from desc_object, or NULL. */
static uint32_t resolve_desc_locked(const struct inclprof_fn *fn, const struct ip_object *obj,
                                    int in_signal) {
  uint32_t gid = ip_map_get(&by_desc, (uintptr_t)fn);
  if (gid)
    return gid;
  if ((fn->flags & INCLPROF_FN_CALLEE) && fn->name)
    gid = instrumented_gid(name_key(fn->name));
  if (!gid) {
    uintptr_t where = fn->addr ? (uintptr_t)fn->addr : (uintptr_t)fn;
    uint32_t module = module_of(obj, where, in_signal);
    gid = atomic_fetch_add(&next_gid, 1) + 1;
    write_function(gid, module, fn, NULL, (uint64_t)(uintptr_t)fn->addr, fn->flags, !in_signal);
    /* An instrumented function first met at its probes (its descriptor lives
     * in a COMDAT group, outside the unit's table) is found by address too. */
    if ((fn->flags & INCLPROF_FN_INSTRUMENTED) && fn->addr)
      ip_map_put(&by_addr, (uintptr_t)fn->addr, gid);
  }
  ip_map_put(&by_desc, (uintptr_t)fn, gid);
  callee_gids_given |= (fn->flags & INCLPROF_FN_CALLEE) != 0;
  return gid;
}

/* A callee's name key from the plugin's id of it, FNV-1a 64 of its
 * assembler name with clone suffixes cut (which no name of an instrumented
 * public function carries): the key hashes the name's terminating '\0'
 * too, one step more. */
static uint64_t callee_id_hash(const struct inclprof_fn *fn) { return fn->id * IP_FNV1A64_PRIME; }

/* Are the unit's callee ids its names' hashes?  Tried on the unit's first
 * public callee: then the unit's callees are keyed by their ids, with no
 * name hashed (PostgreSQL's server: 101 744 names, 9 M instructions in
 * every process). */
static int callee_ids_are_keys(const struct inclprof_tu *tu) {
  for (uint32_t i = 0; i < tu->n_fns; i++) {
    const struct inclprof_fn *fn = tu->fns[i];
    if (ip_table_callee(fn) && fn->name && !(fn->flags & INCLPROF_FN_LOCAL))
      return callee_id_hash(fn) == ip_fnv1a64_str(IP_FNV1A64_BASIS, fn->name);
  }
  return 0;
}

/* Caller holds reg_lock.  The unit's instrumented functions that no
 * earlier unit listed join its object's table (with their gids, by
 * descriptor and public name; by address only if an indirect call's event
 * names one, see instrumented_at), and the unit its call-site callees
 * (their gids given when the table is written, put in the map when a batch
 * first names one of the unit's, their binding at first use): of a callee
 * only its name is looked up now, among the instrumented functions'. */
static void unit_entries(const struct inclprof_tu *tu, uint32_t module) {
  int ids = callee_ids_are_keys(tu);
  struct ip_unit_callees c = {0, UINTPTR_MAX, 0};
  for (uint32_t i = 0; i < tu->n_fns; i++) {
    const struct inclprof_fn *fn = tu->fns[i];
    if (ip_table_callee(fn)) {
      c.n++;
      c.lo = (uintptr_t)fn < c.lo ? (uintptr_t)fn : c.lo;
      c.hi = (uintptr_t)fn > c.hi ? (uintptr_t)fn : c.hi;
      if (!(fn->flags & INCLPROF_FN_LOCAL) && fn->name)
        callee_registered((struct inclprof_fn *)fn, /* the plugin keeps callees writable */
                          ids ? hash_key(callee_id_hash(fn)) : name_key(fn->name));
      continue;
    }
    if (!fn || !(fn->flags & INCLPROF_FN_INSTRUMENTED) || ip_map_get(&by_desc, (uintptr_t)fn))
      continue;
    uint32_t gid = atomic_fetch_add(&next_gid, 1) + 1;
    ip_tables_add(fn, gid, module);
    ip_map_put(&by_desc, (uintptr_t)fn, gid);
    if (!(fn->flags & INCLPROF_FN_LOCAL) && fn->name)
      instrumented_registered(name_key(fn->name), gid);
  }
  if (c.n)
    ip_tables_add_unit(tu, module, &c);
}

uint32_t ip_gids_take(uint32_t n) { return atomic_fetch_add(&next_gid, n) + 1; }

void ip_unit_callee_gids(const struct inclprof_tu *tu, uint32_t gid) {
  for (uint32_t i = 0; i < tu->n_fns; i++) {
    const struct inclprof_fn *fn = tu->fns[i];
    if (!ip_table_callee(fn))
      continue;
    uint32_t own = gid++;
    if ((fn->runtime_flags & INCLPROF_RT_CALLEE_INSTRUMENTED) ||
        ip_map_get(&by_desc, (uintptr_t)fn))
      continue; /* named by its instrumented namesake, or named already */
    ip_bind_set(own, IP_BIND_TODO);
    ip_map_put(&by_desc, (uintptr_t)fn, own);
  }
  callee_gids_given = 1;
}

/* Caller holds reg_lock.  The unit's instrumented entry addresses, and
 * those of its functions whose calls are excluded, join (on) or leave the
 * set the indirect-call probes look up (entry_set.c). */
static void unit_entry_addresses(const struct inclprof_tu *tu, int on) {
  for (uint32_t i = 0; i < tu->n_fns; i++) {
    const struct inclprof_fn *fn = tu->fns[i];
    if (!fn || !(fn->flags & (INCLPROF_FN_INSTRUMENTED | INCLPROF_FN_CALLS_EXCLUDED)) || !fn->addr)
      continue;
    if (on)
      ip_entry_add((uintptr_t)fn->addr);
    else
      ip_entry_remove((uintptr_t)fn->addr);
  }
}

void ip_units_add(struct inclprof_tu *tu) {
  struct ip_object obj;
  int have_obj = ip_object_of((uintptr_t)tu, &obj, 0);
  if (!ip_lock(&reg_lock, 0))
    return; /* re-entered from a signal handler: the unit stays unprofiled */
  uint32_t module = have_obj ? module_id(&obj, 0) : 0;
  if (module)
    ip_tables_object(module, modules[module - 1].path, modules[module - 1].base, obj.build_id,
                     obj.build_id_len);
  unit_entries(tu, module);
  struct unit *u = ip_alloc(sizeof *u);
  if (u) {
    u->tu = tu;
    u->next = units;
    units = u;
  }
  set_hooks(tu);
  unit_entry_addresses(tu, 1);
  ip_unlock(&reg_lock);
}

void ip_tables_close_pending(int in_signal) {
  if (!ip_tables_pending() || !ip_lock(&reg_lock, in_signal))
    return; /* the tables follow at a later batch */
  ip_tables_close_locked(in_signal);
  ip_unlock(&reg_lock);
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
 * and every code address of its object (o) leave the live maps: a library
 * loaded later at the same addresses is named anew, events before `until`
 * keep these names. */
static void retire_unit(const struct inclprof_tu *tu, const struct ip_object *o, uint64_t until) {
  for (uint32_t i = 0; ip_abi_known(tu) && i < tu->n_fns; i++) {
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
  if (o) {
    ip_map_each_in(&by_addr, o->lo, o->hi, retire_addr, &until);
    /* descriptors outside the unit's table (in COMDAT groups) live there too */
    ip_map_each_in(&by_desc, o->lo, o->hi, retire_desc, &until);
  }
}

/* Finds the object a table callee's name binds to, once, unless a batch
 * named it already (state IP_BIND_TODO); the object is found before
 * reg_lock is taken (desc_object; in a signal handler among the objects
 * loaded with the program, else the caller's object by its extent). */
static void bind_known(const struct inclprof_fn *fn, uint32_t gid, int in_signal) {
  struct ip_object obj;
  int have_obj = desc_object(fn, &obj, in_signal);
  if (!ip_lock(&reg_lock, in_signal))
    return;
  if (ip_bind_state(gid) == IP_BIND_TODO)
    ip_bind_set(gid, IP_BIND_KNOWN + module_of(have_obj ? &obj : NULL, (uintptr_t)fn, in_signal));
  ip_unlock(&reg_lock);
}

/* Before the first batch that names a table callee: the object its name
 * binds to (found now unless known; unknown when its unit is gone, or in a
 * signal handler that interrupted reg_lock's holder), as a Function record
 * of its gid and module only.  Two threads may both write it: the same
 * record twice. */
static void bind_callee(const struct inclprof_fn *fn, uint32_t gid, int retired, int in_signal) {
  if (ip_bind_state(gid) == IP_BIND_TODO && !retired)
    bind_known(fn, gid, in_signal);
  uint32_t st = ip_bind_state(gid);
  if (!st)
    return;
  ip_bind_write(gid, st >= IP_BIND_KNOWN ? st - IP_BIND_KNOWN : 0, !in_signal);
  ip_bind_set(gid, 0);
}

/* Caller holds reg_lock.  tu's probes off and its entry addresses out of
 * the set; its list node u (or NULL) freed. */
static void unit_off(struct inclprof_tu *tu, struct unit *u) {
  if (ip_abi_known(tu))
    unit_entry_addresses(tu, 0);
  set_hooks_off(tu);
  ip_free(u);
}

int ip_units_remove(struct inclprof_tu *tu, int unloading) {
  struct ip_object obj;
  int have_obj = 0;
  if (unloading) {
    ip_tables_close_pending(0); /* its table, and so its callees' gids */
    /* Name the unit's callees now: their strings go away with the unit
     * (those of a table only need the object their name binds to).  At
     * exit nothing is unmapped: the encoder names what ran, when it meets
     * it, and the rest costs nothing. */
    for (uint32_t i = 0; ip_abi_known(tu) && i < tu->n_fns; i++) {
      const struct inclprof_fn *fn = tu->fns[i];
      uint32_t gid = fn ? ip_map_get(&by_desc, (uintptr_t)fn) : 0;
      int retired = 0; /* named, and retired when another unit of its object left */
      if (fn && !gid)
        ip_retired_gid(&old_desc, (uintptr_t)fn, 0, &retired);
      if (gid && ip_bind_state(gid) == IP_BIND_TODO) {
        bind_known(fn, gid, 0);
      } else if (fn && !gid && !retired) {
        int fixed = 1;
        ip_gid_of_desc(fn, UINT64_MAX, 0, &fixed);
      }
    }
    have_obj = ip_object_of((uintptr_t)tu, &obj, 0);
  }
  uint64_t until = ip_tick_cold();
  if (!ip_lock(&reg_lock, 0)) {
    set_hooks_off(tu);
    return 0;
  }
  if (unloading) {
    if (have_obj) {
      callees_unloaded(obj.lo, obj.hi);
      modules_unloaded(obj.lo, obj.hi);
    }
    retire_unit(tu, have_obj ? &obj : NULL, until);
    ip_tables_unit_gone(tu);
  }
  struct unit *gone = NULL;
  for (struct unit **pp = &units; *pp; pp = &(*pp)->next)
    if ((*pp)->tu == tu) {
      gone = *pp;
      *pp = gone->next;
      break;
    }
  if (gone && !unloading) {
    gone->next = units_left;
    units_left = gone;
  } else {
    unit_off(tu, gone);
  }
  int last = units == NULL;
  ip_unlock(&reg_lock);
  return last;
}

void ip_units_left_off(void) {
  if (!units_left || !ip_lock(&reg_lock, 0))
    return;
  while (units_left) {
    struct unit *u = units_left;
    units_left = u->next;
    unit_off(u->tu, u);
  }
  ip_unlock(&reg_lock);
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
  for (struct unit *u = units_left; u; u = u->next)
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
  /* A table callee: its unit's callees get the gids of their table. */
  if (ip_table_callee(fn) && !(fn->runtime_flags & INCLPROF_RT_CALLEE_INSTRUMENTED) &&
      ip_lock(&reg_lock, in_signal)) {
    gid = ip_tables_callee_unit(fn) ? ip_map_get(&by_desc, (uintptr_t)fn) : 0;
    ip_unlock(&reg_lock);
    if (gid) {
      if (ip_bind_state(gid))
        bind_callee(fn, gid, 0, in_signal);
      return gid;
    }
  }
  /* A callee with an instrumented namesake needs no object. */
  struct ip_object obj;
  int have_obj =
      (fn->flags & INCLPROF_FN_CALLEE) && fn->name && instrumented_gid(name_key(fn->name))
          ? 0
          : desc_object(fn, &obj, in_signal);
  if (ip_lock(&reg_lock, in_signal)) {
    /* Retired meanwhile: the descriptor's unit may be gone. */
    gid = ip_retired_gid(&old_desc, (uintptr_t)fn, tick, &had);
    if (had)
      *fixed = 0;
    if (!gid)
      gid = resolve_desc_locked(fn, have_obj ? &obj : NULL, in_signal);
    ip_unlock(&reg_lock);
    /* Another thread may have given the descriptor its table's gid
     * meanwhile: its binding goes before this batch too. */
    if (IP_UNLIKELY(ip_bind_state(gid)))
      bind_callee(fn, gid, had, in_signal);
    return gid;
  }
  /* In a signal handler that interrupted the lock holder: a callee's
   * instrumented namesake's gid, else an unmapped gid. */
  if ((fn->flags & INCLPROF_FN_CALLEE) && fn->name && (gid = instrumented_gid(name_key(fn->name))))
    return gid;
  gid = atomic_fetch_add(&next_gid, 1) + 1;
  write_function(gid, 0, fn, NULL, (uint64_t)(uintptr_t)fn->addr, fn->flags, 0);
  return gid;
}

/* Caller holds reg_lock.  The gid of the registered instrumented function
 * whose entry is addr, or 0.  An indirect call to one records nothing (its
 * address is in the entry set), unless the call raced the registration of
 * the function's unit: so the registry keeps no map entry by address for
 * each function (20 000 functions: 2 MB of map, a sixth of the start-up's
 * memory) and looks the rare one up among the units' descriptors. */
static uint32_t instrumented_at(uintptr_t addr) {
  const struct unit *lists[] = {units, units_left};
  for (size_t l = 0; l < sizeof lists / sizeof *lists; l++)
    for (const struct unit *u = lists[l]; u; u = u->next)
      for (uint32_t i = 0; i < u->tu->n_fns; i++) {
        const struct inclprof_fn *fn = u->tu->fns[i];
        if (fn && (uintptr_t)fn->addr == addr && (fn->flags & INCLPROF_FN_INSTRUMENTED))
          return ip_map_get(&by_desc, (uintptr_t)fn);
      }
  return 0;
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
  if (ip_entry_known(addr) && ip_lock(&reg_lock, in_signal)) {
    gid = ip_map_get(&by_addr, addr);
    if (!gid && (gid = instrumented_at(addr)))
      ip_map_put(&by_addr, addr, gid);
    ip_unlock(&reg_lock);
    if (gid)
      return gid;
  }
  /* Named by its dynamic symbol, else by the converter from the module's
   * file. */
  char name[IP_OBJECT_NAME];
  struct ip_object obj;
  uintptr_t real;
  int have_obj = ip_object_named(addr, &obj, name, sizeof name, &real, in_signal);
  if (!name[0])
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
    uint32_t module = module_of(have_obj ? &obj : NULL, addr, in_signal);
    gid = atomic_fetch_add(&next_gid, 1) + 1;
    write_function(gid, module, NULL, name, real, FN_FROM_ADDRESS, !in_signal);
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
  if (!id && n_marks < MAX_MARKS && (mark_text[n_marks] = ip_strndup(text, MAX_STR))) {
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
