# redis.sh - Redis recorded as a normal user records it, in `make field`
# (sourced by field.sh; run by extra_redis after field redis): Debian's redis
# source with Debian's patches and the allocator Redis ships (jemalloc, its
# background thread on), redis-server, redis-cli and redis-benchmark built
# plain and with the plugin.  As root, the server runs as the unprivileged
# $PG_USER through `inclprof record` with inclprof-perfmon beside it (a copy
# of the build's command, runtime and helper with the helper's file
# capabilities: what `make install` sets up), so that nobody types root for
# the recording; run by a normal user, as that user.
#
# The workload's counts are known: DEBUG POPULATE makes REDIS_KEYS keys,
# redis-benchmark sends REDIS_N each of SET, GET, INCR and LPUSH (one key
# each), BGSAVE forks a child that writes every key, SIGHUP is ignored,
# SIGTERM shuts the server down with a save of every key (a save point is
# set), and the file is then read back.  Then units of Redis's own Tcl test
# suite, which start and stop servers of the tree (fork, SIGTERM, SHUTDOWN,
# DEBUG RELOAD, crashes, modules loaded and unloaded, a module's fork and
# threads), run plain and recorded.
REDIS_N=20000
REDIS_KEYS=5000
REDIS_UNITS="unit/type/incr unit/keyspace unit/other unit/shutdown integration/rdb integration/logging
  unit/moduleapi/fork unit/moduleapi/blockonbackground unit/moduleapi/timer unit/moduleapi/basics unit/moduleapi/hooks"

# build_redisdeb FLAVOUR DIR: Debian's tree built as Debian builds it,
# with the system's jemalloc (Debian's patches need USE_SYSTEM_JEMALLOC:
# without it zmalloc.c calls jemalloc by names the bundled copy does not
# define), without systemd and TLS; and the test modules the units of
# REDIS_UNITS load (hooks loads infotest too), built as the server is.
build_redisdeb() {
  debian_src redis "$2" &&
    make -C "$2" -j2 USE_SYSTEM_JEMALLOC=yes USE_SYSTEMD=no BUILD_TLS=no REDIS_CFLAGS="$(flags "$1")" REDIS_LDFLAGS="$(ldflags "$1")" \
      >"$2/build.log" 2>&1 &&
    make -C "$2/tests/modules" -j2 fork.so blockonbackground.so timer.so basics.so hooks.so infotest.so SHOBJ_LDFLAGS="-shared $(ldflags "$1")" \
      SHOBJ_CFLAGS="-W -Wall -Wno-missing-field-initializers -fno-common -std=c99 $(flags "$1")" >>"$2/build.log" 2>&1
  BIN=$2/src/redis-server
}

# as_redis_user CMD...: CMD as $PG_USER when run as root (made once by
# pg_user), else as the caller.
as_redis_user() {
  if [ "$(id -u)" != 0 ]; then "$@"; return; fi
  pg_user && setpriv --reuid="$PG_USER" --regid="$(id -g "$PG_USER")" --clear-groups -- "$@"
}

# redis_tools: DIR/nonroot-bin holds the copy of inclprof, libinclprof.so
# and inclprof-perfmon (its file capabilities set, as root); prints the
# inclprof to run.
redis_tools() {
  b=$dir/nonroot-bin
  rm -rf "$b" && mkdir -p "$b" && cp "$INCLPROF" "$INCLPROF_LIBDIR/libinclprof.so" "$INCLPROF_LIBDIR/inclprof-perfmon" "$b/" &&
    if [ "$(id -u)" = 0 ]; then setcap cap_perfmon,cap_dac_read_search=p "$b/inclprof-perfmon"; fi &&
    echo "$b/inclprof"
}

# redis_cli ARGS...: the Debian tree's plain redis-cli on the workload's port.
redis_cli() { "$dir/deb-plain/src/redis-cli" -p "$port" "$@"; }

# redis_wait WHAT TENTHS CMD...: retries CMD until it succeeds, up to TENTHS
# tenths of a second; else prints "WHAT: timed out".
redis_wait() {
  what=$1 tenths=$2 i=0
  shift 2
  until "$@" >/dev/null 2>&1; do
    i=$((i + 1)); [ "$i" -gt "$tenths" ] && { echo "$what: timed out"; return 1; }
    sleep 0.1
  done
}

# redis_workload SERVER [INCLPROF DATA]: runs the workload in the current
# directory (owned by the user) and prints what it must see; recorded into
# DATA by INCLPROF record when given.  Leaves the server's pid in
# server.pid and the BGSAVE child's in bgsave.pid.
redis_workload() {
  port=$((21000 + $$ % 4000))
  if [ $# -gt 1 ]; then set -- "$2" record -o "$3" -- "$1"; fi
  as_redis_user "$@" --port "$port" --bind 127.0.0.1 --save "3600 1" --appendonly no --dir "$PWD" \
    --dbfilename dump.rdb --enable-debug-command yes --logfile "$PWD/server.log" >server.out 2>&1 &
  started=$!
  redis_wait "server start" 300 redis_cli ping || { kill "$started"; return 1; }
  redis_cli info server | sed -n 's/^process_id:\([0-9]*\).*/\1/p' >server.pid
  redis_cli debug populate "$REDIS_KEYS"
  "$dir/deb-plain/src/redis-benchmark" -p "$port" -q -n "$REDIS_N" -c 4 -t set,get,incr,lpush >bench.txt 2>&1
  echo "benchmark exit $?"
  redis_cli bgsave
  redis_wait "bgsave" 600 sh -c "'$dir/deb-plain/src/redis-cli' -p $port info persistence | grep -q 'rdb_bgsave_in_progress:0'"
  redis_cli info persistence | grep -o 'rdb_last_bgsave_status:[a-z]*'
  sed -n 's/.*Background saving started by pid \([0-9]*\).*/\1/p' server.log >bgsave.pid
  echo "dbsize $(redis_cli dbsize)"
  echo "counter $(redis_cli get counter:__rand_int__)"
  echo "list $(redis_cli llen mylist)"
  kill -HUP "$(cat server.pid)"
  echo "after SIGHUP: $(redis_cli ping)"
  kill -TERM "$(cat server.pid)"
  await_exit "$started" server SIGTERM 600
  grep -q 'DB saved on disk' server.log && echo "saved at SIGTERM"
  "$dir/deb-plain/src/redis-check-rdb" dump.rdb 2>&1 | sed -n 's/.*\(RDB looks OK\).*/\1/p; s/.*\[info\] \([0-9]* keys read\).*/\1/p'
}

# redis_suite TREE [INCLPROF DATA]: REDIS_UNITS of the Tcl suite of TREE (its
# tests/tmp made the user's, TMPDIR a directory of the user's in the current
# one: Tcl's exec writes there), one test client, as the user; prints each
# test's verdict and name, sorted (times removed), and the summary line.
redis_suite() {
  mkdir -p "$1/tests/tmp" && { [ "$(id -u)" != 0 ] || chown -R "$PG_USER" "$1/tests/tmp"; }
  units=
  for u in $REDIS_UNITS; do units="$units --single $u"; done
  tree=$1
  if [ $# -gt 1 ]; then set -- "$2" record -o "$3" -- tclsh; else set -- tclsh; fi
  tmpdir=$PWD/tmp
  mkdir -p "$tmpdir" && { [ "$(id -u)" != 0 ] || chown "$PG_USER" "$tmpdir"; }
  # shellcheck disable=SC2086
  (cd "$tree" && TMPDIR=$tmpdir as_redis_user "$@" tests/test_helper.tcl --clients 1 --baseport $((25000 + $$ % 4000)) \
    --portcount 400 --timeout 600 $units) >suite.txt 2>&1
  echo "suite exit $?"
  sed 's/\x1b\[[0-9;]*m//g' suite.txt | sed -n 's/^\[\(ok\|err\|skip\|ignore\)\]: \(.*\)/\1 \2/p' | sed 's/ ([0-9]* ms)$//' | sort
  sed 's/\x1b\[[0-9;]*m//g' suite.txt | grep -E 'All tests passed|tests failed'
}

# redis_counts CSV: the calls of the command handlers the workload calls
# and of rdbSaveKeyValuePair (one per key saved).
redis_counts() {
  for f in setCommand getCommand incrCommand lpushCommand rdbSaveKeyValuePair; do
    printf '%s %s\n' "$f" "$(calls_of "$1" "$f")"
  done
}

# extra_redis: Debian's redis (jemalloc) run as a user, plain and recorded:
# the same behaviour and results; every trace complete; the handlers called
# once per command sent, the BGSAVE child and the SIGTERM save each writing
# every key; the kernel events opened for the user; units of the Tcl suite
# passing recorded as plain.
extra_redis() {
  for fl in plain plugin; do
    key=$(build_key redisdeb "$fl")
    [ -x "$dir/deb-$fl/src/redis-server" ] && [ "$(cat "$dir/deb-$fl/.key" 2>/dev/null)" = "$key" ] && continue
    BIN=
    build_redisdeb "$fl" "$dir/deb-$fl"
    [ -x "$BIN" ] || { fail "redis (Debian): the $fl build failed: $(tail -3 "$dir/deb-$fl/build.log" | tr '\n' ' ')"; return; }
    echo "$key" >"$dir/deb-$fl/.key"
  done
  nr=$(redis_tools) || { fail "redis: copying inclprof beside inclprof-perfmon (setcap) failed"; return; }
  [ "$(id -u)" != 0 ] || pg_user
  who=$(as_redis_user id -un)
  for r in plain rec; do
    rm -rf "$dir/run/deb-$r" && mkdir -p "$dir/run/deb-$r" && cd "$dir/run/deb-$r" || return
    [ "$(id -u)" != 0 ] || chown "$PG_USER" .
    t0=$(now)
    if [ $r = plain ]; then redis_workload "$dir/deb-plain/src/redis-server" >out.txt 2>&1
    else redis_workload "$dir/deb-plugin/src/redis-server" "$nr" "$PWD/data" >out.txt 2>&1; fi
    since "$t0" >time.txt
  done
  expected="OK
benchmark exit 0
Background saving started
rdb_last_bgsave_status:ok
dbsize $((REDIS_KEYS + 3))
counter $REDIS_N
list $REDIS_N
after SIGHUP: PONG
server exit 0
saved at SIGTERM
RDB looks OK
$((REDIS_KEYS + 3)) keys read"
  check_eq "redis (Debian, jemalloc, as $who): the workload gives the known results plain" "$expected" \
    "$(cat "$dir/run/deb-plain/out.txt")"
  check_eq "redis (Debian, jemalloc, as $who): recorded, it behaves as the plain one" "$expected" "$(sed '/^inclprof/d' out.txt)"
  trace_facts data >facts.txt
  srv=$(cat server.pid) child=$(cat bgsave.pid)
  check_eq "redis: the recording has the server's trace and its BGSAVE child's ($(wc -l <facts.txt) traces)" "$srv $child" \
    "$(awk -F '\t' -v s="$srv" -v c="$child" '$1 == s { a = s } $1 == c { b = c } END { print a, b }' facts.txt)"
  check_eq "redis: every trace clean, 0 events dropped, 0 batches lost (SIGTERM and the child's _exit included)" "" \
    "$(awk -F '\t' '$6 != "clean" || $4 != 0 || $5 != 0' facts.txt)"
  check_eq "redis: no file of the recording belongs to another user than $who" "" "$(find data ! -user "$who")"
  if [ "$(id -u)" = 0 ]; then
    for f in data/*.ipb; do
      "$INCLPROF" info "$f" 2>/dev/null | grep -q "opened for this user by the recording's grant server" || printf '%s ' "${f#data/}"
    done >no-kevents.txt
    check_eq "redis: every trace of the server run as $who has kernel events, opened by inclprof-perfmon's grant server" \
      "" "$(cat no-kevents.txt)"
  fi
  "$INCLPROF" export -f csv --process "$srv" -o server.csv data 2>/dev/null
  "$INCLPROF" export -f csv --process "$child" -o child.csv data 2>/dev/null
  check_eq "redis: the server called each command's handler once per command sent (one GET more: the check of the counter), and saved every key at SIGTERM" \
    "setCommand $REDIS_N getCommand $((REDIS_N + 1)) incrCommand $REDIS_N lpushCommand $REDIS_N rdbSaveKeyValuePair $((REDIS_KEYS + 3))" \
    "$(redis_counts server.csv | tr '\n' ' ' | sed 's/ $//')"
  check_eq "redis: the BGSAVE child saved every key and called no handler" \
    "setCommand  getCommand  incrCommand  lpushCommand  rdbSaveKeyValuePair $((REDIS_KEYS + 3))" \
    "$(redis_counts child.csv | tr '\n' ' ' | sed 's/ $//')"
  suite_row "redis (Debian, jemalloc, as a user)" "$(cat "$dir/run/deb-plain/time.txt")" "$(cat time.txt)" data
  # The Tcl suite's units.
  for r in plain rec; do
    mkdir -p "$dir/run/suite-$r" && cd "$dir/run/suite-$r" && rm -rf data && mkdir data || return
    [ "$(id -u)" != 0 ] || chown "$PG_USER" . data
    t0=$(now)
    if [ $r = plain ]; then redis_suite "$dir/deb-plain" >results.txt
    else redis_suite "$dir/deb-plugin" "$nr" "$PWD/data" >results.txt; fi
    since "$t0" >time.txt
  done
  check_eq "redis: $(echo "$REDIS_UNITS" | wc -w) units of its Tcl suite pass plain ($(grep -c '^ok ' "$dir/run/suite-plain/results.txt") tests)" \
    "suite exit 0" "$(head -1 "$dir/run/suite-plain/results.txt")"
  check_eq "redis: recorded, the Tcl suite's units give the plain results ($(cat "$dir/run/suite-plain/time.txt") s plain, $(cat time.txt) s recorded)" \
    "$(cat "$dir/run/suite-plain/results.txt")" "$(cat results.txt)"
  trace_facts data >facts.txt
  # What ends the suite's processes: integration/logging crashes two servers
  # (SIGABRT, DEBUG SEGFAULT: the server writes its crash report, then dies
  # of the signal), whose traces end with a trailer naming the signal;
  # unit/other and integration/rdb end a BGSAVE child with kill -9, which
  # leaves no trailer and nothing written after the header; integration/rdb's
  # FLUSHALL ends one with SIGUSR1, which its handler turns into _exit, or,
  # arriving before the child has set the handler, the signal's default
  # action (no trailer either).
  check_eq "redis: the Tcl suite's $(wc -l <facts.txt) traces clean, 0 events dropped, 0 batches lost, but the two crashes and the BGSAVE children killed" \
    "crashes: signal 6 1, signal 11 1; killed children: 2-3 of 2-3" \
    "$(awk -F '\t' '
      $6 == "clean" && $4 == 0 && $5 == 0 { cmd[$7] = 1; next }
      $6 ~ /^NOT clean, exit reason: signal (6|11);.* 0 dropped$/ && $5 == 0 { s = $6; sub(/^.*exit reason: /, "", s); sub(/;.*/, "", s); crash[s]++; next }
      $6 ~ /^no trailer/ && $3 == 0 { child[$7]++; n++; next }
      { other = other " " $1 }
      END {
        for (c in child) if (c in cmd) k += child[c]
        printf "crashes: signal 6 %d, signal 11 %d; killed children: %s of %s%s", crash["signal 6"], crash["signal 11"], (k >= 2 && k <= 3) ? "2-3" : k, (n >= 2 && n <= 3) ? "2-3" : n, other ? "; other:" other : "" }' facts.txt)"
  suite_row "redis: Tcl suite units" "$(cat "$dir/run/suite-plain/time.txt")" "$(cat time.txt)" data
  rm -rf data
}
