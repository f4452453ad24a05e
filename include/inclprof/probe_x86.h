/* probe_x86.h - the trampoline that x86-64 probe stubs call, as assembler
 * text: the plugin emits it once per executable or shared library
 * (__inclprof_probe_tramp, plugin/ip_asm_probe.cc) and the runtime's probe
 * calibration runs a copy of it, so the calibrated cost is the cost of the
 * probes the plugin builds.
 *
 * A stub (S: the function's %rsp at its `jne` to the stub) is
 *
 *   leaq -128(%rsp), %rsp        over the red zone
 *   pushq %REG                   an indirect call's target (else any register)
 *   call __inclprof_probe_tramp  pushes RET
 *   RET: leaq 136(%rsp), %rsp    (8 bytes)
 *   jmp RESUME                   (0xe9, rel32: 5 bytes) back into the function
 *   .long HOOK - .               the hook's slot in the unit's inclprof_tu
 *   .long DESC - .               the descriptor, or 0: the value pushed above
 *   ...                          more HOOK, DESC pairs (adjacent probes)
 *   .long 0
 *
 * or, for one probe with a descriptor (27 bytes; 40 for a call-site probe,
 * which first skips it all when its callee is marked instrumented:
 * testb $1, DESC+44(%rip); jnz RESUME),
 *
 *   leaq -128(%rsp), %rsp
 *   call __inclprof_probe_tramp1
 *   RET: subq $-128, %rsp        (4 bytes)
 *   jmp RESUME
 *   .long HOOK - ., DESC - .
 *
 * A trampoline saves every caller-saved general register (and %rbp, and %rbx
 * for its loop), stores RESUME for unwinders, aligns the stack to 16 bytes and
 * calls each non-null hook with its descriptor, as an ordinary C function,
 * except a call-site probe's whose callee is marked instrumented.  Flags and
 * vector, mask and x87 registers are not saved: the probe's asm statement
 * declares them clobbered.  The stub has no unwind information of its own;
 * from the store of RESUME on, the trampoline's describes the instrumented
 * function's frame (CFA = S, return address = RESUME), so an unwinder started
 * in a hook goes from the trampoline straight into the function. */
#ifndef INCLPROF_PROBE_X86_H
#define INCLPROF_PROBE_X86_H

/* Where a descriptor's runtime_flags are (offsetof(struct inclprof_fn,
 * runtime_flags), checked by the plugin and the runtime) and the bit saying
 * its callee has probes of its own (INCLPROF_RT_CALLEE_INSTRUMENTED): a
 * call-site probe of such a callee records nothing, so a stub (a
 * single-probe one before it calls the trampoline) and the trampoline skip
 * it. */
#define INCLPROF_X86_RUNTIME_FLAGS       "44"
#define INCLPROF_X86_CALLEE_INSTRUMENTED "1"

/* The stub's code after the call, up to the jump's rel32: its bytes are part
 * of the layout the trampolines read.  leaq 136(%rsp), %rsp; jmp: */
#define INCLPROF_X86_STUB_RETURN ".byte 0x48, 0x8d, 0xa4, 0x24, 0x88, 0, 0, 0\n\t.byte 0xe9\n\t"
/* For __inclprof_probe_tramp1: subq $-128, %rsp; jmp: */
#define INCLPROF_X86_STUB1_RETURN ".byte 0x48, 0x83, 0xec, 0x80\n\t.byte 0xe9\n\t"

/* clang-format off */
#define INCLPROF_X86_SAVE(r) "\tpushq\t%" r "\n\t.cfi_adjust_cfa_offset 8\n\t.cfi_rel_offset %" r ", 0\n"
#define INCLPROF_X86_RESTORE(r) "\tpopq\t%" r "\n\t.cfi_adjust_cfa_offset -8\n\t.cfi_restore %" r "\n"
#define INCLPROF_X86_AT(r, off) "\t.cfi_offset %" r ", " off "\n"

/* A trampoline's start: its own frame (CFA = %rsp + 8 at entry), then the
 * caller-saved general registers pushed (%rax first). */
#define INCLPROF_X86_TRAMP_ENTRY                                               \
  "\t.cfi_startproc simple\n"                                                   \
  "\t.cfi_def_cfa %rsp, 8\n"                                                    \
  "\t.cfi_offset %rip, -8\n"                                                    \
  INCLPROF_X86_SAVE("rax") INCLPROF_X86_SAVE("rdi") INCLPROF_X86_SAVE("rcx")    \
  INCLPROF_X86_SAVE("rdx") INCLPROF_X86_SAVE("rsi") INCLPROF_X86_SAVE("r8")     \
  INCLPROF_X86_SAVE("r9") INCLPROF_X86_SAVE("r10") INCLPROF_X86_SAVE("r11")
/* A trampoline's end: those registers popped in reverse, and back to RET. */
#define INCLPROF_X86_TRAMP_RETURN                                              \
  INCLPROF_X86_RESTORE("r11") INCLPROF_X86_RESTORE("r10")                      \
  INCLPROF_X86_RESTORE("r9") INCLPROF_X86_RESTORE("r8")                        \
  INCLPROF_X86_RESTORE("rsi") INCLPROF_X86_RESTORE("rdx")                      \
  INCLPROF_X86_RESTORE("rcx") INCLPROF_X86_RESTORE("rdi")                      \
  INCLPROF_X86_RESTORE("rax")                                                  \
  "\tret\n"                                                                     \
  "\t.cfi_endproc\n"

/* Any number of probes (a value pushed by the stub for a 0 descriptor):
 * S = %rsp + 240 once RESUME is stored. */
#define INCLPROF_X86_TRAMP_BODY                                                \
  INCLPROF_X86_TRAMP_ENTRY                                                      \
  INCLPROF_X86_SAVE("rbx") INCLPROF_X86_SAVE("rbp")                            \
  "\tmovq\t88(%rsp), %rbx\n"                  /* RET */                       \
  "\tmovslq\t9(%rbx), %rax\n"                                                   \
  "\tleaq\t13(%rbx,%rax), %rax\n"             /* RESUME */                    \
  "\tpushq\t%rax\n"                                                             \
  /* From here on: the function's frame, CFA = S = %rsp + 240. */              \
  "\t.cfi_def_cfa_offset 240\n"                                                 \
  INCLPROF_X86_AT("rip", "-240")                                               \
  INCLPROF_X86_AT("rax", "-152") INCLPROF_X86_AT("rdi", "-160")                 \
  INCLPROF_X86_AT("rcx", "-168") INCLPROF_X86_AT("rdx", "-176")                 \
  INCLPROF_X86_AT("rsi", "-184") INCLPROF_X86_AT("r8", "-192")                  \
  INCLPROF_X86_AT("r9", "-200") INCLPROF_X86_AT("r10", "-208")                  \
  INCLPROF_X86_AT("r11", "-216") INCLPROF_X86_AT("rbx", "-224")                 \
  INCLPROF_X86_AT("rbp", "-232")                                               \
  "\tmovq\t%rsp, %rbp\n"                                                        \
  "\t.cfi_def_cfa_register %rbp\n"                                              \
  "\tandq\t$-16, %rsp\n"                                                        \
  "\tleaq\t13(%rbx), %rbx\n"                  /* the first HOOK, DESC pair */ \
  "1:\tmovslq\t(%rbx), %rax\n"                                                  \
  "\ttestq\t%rax, %rax\n"                                                       \
  "\tjz\t2f\n"                                                                  \
  "\tmovq\t(%rbx,%rax), %rax\n"                                                 \
  "\tmovslq\t4(%rbx), %rdi\n"                                                   \
  "\ttestq\t%rdi, %rdi\n"                                                       \
  "\tleaq\t4(%rbx,%rdi), %rdi\n"                                                \
  "\tcmovzq\t104(%rbp), %rdi\n"               /* the value pushed */          \
  "\tleaq\t8(%rbx), %rbx\n"                   /* keeps the flags */           \
  "\tjz\t3f\n"                                /* a value, no descriptor */    \
  "\ttestb\t$" INCLPROF_X86_CALLEE_INSTRUMENTED ", "                            \
  INCLPROF_X86_RUNTIME_FLAGS "(%rdi)\n"                                          \
  "\tjnz\t1b\n"                              /* its own probes record */      \
  "3:\ttestq\t%rax, %rax\n"                   /* cleared since the test */    \
  "\tjz\t1b\n"                                                                  \
  "\tcall\t*%rax\n"                                                             \
  "\tjmp\t1b\n"                                                                 \
  "2:\tleaq\t8(%rbp), %rsp\n"                                                   \
  /* RESUME dropped: the return address is RET again. */                       \
  "\t.cfi_def_cfa %rsp, 232\n"                                                  \
  INCLPROF_X86_AT("rip", "-144")                                               \
  INCLPROF_X86_RESTORE("rbp") INCLPROF_X86_RESTORE("rbx")                      \
  INCLPROF_X86_TRAMP_RETURN
/* One probe with a descriptor, from a stub that pushes nothing and whose
 * RET is INCLPROF_X86_STUB1_RETURN: S = %rsp + 224 once RESUME is stored. */
#define INCLPROF_X86_TRAMP1_BODY                                               \
  INCLPROF_X86_TRAMP_ENTRY                                                      \
  INCLPROF_X86_SAVE("rbp")                                                     \
  "\tmovq\t80(%rsp), %rdi\n"                  /* RET */                       \
  "\tmovslq\t5(%rdi), %rax\n"                                                   \
  "\tleaq\t9(%rdi,%rax), %rax\n"              /* RESUME */                    \
  "\tpushq\t%rax\n"                                                             \
  "\t.cfi_def_cfa_offset 224\n"                                                 \
  INCLPROF_X86_AT("rip", "-224")                                               \
  INCLPROF_X86_AT("rax", "-144") INCLPROF_X86_AT("rdi", "-152")                 \
  INCLPROF_X86_AT("rcx", "-160") INCLPROF_X86_AT("rdx", "-168")                 \
  INCLPROF_X86_AT("rsi", "-176") INCLPROF_X86_AT("r8", "-184")                  \
  INCLPROF_X86_AT("r9", "-192") INCLPROF_X86_AT("r10", "-200")                  \
  INCLPROF_X86_AT("r11", "-208") INCLPROF_X86_AT("rbp", "-216")                 \
  "\tmovslq\t9(%rdi), %rax\n"                                                   \
  "\tmovq\t9(%rdi,%rax), %rax\n"              /* the hook */                  \
  "\tmovslq\t13(%rdi), %rcx\n"                                                  \
  "\tleaq\t13(%rdi,%rcx), %rdi\n"             /* the descriptor */            \
  "\tmovq\t%rsp, %rbp\n"                                                        \
  "\t.cfi_def_cfa_register %rbp\n"                                              \
  "\tandq\t$-16, %rsp\n"                                                        \
  "\ttestq\t%rax, %rax\n"                     /* cleared since the test */    \
  "\tjz\t1f\n"                                                                  \
  "\tcall\t*%rax\n"                                                             \
  "1:\tleaq\t8(%rbp), %rsp\n"                                                   \
  "\t.cfi_def_cfa %rsp, 216\n"                                                  \
  INCLPROF_X86_AT("rip", "-136")                                               \
  INCLPROF_X86_RESTORE("rbp")                                                  \
  INCLPROF_X86_TRAMP_RETURN
/* clang-format on */

#endif
