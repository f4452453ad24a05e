/* analysis/source_lines.c - locates a sampled instruction address (see
 * analysis/source_lines.h): its module and offset, its source line and inline
 * chain from the line table and the DWARF scopes of the innermost inlined
 * instance (DW_TAG_inlined_subroutine with DW_AT_call_file / DW_AT_call_line), and its bytes from the section of
 * the module file that holds it. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/source_lines.h"

/* A DIE's function name: its linkage name demangled, else its name
 * (following DW_AT_abstract_origin and DW_AT_specification). */
static void die_name(Dwarf_Die *die, char *out, size_t len) {
  Dwarf_Attribute a;
  const char *link = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
  if (link && ip_demangle(link, out, len))
    return;
  const char *name = dwarf_diename(die);
  snprintf(out, len, "%s", name ? name : (link ? link : "?"));
}

/* The call site of an inlined subroutine: into frame `to`. */
static void call_site(Dwarf_Die *inl, Dwarf_Files *files, size_t n_files, ip_src_frame *to) {
  Dwarf_Attribute a;
  Dwarf_Word file = 0, line = 0;
  if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &a), &line) == 0)
    to->line = (uint32_t)line;
  if (files && dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &a), &file) == 0 &&
      file < n_files) {
    const char *name = dwarf_filesrc(files, file, NULL, NULL);
    snprintf(to->file, sizeof to->file, "%s", name ? name : "");
  }
}

/* The source line and inline chain of file virtual address v. */
static void chain_of(Dwfl_Module *mod, uint64_t v, ip_src_loc *out) {
  Dwfl_Line *l = dwfl_module_getsrc(mod, v);
  int line = 0;
  const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
  Dwarf_Addr bias;
  Dwarf_Die *cu = dwfl_module_addrdie(mod, v, &bias);
  Dwarf_Die *scopes = NULL;
  int n = cu ? dwarf_getscopes(cu, v - bias, &scopes) : 0;
  /* Past an inlined instance dwarf_getscopes goes on with the scopes where
   * the inlined function was defined; the scopes of that instance's DIE go
   * on with the functions it was inlined into. */
  for (int i = 0; i < n; i++) {
    int tag = dwarf_tag(&scopes[i]);
    if (tag == DW_TAG_subprogram)
      break;
    if (tag == DW_TAG_inlined_subroutine) {
      Dwarf_Die *chain = NULL;
      int k = dwarf_getscopes_die(&scopes[i], &chain);
      free(scopes);
      scopes = chain;
      n = k > 0 ? k : 0;
      break;
    }
  }
  Dwarf_Files *files = NULL;
  size_t n_files = 0;
  if (cu && dwarf_getsrcfiles(cu, &files, &n_files))
    files = NULL;
  ip_src_frame *fr = out->frame;
  memset(fr, 0, sizeof *fr);
  snprintf(fr->file, sizeof fr->file, "%s", file ? file : "");
  fr->line = line > 0 ? (uint32_t)line : 0;
  size_t k = 0;
  for (int i = 0; i < n && k < IP_SRC_DEPTH; i++) {
    int tag = dwarf_tag(&scopes[i]);
    if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
      continue;
    die_name(&scopes[i], out->frame[k].func, sizeof out->frame[k].func);
    int decl = 0;
    if (dwarf_decl_line(&scopes[i], &decl) == 0 && decl > 0)
      out->frame[k].start_line = (uint32_t)decl;
    k++;
    if (tag == DW_TAG_subprogram)
      break;
    if (k < IP_SRC_DEPTH) {
      memset(&out->frame[k], 0, sizeof out->frame[k]);
      call_site(&scopes[i], files, n_files, &out->frame[k]);
    }
  }
  free(scopes);
  out->n_frames = k ? k : (file ? 1 : 0);
}

/* Up to n bytes at file virtual address v from the allocated section that
 * holds it; the count read. */
static size_t code_bytes(Dwfl_Module *mod, uint64_t v, uint8_t *buf, size_t n, unsigned *machine) {
  GElf_Addr bias;
  Elf *elf = dwfl_module_getelf(mod, &bias);
  GElf_Ehdr eh;
  if (!elf || !gelf_getehdr(elf, &eh))
    return 0;
  *machine = eh.e_machine;
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) ||
        v < sh.sh_addr || v >= sh.sh_addr + sh.sh_size)
      continue;
    const Elf_Data *d = elf_getdata(scn, NULL);
    size_t at = (size_t)(v - sh.sh_addr);
    if (!d || !d->d_buf || at >= d->d_size)
      return 0;
    size_t k = d->d_size - at < n ? d->d_size - at : n;
    memcpy(buf, (const uint8_t *)d->d_buf + at, k);
    return k;
  }
  return 0;
}

void ip_source_locate(ip_symbolizer *z, const ip_session *s, uint32_t process, uint64_t pc,
                      ip_src_loc *out) {
  memset(out, 0, sizeof *out);
  out->module = UINT32_MAX;
  const ip_process *p = &s->processes[process];
  for (size_t i = 0; i < p->n_mods; i++) {
    const ip_proc_module *pm = &p->mods[i];
    ip_sym_module m = {s->modules[pm->module].path, pm->load_address, pm->has_stat, pm->mtime_ns,
                       pm->size};
    if (!ip_symbolize_contains(z, &m, pc))
      continue;
    out->module = pm->module;
    out->offset = pc - pm->load_address;
    uint64_t v;
    Dwfl_Module *mod = ip_symbolize_dwfl(z, &m, pc, &v);
    if (!mod)
      return;
    chain_of(mod, v, out);
    uint8_t bytes[16];
    unsigned machine = 0;
    size_t n = code_bytes(mod, v, bytes, sizeof bytes, &machine);
    if (n)
      ip_disasm(machine, out->offset, bytes, n, out->insn, sizeof out->insn);
    return;
  }
}
