/* libcalls_plain.c - built without the plugin, linked into libcalls: a
 * function no object exports (the executable is not linked -rdynamic). */
int plain_helper(int x) { return x; }
