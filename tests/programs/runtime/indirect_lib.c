/* indirect_lib.c - the library of indirect_calls.c, built with the plugin
 * and without: lib_step, called through a pointer. */
long lib_step(long x);
long lib_step(long x) { return x * 3 + 1; }
