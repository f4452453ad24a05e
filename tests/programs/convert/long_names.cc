// long_names.cc - C++ names that only differ in the middle: three
// instantiations of one long class template's member, told apart by one
// template argument deep inside (Policy<1>, <2>, <3>); three overloads of
// compute; a lambda; a long template function GCC inlines at -O2 (report
// --missing lists it); no standard library templates (their names change
// with the GCC version).  Built twice under two names, it gives two executables
// with the same functions.  Prints the calls it made ("calls NAME N").
#include <cstdio>

namespace outer_space {
namespace inner_detail {
template <typename T, int N> struct FixedArray {
  T v[N];
};
template <typename K, typename V> struct Table {
  K keys[4];
  V vals[4];
};
template <int N> struct Policy {
  static constexpr int factor = N;
};
template <typename Map, typename P> struct Holder {
  Map table;
  __attribute__((noinline)) unsigned long process(const FixedArray<char, 32> &key, unsigned long n) {
    unsigned long s = 0;
    for (unsigned long i = 0; i < n * P::factor; i++)
      s += i ^ (unsigned long)key.v[i % 32];
    table.vals[0].v[0] = (int)s;
    return s;
  }
};
using Map = Table<FixedArray<char, 32>, FixedArray<int, 4>>;
} // namespace inner_detail
} // namespace outer_space

using outer_space::inner_detail::FixedArray;

template <typename T>
static inline unsigned long
first_two_letters_of_the_lookup_key_for_every_holder(const FixedArray<FixedArray<T, 32>, 4> &keys) {
  return (unsigned long)keys.v[0].v[0] + (unsigned long)keys.v[1].v[0];
}

__attribute__((noinline)) unsigned long compute(int x) {
  unsigned long s = 0;
  for (int i = 0; i < x * 1000; i++)
    s += (unsigned long)i;
  return s;
}
__attribute__((noinline)) unsigned long compute(double x) { return compute((int)(x * 2)); }
__attribute__((noinline)) unsigned long compute(const FixedArray<FixedArray<char, 32>, 4> &keys) {
  unsigned long s = 0;
  for (const auto &k : keys.v)
    s += compute((int)k.v[0] % 5);
  return s;
}

int main() {
  namespace d = outer_space::inner_detail;
  d::Holder<d::Map, d::Policy<1>> a;
  d::Holder<d::Map, d::Policy<2>> b;
  d::Holder<d::Map, d::Policy<3>> c;
  FixedArray<char, 32> key = {{'k', 'e', 'y'}};
  unsigned long s = 0;
  auto each = [&](int round) __attribute__((noinline)) {
    return a.process(key, 1000 + round) + b.process(key, 1000) + c.process(key, 1000);
  };
  for (int i = 0; i < 20; i++)
    s += each(i);
  FixedArray<FixedArray<char, 32>, 4> keys = {{{{'a'}}, {{'b'}}, {{'c'}}, {{'d'}}}};
  s += compute(3) + compute(2.0) + compute(keys) +
       first_two_letters_of_the_lookup_key_for_every_holder(keys);
  std::printf("sum %lu\ncalls process 60\ncalls compute(int) 6\n", s);
  return 0;
}
