/* shared.h - a static inline function that one unit inlines and the other
 * keeps out of line (it takes its address): it has a row, so it is not among
 * the functions without one. */
static inline int twice(int x) { return 2 * x; }
