#!/bin/sh
# run-check.sh - the phases of `make check`, each run even when one before it
# failed: lint, unit tests, integration tests, then unit and converter tests
# under AddressSanitizer + UBSan.  Ends with one line per phase, the checks
# that failed (a check whose test script says "timing:" in its header is
# named as one whose outcome can depend on the machine's load), and a
# closing "check: N passed, N failed" line; exits non-zero when any phase
# failed.
# Usage: sh tests/run-check.sh MAKE_ARGS...   (from the top of the repository)
set -u
log=$(mktemp "${TMPDIR:-/tmp}/inclprof-check.XXXXXX")
trap 'rm -f "$log" "$log.phase"' EXIT
pass=0 fail=0 summary="" failed_phases="" scripts=""
run_phase() { # run_phase NAME TARGET ARGS...: a phase whose make status counts too
  name=$1; target=$2; shift 2
  if ! { make --no-print-directory "$@" "$target" 2>&1; echo "make-exit=$?"; } | tee "$log.phase" | grep -v '^make-exit='; then :; fi
  rc=$(sed -n 's/^make-exit=//p' "$log.phase")
  counts=$(sed -n 's/^[a-z]*: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$log.phase")
  p=0 f=0
  while read -r a b; do
    [ -n "$a" ] || continue
    p=$((p + a)); f=$((f + b))
  done <<EOT
$counts
EOT
  grep -E '^FAIL( -|:)' "$log.phase" | sed "s/^/$name: /" >>"$log"
  scripts="$scripts $(sed -n 's/^failed scripts://p' "$log.phase")"
  if [ "$rc" != 0 ]; then
    failed_phases="$failed_phases $name"
    [ "$f" -eq 0 ] && f=1 && echo "$name: make $target exited $rc" >>"$log"
  fi
  pass=$((pass + p)); fail=$((fail + f))
  summary="$summary$name: $p passed, $f failed
"
}
run_phase lint lint "$@"
run_phase unit check-unit "$@"
run_phase integration check-integration "$@"
run_phase sanitizers check-san "$@"

echo "== summary"
printf '%s' "$summary" | sed 's/^/  /'
if [ -s "$log" ]; then
  echo "failed:"
  sed 's/^/  /' "$log"
  # Scripts that failed and say in their header that they measure time.
  timed=""
  for s in $scripts; do
    [ -f "$s" ] && sed -n '1,15p' "$s" | grep -q 'timing:' && timed="$timed $s"
  done
  [ -n "$timed" ] && echo "these compare times measured in one run and can fail when the machine is heavily loaded; run one alone with: sh tests/run-integration.sh SCRIPT:$timed"
fi
echo "check: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ -z "$failed_phases" ]
