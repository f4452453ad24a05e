#!/bin/sh
# peer_quick.sh - make peer's quick subset (tests/peer/quick.txt: 117 runs
# of GCC's torture and tree-prof tests and valgrind's programs, from Debian's
# source packages cached in build/debian-src, and of inclprof's own programs
# of the kinds that broke under the runtime): every run exits and prints as
# it does plain, and every function's calls are callgrind's or
# an explained difference (tests/peer/explained.txt).  Skipped, saying why on
# one line, when the source packages cannot be fetched.
. "$INCLPROF_SRC/tests/lib.sh"
need valgrind python3
INCLPROF_PEER_DIR="$INCLPROF_SRC/build/peer-quick" sh "$INCLPROF_SRC/tests/peer/peer.sh" quick >peer.log 2>&1
rc=$?
if grep -q '^skip - ' peer.log; then
  grep '^skip - ' peer.log | sed 's/^skip - /ok - skipped: /'
  exit 0
fi
summary=$(grep '^peer: [0-9]* programs' peer.log)
grep -E '^(unexplained|peer):' peer.log
runs=$(echo "$summary" | sed -n 's/^peer: [0-9]* programs, \([0-9]*\) runs.*/\1/p')
check_eq "no unexplained difference ($summary)" "0 0" "$rc $(echo "$summary" | sed -n 's/.* \([0-9]*\) unexplained$/\1/p')"
# 54 programs: 45 at -O0 and -O2, 9 tree-prof tests also with profile feedback
check_eq "every program of the quick subset ran at each of its option sets" 117 "$runs"
done_testing
