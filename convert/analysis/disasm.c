/* analysis/disasm.c - one machine instruction as text (see analysis/source_lines.h):
 * capstone's disassembly when the build found it (IP_HAVE_CAPSTONE), else the
 * instruction's bytes in hex. */
#include <elf.h>
#include <stdio.h>

#include "analysis/source_lines.h"

#ifdef IP_HAVE_CAPSTONE
#include <capstone/capstone.h>

/* The disassembly of the first instruction; 0 when capstone cannot decode it. */
static int disassembled(unsigned machine, uint64_t addr, const uint8_t *bytes, size_t n, char *out,
                        size_t len) {
  csh h;
  cs_err e = machine == EM_AARCH64  ? cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &h)
             : machine == EM_X86_64 ? cs_open(CS_ARCH_X86, CS_MODE_64, &h)
                                    : CS_ERR_ARCH;
  if (e != CS_ERR_OK)
    return 0;
  cs_insn *insn;
  size_t got = cs_disasm(h, bytes, n, addr, 1, &insn);
  if (got) {
    snprintf(out, len, "%s%s%s", insn[0].mnemonic, insn[0].op_str[0] ? " " : "", insn[0].op_str);
    cs_free(insn, got);
  }
  cs_close(&h);
  return got > 0;
}
#endif

void ip_disasm(unsigned machine, uint64_t addr, const uint8_t *bytes, size_t n, char *out,
               size_t len) {
#ifdef IP_HAVE_CAPSTONE
  if (disassembled(machine, addr, bytes, n, out, len))
    return;
#else
  (void)machine, (void)addr;
#endif
  size_t k = 0;
  out[0] = 0;
  for (size_t i = 0; i < n && i < 8 && k + 4 < len; i++)
    k += (size_t)snprintf(out + k, len - k, "%s%02x", i ? " " : "", bytes[i]);
}
