/* own_malloc.c - hidden malloc and free inside libinclprof.so, for the
 * libraries linked into it (protobuf-c's default allocator): their calls
 * take the runtime's arena (arena.c), never the program's allocator, and the
 * runtime imports no allocating function.  The runtime itself calls
 * ip_alloc; protobuf-c only packs into the runtime's buffers, so these are
 * not called in practice.  Only in the shared runtime (runtime/build.mk). */
#include <stddef.h>

#include "base/base.h"

__attribute__((visibility("hidden"))) void *malloc(size_t n);
__attribute__((visibility("hidden"))) void free(void *p);

void *malloc(size_t n) { return ip_alloc(n); }

void free(void *p) { ip_free(p); }
