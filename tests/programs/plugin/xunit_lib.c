/* xunit_lib.c - the other translation unit of xunit_main.c. */
__attribute__((noinline)) int scale(int x) { return 3 * x; }
__attribute__((noinline)) int offset(int x) { return x + 7; }
