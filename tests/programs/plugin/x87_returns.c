/* x87_returns.c - functions whose results live in x87 registers (long
 * double, long double _Complex, and with -mfpmath=387 double and complex
 * double as well), each called CALLS times; prints the sums of what they
 * return (as exact hexadecimal floats) and how many calls each made.  The
 * exit probe takes the value returned as an input: in an x87 register that
 * the probe clobbers it would count as popped, which unbalances the x87
 * stack (the sums turn NaN after 8 calls) or stops GCC ("implicitly popped
 * registers must be grouped at top of stack"). */
#include <complex.h>
#include <stdio.h>

#define CALLS 1000

static int calls_ld, calls_cld, calls_same, calls_cd, calls_cf;

__attribute__((noinline)) long double scale_ld(long double x, long double y)
{
  calls_ld++;
  return x * y + 1;
}

__attribute__((noinline)) long double _Complex rotate_cld(long double _Complex z, long double _Complex w)
{
  calls_cld++;
  return z * w + 1;
}

/* the value returned is the argument itself: no arithmetic in between */
__attribute__((noinline)) long double _Complex same_cld(long double _Complex z)
{
  calls_same++;
  return z;
}

__attribute__((noinline)) double _Complex rotate_cd(double _Complex z, double _Complex w)
{
  calls_cd++;
  return z * w + 1;
}

__attribute__((noinline)) float _Complex rotate_cf(float _Complex z, float _Complex w)
{
  calls_cf++;
  return z * w + 1;
}

int main(void)
{
  long double sum_ld = 0;
  long double _Complex sum_cld = 0;
  double _Complex sum_cd = 0;
  float _Complex sum_cf = 0;
  for (int i = 0; i < CALLS; i++) {
    sum_ld += scale_ld(i, 0.5L);
    sum_cld += rotate_cld(i + 2.0L * I, 0.5L - 0.25L * I) + same_cld(1.0L - i * I);
    sum_cd += rotate_cd(i + 2.0 * I, 0.5 - 0.25 * I);
    sum_cf += rotate_cf(i + 2.0f * I, 0.5f - 0.25f * I);
  }
  printf("%La %La %La %a %a %a %a\n", sum_ld, creall(sum_cld), cimagl(sum_cld), creal(sum_cd), cimag(sum_cd),
         (double)crealf(sum_cf), (double)cimagf(sum_cf));
  printf("scale_ld=%d rotate_cld=%d same_cld=%d rotate_cd=%d rotate_cf=%d\n", calls_ld, calls_cld, calls_same,
         calls_cd, calls_cf);
  return 0;
}
