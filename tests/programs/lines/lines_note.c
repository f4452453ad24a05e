/* lines_note.c - the callee of lines.c, compiled without the plugin: its
 * calls get call-site probes in work(). */
unsigned long note(unsigned long x) { return x ^ (x >> 7); }
