/* widget_main.cc - constructs and destroys 1000 Widgets of widget.cc. */
#include <cstdio>
#include "widget.h"
int main()
{
  long t = 0;
  for (int i = 0; i < 1000; i++) {
    Widget w(i);
    t += w.get();
  }
  std::printf("%ld\n", t);
  return 0;
}
