/* same2.c - a static function named like one in same1.c. */
__attribute__((noinline)) static int helper(int x) { return x * 3; }
int from_same2(int x) { return helper(x); }
