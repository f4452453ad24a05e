#!/bin/sh
# run-integration.sh SCRIPT... - run shell integration tests, print one summary line.
# Each script uses tests/lib.sh: it prints "ok - ..." / "FAIL - ..." per
# assertion and exits non-zero if any assertion failed.
set -u
pass=0; fail=0; failed=""
for s in "$@"; do
  echo "== $s"
  tmp=$(mktemp)
  sh "$s" >"$tmp" 2>&1; rc=$?
  cat "$tmp"
  p=$(grep -c '^ok - ' "$tmp"); f=$(grep -c '^FAIL - ' "$tmp")
  rm -f "$tmp"
  pass=$((pass + p)); fail=$((fail + f))
  if [ "$rc" -ne 0 ]; then
    [ "$f" -eq 0 ] && { echo "FAIL - $s exited $rc"; fail=$((fail + 1)); }
    failed="$failed $s"
  fi
done
[ -n "$failed" ] && echo "failed scripts:$failed"
echo "integration: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
