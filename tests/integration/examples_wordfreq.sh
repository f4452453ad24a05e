#!/bin/sh
# examples_wordfreq.sh - examples/wordfreq builds with the plugin through its
# own Makefile, runs under `inclprof record`, and its CSV export has the
# expected functions with the expected calls and time relations.  With
# futex waits, the critical path's lock table: its objects are the queue's
# lock and conditions (at the offsets the compiler gives them in struct
# work_queue) and the threads main joined (a signaler that slept is a
# futex word inside one of the conditions; a lock of the runtime's own, which
# threads starting together can sleep on, is named as such and left out; so
# is glibc's malloc arena lock, a futex word slept on inside malloc or free
# when a worker frees a line the reader allocated in another arena), and
# the sleeping it shows is the Off-CPU blocked time of the pthread calls that
# slept.
# timing: its checks compare times measured within one run, with margins;
# a heavily loaded machine can still push one past them.
. "$INCLPROF_SRC/tests/lib.sh"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
EI=elapsed_inclusive_ns EX=elapsed_exclusive_ns AI=application_inclusive_ns AX=application_exclusive_ns

check "wordfreq builds with the plugin (its Makefile, INCLPROF_PLUGIN=...)" \
  env -u MAKEFLAGS -u MAKELEVEL make -s -C "$INCLPROF_SRC/examples/wordfreq" O="$T_DIR/wf" INCLPROF_PLUGIN="$INCLPROF_PLUGIN" \
    INCLPROF_INCLUDE="$INCLPROF_SRC/runtime"
mkdir files
"$INCLPROF" record -o wf.data -- ./wf/wordfreq -t 3 -l 20000 -d files >run.out 2>run.err
check_eq "wordfreq exits 0 under inclprof record" 0 $?
check "wordfreq wrote its result file" test -s files/wordfreq-result.txt
words=$(sed -n 's/^wordfreq: \([0-9]*\) words, \([0-9]*\) distinct.*/\1/p' run.out)
distinct=$(sed -n 's/^wordfreq: \([0-9]*\) words, \([0-9]*\) distinct.*/\2/p' run.out)
check "wordfreq printed its counts" test -n "$words" -a -n "$distinct"
check "csv export" "$INCLPROF" export --format csv -o wf.csv wf.data

check_eq "threads named through inclprof.h: worker-0..2 and reader" "reader worker-0 worker-1 worker-2" \
  "$("$INCLPROF" info wf.data | grep -o -w 'reader\|worker-[0-9]*' | sort | tr '\n' ' ' | sed 's/ $//')"

calls() { q wf.csv "$1" calls | head -n1; }
check_eq "worker_main: one call per worker thread" 3 "$(calls '^worker_main$')"
check_eq "reader_main: one call" 1 "$(calls '^reader_main$')"
check_eq "text_generate_file: one call" 1 "$(calls '^text_generate_file$')"
check_eq "results_write: one call" 1 "$(calls '^results_write$')"
check_eq "fsync (a library call, named at its call sites): 2 calls" 2 "$(calls '^fsync$')"
check_eq "pthread_create: 3 workers + 1 reader" 4 "$(calls '^pthread_create$')"
adds=$(calls '^word_table_add$')
check "word_table_add: once per word plus once per distinct word per worker in the merge ($adds)" \
  test "${adds:-0}" -ge "$((words + distinct))" -a "${adds:-0}" -le "$((words + 3 * distinct))"
check_eq "main: one call" 1 "$(calls '^main$')"

check "every row: Application Inclusive <= Elapsed Inclusive, Exclusive <= Inclusive" sh -c \
  "python3 '$INCLPROF_SRC/scripts/csv_query.py' wf.csv --all '$EI' '$EX' '$AI' '$AX' |
   awk -F'\t' '!(\$3 <= \$1 && \$4 <= \$2 && \$2 <= \$1 && \$4 <= \$3) {bad=1} END {exit bad || NR == 0}'"
main_ei=$(q wf.csv '^main$' "$EI")
check "main's Elapsed Inclusive is the largest on its thread (>= text_generate_file's)" \
  test "${main_ei:-0}" -ge "$(q wf.csv '^text_generate_file$' "$EI")"

if "$INCLPROF" info wf.data | grep -qi 'transitions*[^a-z]*none'; then
  ok "transition mode none: skipping the kernel-time checks"
else
  gen=$(q wf.csv '^text_generate_file$' "$EI" "$AI")
  check "text_generate_file (write + fsync): Application Inclusive < Elapsed Inclusive ($gen)" \
    sh -c "echo '$gen' | awk -F'\t' '{exit !(\$2 < \$1)}'"
  fs=$(q wf.csv '^fsync$' "$EI" "$AI")
  check "fsync: Application Inclusive is less than half its Elapsed Inclusive ($fs)" \
    sh -c "echo '$fs' | awk -F'\t' '{exit !(\$2 * 2 < \$1)}'"
fi
if "$INCLPROF" info wf.data | grep -q '^waits:'; then
  # main's pthread_join waits for the reader and for workers that count
  # for milliseconds: it sleeps on a futex, which is Off-CPU blocked.
  # (pthread_cond_wait is no good here: whether a worker ever finds the
  # queue empty depends on how the threads happen to be scheduled.)
  cw=$(q wf.csv '^pthread_join$' "$EI" "$AI" offcpu_blocked_inclusive_ns)
  check "pthread_join: most of its Non-Application time is Off-CPU blocked ($cw)" \
    sh -c "echo '$cw' | awk -F'\t' '{exit !(\$3 * 2 > \$1 - \$2 && \$3 > 0)}'"
  check "report --wait prints the breakdown" sh -c \
    "'$INCLPROF' report --wait --top 5 wf.data | grep -q 'Preempted.*Blocked.*Syscalls'"
fi
if "$INCLPROF" info wf.data | grep -q 'why:.*futex waits'; then
  "$INCLPROF" report --critical wf.data >critical.txt 2>&1
  printf '#include <stddef.h>\n#include <stdio.h>\n#include "work_queue.h"\nint main(void) { printf("%%zu %%zu %%zu\\n", offsetof(struct work_queue, lock), offsetof(struct work_queue, not_empty), offsetof(struct work_queue, not_full)); return 0; }\n' >offsets.c
  gcc -I"$INCLPROF_SRC/examples/wordfreq" -o offsets offsets.c && ./offsets >offsets.txt
  blocked=$(q wf.csv '^pthread_(join|cond_wait|cond_timedwait|mutex_lock|cond_signal|cond_broadcast)$' offcpu_blocked_exclusive_ns | awk '{ s += $1 } END { print s + 0 }')
  python3 - critical.txt offsets.txt "$blocked" >locks.txt <<'PY'
import re, sys
unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
offsets = [int(x) for x in open(sys.argv[2]).read().split()]
objects, signal_words, threads, waited, on = set(), set(), 0, 0, False
for line in open(sys.argv[1]):
    if line.startswith("lock table"):
        on = True
        continue
    m = re.match(r"\s*[\d.]+ \w+\s+\d+\s+\d+\s+([\d.]+) (ns|us|ms|s)\s+(.*?)\s{2,}(\S+)", line) if on else None
    if not m:
        continue
    if m.group(4).startswith("pthread_"):
        waited += float(m.group(1)) * unit[m.group(2)]
    if m.group(3).startswith("thread "):
        threads += 1
        continue
    if m.group(3).endswith("(inclprof's runtime)"):  # recording's own lock
        continue
    if m.group(3).startswith("futex word ") and re.match(r"(malloc|free|calloc|realloc|cfree)\b", m.group(4)):
        continue  # the allocator's arena lock, slept on inside malloc or free
    address = int(re.search(r"0x[0-9a-f]+", m.group(3)).group(0), 16)
    if m.group(3).startswith("futex word ") and re.match(r"pthread_cond_(signal|broadcast)$", m.group(4)):
        signal_words.add(address)
    else:
        objects.add(address)
# A signaler that slept (up to glibc 2.40, waiting on __g_refs for the old
# group's waiters) is a futex word, shown as such: it must lie inside one
# of the queue's conditions (48 bytes each).
bases = [b for b in (o - off for o in objects for off in offsets) if all(o - b in offsets for o in objects)]
inside = bool(bases) and all(any(0 < w - (b + off) < 48 for b in bases for off in offsets[1:]) for w in signal_words)
print("objects", len(objects), "in the queue" if inside else "elsewhere", "threads", threads)
blocked = float(sys.argv[3])
print("waited", "equal" if blocked and abs(waited - blocked) <= 0.01 * blocked + 1e5 else "%.0f vs %.0f" % (waited, blocked))
PY
  check "lock table: the objects slept on are the queue's lock and conditions, by their offsets in struct work_queue, glibc $(getconf GNU_LIBC_VERSION | awk '{ print $2 }') ($(head -1 locks.txt))" \
    grep -Eq '^objects ([0-3] in the queue|0 elsewhere) threads [1-4]$' locks.txt
  check_eq "lock table: its sleeping in pthread calls = their Off-CPU blocked time (report --wait)" \
    "waited equal" "$(sed -n 2p locks.txt)"
fi
done_testing
