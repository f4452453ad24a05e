// eh.cc - exceptions through plain, RAII and catch/rethrow frames, noexcept and
// a function-try-block.
#include <cstdio>
#include <stdexcept>

struct Guard {
  const char *name;
  explicit Guard(const char *n) : name(n) {}
  ~Guard() { std::fprintf(stderr, "dtor %s\n", name); }
};

__attribute__((noinline)) int thrower(int x)
{
  if (x > 0)
    throw std::runtime_error("boom");
  return x;
}
__attribute__((noinline)) int plain(int x) { return thrower(x) + 1; }
__attribute__((noinline)) int raii(int x)
{
  Guard g("raii");
  return plain(x) * 2;
}
__attribute__((noinline)) int rethrow(int x)
{
  try {
    return raii(x);
  } catch (...) {
    std::fprintf(stderr, "caught in rethrow\n");
    throw;
  }
}
__attribute__((noinline)) int nx(int x) noexcept { static volatile int n; n = n + 1; return x + 3; } // a side effect: no GCC moves the call
__attribute__((noinline)) int ftb(int x) try {
  return rethrow(x);
} catch (const std::exception &e) {
  std::fprintf(stderr, "ftb caught %s\n", e.what());
  return -1;
}

int main()
{
  int r = ftb(1) + nx(2);
  try {
    rethrow(5);
  } catch (...) {
    std::fprintf(stderr, "main caught\n");
  }
  return r == 4 ? 0 : 1;
}
