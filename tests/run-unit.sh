#!/bin/sh
# run-unit.sh BIN... - run Check test binaries, then print one summary line.
# Check prints per-binary results ("100%: Checks: N, Failures: F, Errors: E").
set -u
# Check stops a test after 4 s by default: a guard against hangs, which a
# loaded 2-core machine (or the sanitizer build) can reach on a correct test.
# A minute still catches a hang.
: "${CK_DEFAULT_TIMEOUT:=60}"
export CK_DEFAULT_TIMEOUT
pass=0; fail=0
for t in "$@"; do
  out=$("$t" 2>&1); rc=$?
  printf '%s\n' "$out" | grep -E '^[0-9]+%: Checks|:[EF]:' || true
  line=$(printf '%s\n' "$out" | sed -n 's/^[0-9]*%: Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/p' | tail -1)
  if [ -z "$line" ]; then
    echo "FAIL: $t printed no Check summary (exit $rc)"; printf '%s\n' "$out" | tail -20
    fail=$((fail + 1)); continue
  fi
  read -r n f e <<EOT
$line
EOT
  pass=$((pass + n - f - e)); fail=$((fail + f + e))
  if [ "$rc" -ne 0 ] && [ $((f + e)) -eq 0 ]; then echo "FAIL: $t exited $rc"; fail=$((fail + 1)); fi
done
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
