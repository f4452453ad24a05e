// structors_main.cc - reaches each copy of the library's constructor and
// destructor (structors_lib.cc) a known number of times, and a library
// function both at a call site and through a pointer; prints the counts:
//   complete N  (Base objects made whole: C1 and D1, or D0 for delete)
//   base N      (Base parts of Derived objects: C2 and D2)
//   deleting N  (Base objects deleted through a pointer: D0)
//   twice N     (calls of the library's twice(): half at a call site, half
//               through a pointer)
#include <cstdio>
#include <cstdlib>

#include "structors_lib.h"

struct Derived : Base {
  int extra = 2;
};

__attribute__((noinline)) int make_whole(int i) {
  Base b;
  return b.get() + i;
}

__attribute__((noinline)) int make_derived(int i) {
  Derived d;
  return d.get() + d.extra + i;
}

__attribute__((noinline)) int make_deleted(int i) {
  Base *p = new Base;
  int v = p->get() + i;
  delete p;
  return v;
}

int (*volatile twice_pointer)(int) = twice;

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10, sum = 0;
  for (int i = 0; i < n; i++)
    sum += make_whole(i);
  for (int i = 0; i < 2 * n; i++)
    sum += make_derived(i);
  for (int i = 0; i < 3 * n; i++)
    sum += make_deleted(i);
  for (int i = 0; i < 2 * n; i++)
    sum += i % 2 ? twice(i) : twice_pointer(i);
  printf("complete %d\nbase %d\ndeleting %d\ntwice %d\nsum %d\n", n, 2 * n, 3 * n, 2 * n, sum);
  return 0;
}
