// lambdas.cc - lambdas where modern C++ runs them: called directly, generic
// (two instantiations), inside a function template (two instantiations),
// stored in a std::function, run by two std::threads, and as std::sort's
// comparator.  Each lambda counts its own calls; the program prints them.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <thread>
#include <vector>

static std::atomic<long> direct, generic_int, generic_double, in_template, in_function, in_thread,
    comparisons;

template <class T> T twice(T x)
{
  auto add_self = [](T y) {
    in_template++;
    return y + y;
  };
  return add_self(x);
}

int main(int argc, char **)
{
  long sum = 0;
  auto add = [&sum](int a, int b) {
    direct++;
    sum += a + b;
  };
  auto scale = [](auto v) {
    if (sizeof v == sizeof(int))
      generic_int++;
    else
      generic_double++;
    return v * 2;
  };
  for (int i = 0; i < 1000; i++)
    add(i, argc);
  for (int i = 0; i < 300; i++)
    sum += scale(i) + (long)scale(i * 0.5) + (i % 3 == 0 ? (long)scale(1.0) : 0);
  for (int i = 0; i < 200; i++)
    sum += twice(i) + twice((long)i);

  std::function<long(int)> callback = [argc](int x) -> long {
    in_function++;
    return x + argc;
  };
  for (int i = 0; i < 400; i++)
    sum += callback(i);

  auto body = [](int n) {
    for (int i = 0; i < n; i++)
      in_thread++;
  };
  std::thread t1(body, 10), t2(body, 20);
  t1.join();
  t2.join();

  std::vector<int> v(500);
  for (int i = 0; i < 500; i++)
    v[i] = (i * 7919) % 503;
  std::sort(v.begin(), v.end(), [](int a, int b) {
    comparisons++;
    return a < b;
  });

  printf("direct %ld generic_int %ld generic_double %ld in_template %ld in_function %ld "
         "in_thread_calls 2 comparisons %ld sum %ld\n",
         direct.load(), generic_int.load(), generic_double.load(), in_template.load(),
         in_function.load(), comparisons.load(), sum + in_thread.load());
  return 0;
}
