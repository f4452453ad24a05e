#!/bin/sh
# plugin_modules.sh - a PIE, an instrumented shared library
# loaded with dlopen and unloaded with dlclose: registration, unregistration,
# events from its constructor and destructor, the indirect call naming it.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/plugin/common.sh"

pcc pie "$PP/calls.c" -O2 -fPIE -pie || fail "PIE compiles"
check "PIE is position independent" sh -c "readelf -h pie | grep -q 'DYN'"
run log ./pie >/dev/null
check "PIE balanced" balanced log
check_eq "PIE leaf calls" 10 "$(count E leaf log)"

gcc -fplugin="$INCLPROF_PLUGIN" -O2 -fPIC -shared "$PP/dso.c" -o libdso.so || fail "DSO compiles"
pcc loader "$PP/loader.c" -O2 -ldl || fail "loader compiles"
run log ./loader "$T_DIR/libdso.so"; rc=$?
check_eq "dlopen program result" 0 "$rc"
check "dlopen log balanced" balanced log
check_eq "register, constructor, call through dlsym pointer, destructor, unregister" \
  "U $PP/dso.c 4|E dso_init|E dso_work|X dso_work|X dso_init|I dso_entry|E dso_entry|E dso_work|X dso_work|X dso_entry|J dso_entry|E dso_fini|E dso_work|X dso_work|X dso_fini|D $PP/dso.c" \
  "$(grep -Ev '^[EXCRUD] (main|dlopen|dlsym|dlclose)|^U .*loader|^D .*loader' log | paste -sd'|' -)"
done_testing
