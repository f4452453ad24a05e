/* same1.c - a static function named like one in same2.c. */
int from_same2(int x);
__attribute__((noinline)) static int helper(int x) { return x + 1; }
int from_same1(int x) { return helper(x) * 2; }
int main(void) { return from_same1(1) + from_same2(2) == 4 + 6 ? 0 : 1; }
