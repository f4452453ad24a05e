/* same1.c - a static function named like one in same2.c. */
int from_same2(int x);
__attribute__((noinline)) static int helper(int x) { return x + 1; }
int from_same1(int x) { return helper(x) * 2; }
/* argc (1): arguments GCC cannot know, so no call is computed away. */
int main(int argc, char **argv) { return argv && from_same1(argc) + from_same2(argc + 1) == 4 + 6 ? 0 : 1; }
