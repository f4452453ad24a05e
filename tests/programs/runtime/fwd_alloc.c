/* fwd_alloc.c - an allocator library: malloc, calloc, realloc and free
 * passed on to glibc's own (__libc_malloc and co.), each through a function
 * of its own.  Built under different names, with or without the plugin, it
 * stands for an allocator library the runtime knows or does not know. */
#include <stddef.h>

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
void __libc_free(void *p);

__attribute__((noinline)) static void *pass_malloc(size_t n) { return __libc_malloc(n); }

void *malloc(size_t n) { return pass_malloc(n); }
void *calloc(size_t n, size_t size) { return __libc_calloc(n, size); }
void *realloc(void *p, size_t n) { return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
