#!/bin/sh
# record_relative_dir.sh - `inclprof record -o DIR` with DIR relative, of a
# script that changes its working directory before it runs the program (as
# a test runner's script does): the program's trace is written to DIR, as
# the command said, and nothing to a DIR under the program's own directory.
. "$INCLPROF_SRC/tests/lib.sh"
check "hot_paths builds" cc_plugin hot_paths "$INCLPROF_SRC/tests/programs/convert/hot_paths.c" -O2
mkdir -p elsewhere && mv hot_paths elsewhere/
printf '#!/bin/sh\ncd elsewhere || exit 1\n./hot_paths >/dev/null\n' >run.sh && chmod +x run.sh
"$INCLPROF" record -o data -- ./run.sh >out.txt 2>&1
check_eq "record says it wrote the program's trace" "inclprof: 1 trace file written to data/ (status 0)" "$(tail -n 1 out.txt)"
check_eq "the trace is in data/" 1 "$(ls data/*.ipb 2>/dev/null | wc -l)"
check "nothing under the program's directory" test ! -e elsewhere/data
done_testing
