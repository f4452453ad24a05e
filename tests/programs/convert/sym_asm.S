/* sym_asm.S - asm_add3(x) = x + 3, a hidden assembly routine. */
        .text
        .globl asm_add3
        .hidden asm_add3
        .type asm_add3, @function
asm_add3:
#if defined(__x86_64__)
        lea 3(%rdi), %eax
        ret
#elif defined(__aarch64__)
        add w0, w0, #3
        ret
#else
#error "sym_asm.S: x86-64 and AArch64 only"
#endif
        .size asm_add3, .-asm_add3
        .section .note.GNU-stack,"",@progbits
