/* fi_bare_hooks.c - -finstrument-functions hooks that do exactly the bare
 * work: read the TSC, append 16 bytes to a thread-local buffer. */
#include "bare_record.h"

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

void __cyg_profile_func_enter(void *fn, void *site) {
  (void)site;
  bare_append((uintptr_t)fn);
}

void __cyg_profile_func_exit(void *fn, void *site) {
  (void)site;
  bare_append((uintptr_t)fn | 1u);
}
