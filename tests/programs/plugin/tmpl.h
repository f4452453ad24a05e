// tmpl.h - a template and an inline function emitted (comdat) by every unit
// that uses them out of line.
namespace ns {
template <typename T> __attribute__((noinline)) T twice(T x) { return x + x; }
__attribute__((noinline)) inline int shared_inline(int x) { return x - 1; }
}
