/* analysis/source_lines.h - where the code at a sampled instruction address was
 * written: its source file and line and the chain of functions inlined
 * there, from the module file's debug info (libdw), and the instruction
 * itself.  Used by report --by line / --by address and the exports that
 * carry lines. */
#ifndef INCLPROF_SOURCE_LINES_H
#define INCLPROF_SOURCE_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

#define IP_SRC_DEPTH 8 /* inlined functions kept per address, innermost first */

/* One function of an address's inline chain and the line it is at there. */
typedef struct ip_src_frame {
  char func[256];      /* demangled name from the debug info */
  char file[512];      /* "" when unknown */
  uint32_t line;       /* 0 when unknown */
  uint32_t start_line; /* the line func is declared on, 0 when unknown */
} ip_src_frame;

/* An instruction address of a process, located. */
typedef struct ip_src_loc {
  uint32_t module; /* index into ip_session.modules, UINT32_MAX outside the recorded ones */
  uint64_t offset; /* address - the module's load address */
  /* frame[0]: the function whose code this is and its line (an inlined
   * function where one was inlined); frame[k + 1]: the function frame[k] was
   * inlined into, at the line of that call; the last one is the function
   * the compiler emitted.  n_frames is 0 when the debug info does not know
   * the address. */
  ip_src_frame frame[IP_SRC_DEPTH];
  size_t n_frames;
  char insn[96]; /* the instruction (disassembled, or its bytes), "" when unknown */
} ip_src_loc;

/* Locates pc, an address of process `process` of s (z: the module files). */
void ip_source_locate(ip_symbolizer *z, const ip_session *s, uint32_t process, uint64_t pc,
                      ip_src_loc *out);

/* analysis/disasm.c: the instruction at the start of bytes[0..n), at address
 * addr, for ELF machine `machine` (EM_X86_64, EM_AARCH64), as text; its
 * bytes in hex when no disassembler is built in or it cannot decode them. */
void ip_disasm(unsigned machine, uint64_t addr, const uint8_t *bytes, size_t n, char *out,
               size_t len);

#endif
