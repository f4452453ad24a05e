/* helper.c - an uninstrumented library for callees.c: helper_twice is a
 * library call of the program, built without the plugin. */
int helper_twice(int x) { return 2 * x; }
