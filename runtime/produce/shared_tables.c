/* shared_tables.c - the Function records of the registered units, written
 * once per object per output directory: the descriptors of an object's
 * units (instrumented functions and call-site callees), as registered since
 * the last batch, become one table file NAME.KEY.ipt in the trace directory
 * (table_file.c), which every process of the directory that loads the same
 * object names with a TableRef record (module, file, the gid of each entry)
 * instead of writing the records again.  KEY is a hash of the object's
 * build-id and of each entry's identity, line, size, flags and address in
 * the object (without a build-id: of the entries' names and files too), so
 * the same object with the same units always gives the same file, and a
 * file that exists need not be written.  When the table file cannot be
 * written (full disk, unwritable directory, file-size limit,
 * INCLPROF_TABLES=inline, snapshots of slow calls, interval files), the
 * records go into the trace as before.
 *
 * What differs between processes stays in the trace: the gids, the
 * object's load address, and for a call-site callee the object its name
 * binds to, written (a Function record with gid and module only) before
 * the first batch that names the callee (its state here, per gid).
 *
 * An object's table: its instrumented functions in registration order,
 * then each unit's call-site callees in the unit's order.  The callees of
 * PostgreSQL's server are 101 744 of its 115 255 entries: they are counted
 * per unit at registration and given their gids as ranges at the close, so
 * a process's start-up and table cost no work per callee beyond the test of
 * its name against the instrumented functions' (registry.c). */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "fnv1a.h"
#include "produce/produce.h"

#define MAX_BIND_GIDS (1u << 22) /* callee states kept for gids below this (16 MB of address) */
/* ... when the program's memory is bounded (mem_limits.c): 1 MB */
#define TIGHT_BIND_GIDS (1u << 18)
#define MAX_RUNS        4096u /* gid runs per TableRef (more: the records go into the trace) */

struct entry { /* an instrumented function */
  const struct inclprof_fn *fn;
  uint32_t gid, module;
};

/* A registered unit's call-site callees: its table callees (ip_table_callee)
 * in the order of its descriptor array, each the entry of its object's
 * table at position first + k, with gid first_gid + k once the table is
 * closed.  Nothing is done per callee at registration: a callee gets its gid
 * in the registry's map when a batch first names it (its unit's callees
 * all at once, ip_tables_callee_unit). */
struct tunit {
  const struct inclprof_tu *tu;
  uint32_t module, n_callees;
  uint32_t first_gid; /* 0 until its table is closed */
  uintptr_t lo, hi;   /* its table callees' descriptors lie in [lo, hi] */
  int expanded;       /* its callees' gids are in the registry's map */
};

struct object {
  uint32_t module;
  uintptr_t base;
  const char *path; /* registry.c's, alive as long as the module */
  uint8_t build_id[IP_BUILD_ID_MAX];
  size_t build_id_len;
};

static struct entry *pending;
static size_t n_pending, cap_pending;
static struct tunit **pending_units; /* registered since the last close */
static size_t n_pending_units, cap_pending_units;
/* The units whose tables are closed, by lo; hi_upto[i]: the greatest hi of
 * closed[0..i], so a search for a descriptor stops where no unit can hold it. */
static struct tunit **closed;
static uintptr_t *hi_upto;
static size_t n_closed, cap_closed;
static atomic_int any_pending;
static struct object *objects;
static size_t n_objects, cap_objects;
static _Atomic uint32_t *bind_state; /* bind_cap entries, mapped at the first callee */
static uint32_t bind_cap;            /* set before bind_state is */

static int inline_tables = -1; /* INCLPROF_TABLES=inline, read at the first object */

/* Snapshots of slow calls (INCLPROF_SNAPSHOT_IF) and the aggregate mode's
 * interval files (INCLPROF_INTERVAL) keep the records in the trace: the
 * ring finds the watched functions by their Function records, and each
 * snapshot or interval file is a trace of its own in a directory of its
 * own, which names no table beside it. */
static void read_setting(void) {
  const char *t = ip_set.tables;
  inline_tables = t && !strcmp(t, "inline");
  if (t && *t && !inline_tables && strcmp(t, "shared"))
    ip_say("inclprof: INCLPROF_TABLES='%s' is not shared or inline; using shared\n", t);
  inline_tables |= ip_snapshots_on() || ip_st.intervals_on;
}

static struct object *object_of(uint32_t module) {
  for (size_t i = 0; i < n_objects; i++)
    if (objects[i].module == module)
      return &objects[i];
  return NULL;
}

void ip_tables_object(uint32_t module, const char *path, uintptr_t base, const uint8_t *build_id,
                      size_t build_id_len) {
  if (inline_tables < 0)
    read_setting();
  if (object_of(module))
    return;
  if (n_objects == cap_objects) {
    size_t cap = cap_objects ? cap_objects * 2 : 16;
    struct object *o = ip_realloc(objects, cap * sizeof *o);
    if (!o)
      return; /* its entries go into the trace */
    objects = o;
    cap_objects = cap;
  }
  struct object *o = &objects[n_objects++];
  memset(o, 0, sizeof *o);
  o->module = module;
  o->base = base;
  o->path = path;
  o->build_id_len = build_id_len <= sizeof o->build_id ? build_id_len : 0;
  memcpy(o->build_id, build_id, o->build_id_len);
}

/* ---- callee bindings ---------------------------------------------------- */
uint32_t ip_bind_state(uint32_t gid) {
  _Atomic uint32_t *s = atomic_load_explicit(&bind_state, memory_order_acquire);
  return s && gid < bind_cap ? atomic_load_explicit(&s[gid], memory_order_relaxed) : 0;
}

void ip_bind_set(uint32_t gid, uint32_t state) {
  _Atomic uint32_t *s = atomic_load_explicit(&bind_state, memory_order_acquire);
  if (!s && state) { /* pages are touched only where gids are */
    uint32_t cap = ip_pool_tight() ? TIGHT_BIND_GIDS : MAX_BIND_GIDS;
    void *m = mmap(NULL, cap * sizeof *s, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
      return;
    ip_mem_own(m, cap * sizeof *s, 0);
    s = m;
    bind_cap = cap;
    atomic_store_explicit(&bind_state, s, memory_order_release);
  }
  if (s && gid < bind_cap)
    atomic_store_explicit(&s[gid], state, memory_order_relaxed);
}

void ip_bind_write(uint32_t gid, uint32_t module, int log_it) {
  Inclprof__Function f = INCLPROF__FUNCTION__INIT;
  f.gid = gid;
  f.has_module = 1;
  f.module = module;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_FUNCTION;
  rec.function = &f;
  ip_write_record(&rec, log_it);
}

/* ---- entries ------------------------------------------------------------ */
int ip_tables_pending(void) { return atomic_load_explicit(&any_pending, memory_order_acquire); }

/* Writes the Function record of fn with gid into the trace (module: its
 * object's for a function, 0 for a callee, whose binding follows). */
static void write_inline(const struct inclprof_fn *fn, uint32_t gid, uint32_t module, int log_it) {
  struct ip_fn_text t;
  Inclprof__Function f = INCLPROF__FUNCTION__INIT;
  ip_function_fill(&f, &t, fn, NULL);
  f.gid = gid;
  f.has_module = f.has_flags = 1;
  f.module = fn->flags & INCLPROF_FN_INSTRUMENTED ? module : 0;
  f.flags = fn->flags;
  f.has_addr = fn->addr != NULL;
  f.addr = (uint64_t)(uintptr_t)fn->addr;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_FUNCTION;
  rec.function = &f;
  ip_write_record(&rec, log_it);
}

void ip_tables_add(const struct inclprof_fn *fn, uint32_t gid, uint32_t module) {
  if (n_pending == cap_pending) {
    size_t cap = cap_pending ? cap_pending * 2 : 1024;
    struct entry *p = ip_realloc(pending, cap * sizeof *p);
    if (!p) { /* no room to gather it: the record goes into the trace now */
      write_inline(fn, gid, module, 1);
      return;
    }
    pending = p;
    cap_pending = cap;
  }
  pending[n_pending++] = (struct entry){fn, gid, module};
  atomic_store_explicit(&any_pending, 1, memory_order_release);
}

void ip_tables_add_unit(const struct inclprof_tu *tu, uint32_t module,
                        const struct ip_unit_callees *c) {
  if (n_pending_units == cap_pending_units) {
    size_t cap = cap_pending_units ? cap_pending_units * 2 : 256;
    struct tunit **p = ip_realloc(pending_units, cap * sizeof *p);
    if (!p)
      return; /* its callees are named one by one when met (registry.c) */
    pending_units = p;
    cap_pending_units = cap;
  }
  struct tunit *t = ip_alloc(sizeof *t);
  if (!t)
    return;
  *t = (struct tunit){tu, module, c->n, 0, c->lo, c->hi, 0};
  pending_units[n_pending_units++] = t;
  atomic_store_explicit(&any_pending, 1, memory_order_release);
}

/* ---- finding a callee's unit -------------------------------------------- */
/* Position of the first closed unit whose lo is above p. */
static size_t closed_above(uintptr_t p) {
  size_t a = 0, b = n_closed;
  while (a < b) {
    size_t m = a + (b - a) / 2;
    if (closed[m]->lo <= p)
      a = m + 1;
    else
      b = m;
  }
  return a;
}

static void closed_fix_hi(size_t from) {
  for (size_t i = from; i < n_closed; i++)
    hi_upto[i] = i && hi_upto[i - 1] > closed[i]->hi ? hi_upto[i - 1] : closed[i]->hi;
}

/* Unit u joins the closed units (its lo's place: units register in the
 * order they lie in memory, so this is mostly an append). */
static int closed_add(struct tunit *u) {
  if (n_closed == cap_closed) {
    size_t cap = cap_closed ? cap_closed * 2 : 256;
    struct tunit **c = ip_realloc(closed, cap * sizeof *c);
    if (!c)
      return 0;
    closed = c;
    uintptr_t *h = ip_realloc(hi_upto, cap * sizeof *h);
    if (!h)
      return 0;
    hi_upto = h;
    cap_closed = cap;
  }
  size_t at = closed_above(u->lo);
  memmove(closed + at + 1, closed + at, (n_closed - at) * sizeof *closed);
  closed[at] = u;
  n_closed++;
  closed_fix_hi(at);
  return 1;
}

/* Does unit u list fn among its table callees? */
static int unit_lists(const struct tunit *u, const struct inclprof_fn *fn) {
  for (uint32_t i = 0; i < u->tu->n_fns; i++)
    if (u->tu->fns[i] == fn)
      return 1;
  return 0;
}

int ip_tables_callee_unit(const struct inclprof_fn *fn) {
  uintptr_t p = (uintptr_t)fn;
  for (size_t i = closed_above(p); i-- > 0 && hi_upto[i] >= p;) {
    struct tunit *u = closed[i];
    if (u->expanded || p > u->hi || !unit_lists(u, fn))
      continue;
    u->expanded = 1;
    ip_unit_callee_gids(u->tu, u->first_gid);
    return 1;
  }
  return 0;
}

void ip_tables_unit_gone(const struct inclprof_tu *tu) {
  for (size_t i = 0; i < n_closed; i++)
    if (closed[i]->tu == tu) {
      ip_free(closed[i]);
      memmove(closed + i, closed + i + 1, (n_closed - i - 1) * sizeof *closed);
      n_closed--;
      closed_fix_hi(i);
      return;
    }
}

/* ---- one object's table ------------------------------------------------- */
static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v;
  h *= 0x9e3779b97f4a7c15ull;
  return h ^ (h >> 29);
}

static uint64_t rel_addr(const struct object *o, const struct inclprof_fn *fn) {
  return fn->addr ? (uint64_t)((uintptr_t)fn->addr - o->base) : 0;
}

/* One object's entries: its instrumented functions f[0..nf), then the
 * callees of its units u[0..nu) (nc in all). */
struct table {
  const struct object *o;
  uint32_t module;
  const struct entry *f;
  size_t nf;
  struct tunit *const *u;
  size_t nu, nc;
};

static uint64_t entry_key(uint64_t h, const struct object *o, const struct inclprof_fn *fn) {
  h = mix(h, fn->id);
  h = mix(h, (uint64_t)fn->flags << 32 | fn->line);
  h = mix(h, fn->size);
  h = mix(h, rel_addr(o, fn));
  h = ip_fnv1a64_str(h, fn->name ? fn->name : "");
  h = ip_fnv1a64_str(h, fn->pretty ? fn->pretty : "");
  return ip_fnv1a64_str(h, fn->file ? fn->file : "");
}

/* The key of table t.  With a build-id, which names the object's contents
 * and so every descriptor of it, the table's layout suffices: its units (by
 * their place in the object) and how many functions and callees each
 * brings; without one the entries themselves are hashed. */
static uint64_t table_key(const struct table *t) {
  const struct object *o = t->o;
  uint64_t h = ip_fnv1a64(IP_FNV1A64_BASIS, o->build_id, o->build_id_len);
  h = mix(h, t->nf);
  h = mix(h, t->nc);
  if (o->build_id_len) {
    for (size_t i = 0; i < t->nf; i++)
      h = mix(h, (uintptr_t)t->f[i].fn - o->base);
    for (size_t i = 0; i < t->nu; i++)
      h = mix(mix(h, (uintptr_t)t->u[i]->tu - o->base), t->u[i]->n_callees);
    return h;
  }
  for (size_t i = 0; i < t->nf; i++)
    h = entry_key(h, o, t->f[i].fn);
  for (size_t i = 0; i < t->nu; i++)
    for (uint32_t k = 0; k < t->u[i]->tu->n_fns; k++)
      if (ip_table_callee(t->u[i]->tu->fns[k]))
        h = entry_key(h, o, t->u[i]->tu->fns[k]);
  return h;
}

/* "NAME.KEY.ipt": the object's base name (characters a file name may hold
 * anywhere, at most 64) and the key. */
static void table_name(char *out, size_t cap, const struct object *o, uint64_t key) {
  const char *base = o->path ? strrchr(o->path, '/') : NULL;
  base = base ? base + 1 : o->path ? o->path : "";
  char name[65];
  size_t n = 0;
  for (; *base && n < sizeof name - 1; base++)
    name[n++] = (*base >= 'a' && *base <= 'z') || (*base >= 'A' && *base <= 'Z') ||
                        (*base >= '0' && *base <= '9') || *base == '.' || *base == '-' ||
                        *base == '+'
                    ? *base
                    : '_';
  name[n] = 0;
  snprintf(out, cap, "%s.%016llx.ipt", n ? name : "object", (unsigned long long)key);
}

/* The length of s cut to IP_NAME_MAX bytes, measured once for the rows
 * in a row that share the string (a unit's file, a library callee's name,
 * which the linker merges into one copy).  A cache lives for one table's
 * writing: no unit is unloaded meanwhile (the caller holds reg_lock). */
struct len_cache {
  const char *s;
  size_t n;
};

static size_t cut_len(struct len_cache *c, const char *s) {
  if (s != c->s) {
    size_t n = 0;
    while (n < IP_NAME_MAX && s[n])
      n++;
    c->s = s;
    c->n = n;
  }
  return c->n;
}

/* Row `gid` (1 on) of a table file: fn, with the fields and bytes
 * ip_function_fill gives (the strings written by their lengths, so a cut
 * one needs no copy; the printable name left out when it is the name). */
static int write_row(const struct object *o, const struct inclprof_fn *fn, uint32_t gid,
                     struct len_cache c[3]) {
  Inclprof__Function f = INCLPROF__FUNCTION__INIT;
  ip_function_lens lens;
  const char *name = fn->name ? fn->name : "";
  const char *pretty = fn->pretty && *fn->pretty ? fn->pretty : name;
  lens.name = cut_len(&c[0], name);
  lens.pretty = pretty == name ? 0 : cut_len(&c[1], pretty);
  f.name = (char *)name;
  f.pretty = lens.pretty && (lens.pretty != lens.name || memcmp(pretty, name, lens.name))
                 ? (char *)pretty
                 : NULL;
  if (!f.pretty)
    lens.pretty = 0;
  f.file = (char *)(fn->file ? fn->file : "");
  lens.file = cut_len(&c[2], f.file);
  f.has_id = f.has_line = f.has_size = 1;
  f.id = fn->id;
  f.line = fn->line;
  f.size = fn->size;
  f.gid = gid;
  f.has_module = f.has_flags = 1;
  f.module = fn->flags & INCLPROF_FN_INSTRUMENTED ? 1 : 0;
  f.flags = fn->flags;
  f.has_addr = fn->addr != NULL;
  f.addr = rel_addr(o, fn);
  return ip_table_file_add_function(&f, &lens);
}

/* The table file of t: 0, or an errno. */
static int write_table(const char *name, uint64_t key, const struct table *t) {
  const struct object *o = t->o;
  int err = ip_table_file_begin(name);
  if (err)
    return err;
  char keytext[17];
  snprintf(keytext, sizeof keytext, "%016llx", (unsigned long long)key);
  Inclprof__Table tb = INCLPROF__TABLE__INIT;
  tb.key = keytext;
  tb.path = (char *)o->path;
  tb.has_build_id = o->build_id_len > 0;
  tb.build_id.data = (uint8_t *)o->build_id;
  tb.build_id.len = o->build_id_len;
  tb.has_functions = 1;
  tb.functions = (uint32_t)(t->nf + t->nc);
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_TABLE;
  rec.table = &tb;
  err = ip_table_file_add(&rec);
  uint32_t row = 0;
  struct len_cache c[3] = {{NULL, 0}, {NULL, 0}, {NULL, 0}};
  for (size_t i = 0; i < t->nf && !err; i++)
    err = write_row(o, t->f[i].fn, ++row, c);
  for (size_t i = 0; i < t->nu && !err; i++)
    for (uint32_t k = 0; k < t->u[i]->tu->n_fns && !err; k++)
      if (ip_table_callee(t->u[i]->tu->fns[k]))
        err = write_row(o, t->u[i]->tu->fns[k], ++row, c);
  if (err) {
    ip_table_file_abort();
    return err;
  }
  return ip_table_file_commit();
}

/* The TableRef of t: the gids of its entries as runs (an object's
 * functions have consecutive gids, unless another object's units
 * registered between its own, and its callees one range).  0, or -1 when
 * the runs do not fit. */
static int write_ref(const char *name, uint64_t key, const struct table *t, int log_it) {
  static uint32_t runs[2 * MAX_RUNS];
  size_t k = 0;
  for (size_t i = 0; i < t->nf + (t->nc > 0); i++) {
    uint32_t gid = i < t->nf ? t->f[i].gid : t->u[0]->first_gid, n = i < t->nf ? 1 : t->nc;
    if (k && runs[k - 2] + runs[k - 1] == gid) {
      runs[k - 1] += n;
      continue;
    }
    if (k == 2 * MAX_RUNS)
      return -1;
    runs[k++] = gid;
    runs[k++] = n;
  }
  char keytext[17];
  snprintf(keytext, sizeof keytext, "%016llx", (unsigned long long)key);
  Inclprof__TableRef r = INCLPROF__TABLE_REF__INIT;
  r.module = t->module;
  r.file = (char *)name;
  r.key = keytext;
  r.has_functions = 1;
  r.functions = (uint32_t)(t->nf + t->nc);
  r.n_gid_runs = k;
  r.gid_runs = runs;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_TABLE_REF;
  rec.table_ref = &r;
  ip_write_record(&rec, log_it);
  return 0;
}

/* Table t into a table file and a TableRef, or its records into the trace
 * (a callee that shares an instrumented function's gid has none of its
 * own to describe). */
static void close_object(const struct table *t, int in_signal) {
  int log_it = !in_signal;
  if (t->o && inline_tables != 1) {
    uint64_t key = table_key(t);
    char name[128];
    table_name(name, sizeof name, t->o, key);
    if ((ip_table_file_exists(name) || write_table(name, key, t) == 0) &&
        write_ref(name, key, t, log_it) == 0)
      return;
  }
  for (size_t i = 0; i < t->nf; i++)
    write_inline(t->f[i].fn, t->f[i].gid, t->module, log_it);
  for (size_t i = 0; i < t->nu; i++) {
    const struct inclprof_tu *tu = t->u[i]->tu;
    uint32_t gid = t->u[i]->first_gid;
    for (uint32_t k = 0; k < tu->n_fns; k++)
      if (ip_table_callee(tu->fns[k])) {
        if (!(tu->fns[k]->runtime_flags & INCLPROF_RT_CALLEE_INSTRUMENTED))
          write_inline(tu->fns[k], gid, 0, log_it);
        gid++;
      }
  }
}

/* Stable partition of the pending functions by module (a counting sort on
 * the module ids, few and small); left as is when the room cannot be had
 * (an object's functions then make several tables, still right). */
static void group_pending(uint32_t max_module) {
  uint32_t *at = n_pending > 1 ? ip_alloc((max_module + 2) * sizeof *at) : NULL;
  struct entry *to = at ? ip_alloc(n_pending * sizeof *to) : NULL;
  if (!to) {
    ip_free(at);
    return;
  }
  for (size_t i = 0; i < n_pending; i++)
    at[pending[i].module + 1]++;
  for (uint32_t m = 1; m <= max_module + 1; m++)
    at[m] += at[m - 1];
  for (size_t i = 0; i < n_pending; i++)
    to[at[pending[i].module]++] = pending[i];
  memcpy(pending, to, n_pending * sizeof *pending);
  ip_free(to);
  ip_free(at);
}

void ip_tables_close_locked(int in_signal) {
  uint32_t max_module = 0;
  for (size_t i = 0; i < n_pending; i++)
    max_module = pending[i].module > max_module ? pending[i].module : max_module;
  for (size_t i = 0; i < n_pending_units; i++)
    max_module = pending_units[i]->module > max_module ? pending_units[i]->module : max_module;
  group_pending(max_module);
  /* Units by module too, each module's in registration order (few: a
   * selection per module). */
  for (size_t i = 1; i < n_pending_units; i++)
    for (size_t j = i; j > 0 && pending_units[j - 1]->module > pending_units[j]->module; j--) {
      struct tunit *u = pending_units[j];
      pending_units[j] = pending_units[j - 1];
      pending_units[j - 1] = u;
    }
  size_t f = 0, u = 0;
  while (f < n_pending || u < n_pending_units) {
    uint32_t module =
        f < n_pending && (u == n_pending_units || pending[f].module <= pending_units[u]->module)
            ? pending[f].module
            : pending_units[u]->module;
    struct table t = {object_of(module), module, pending + f, 0, pending_units + u, 0, 0};
    while (f + t.nf < n_pending && pending[f + t.nf].module == module)
      t.nf++;
    while (u + t.nu < n_pending_units && pending_units[u + t.nu]->module == module)
      t.nc += pending_units[u + t.nu++]->n_callees;
    /* The callees' gids, one range, follow every instrumented function's
     * registered so far: those, the most called, keep the smallest gids
     * (shortest codes). */
    uint32_t gid = t.nc ? ip_gids_take((uint32_t)t.nc) : 0;
    for (size_t i = 0; i < t.nu; i++) {
      t.u[i]->first_gid = gid;
      gid += t.u[i]->n_callees;
    }
    close_object(&t, in_signal);
    for (size_t i = 0; i < t.nu; i++)
      if (!closed_add(t.u[i]))
        ip_free(t.u[i]); /* its callees are named one by one when met */
    f += t.nf;
    u += t.nu;
  }
  n_pending = n_pending_units = 0;
  ip_free(pending); /* gathered again at the next registration */
  pending = NULL;
  cap_pending = 0;
  atomic_store(&any_pending, 0);
}
