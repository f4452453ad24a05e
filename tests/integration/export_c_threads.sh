#!/bin/sh
# export_c_threads.sh - a multi-threaded C program through every export format,
# each read back by an independent parser: go tool pprof's flat/cum equal the
# CSV's Exclusive/Inclusive exactly; the DevTools trace engine finds one slice
# per recorded call on every thread; callgrind_annotate's self/inclusive costs
# and totals equal ours; the folded stacks sum to the total.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/viewers/viewers.sh"

check "viewers installed (go, callgrind_annotate, node + trace engine)" viewers_ready
check "compile with the plugin" cc_plugin threads "$INCLPROF_SRC/tests/programs/convert/threads.c" -O0 -pthread
check "run under inclprof record" "$INCLPROF" record ./threads
check_every_format
check_wait_columns
check "trace engine: the worker's frames are named" grep -q '"leaf"' engine.txt
check "folded: stacks start at their thread" grep -q '^thread [0-9]* ([^)]*);worker;middle;leaf ' inclprof.folded
done_testing
