#!/bin/sh
# examples_cpp_inventory.sh - examples/cpp-inventory builds with the plugin
# through its own CMakeLists.txt, runs under `inclprof record`, and the CSV
# shows C++ functions by their demangled names with exact call counts, and
# exits that stay balanced although exceptions leave Warehouse::take.
. "$INCLPROF_SRC/tests/lib.sh"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
EI=elapsed_inclusive_ns EX=elapsed_exclusive_ns AI=application_inclusive_ns AX=application_exclusive_ns

# cmake's generated Makefiles must not inherit `make check`'s jobserver.
cm() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL cmake "$@"; }
check "cmake configures with -DINCLPROF_PLUGIN" \
  cm -S "$INCLPROF_SRC/examples/cpp-inventory" -B inv -DINCLPROF_PLUGIN="$INCLPROF_PLUGIN"
check "cmake builds cpp-inventory with the plugin" cm --build inv
"$INCLPROF" record -o inv.data -- ./inv/cpp-inventory 20000 >run.out 2>run.err
check_eq "cpp-inventory exits 0 under inclprof record" 0 $?
set -- $(sed -n 's/^cpp-inventory: \([0-9]*\) order lines: \([0-9]*\) served, \([0-9]*\) out of stock, \([0-9]*\) unknown.*/\1 \2 \3 \4/p' run.out)
check_eq "the program printed its counts" 4 $#
lines=${1:-unparsed} served=${2:-unparsed} short=${3:-unparsed} unknown=${4:-unparsed}
check "some orders are out of stock and some unknown (exceptions thrown)" test "$short" -gt 0 -a "$unknown" -gt 0
check "csv export" "$INCLPROF" export --format csv -o inv.csv inv.data

calls() { q inv.csv "$1" calls | head -n1; }
check_eq "inv::Warehouse::take: one call per order line" "$lines" "$(calls '^inv::Warehouse::take\(')"
check_eq "inv::process_orders: one call" 1 "$(calls '^inv::process_orders\(')"
check_eq "inv::generate_orders: one call" 1 "$(calls '^inv::generate_orders\(')"
check_eq "inv::OutOfStock constructor: one call per out-of-stock line" "$short" \
  "$(q inv.csv '^inv::OutOfStock::OutOfStock\(' calls | awk '{s+=$1} END{print s+0}')"
check "the Registry<std::string, inv::Item> template is named with its arguments" \
  sh -c "python3 '$INCLPROF_SRC/scripts/csv_query.py' inv.csv '^inv::Registry<std::__cxx11::basic_string<char.*inv::Item>::at\(' calls | grep -q ."
at_calls=$(q inv.csv '::Registry<.*>::at\(' calls | awk '{s+=$1} END{print s+0}')
check "Registry::at: at least one call per order line ($at_calls >= $lines)" test "$at_calls" -ge "$lines"

# Balanced exits: if exceptions skipped take's exit probe, take would stay on
# the stack and its inclusive time would swallow its callers'.
take=$(q inv.csv '^inv::Warehouse::take\(' "$EI" | head -n1)
po=$(q inv.csv '^inv::process_orders\(' "$EI" | head -n1)
check "take's Elapsed Inclusive is below process_orders' ($take < $po)" test "${take:-0}" -lt "${po:-0}" -a "${take:-0}" -gt 0
check "every row: Application <= Elapsed, Exclusive <= Inclusive" sh -c \
  "python3 '$INCLPROF_SRC/scripts/csv_query.py' inv.csv --all '$EI' '$EX' '$AI' '$AX' |
   awk -F'\t' '!(\$3 <= \$1 && \$4 <= \$2 && \$2 <= \$1 && \$4 <= \$3) {bad=1} END {exit bad || NR == 0}'"
done_testing
