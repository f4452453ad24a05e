// tmpl2.cc - uses the comdat functions of tmpl.h too.
#include "tmpl.h"
int use2(int x) { return ns::twice(x) + ns::shared_inline(x); }
