#!/bin/sh
# plugin_structor_copies.sh - a class with a virtual base
# (tests/programs/convert/structors_lib.cc) has its complete-object and
# base-object constructors and destructors (C1/C2, D1/D2) as different
# functions; called from an instrumented unit, each copy has its own row
# with its own count, at -O0, -O2 and -O2 -flto (where a non-virtual
# member's context is no longer its class), whether the class's unit is built
# without the plugin (call-site probes) or with it (its own probes).  The
# truth is callgrind on an uninstrumented twin: the calls of each copy made
# from the executable's functions, or from everywhere when the library is
# instrumented too (its deleting destructor calls the complete one).
. "$INCLPROF_SRC/tests/lib.sh"
need g++ valgrind
P="$INCLPROF_SRC/tests/programs/convert"

# cg_calls OUT WHERE: "COPY CALLS" per copy of Base's structors, from
# callgrind's OUT: the calls made from the executable's functions (WHERE
# exe) or from any (all).
cg_calls() {
  awk -v where="$2" '/^ob=/ { ob = substr($0, 4) } /^fn=/ { mine = where == "all" || ob ~ /\/plain$/ }
    /^cfn=/ { cfn = substr($0, 5) } /^calls=/ { split($1, a, "="); if (mine) n[cfn] += a[2] }
    END { split("C1 C2 D0 D1 D2", k, " ")
      for (i = 1; i <= 5; i++) printf "%s %d\n", k[i], n["_ZN4Base" k[i] "Ev"] }' "$1"
}
# rows: "COPY CALLS" per copy, from the report's rows of Base::Base() and
# Base::~Base(): a copy is told apart by "(complete)", "(base)" or
# "(deleting)" after the module, or, instrumented, the deleting destructor
# by its name.
rows() {
  COLUMNS=200 "$INCLPROF" report --fields calls data 2>/dev/null | sed -n '/^ *Calls/,$p' | sed 1d |
    awk '{ n = $1; copy = ""; if ($3 ~ /^\(/) { copy = $3; $3 = "" }; $1 = $2 = ""; f = $0; sub(/^ +/, "", f) }
      f == "Base::~Base() [deleting destructor]" { f = "Base::~Base()"; copy = "(deleting)" }
      f == "Base::Base()" || f == "Base::~Base()" {
        c = (f == "Base::Base()" ? "C" : "D") (copy == "(complete)" ? 1 : copy == "(base)" ? 2 : copy == "(deleting)" ? 0 : "?")
        calls[c] += n }
      END { split("C1 C2 D0 D1 D2", k, " "); for (i = 1; i <= 5; i++) printf "%s %d\n", k[i], calls[k[i]] }'
}

# shellcheck disable=SC2086
for level in -O0 -O2 -O2-flto; do
  o=$level
  [ "$level" = -O2-flto ] && o="-O2 -flto"
  for lib in plain plugin; do
    rm -rf twin data && mkdir twin
    g++ $o -fPIC -shared -o twin/libstructors.so "$P/structors_lib.cc" &&
      g++ $o -o plain "$P/structors_main.cc" -Ltwin -lstructors -Wl,-rpath,"$PWD/twin" ||
      { fail "$level: build the uninstrumented twin"; continue; }
    flags=
    [ "$lib" = plugin ] && flags=-fplugin="$INCLPROF_PLUGIN"
    g++ $o $flags -fPIC -shared -o libstructors.so "$P/structors_lib.cc" &&
      g++ $o -fplugin="$INCLPROF_PLUGIN" -o structors "$P/structors_main.cc" -L. -lstructors -Wl,-rpath,"$PWD" ||
      { fail "$level: build with the plugin (library $lib)"; continue; }
    LD_BIND_NOW=1 valgrind --tool=callgrind --demangle=no --compress-strings=no --callgrind-out-file=cg.out \
      ./plain 10 >plain.out 2>cg.err || { fail "$level: callgrind: $(tail -1 cg.err)"; continue; }
    where=exe
    [ "$lib" = plugin ] && where=all
    truth=$(cg_calls cg.out "$where")
    "$INCLPROF" record -o data ./structors 10 >out.txt 2>&1
    check_eq "$level, library $lib: the program's output as the twin's" "$(cat plain.out)" "$(sed '/^inclprof/d' out.txt)"
    check_eq "$level, library $lib: each copy of Base's constructor and destructor has its own row with callgrind's calls ($(echo "$truth" | paste -sd' ' -))" \
      "$truth" "$(rows)"
  done
  # the complete-object copies are really reached apart from the base-object
  # ones (10 whole objects and 30 deleted, 20 Derived)
  check_eq "$level: callgrind counts C1 40, C2 20, D0 30, D1 10, D2 20 from the executable" \
    "C1 40 C2 20 D0 30 D1 10 D2 20" "$(cg_calls cg.out exe | paste -sd' ' -)"
done
done_testing
