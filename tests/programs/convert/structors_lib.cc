// structors_lib.cc - a class built into a library without the plugin: GCC
// emits each of its constructors and its destructor in several copies
// (complete object, base object, deleting), which the demangler names
// alike; structors_main.cc reaches each copy, and calls twice() both at a
// call site and through a pointer.
#include "structors_lib.h"

Base::Base() : value(1) {}
Base::~Base() { value = 0; }
int Base::get() const { return value; }
int twice(int x) { return 2 * x; }
