/* model/address_names.c - Function records the runtime named by a bare
 * address ("0x...": an indirect-call target neither instrumented nor in the
 * dynamic symbol table) get a name from the module file (model/symbolize.h),
 * so no row carries a run-time address and the same target merges across
 * runs and processes.  Targets the runtime named from the dynamic symbol
 * table (dladdr, assembler names) get their demangled name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/loader.h"
#include "model/symbolize.h"

#define FUNCTION_FROM_ADDRESS 0x100u
#define OUTSIDE_MODULES       "[code outside the recorded modules]"

/* The process's record of module id (Module.id), or (id 0: unknown) the one
 * whose loaded extent holds addr; NULL if none. */
static const ip_proc_module *module_of(ip_file *f, uint32_t id, uint64_t addr) {
  const ip_process *p = &f->s->processes[f->proc];
  for (size_t i = 0; i < p->n_mods; i++) {
    const ip_proc_module *pm = &p->mods[i];
    ip_sym_module m = {f->s->modules[pm->module].path, pm->load_address, pm->has_stat, pm->mtime_ns,
                       pm->size};
    if (id ? pm->id == id : ip_symbolize_contains(f->tabs->sym, &m, addr))
      return pm;
  }
  return NULL;
}

int ip_file_name_address(ip_file *f, const Inclprof__Function *fn, ip_func *proto, ip_sym *sym) {
  if (!(fn->flags & FUNCTION_FROM_ADDRESS) || !fn->name)
    return 0;
  if (strncmp(fn->name, "0x", 2)) {
    if (strncmp(fn->name, "_Z", 2) || (fn->pretty && strcmp(fn->pretty, fn->name)) ||
        !ip_demangle(fn->name, sym->pretty, sizeof sym->pretty))
      return 0;
    proto->pretty = sym->pretty;
    return 1;
  }
  uint64_t addr = fn->has_addr ? fn->addr : strtoull(fn->name, NULL, 16);
  if (!f->tabs->sym)
    f->tabs->sym = ip_symbolizer_new();
  const ip_proc_module *pm = module_of(f, proto->module ? fn->module : 0, addr);
  if (!pm) {
    proto->name = proto->pretty = OUTSIDE_MODULES;
    proto->module = 0;
    return 1;
  }
  ip_sym_module m = {f->s->modules[pm->module].path, pm->load_address, pm->has_stat, pm->mtime_ns,
                     pm->size};
  char note[1200];
  ip_symbolize(f->tabs->sym, &m, addr, sym, note, sizeof note);
  if (note[0])
    ip_file_warn(f, m.path, note);
  proto->name = sym->name;
  proto->pretty = sym->pretty;
  proto->file = sym->file;
  proto->line = sym->line;
  proto->module = pm->module;
  return 1;
}
