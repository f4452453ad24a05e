#!/bin/sh
# sampling_threads.sh - samples follow each thread's CPU time: a thread that
# only sleeps (nanosleep, poll) gets none and is never interrupted by them; a
# busy thread gets them at the requested rate.  Threads started late make
# their sampler themselves, at their first probe (seen with strace), and
# without --sample-hz nobody makes one.
# timing: its checks compare times measured within one run, with margins;
# a heavily loaded machine can still push one past them.
. "$INCLPROF_SRC/tests/lib.sh"
need strace
P="$INCLPROF_SRC/tests/programs/sampling"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
samples() { q t.csv "^$1\$" inclusive_samples; }
val() { sed -n "s/^$1 //p" out.txt; }

check "compile with the plugin" gcc -O2 -pthread -fplugin="$INCLPROF_PLUGIN" "$P/threads.c" -o threads
strace -ff -o st -e trace=perf_event_open,timer_create,fcntl \
  "$INCLPROF" record -o out --sample-hz 1000 -- ./threads 500 >out.txt
check_eq "exit status" 0 "$?"
check "CSV export" "$INCLPROF" export --format csv -o t.csv out

check_eq "sleeping thread: no wait interrupted" 0 "$(val sleepy_eintr)"
# Its 4 waits (400 ms) use a fraction of a millisecond of CPU time, usually:
# on a loaded machine a wake-up can cost more, and a sample is then due.
sleepy_us=$(val sleepy_cpu_us)
if [ "$sleepy_us" -lt 1000 ]; then
  check_eq "sleeping thread ($sleepy_us us CPU): no samples" 0 "$(samples sleepy_worker)"
else
  check "sleeping thread ($sleepy_us us CPU): at most one sample per CPU ms" \
    test "$(samples sleepy_worker)" -le "$((sleepy_us / 1000 + 1))"
fi
busy_ms=$(($(val busy_cpu_us) / 1000))
check "busy thread: hundreds of samples ($(samples busy_worker))" test "$(samples busy_worker)" -ge 200
if [ "$(id -u)" = 0 ]; then
  check_near "busy thread: one sample per CPU millisecond" "$busy_ms" "$(samples busy_worker)" "$((busy_ms / 5))"
fi
check "main thread (before the others): samples" test "$(samples main_work)" -ge 200

# Each thread made its own sampler, for itself (strace -ff: st.TID holds the
# system calls of thread TID): a task-clock perf event owned by its tid, or a
# CPU-time timer signalling its tid.
for who in main busy sleepy; do
  tid=$(val $who)
  check "$who thread ($tid) made its own sampler" sh -c "
    grep -q 'perf_event_open(.*PERF_COUNT_SW_TASK_CLOCK' st.$tid &&
      grep -q 'F_SETOWN_EX, {type=F_OWNER_TID, pid=$tid}' st.$tid ||
    grep -q 'timer_create(CLOCK_THREAD_CPUTIME_ID, .*sigev_notify_thread_id=$tid' st.$tid"
done
check_eq "three samplers, one per thread" 3 \
  "$(cat st.* | grep -c 'PERF_COUNT_SW_TASK_CLOCK\|timer_create(CLOCK_THREAD_CPUTIME_ID')"
done_testing
