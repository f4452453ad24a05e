/* other.c - calls shared.h's twice through a pointer, so this unit keeps an
 * out-of-line, instrumented copy of it. */
#include "shared.h"

__attribute__((noinline)) int other(int (*fn)(int), int x) { return (fn ? fn : twice)(x); }
