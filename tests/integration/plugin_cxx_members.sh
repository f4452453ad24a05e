#!/bin/sh
# plugin_cxx_members.sh - C++ special members count as written: an implicitly
# defined destructor (it runs user-written member destructors) is
# instrumented, the deleting destructor is labelled, and a constructor or
# destructor called from another unit has one row (the call-site probes name
# the instrumented base-object symbol, not its complete-object alias).
. "$INCLPROF_SRC/tests/lib.sh"
PP="$INCLPROF_SRC/tests/programs/plugin"
calls() { awk -F, -v f="$1" '$1 == f { n++; s = s (s ? " " : "") $5 } END { print n + 0 ":" s }' inclprof.csv; }
record() { rm -rf inclprof.data inclprof.csv; "$INCLPROF" record "$1" >/dev/null 2>&1 &&
  "$INCLPROF" export --format csv -o inclprof.csv 2>/dev/null; }

for o in -O0 -O2; do
  g++ "$o" -fplugin="$INCLPROF_PLUGIN" -fplugin-arg-inclprof-report=report.txt "$PP/members.cc" -o members ||
    fail "$o: build members.cc"
  check_eq "$o: runs" "1000000 1001000" "$(./members)"
  record ./members
  check_eq "$o: the implicit deleting destructor: one row, 1000 calls" "1:1000" \
    "$(calls 'Derived::~Derived() [deleting destructor]')"
  check "$o: report: the implicit destructor is instrumented" \
    grep -q '^instrumented	Derived::~Derived() \[deleting destructor\]	.*members.cc:17	' report.txt
  check_eq "$o: nothing reported as compiler-generated" 0 "$(grep -c 'compiler-generated' report.txt)"
  # At -O0 the base-object destructor is a function of its own, called by
  # the deleting one.
  [ "$o" = -O0 ] && check_eq "-O0: the implicit base-object destructor: 1000 calls" "1:1000" \
    "$(calls 'Derived::~Derived()')"
done

g++ -O2 -fplugin="$INCLPROF_PLUGIN" -c "$PP/widget.cc" -o widget.o &&
  g++ -O2 -fplugin="$INCLPROF_PLUGIN" -c "$PP/widget_main.cc" -o widget_main.o &&
  g++ widget_main.o widget.o -o widget || fail "build the widget program"
record ./widget
check_eq "constructor from another unit: one row, 1000 calls" "1:1000" "$(calls 'Widget::Widget(int)')"
check_eq "destructor from another unit: one row, 1000 calls" "1:1000" "$(calls 'Widget::~Widget()')"
check_eq "get: one row, 1000 calls" "1:1000" "$(calls 'Widget::get() const')"
done_testing
