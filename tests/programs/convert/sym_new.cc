// sym_new.cc - calls libstdc++'s operator new through a pointer 3 times: a
// target the runtime names by its (mangled) dynamic symbol.
#include <cstddef>
#include <cstdio>
#include <new>
__attribute__((noinline)) static void *call(void *(*f)(std::size_t), std::size_t n) { return f(n); }
int main() {
  void *(*volatile f)(std::size_t) = &::operator new;
  for (int i = 0; i < 3; i++)
    ::operator delete(call(f, 16));
  std::puts("ok");
}
