/* sysfn.h - a function from a "system" header (the tests pass -isystem). */
__attribute__((noinline)) static int sys_helper(int x) { return x * 11; }
