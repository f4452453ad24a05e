/* widget.cc - Widget defined here; GCC emits the complete-object
 * constructor and destructor as aliases of the base-object ones. */
#include "widget.h"
static long destroyed;
Widget::Widget(int v) : v_(v * 2) {}
Widget::~Widget() { destroyed += v_; }
int Widget::get() const { return v_ + (int)(destroyed & 1); }
