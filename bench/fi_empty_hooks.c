/* fi_empty_hooks.c - -finstrument-functions hooks that do nothing: the cost
 * of the calls GCC inserts, and of instrumenting before inlining. */
void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

void __cyg_profile_func_enter(void *fn, void *site) {
  (void)fn;
  (void)site;
}

void __cyg_profile_func_exit(void *fn, void *site) {
  (void)fn;
  (void)site;
}
