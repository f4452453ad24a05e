// scoped_names.cc - functions whose names have brackets before their
// parameter list: work() in an anonymous namespace, called 5 times by the
// call operator of a struct, itself called 5 times by main.  Prints the
// number of calls of each and a checksum.
#include <cstdio>

namespace {
long calls_of_work = 0;

[[gnu::noinline]] long work(long n) {
  calls_of_work++;
  long s = 0;
  for (long i = 0; i < n; i++)
    s += i * i % 7;
  return s;
}
} // namespace

struct Squares {
  long calls = 0;
  [[gnu::noinline]] long operator()(long n) {
    calls++;
    return work(n);
  }
};

int main() {
  Squares squares;
  long total = 0;
  for (long i = 1; i <= 5; i++)
    total += squares(100000 * i);
  std::printf("work %ld operator() %ld total %ld\n", calls_of_work, squares.calls, total);
  return 0;
}
