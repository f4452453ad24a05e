// tmpl1.cc - uses the comdat functions of tmpl.h.
#include "tmpl.h"
int use2(int x);
int use1(int x) { return ns::twice(x) + ns::shared_inline(x); }
int main() { return use1(3) + use2(4) == 8 + 11 ? 0 : 1; }
