/* model/session_tables.c - the session's module, function, thread and process
 * tables while loading: functions are merged across files by (module path,
 * stable id, assembler name), a global function that is not instrumented by
 * (module path, assembler name) alone, modules by path; a demangled name the
 * runtime cut is demangled whole again from the assembler name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fnv1a.h"
#include "inclprof_abi.h"
#include "model/loader.h"
#include "model/symbolize.h"
#include "util/util.h"

/* The runtime writes a name of this many bytes or more cut to this many
 * (a record fits its stack frame): the demangled name is cut, the
 * assembler name, shorter, is mostly whole. */
#define IP_RUNTIME_NAME_CUT 1000

#define MAX_DENSE_GID (1u << 22) /* larger gids are damage: not cached */

static uint64_t fnv_str(uint64_t h, const char *s) { return ip_fnv1a64_str(h, s ? s : ""); }

uint32_t ip_tables_module(ip_session *s, ip_tables *t, const char *path) {
  uint64_t h = fnv_str(IP_FNV1A64_BASIS, path);
  for (;; h++) {
    uint32_t m = ip_u64map_get(&t->module_by_path, h);
    if (m == UINT32_MAX)
      break;
    if (!strcmp(s->modules[m].path, path))
      return m;
  }
  ip_must_grow((void **)&s->modules, &t->cap_modules, s->n_modules + 1, sizeof *s->modules);
  uint32_t m = (uint32_t)s->n_modules++;
  s->modules[m].path = ip_must_strdup(path);
  ip_u64map_put(&t->module_by_path, h, m);
  return m;
}

/* The identity that tells functions of one module and assembler name apart:
 * none for a global function that is not instrumented, whose name is its
 * identity in its module (the same library function reached from two
 * executables, or by a call site and through a pointer, has one id in each). */
static uint64_t identity(const ip_func *f) {
  return (f->flags & (INCLPROF_FN_INSTRUMENTED | INCLPROF_FN_LOCAL)) ? f->id : 0;
}

uint32_t ip_tables_func(ip_session *s, ip_tables *t, const ip_func *proto) {
  const char *mpath = s->modules[proto->module].path;
  uint64_t id = identity(proto);
  uint64_t h = fnv_str(IP_FNV1A64_BASIS, mpath);
  h = ip_fnv1a64(h, &id, sizeof id);
  h = fnv_str(h, proto->name);
  for (;; h++) {
    uint32_t f = ip_u64map_get(&t->func_by_key, h);
    if (f == UINT32_MAX)
      break;
    const ip_func *g = &s->funcs[f];
    if (g->module == proto->module && identity(g) == id && !strcmp(g->name, proto->name))
      return f;
  }
  ip_must_grow((void **)&s->funcs, &t->cap_funcs, s->n_funcs + 1, sizeof *s->funcs);
  uint32_t f = (uint32_t)s->n_funcs++;
  ip_func *g = &s->funcs[f];
  *g = *proto;
  g->name = ip_must_strdup(proto->name);
  g->pretty = ip_must_strdup(proto->pretty && *proto->pretty ? proto->pretty : proto->name);
  if (strlen(g->pretty) >= IP_RUNTIME_NAME_CUT) { /* cut by the runtime: whole again */
    char *whole = ip_demangle_whole(g->name);
    if (whole && strlen(whole) > strlen(g->pretty)) {
      free(g->pretty);
      g->pretty = whole;
    } else {
      free(whole);
    }
  }
  g->file = ip_must_strdup(proto->file ? proto->file : "");
  ip_u64map_put(&t->func_by_key, h, f);
  return f;
}

uint32_t ip_tables_thread(ip_session *s, ip_tables *t, uint32_t proc, uint32_t tid) {
  ip_must_grow((void **)&s->threads, &t->cap_threads, s->n_threads + 1, sizeof *s->threads);
  uint32_t i = (uint32_t)s->n_threads++;
  ip_thread *th = &s->threads[i];
  th->process = proc;
  th->tid = tid;
  th->nodes = ip_must_calloc(1, sizeof *th->nodes);
  th->n_nodes = 1;
  th->nodes[0].func = UINT32_MAX;
  th->nodes[0].parent = th->nodes[0].first_child = th->nodes[0].next_sibling = IP_NO_NODE;
  return i;
}

uint32_t ip_tables_process(ip_session *s, ip_tables *t) {
  ip_must_grow((void **)&s->processes, &t->cap_processes, s->n_processes + 1, sizeof *s->processes);
  return (uint32_t)s->n_processes++;
}

void ip_tables_free(ip_tables *t) {
  ip_symbolizer_free(t->sym);
  ip_u64map_free(&t->module_by_path);
  ip_u64map_free(&t->func_by_key);
  ip_u64map_free(&t->site_by_key);
  ip_table_files_free(t);
}

int ip_file_define_func(ip_file *f, uint32_t gid, uint32_t fn) {
  if (gid >= MAX_DENSE_GID)
    return -1;
  size_t old = f->n_gid;
  ip_must_grow((void **)&f->gid_func, &f->n_gid, (size_t)gid + 1, sizeof *f->gid_func);
  for (size_t i = old; i < f->n_gid; i++)
    f->gid_func[i] = UINT32_MAX;
  f->gid_func[gid] = fn;
  return 0;
}

uint32_t ip_file_func_slow(ip_file *f, uint32_t gid) {
  char name[48];
  if (gid < MAX_DENSE_GID)
    snprintf(name, sizeof name, "<unknown function gid %u>", gid);
  else
    snprintf(name, sizeof name, "<invalid function gid>");
  ip_func proto = {.name = name, .pretty = name, .file = "", .module = 0};
  uint32_t fn = ip_tables_func(f->s, f->tabs, &proto);
  ip_file_define_func(f, gid, fn);
  return fn;
}
