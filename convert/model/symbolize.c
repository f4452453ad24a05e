/* model/symbolize.c - names code addresses from the module files (see
 * model/symbolize.h).  Each module file is opened once with libdwfl, at bias
 * 0, so its addresses are the file's own virtual addresses: a run-time
 * address maps to load-address-relative offset + the file's lowest loaded
 * address.  Separate debug info is looked for only on this machine
 * (/usr/lib/debug/.build-id), never over the network. */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/symbolize.h"
#include "util/util.h"

typedef struct sym_file {
  char *path;
  int usable; /* 1: opened and read; 0: missing or not ELF (why says what) */
  int noted;  /* the note about this file was given */
  char why[160];
  Dwfl *dwfl;
  Dwfl_Module *mod;
  uint64_t low, high; /* loaded extent, file virtual addresses */
  uint64_t mtime_ns, size;
} sym_file;

struct ip_symbolizer {
  sym_file *v;
  size_t n, cap;
};

/* Separate debug info by build ID, in the local debug directory only. */
static int local_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
                           const char *file_name, const char *debuglink, GElf_Word crc,
                           char **debuginfo_file_name) {
  (void)userdata, (void)modname, (void)base, (void)file_name, (void)debuglink, (void)crc;
  const unsigned char *id;
  GElf_Addr at;
  int n = dwfl_module_build_id(mod, &id, &at);
  if (n < 2)
    return -1;
  char path[128 + 2 * 64];
  int k = snprintf(path, sizeof path, "/usr/lib/debug/.build-id/%02x/", id[0]);
  for (int i = 1; i < n && i < 64; i++)
    k += snprintf(path + k, sizeof path - (size_t)k, "%02x", id[i]);
  snprintf(path + k, sizeof path - (size_t)k, ".debug");
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd >= 0)
    *debuginfo_file_name = ip_must_strdup(path);
  return fd;
}

static int no_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                  char **file_name, Elf **elfp) {
  (void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)elfp;
  return -1;
}

static const Dwfl_Callbacks callbacks = {
    .find_elf = no_elf,
    .find_debuginfo = local_debuginfo,
    .section_address = dwfl_offline_section_address,
};

int ip_demangle(const char *name, char *out, size_t out_len) {
  char *d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
  if (d)
    snprintf(out, out_len, "%s", d);
  free(d);
  return d != NULL;
}

char *ip_demangle_whole(const char *name) { return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI); }

ip_symbolizer *ip_symbolizer_new(void) { return ip_must_calloc(1, sizeof(ip_symbolizer)); }

void ip_symbolizer_free(ip_symbolizer *z) {
  if (!z)
    return;
  for (size_t i = 0; i < z->n; i++) {
    if (z->v[i].dwfl)
      dwfl_end(z->v[i].dwfl);
    free(z->v[i].path);
  }
  free(z->v);
  free(z);
}

static void open_file(sym_file *f) {
  struct stat st;
  if (f->path[0] != '/') { /* the vDSO and other files the loader made up */
    snprintf(f->why, sizeof f->why, "is not a file on disk");
    return;
  }
  if (stat(f->path, &st)) {
    snprintf(f->why, sizeof f->why, "is gone since it was recorded");
    return;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(f->why, sizeof f->why, "is not a regular file");
    return;
  }
  f->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
  f->size = (uint64_t)st.st_size;
  f->dwfl = dwfl_begin(&callbacks);
  f->mod = f->dwfl ? dwfl_report_elf(f->dwfl, f->path, f->path, -1, 0, true) : NULL;
  if (!f->mod) {
    snprintf(f->why, sizeof f->why, "cannot be read as ELF (%s)", dwfl_errmsg(-1));
    return;
  }
  dwfl_report_end(f->dwfl, NULL, NULL);
  Dwarf_Addr low, high;
  dwfl_module_info(f->mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
  f->low = low;
  f->high = high;
  f->usable = 1;
}

static sym_file *file_of(ip_symbolizer *z, const char *path) {
  for (size_t i = 0; i < z->n; i++)
    if (!strcmp(z->v[i].path, path))
      return &z->v[i];
  ip_must_grow((void **)&z->v, &z->cap, z->n + 1, sizeof *z->v);
  sym_file *f = &z->v[z->n++];
  memset(f, 0, sizeof *f);
  f->path = ip_must_strdup(path);
  open_file(f);
  return f;
}

/* The file's virtual address of a run-time address, or 0 when it is outside. */
static uint64_t file_vaddr(const sym_file *f, const ip_sym_module *m, uint64_t addr) {
  if (!f->usable || addr < m->load_address)
    return 0;
  uint64_t v = addr - m->load_address + f->low;
  return v >= f->low && v < f->high ? v : 0;
}

int ip_symbolize_contains(ip_symbolizer *z, const ip_sym_module *m, uint64_t addr) {
  return file_vaddr(file_of(z, m->path), m, addr) != 0;
}

struct Dwfl_Module *ip_symbolize_dwfl(ip_symbolizer *z, const ip_sym_module *m, uint64_t addr,
                                      uint64_t *vaddr) {
  sym_file *f = file_of(z, m->path);
  if (f->usable && m->has_stat && (m->mtime_ns != f->mtime_ns || m->size != f->size))
    return NULL;
  *vaddr = file_vaddr(f, m, addr);
  return *vaddr ? f->mod : NULL;
}

struct Dwfl_Module *ip_symbolize_module(ip_symbolizer *z, const ip_sym_module *m) {
  const sym_file *f = file_of(z, m->path);
  if (!f->usable || (m->has_stat && (m->mtime_ns != f->mtime_ns || m->size != f->size)))
    return NULL;
  return f->mod;
}

/* The name of the function whose code contains v, from the debug info. */
static const char *dwarf_function(Dwfl_Module *mod, uint64_t v) {
  Dwarf_Addr bias;
  Dwarf_Die *cu = dwfl_module_addrdie(mod, v, &bias);
  Dwarf_Die *scopes = NULL;
  int n = cu ? dwarf_getscopes(cu, v - bias, &scopes) : 0;
  const char *name = NULL;
  for (int i = 0; i < n && !name; i++)
    if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
      Dwarf_Attribute a;
      name = dwarf_formstring(dwarf_attr_integrate(&scopes[i], DW_AT_linkage_name, &a));
      if (!name)
        name = dwarf_diename(&scopes[i]);
    }
  free(scopes);
  return name;
}

static void source_line(Dwfl_Module *mod, uint64_t v, ip_sym *out) {
  Dwfl_Line *l = dwfl_module_getsrc(mod, v);
  int line = 0;
  const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
  if (file) {
    snprintf(out->file, sizeof out->file, "%s", file);
    out->line = line > 0 ? (uint32_t)line : 0;
  }
}

/* Names v from the symbol table or the debug info; 0 when neither knows it. */
static int name_of(sym_file *f, uint64_t v, ip_sym *out) {
  GElf_Off off = 0;
  GElf_Sym sym;
  const char *name = dwfl_module_addrinfo(f->mod, v, &off, &sym, NULL, NULL, NULL);
  if (name && *name && (off == 0 || off < sym.st_size)) {
    if (off)
      snprintf(out->name, sizeof out->name, "%s+0x%llx", name, (unsigned long long)off);
    else
      snprintf(out->name, sizeof out->name, "%s", name);
    source_line(f->mod, v - off, out);
  } else if ((name = dwarf_function(f->mod, v))) {
    snprintf(out->name, sizeof out->name, "%s", name);
    source_line(f->mod, v, out);
    off = 0;
  } else {
    return 0;
  }
  char d[sizeof out->pretty - 32];
  if (!ip_demangle(name, d, sizeof d))
    snprintf(out->pretty, sizeof out->pretty, "%s", out->name);
  else if (off)
    snprintf(out->pretty, sizeof out->pretty, "%s+0x%llx", d, (unsigned long long)off);
  else
    snprintf(out->pretty, sizeof out->pretty, "%s", d);
  return 1;
}

void ip_symbolize(ip_symbolizer *z, const ip_sym_module *m, uint64_t addr, ip_sym *out, char *note,
                  size_t note_len) {
  memset(out, 0, sizeof *out);
  note[0] = 0;
  sym_file *f = file_of(z, m->path);
  int changed = f->usable && m->has_stat && (m->mtime_ns != f->mtime_ns || m->size != f->size);
  uint64_t v = changed ? 0 : file_vaddr(f, m, addr);
  if (v && name_of(f, v, out))
    return;
  const char *base = strrchr(m->path, '/');
  base = base ? base + 1 : m->path;
  snprintf(out->name, sizeof out->name, "%s+0x%llx", base,
           (unsigned long long)(addr >= m->load_address ? addr - m->load_address : 0));
  snprintf(out->pretty, sizeof out->pretty, "%s", out->name);
  if ((changed || !f->usable) && !f->noted && m->path[0] == '/') {
    f->noted = 1;
    snprintf(note, note_len,
             "%s %s: the addresses in it are shown as %s+0xOFFSET (OFFSET from its load "
             "address, see 'inclprof info')",
             m->path, changed ? "changed since it was recorded" : f->why, base);
  }
}
