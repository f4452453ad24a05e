/* tree_shape.c - a call tree of known shape for report --tree's limits:
 * main -> outer -> middle -> inner (about 20 ms of work in inner) and
 * main -> tiny (5 calls of almost nothing): five call paths, four levels
 * counting main, of which tiny's path has far under 1 % of the time. */
static volatile unsigned long sink;

__attribute__((noipa)) static void inner(void) {
  for (unsigned long i = 0; i < 20000000; i++)
    sink += i;
}
__attribute__((noipa)) static void middle(void) { inner(); }
__attribute__((noipa)) static void outer(void) { middle(); }
__attribute__((noipa)) static void tiny(int i) { sink ^= (unsigned long)i; }

int main(void) {
  outer();
  for (int i = 0; i < 5; i++)
    tiny(i);
  return 0;
}
