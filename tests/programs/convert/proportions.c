/* proportions.c - known work for the converter's end-to-end test: heavy()
 * does three times light()'s work through the same spin(), fib() recurses,
 * write() is a library call reached through a call-site probe.  heavy() and
 * light() time their spin() by the time-stamp counter (no library call) and
 * the one write() says "done HEAVY LIGHT", the two sums in ticks. */
#include <unistd.h>
#include <x86intrin.h>

static volatile unsigned long sink;
static unsigned long long heavy_ticks, light_ticks;

__attribute__((noinline)) void spin(unsigned long n) {
  for (unsigned long i = 0; i < n; i++)
    sink += i;
}
__attribute__((noinline)) void light(void) {
  unsigned long long t0 = __rdtsc();
  spin(25000);
  light_ticks += __rdtsc() - t0;
}
__attribute__((noinline)) void heavy(void) {
  unsigned long long t0 = __rdtsc();
  spin(75000);
  heavy_ticks += __rdtsc() - t0;
}
/* Work after the second call keeps GCC from turning the recursion into a loop. */
__attribute__((noinline)) int fib(int n) {
  if (n < 2)
    return n;
  int a = fib(n - 1), b = fib(n - 2);
  sink++;
  return a + b;
}

int main(void) {
  for (int i = 0; i < 400; i++) {
    light();
    heavy();
  }
  sink += (unsigned long)fib(10);
  char line[64] = "done", *p = line + 4;
  unsigned long long v[2] = {heavy_ticks, light_ticks};
  for (int k = 0; k < 2; k++) {
    char digits[24];
    int n = 0;
    do
      digits[n++] = (char)('0' + v[k] % 10);
    while (v[k] /= 10);
    *p++ = ' ';
    while (n)
      *p++ = digits[--n];
  }
  *p++ = '\n';
  return write(1, line, (size_t)(p - line)) == p - line ? 0 : 1;
}
