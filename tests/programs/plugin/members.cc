/* members.cc - an implicitly defined virtual destructor (Derived has none
 * written) that runs the user-written destructors of its members, reached
 * through a base pointer (the deleting destructor, called indirectly). */
#include <cstdio>
static long sink;
struct Member {
  int v;
  explicit Member(int x) : v(x) {}
  ~Member();
};
__attribute__((noinline)) Member::~Member() { sink += v; }
struct Base {
  virtual ~Base();
  virtual int get() const = 0;
};
Base::~Base() { sink += 1; }
struct Derived : Base {
  Member a, b;
  explicit Derived(int x) : a(x), b(x + 1) {}
  int get() const override { return a.v + b.v; }
};
__attribute__((noinline)) static Base *make(int i) { return new Derived(i); }
int main()
{
  long t = 0;
  for (int i = 0; i < 1000; i++) {
    Base *p = make(i);
    t += p->get();
    delete p;
  }
  std::printf("%ld %ld\n", t, sink);
  return 0;
}
