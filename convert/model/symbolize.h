/* model/symbolize.h - names a code address the runtime could only record as
 * an address (an indirect-call target that is neither instrumented nor in the
 * dynamic symbol table): from the module file's symbol table (.symtab) or its
 * debug info (in the file, or a separate file under /usr/lib/debug/.build-id),
 * read with elfutils' libdwfl; otherwise as MODULE+0xOFFSET, never an
 * absolute address.  One open file per module path for the whole load. */
#ifndef INCLPROF_SYMBOLIZE_H
#define INCLPROF_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

typedef struct ip_symbolizer ip_symbolizer;

/* A module of one process: its file and where the runtime saw it loaded. */
typedef struct ip_sym_module {
  const char *path;
  uint64_t load_address; /* the first loaded byte (dladdr's dli_fbase) */
  int has_stat;          /* the file's mtime and size when recorded are known */
  uint64_t mtime_ns, size;
} ip_sym_module;

/* What an address is called. */
typedef struct ip_sym {
  char name[1024];   /* symbol, symbol+0xN inside it, or MODULE+0xOFFSET */
  char pretty[1024]; /* demangled name (== name when not mangled) */
  char file[1024];   /* source file from the debug info, "" if unknown */
  uint32_t line;
} ip_sym;

/* Demangles a C++ assembler name into out; 0 when name is not one. */
int ip_demangle(const char *name, char *out, size_t out_len);
/* The same, whole (malloc'ed), or NULL. */
char *ip_demangle_whole(const char *name);

ip_symbolizer *ip_symbolizer_new(void);
void ip_symbolizer_free(ip_symbolizer *z);

/* Names addr, a code address in module m.  When m's file cannot be used
 * (missing, changed since recording, not ELF) the first call for that path
 * writes one line saying so into note (note[0] stays 0 otherwise). */
void ip_symbolize(ip_symbolizer *z, const ip_sym_module *m, uint64_t addr, ip_sym *out, char *note,
                  size_t note_len);

/* The libdwfl module of m's file and, in *vaddr, the file's virtual address
 * of addr; NULL when the file cannot be used (missing, changed since it was
 * recorded, not ELF) or addr is outside it. */
struct Dwfl_Module *ip_symbolize_dwfl(ip_symbolizer *z, const ip_sym_module *m, uint64_t addr,
                                      uint64_t *vaddr);

/* The libdwfl module of m's file; NULL when the file cannot be used
 * (missing, changed since it was recorded, not ELF). */
struct Dwfl_Module *ip_symbolize_module(ip_symbolizer *z, const ip_sym_module *m);

/* Whether addr lies in module m's loaded extent (its file's PT_LOAD span). */
int ip_symbolize_contains(ip_symbolizer *z, const ip_sym_module *m, uint64_t addr);

#endif
