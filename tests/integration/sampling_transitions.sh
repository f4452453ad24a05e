#!/bin/sh
# sampling_transitions.sh - sampling does not change the Application values:
# with kevents, the sampler's own system calls (rt_sigreturn, re-arming) are
# not taken for kernel work of the program, so the interval after a sample is
# not transitional (it was, every time, before the runtime allowed for
# them); kernel work before a sample (a preemption at that tick) is kept on
# the interval before it.  Also: sampling survives exec and fork, every
# process of the chain has its own samples.
# timing: its checks compare times measured within one run, with margins;
# a heavily loaded machine can still push one past them.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/runtime/build.sh"
P="$INCLPROF_SRC/tests/programs/sampling"
rt_build || { fail "build the trace dumper"; exit 1; }

check "compile with the plugin" gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$P/proportions.c" -o proportions
"$INCLPROF" record -o out --transitions kevents --sample-hz 2000 -- ./proportions 8000 >/dev/null 2>&1
f=$(rt_only_trace out)
if ./trace_dump "$f" | grep -q "^header .*transitions=kevents"; then
  # ev TID T DT KIND GID: the T of the event after a sample (KIND 4)
  set -- $(./trace_dump -e "$f" | awk '$1 != "ev" { next }
    prev == 4 && $5 != 4 { n++; t += $3 } { prev = $5 } END { print n + 0, t + 0 }')
  check "hundreds of samples followed by a probe ($1)" test "$1" -ge 300
  check "intervals after a sample: under 10% transitional ($2 of $1)" test "$(($2 * 10))" -lt "$1"
else
  echo "ok - kevents unavailable here: $(./trace_dump "$f" | sed -n 's/.*note=//p') # SKIP"
fi

# A long function that makes no system call, sampled: its intervals between
# samples that are transitional all the same (an interrupt's wake-up of
# another task lands in the thread's records, or a preemption) hold the
# handler's own system calls too, which split them as the program's system
# calls (Syscalls 3-16 ms of a 100 ms function before the runtime left those
# records out); a function that makes system calls keeps its Syscalls time.
cat >long.c <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
static volatile unsigned long long sink;
__attribute__((noinline)) void crunch(long n) { for (long i = 0; i < n; i++) sink = sink * 6364136223846793005ULL + 1; }
__attribute__((noinline)) void calls(long n) { for (long i = 0; i < n; i++) sink += (unsigned long long)syscall(SYS_getppid); }
int main(int argc, char **argv) { crunch(atol(argv[1])); calls(atol(argv[2])); return 0; }
EOF2
check "compile the long function" gcc -O2 -fplugin="$INCLPROF_PLUGIN" long.c -o long
if "$INCLPROF" info out/*.ipb 2>/dev/null | grep -q '^waits:'; then
  runs="" zero=0
  for i in 1 2 3; do
    "$INCLPROF" record -o long$i --sample-hz 2000 -- ./long 150000000 20000 >/dev/null 2>&1
    "$INCLPROF" report --wait --top 10 long$i >long$i.txt 2>&1
    c=$(awk '$NF == "crunch" { print $(NF - 7), $(NF - 6) }' long$i.txt)
    runs="$runs${runs:+; }$c"
    [ "$c" = "0 ns" ] && zero=$((zero + 1))
  done
  check_eq "a long function with no system call: no Syscalls time in 3 sampled runs ($runs)" 3 "$zero"
  check "its system calls' function keeps its Syscalls time ($(awk '$NF == "calls" { print $(NF - 7), $(NF - 6) }' long1.txt))" \
    sh -c "awk '\$NF == \"calls\" { found = \$(NF - 7) != 0 } END { exit !found }' long1.txt"
else
  echo "ok - no wait breakdown here (kevents unavailable) # SKIP"
fi

# exec and fork: the sampler stops before an exec (a pending sampling signal
# would kill the new program: its handler is gone) and is made anew after it.
cat >chain.c <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile unsigned long sink;
__attribute__((noinline)) void work(void) { for (long i = 0; i < 20000000; i++) sink = sink * 3 + 1; }
int main(int argc, char **argv) {
  int left = argc > 1 ? atoi(argv[1]) : 0;
  work();
  if (left == 0) {
    pid_t c = fork();
    if (c == 0) { work(); return 0; }
    int st;
    return waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
  }
  char n[16];
  snprintf(n, sizeof n, "%d", left - 1);
  execl(argv[0], argv[0], n, (char *)0);
  return 2;
}
EOF2
check "compile the exec chain" gcc -O2 -fplugin="$INCLPROF_PLUGIN" chain.c -o chain
"$INCLPROF" record -o chain_out --sample-hz 2000 -- ./chain 12 >/dev/null 2>&1
check_eq "exec chain of 13 programs + a fork child: exit status" 0 "$?"
check_eq "14 traces" 14 "$(ls chain_out/*.ipb | wc -l)"
sampled=0
for t in chain_out/*.ipb; do
  "$INCLPROF" info "$t" | grep -q '^sampling: .* taken [1-9]' && sampled=$((sampled + 1))
done
check_eq "every process took samples" 14 "$sampled"
done_testing
