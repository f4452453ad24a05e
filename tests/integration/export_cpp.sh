#!/bin/sh
# export_cpp.sh - a C++ program (namespaces, templates, operators, exceptions)
# through every export format and its parser; the demangled names, full of
# '<', '>', ',', '&', '*' and parentheses, arrive intact in each viewer.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/viewers/viewers.sh"

cat >shop.cc <<'EOF2'
#include <cstdio>
#include <stdexcept>
#include <utility>
namespace shop {
namespace detail {
template <typename T, int N> struct Box {
  T items[N];
  T sum() const { T s = T(); for (int i = 0; i < N; i++) s += items[i]; return s; }
};
bool operator<(const Box<int, 4> &a, const Box<int, 4> &b) { return a.sum() < b.sum(); }
}  // namespace detail
template <typename A, typename B> std::pair<A, B> make(A a, B b) { return std::pair<A, B>(a, b); }
int check(int v) {
  if (v % 3 == 0) throw std::runtime_error("a multiple of \"three\"");
  return v;
}
int guarded(int v) {
  try { return check(v); } catch (const std::exception &) { return -1; }
}
}  // namespace shop
int main() {
  long total = 0;
  shop::detail::Box<int, 4> a = {{1, 2, 3, 4}}, b = {{4, 5, 6, 7}};
  for (int i = 0; i < 10; i++) {
    total += shop::guarded(i);
    total += a < b;
    total += shop::make<int, double>(i, 0.5).first;
    shop::detail::Box<double, 2> d = {{0.5, 1.5}};
    total += (long)d.sum();
  }
  std::printf("%ld\n", total);
  return 0;
}
EOF2
check "viewers installed (go, callgrind_annotate, node + trace engine)" viewers_ready
check "compile with the plugin" sh -c "g++ -O0 -fplugin='$INCLPROF_PLUGIN' shop.cc -o shop -L'$INCLPROF_LIBDIR' -Wl,-rpath,'$INCLPROF_LIBDIR' -linclprof"
check_eq "run under inclprof record" "98" "$("$INCLPROF" record ./shop 2>/dev/null)"
check_every_format

# The names the trace engine shows are exactly the CSV's function names.
csv_rows inclprof.csv function calls | awk -F '\t' '$2 > 0 { print $1 }' >csv-names.txt
awk '$1 == "name" { sub(/^name [0-9]+ [0-9]+ /, ""); print }' engine.txt |
  python3 -c 'import json, sys; [print(json.loads(l)) for l in sys.stdin]' >engine-names.txt
same_lines "trace engine: every function name survives JSON escaping" csv-names.txt engine-names.txt
for name in 'shop::detail::Box<int, 4>::sum() const' 'shop::detail::Box<double, 2>::sum() const' \
  'shop::check(int)' 'shop::detail::operator<(shop::detail::Box<int, 4> const&, shop::detail::Box<int, 4> const&)'; do
  check "trace engine shows $name" grep -qxF "$name" engine-names.txt
  check "pprof shows $name" sh -c "grep -qF '$name' pprof-elapsed.txt"
  check "callgrind_annotate shows $name" sh -c "grep -qF '$name' cg-incl.txt"
  check "folded stacks hold $name" grep -qF ";$name" inclprof.folded
done
check "the exception path: guarded -> check -> __cxa_throw in the folded stacks" \
  grep -qE ';shop::guarded\(int\);shop::check\(int\);[^;]*__cxa_throw' inclprof.folded
check_eq "pprof: shop::check(int) was called 10 times" 10 \
  "$(pprof_top inclprof.pb.gz -sample_index=calls | awk -F '\t' '$1 == "shop::check(int)" { print $2 }')"
done_testing
