/* build_id.c - the ELF build-id of the loaded object that holds an address
 * (its NT_GNU_BUILD_ID note, from the object's PT_NOTE segments in memory),
 * which names the object's shared function table (shared_tables.c).
 * dl_iterate_phdr takes the loader's lock: never called under reg_lock or
 * in a signal handler. */
#include <elf.h>
#include <link.h>
#include <string.h>

#include "rt.h"

struct find {
  uintptr_t addr;
  uint8_t *out;
  size_t cap, len;
  int found;
};

/* The build-id note among the notes of one PT_NOTE segment [p, end). */
static size_t note_build_id(const uint8_t *p, const uint8_t *end, uint8_t *out, size_t cap) {
  while (p + sizeof(ElfW(Nhdr)) <= end) {
    const ElfW(Nhdr) *n = (const void *)p;
    const uint8_t *name = p + sizeof *n;
    const uint8_t *desc = name + ((n->n_namesz + 3) & ~3u);
    const uint8_t *next = desc + ((n->n_descsz + 3) & ~3u);
    if (next > end || next <= p)
      return 0;
    if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
        n->n_descsz > 0 && n->n_descsz <= cap) {
      memcpy(out, desc, n->n_descsz);
      return n->n_descsz;
    }
    p = next;
  }
  return 0;
}

static int holds(const struct dl_phdr_info *info, uintptr_t addr) {
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = (uintptr_t)info->dlpi_addr + (uintptr_t)ph->p_vaddr;
    if (ph->p_type == PT_LOAD && addr >= lo && addr - lo < ph->p_memsz)
      return 1;
  }
  return 0;
}

static int each_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct find *f = data;
  if (!holds(info, f->addr))
    return 0;
  f->found = 1;
  for (int i = 0; i < info->dlpi_phnum && !f->len; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE)
      continue;
    const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
    f->len = note_build_id(p, p + ph->p_memsz, f->out, f->cap);
  }
  return 1;
}

size_t ip_build_id_of(const void *addr, uint8_t *out, size_t cap) {
  struct find f = {(uintptr_t)addr, out, cap, 0, 0};
  dl_iterate_phdr(each_object, &f);
  return f.len;
}
