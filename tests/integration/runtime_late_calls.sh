#!/bin/sh
# runtime_late_calls.sh - calls made where a process's life usually ends, and
# processes started in ways that drop the runtime, each checked against the
# counts the program keeps itself:
#   - key destructors of exiting threads, an atexit handler and an ELF
#     destructor that runs after main returns (late_calls.c);
#   - children started with an environment of the program's choosing by
#     posix_spawn, posix_spawnp, execve, execvpe and fexecve, with the
#     runtime only preloaded (spawner.c): each is recorded, unless
#     INCLPROF_CARRY_ENV=0;
#   - daemon(): the parent's calls are in its trace, and record says that
#     the daemon still runs;
#   - exit_group made through syscall(), and quick_exit after its handlers
#     (raw_exits.c): the trace keeps its events and ends with its reason;
#   - a second record into the same directory moves the first run aside.
. "$INCLPROF_SRC/tests/lib.sh"
P=$INCLPROF_SRC/tests/programs/runtime
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
calls() { q "$1" "^$2\$" calls | awk '{ s += $1 } END { print s + 0 }'; }

# --- after main -----------------------------------------------------------------
check "late_calls builds" cc_plugin late_calls "$P/late_calls.c" -O2 -pthread
"$INCLPROF" record -o late -- ./late_calls >late.out 2>late.err
check_eq "late_calls counts its own calls" "key 4 atexit 1 destructor 1 leaf 10" "$(cat late.out)"
"$INCLPROF" export --format csv -o late.csv late 2>/dev/null
check_eq "the 4 key destructor calls of exiting threads are recorded" 4 "$(calls late.csv key_cleanup)"
check_eq "the atexit handler is recorded" 1 "$(calls late.csv on_atexit)"
check_eq "the ELF destructor, run after main returned, is recorded" 1 "$(calls late.csv on_unload)"
check_eq "all 10 calls of late_leaf are recorded" 10 "$(calls late.csv late_leaf)"
check "the trace ends cleanly at exit" sh -c "'$INCLPROF' info late 2>&1 | grep -q 'clean shutdown, exit reason: exit'"

# --- children with an environment of their own ------------------------------------
# Built without -linclprof: only LD_PRELOAD brings the runtime into a child.
check "spawner builds (runtime not linked)" gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$P/spawner.c" -o spawner
check_eq "spawner runs under record" "started 5 children" \
  "$("$INCLPROF" record -o kids -- ./spawner 2>kids.err)"
"$INCLPROF" export --format csv -o kids.csv kids 2>/dev/null
check_eq "every one of the 5 children is recorded (child_main once each)" 5 "$(calls kids.csv child_main)"
check_eq "and every call of work in them (5 x 7)" 35 "$(calls kids.csv work)"
n=$(ls kids/*.ipb | wc -l)
check_eq "record counts exactly the files of the run" "inclprof: $n trace files written to kids/ (status 0)" \
  "$(grep 'trace files written' kids.err)"
INCLPROF_CARRY_ENV=0 "$INCLPROF" record -o nokids -- ./spawner >/dev/null 2>&1
"$INCLPROF" export --format csv -o nokids.csv nokids 2>/dev/null
check_eq "INCLPROF_CARRY_ENV=0: the children's own environment is left as they got it" 0 \
  "$(calls nokids.csv work)"

# --- daemon() -------------------------------------------------------------------------
"$INCLPROF" record -o dmn -- ./spawner daemon >/dev/null 2>dmn.err
check "record says the daemon is still running" grep -q '^inclprof: 1 process of this run still running (pid [0-9]*)' dmn.err
daemon_pid=$(sed -n 's/.*still running (pid \([0-9]*\)).*/\1/p' dmn.err)
n=0
while [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
"$INCLPROF" export --format csv -o dmn.csv dmn 2>/dev/null
check_eq "the parent's main is recorded although it left through daemon()" 1 "$(calls dmn.csv main)"
check_eq "daemon() itself is recorded" 1 "$(calls dmn.csv daemon)"
check_eq "work: once before daemon(), 7 times in the daemon" 8 "$(calls dmn.csv work)"
check "no trace lacks its end" sh -c "! '$INCLPROF' report dmn 2>&1 | grep -q 'killed?'"

# --- exit_group through syscall(), quick_exit -------------------------------------
check "raw_exits builds" gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$P/raw_exits.c" -o raw_exits
"$INCLPROF" record -o raw -- ./raw_exits syscall >raw.out 2>/dev/null
check_eq "syscall(SYS_exit_group, 3): the program's status" 3 $?
"$INCLPROF" export --format csv -o raw.csv raw 2>/dev/null
check_eq "its 5 calls of work are in the trace" 5 "$(calls raw.csv work)"
check "the trace ends with reason exit_group" sh -c "'$INCLPROF' info raw | grep -q 'clean shutdown, exit reason: exit_group'"
"$INCLPROF" record -o quick -- ./raw_exits quick >quick.out 2>/dev/null
check_eq "quick_exit(4): the program's status" 4 $?
"$INCLPROF" export --format csv -o quick.csv quick 2>/dev/null
check_eq "the 6 calls of work, the handler's included" 6 "$(calls quick.csv work)"
check_eq "the quick_exit handler is recorded" 1 "$(calls quick.csv on_quick_exit)"
check "the trace ends with reason quick_exit" sh -c "'$INCLPROF' info quick | grep -q 'clean shutdown, exit reason: quick_exit'"

# --- a second run into the same directory -------------------------------------------------
"$INCLPROF" record -o late -- ./late_calls >/dev/null 2>again.err
check "the first run's trace is moved aside to late.old/" sh -c "ls late.old/*.ipb >/dev/null && grep -q 'moved 1 trace file of an earlier run to late.old/' again.err"
"$INCLPROF" export --format csv -o again.csv late 2>/dev/null
check_eq "the directory holds this run alone (main once)" 1 "$(calls again.csv main)"
done_testing
