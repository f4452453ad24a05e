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
 * the first batch that names the callee (its state here, per gid). */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "fnv1a.h"
#include "produce/produce.h"

#define MAX_BIND_GIDS (1u << 22) /* callee states kept for gids below this */
#define MAX_RUNS      4096u      /* gid runs per TableRef (more: the records go into the trace) */

struct entry {
  const struct inclprof_fn *fn;
  uint32_t gid, module; /* gid: an instrumented function's; a callee's is given at the close */
  uint64_t name_hash;   /* a callee's: its call lines are grouped by name */
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
static atomic_int any_pending;
static struct object *objects;
static size_t n_objects, cap_objects;
static _Atomic uint32_t *bind_state; /* MAX_BIND_GIDS entries, mapped at the first callee */

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
  return s && gid < MAX_BIND_GIDS ? atomic_load_explicit(&s[gid], memory_order_relaxed) : 0;
}

void ip_bind_set(uint32_t gid, uint32_t state) {
  _Atomic uint32_t *s = atomic_load_explicit(&bind_state, memory_order_acquire);
  if (!s && state) { /* pages are touched only where gids are */
    void *m = mmap(NULL, MAX_BIND_GIDS * sizeof *s, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
      return;
    s = m;
    atomic_store_explicit(&bind_state, s, memory_order_release);
  }
  if (s && gid < MAX_BIND_GIDS)
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

/* Writes e's Function record into the trace (module: its object's, or 0
 * for a callee, whose binding follows). */
static void write_inline(const struct entry *e, int log_it) {
  struct ip_fn_text t;
  Inclprof__Function f = INCLPROF__FUNCTION__INIT;
  ip_function_fill(&f, &t, e->fn, NULL);
  f.gid = e->gid;
  f.has_module = f.has_flags = 1;
  f.module = e->fn->flags & INCLPROF_FN_INSTRUMENTED ? e->module : 0;
  f.flags = e->fn->flags;
  f.has_addr = e->fn->addr != NULL;
  f.addr = (uint64_t)(uintptr_t)e->fn->addr;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_FUNCTION;
  rec.function = &f;
  ip_write_record(&rec, log_it);
}

void ip_tables_add(const struct inclprof_fn *fn, uint32_t gid, uint32_t module,
                   uint64_t name_hash) {
  struct entry e = {fn, gid, module, gid ? 0 : name_hash};
  if (n_pending == cap_pending) {
    size_t cap = cap_pending ? cap_pending * 2 : 1024;
    struct entry *p = ip_realloc(pending, cap * sizeof *p);
    if (!p) { /* no room to gather it: the record goes into the trace now */
      if (!e.gid)
        e.gid = ip_callee_gid(fn, e.name_hash);
      if (e.gid)
        write_inline(&e, 1);
      return;
    }
    pending = p;
    cap_pending = cap;
  }
  pending[n_pending++] = e;
  atomic_store_explicit(&any_pending, 1, memory_order_release);
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

/* The key of the table of entries e[0..n) of object o. */
static uint64_t table_key(const struct object *o, const struct entry *e, size_t n) {
  uint64_t h = ip_fnv1a64(IP_FNV1A64_BASIS, o->build_id, o->build_id_len);
  h = mix(h, n);
  for (size_t i = 0; i < n; i++) {
    const struct inclprof_fn *fn = e[i].fn;
    h = mix(h, fn->id);
    h = mix(h, (uint64_t)fn->flags << 32 | fn->line);
    h = mix(h, fn->size);
    h = mix(h, rel_addr(o, fn));
    if (!o->build_id_len) { /* nothing names the object's contents: the entries do */
      h = ip_fnv1a64_str(h, fn->name ? fn->name : "");
      h = ip_fnv1a64_str(h, fn->pretty ? fn->pretty : "");
      h = ip_fnv1a64_str(h, fn->file ? fn->file : "");
    }
  }
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

/* The table file of entries e[0..n): 0, or an errno. */
static int write_table(const char *name, uint64_t key, const struct object *o,
                       const struct entry *e, size_t n) {
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
  tb.functions = (uint32_t)n;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_TABLE;
  rec.table = &tb;
  err = ip_table_file_add(&rec);
  for (size_t i = 0; i < n && !err; i++) {
    struct ip_fn_text t;
    Inclprof__Function f = INCLPROF__FUNCTION__INIT;
    ip_function_fill(&f, &t, e[i].fn, NULL);
    f.gid = (uint32_t)i + 1;
    f.has_module = f.has_flags = 1;
    f.module = e[i].fn->flags & INCLPROF_FN_INSTRUMENTED ? 1 : 0;
    f.flags = e[i].fn->flags;
    f.has_addr = e[i].fn->addr != NULL;
    f.addr = rel_addr(o, e[i].fn);
    err = ip_table_file_add_function(&f, &t.lens);
  }
  if (err) {
    ip_table_file_abort();
    return err;
  }
  return ip_table_file_commit();
}

/* The TableRef of entries e[0..n): their gids as runs (the gids of an
 * object's functions are consecutive, and those of its callees too, so runs
 * are few; a run from gid 0: entries with no gid of their own, callees that
 * share an instrumented function's).  0, or -1 when the runs do not fit. */
static int write_ref(const char *name, uint64_t key, uint32_t module, const struct entry *e,
                     size_t n, int log_it) {
  static uint32_t runs[2 * MAX_RUNS];
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    int zeros = k && !runs[k - 2] && !e[i].gid; /* entries with no gid of their own */
    if (zeros || (k && runs[k - 2] && runs[k - 2] + runs[k - 1] == e[i].gid)) {
      runs[k - 1]++;
      continue;
    }
    if (k == 2 * MAX_RUNS)
      return -1;
    runs[k++] = e[i].gid;
    runs[k++] = 1;
  }
  char keytext[17];
  snprintf(keytext, sizeof keytext, "%016llx", (unsigned long long)key);
  Inclprof__TableRef r = INCLPROF__TABLE_REF__INIT;
  r.module = module;
  r.file = (char *)name;
  r.key = keytext;
  r.has_functions = 1;
  r.functions = (uint32_t)n;
  r.n_gid_runs = k;
  r.gid_runs = runs;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_TABLE_REF;
  rec.table_ref = &r;
  ip_write_record(&rec, log_it);
  return 0;
}

/* The entries of one object, e[0..n). */
static void close_object(const struct object *o, uint32_t module, const struct entry *e, size_t n,
                         int in_signal) {
  int log_it = !in_signal;
  if (o && inline_tables != 1) {
    uint64_t key = table_key(o, e, n);
    char name[128];
    table_name(name, sizeof name, o, key);
    if ((ip_table_file_exists(name) || write_table(name, key, o, e, n) == 0) &&
        write_ref(name, key, module, e, n, log_it) == 0)
      return;
  }
  for (size_t i = 0; i < n; i++)
    if (e[i].gid)
      write_inline(&e[i], log_it);
}

/* An object's entries together: its instrumented functions first, then its
 * callees grouped by name (by the low 32 bits of its hash), each in
 * registration order (the sort is stable), so that the call lines of one
 * name, which share an instrumented function's gid or get consecutive gids
 * of their own, make one run of the TableRef however the call sites of
 * different names interleave (a program whose every function calls strtol
 * and another instrumented function: a few runs, not two per function).
 * Two names whose hashes agree in those bits may interleave: a run more,
 * still right. */
static uint64_t sort_key(const struct entry *e) {
  return (uint64_t)(e->module << 1 | (e->gid ? 0u : 1u)) << 32 | (uint32_t)e->name_hash;
}

/* Sorts pending[] by sort_key (module, callee or not, name hash), stably:
 * a least significant digit radix sort through a second array, digits of
 * 16 bits (8 for fewer than 16 384 entries, whose 65 536 counts would
 * cost more than three more passes), a pass whose digit is the same in
 * every entry skipped.  A merge sort's comparisons cost 60 M instructions on
 * PostgreSQL's 115 000 entries, which every process it starts paid; qsort
 * may call the program's malloc.  Left unsorted when the arrays cannot be
 * had: an object's entries then make several tables, still right. */
static void sort_pending(void) {
  size_t n = n_pending;
  unsigned bits = n < 16384 ? 8 : 16, size = 1u << bits, digits = 48 / bits;
  uint64_t *key = n > 1 ? ip_alloc(n * sizeof *key) : NULL;
  struct entry *buf = key ? ip_alloc(n * sizeof *buf) : NULL;
  uint32_t *count = buf ? ip_alloc(size * sizeof *count) : NULL;
  if (!count) {
    ip_free(buf);
    ip_free(key);
    return;
  }
  struct entry *from = pending, *to = buf;
  for (unsigned d = 0; d < digits; d++) {
    unsigned shift = bits * d, mask = size - 1;
    memset(count, 0, size * sizeof *count);
    for (size_t i = 0; i < n; i++)
      count[(key[i] = sort_key(&from[i])) >> shift & mask]++;
    if (count[key[0] >> shift & mask] == n)
      continue; /* one value: the order stays */
    uint32_t at = 0;
    for (unsigned b = 0; b < size; b++) {
      uint32_t c = count[b];
      count[b] = at;
      at += c;
    }
    for (size_t i = 0; i < n; i++)
      to[count[key[i] >> shift & mask]++] = from[i];
    struct entry *t = from;
    from = to;
    to = t;
  }
  if (from != pending)
    memcpy(pending, from, n * sizeof *pending);
  ip_free(count);
  ip_free(buf);
  ip_free(key);
}

void ip_tables_close_locked(int in_signal) {
  if (!n_pending) {
    atomic_store(&any_pending, 0);
    return;
  }
  sort_pending();
  /* The callees' gids follow every instrumented function's registered so
   * far: those, the most called, keep the smallest gids (shortest codes). */
  for (size_t i = 0; i < n_pending; i++)
    if (!pending[i].gid)
      pending[i].gid = ip_callee_gid(pending[i].fn, pending[i].name_hash);
  for (size_t i = 0, j; i < n_pending; i = j) {
    for (j = i + 1; j < n_pending && pending[j].module == pending[i].module; j++)
      ;
    close_object(object_of(pending[i].module), pending[i].module, pending + i, j - i, in_signal);
  }
  n_pending = 0;
  ip_free(pending); /* gathered again at the next registration */
  pending = NULL;
  cap_pending = 0;
  atomic_store(&any_pending, 0);
}
