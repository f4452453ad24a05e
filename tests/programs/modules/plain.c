/* plain.c - code of the executable built without the plugin: plain_cb is
 * reached through a pointer, so the trace names it by its address alone. */
unsigned plain_cb(unsigned x) { return x * 3 + 1; }
