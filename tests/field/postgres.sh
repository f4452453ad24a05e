# postgres.sh - PostgreSQL 15 in `make field` (sourced by field.sh): the
# server, pgbench and pg_regress built from Debian's postgresql-15 source and
# run as an unprivileged system user (the server refuses root).
PG_USER=inclprof-field

# build_postgres FLAVOUR DIR: the upstream tree configured without readline
# and ICU.  Plain: built and installed into DIR/inst (the server looks for
# its share files there), with pg_regress and its regress.so.  Any other
# flavour builds only the server (src/backend) and installs it into a copy of
# the plain installation: initdb, pg_ctl, pgbench, psql and the regression
# tests are the plain build's in every run.  The generated headers
# (lwlocknames.h, the parser's and catalog's) are made first: PostgreSQL's
# own make does that only as a top-level make (MAKELEVEL 0, not under
# `make field`), and even then beside the objects that include them at -j2.
build_postgres() {
  unpack postgresql-15 "$2" &&
    (cd "$2" && ./configure -q --prefix="$2/inst" --without-readline --without-icu --without-zlib \
      CC=gcc CFLAGS="$(flags "$1")" LDFLAGS="$(ldflags "$1")" &&
      make -C src/backend -s generated-headers &&
      if [ "$1" = plain ]; then make -j2 -s && make -s install && make -C src/test/regress -j2 -s all
      else make -C src/backend -j2 -s && cp -a "$W/postgres/plain/inst" . && cp src/backend/postgres inst/bin/postgres; fi) \
      >"$2/build.log" 2>&1
  BIN=$2/inst/bin/postgres
}

# as_pg CMD...: CMD as $PG_USER (made a system user once), or as the caller
# when that is not root.
as_pg() {
  if [ "$(id -u)" != 0 ]; then "$@"; return; fi
  pg_user && runuser -u "$PG_USER" -- "$@"
}

# as_pg_server CMD...: the server's command as $PG_USER.  As root, `inclprof
# record ...` runs as `inclprof record --user $PG_USER ...`: record stays
# root and opens each traced thread's kernel events for the server, which
# runs as $PG_USER (the wait breakdown of a program that does not run as
# root); anything else as as_pg.
as_pg_server() {
  if [ "$(id -u)" = 0 ] && [ "$1" = "$INCLPROF" ] && [ "${2:-}" = record ]; then
    pg_user && { cmd=$1; shift 2; "$cmd" record --user "$PG_USER" "$@"; }
  else as_pg "$@"; fi
}

# pg_user: $PG_USER exists (as root: made once, a system user without a home
# or a login shell).
pg_user() {
  [ "$(id -u)" != 0 ] || id "$PG_USER" >/dev/null 2>&1 ||
    useradd --system --no-create-home --shell /usr/sbin/nologin "$PG_USER"
}

# The regression tests pg_regress runs (they need only test_setup's tables).
PG_REGRESS_TESTS="test_setup boolean char name varchar text int2 int4 int8 oid float4 float8 numeric strings"

# pg_template: a cluster made once by the plain build's initdb, copied for
# every run (owned by $PG_USER): its log (stderr) leads each line with the
# process's pid and tells each connection's application name, each process's
# exit (proc_exit, at debug3) and each parallel worker's end (debug1).  The
# autovacuum launcher runs, but starts a worker only after 5 minutes: the
# workload takes seconds plain.
pg_template() {
  t=$W/postgres/pgdata-template
  [ -f "$t/PG_VERSION" ] && return 0
  pg_user && rm -rf "$t" && mkdir -p "$t" && chmod 700 "$t" && { [ "$(id -u)" != 0 ] || chown "$PG_USER" "$t"; } &&
    as_pg "$W/postgres/plain/inst/bin/initdb" -D "$t" -A trust --no-locale -E UTF8 -U postgres --no-sync \
      >"$W/postgres/initdb.log" 2>&1 &&
    printf "log_min_messages = debug3\nlog_connections = on\nlog_line_prefix = '%%p '\nlisten_addresses = ''\nfsync = off\n%s\n" \
      "autovacuum_naptime = 5min" >>"$t/postgresql.conf"
}

# run_postgres CMD...: copies the template cluster, starts the server with
# CMD (the postgres binary, or inclprof record ... -- it) as $PG_USER on a
# socket in the current directory, runs pgbench -i -s 2 and pgbench -c 4 -j
# 2 -t 500, a count(*) of pgbench_accounts forced parallel (two workers),
# the regression tests of PG_REGRESS_TESTS, and pg_ctl stop -m fast; prints
# what pgbench processed, the workers launched, the count, each regression
# test's result and the server's exit (pgbench's whole output, its tps
# too, goes to pgbench-run.log).  The shutdown's seconds, from
# pg_ctl stop to the server's end, go to shutdown.txt.
run_postgres() {
  plain=$W/postgres/plain
  pg_template || { echo "initdb failed: $(tail -2 "$W/postgres/initdb.log")"; return 1; }
  rm -rf pgdata regress && cp -a "$W/postgres/pgdata-template" pgdata && mkdir -p regress &&
    { [ "$(id -u)" != 0 ] || chown -R "$PG_USER" "$PWD"; } || return 1
  port=$((30000 + $$ % 10000))
  : >server.log # there before the wait below reads it (the server's shell opens it later)
  as_pg_server "$@" -D "$PWD/pgdata" -p "$port" -k "$PWD" >>server.log 2>&1 &
  server=$!
  # ready when the postmaster says so (each probe connection would be a
  # process of its own)
  i=0
  until grep -q 'database system is ready to accept connections' server.log; do
    i=$((i + 1)); [ "$i" -gt 3000 ] && { kill "$server"; echo "server did not start in 300 s"; return 1; }
    sleep 0.1
  done
  PGAPPNAME=pgbench-init as_pg "$plain/inst/bin/pgbench" -h "$PWD" -p "$port" -U postgres -i -s 2 -q postgres \
    >pgbench-init.log 2>&1 || echo "pgbench -i failed: $(tail -1 pgbench-init.log)"
  PGAPPNAME=pgbench-run as_pg "$plain/inst/bin/pgbench" -h "$PWD" -p "$port" -U postgres -c 4 -j 2 -t 500 postgres 2>&1 |
    tee pgbench-run.log | grep -E '^number of (transactions actually processed|failed transactions)'
  PGAPPNAME=parallel-count as_pg "$plain/inst/bin/psql" -X -A -t -h "$PWD" -p "$port" -U postgres -d postgres -c "SET max_parallel_workers_per_gather = 2;
    SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
    EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM pgbench_accounts" 2>&1 |
    grep -E 'Workers (Planned|Launched)' | sed 's/^ *//'
  as_pg "$plain/inst/bin/psql" -X -A -t -h "$PWD" -p "$port" -U postgres -d postgres -c "SELECT count(*) FROM pgbench_accounts" 2>&1
  as_pg "$plain/src/test/regress/pg_regress" --inputdir="$plain/src/test/regress" --outputdir="$PWD/regress" \
    --bindir="$plain/inst/bin" --dlpath="$plain/src/test/regress" --host="$PWD" --port="$port" --user=postgres \
    --dbname=regression $PG_REGRESS_TESTS >regress.log 2>&1
  sed -n 's/^\(test\|ok\|not ok\)\{0,1\} *\([a-z0-9_]*\) *\.\.\. *\([a-z ]*[a-z]\) .*/\2 \3/p; /tests passed\|tests failed/p' \
    regress.log | sed 's/^ *//'
  stop_t0=$(now)
  as_pg "$plain/inst/bin/pg_ctl" stop -D "$PWD/pgdata" -m fast -w -t 300 >stop.log 2>&1
  await_exit "$server" server "pg_ctl stop" 3000
  since "$stop_t0" >shutdown.txt
}

# pg_calls CSV FUNCTION: its calls in CSV (0 when it has no row).
pg_calls() { csv_rows "$1" function calls | awk -F '\t' -v f="$2" '$1 == f { c = $2 } END { print c + 0 }'; }

# extra_postgres: what the workload implies for the recorded server, from its
# own log: each of pgbench's four clients ran 3 500 simple queries (500
# transactions of 7 statements), every process of the log has a whole trace,
# the parallel count(*)'s leader and workers returned each of the 200 000
# rows once (ExecScan once per row, plus once at each participant's end), and
# the costs of recording each process: its exit, the shutdown, its bytes.
extra_postgres() {
  cd "$dir/run/rec"
  check_eq "postgres: pgbench processed every transaction recorded" \
    "number of transactions actually processed: 2000/2000" "$(grep 'actually processed' out.txt)"
  check_eq "postgres: the forced parallel count(*) launched two workers recorded" "Workers Launched: 2" "$(grep 'Workers Launched' out.txt)"
  trace_facts data >facts.txt
  mkdir -p procs
  for pid in $(cut -f1 facts.txt); do
    "$INCLPROF" export -f csv -o "procs/$pid.csv" "data/$pid.ipb" 2>/dev/null || echo "$pid" >>procs/unreadable.txt
  done
  # every process that logged (its exit at least) has a trace
  sed -n 's/^\([0-9][0-9]*\) .*/\1/p' "$dir/run/rec/server.log" | sort -u >logged-pids.txt
  cut -f1 facts.txt | sort -u >trace-pids.txt
  check_eq "postgres: every process of the server's log ($(wc -l <logged-pids.txt)) has a trace ($(wc -l <trace-pids.txt) traces)" \
    "" "$(comm -23 logged-pids.txt trace-pids.txt | paste -sd' ' -)"
  check_eq "postgres: every trace is whole: a clean end, no event dropped, no batch lost" "" \
    "$(awk -F '\t' '$4 != 0 || $5 != 0 || $6 != "clean" { printf "pid %s (%s): %s dropped, %s lost, %s; ", $1, substr($7, 1, 50), $4, $5, $6 }' facts.txt | cut -c1-700)"
  # pgbench's backends, by application name; its four clients run 3500 queries each
  for pid in $(sed -n 's/^\([0-9]*\) LOG:  connection authorized: .*application_name=pgbench-run.*/\1/p' server.log); do
    echo "$pid $(pg_calls "procs/$pid.csv" exec_simple_query)"
  done >pgbench-backends.txt
  check_eq "postgres: four of pgbench's backends ran exec_simple_query 3500 times each, its set-up connection $(awk '$2 != 3500 { printf "%s ", $2 }' pgbench-backends.txt)times" \
    4 "$(awk '$2 == 3500' pgbench-backends.txt | wc -l)"
  # the parallel count(*): its leader and its workers (by the postmaster's log)
  leader=$(sed -n 's/^\([0-9]*\) LOG:  connection authorized: .*application_name=parallel-count.*/\1/p' server.log | head -1)
  workers=$(sed -n 's/.*background worker "parallel worker" (PID \([0-9]*\)) exited with exit code 0.*/\1/p' server.log | sort -u)
  # ExecScan returns each row of the scan (SeqNext, the seq scan's access
  # method, is inlined by GCC into ExecScan's clone specialised for it)
  # its workers: those that exited between its connection and the next one
  count_workers=$(awk '/application_name=parallel-count/ { on = 1; next } on && /connection authorized/ { exit }
    on && /background worker "parallel worker" \(PID [0-9]*\) exited/ { sub(/.*\(PID /, ""); sub(/\).*/, ""); print }' server.log)
  rows=0
  for pid in $leader $count_workers; do rows=$((rows + $(pg_calls "procs/$pid.csv" ExecScan))); done
  check_eq "postgres: ExecScan returned each of the 200000 rows once in the parallel count(*)'s leader and its $(echo "$count_workers" | wc -w) workers, plus their ends" \
    200003 "$rows"
  check_eq "postgres: each of the $(echo "$workers" | wc -w) parallel workers of the log (index builds and the count) ran ParallelWorkerMain once" \
    "" "$(for pid in $workers; do [ "$(pg_calls "procs/$pid.csv" ParallelWorkerMain)" = 1 ] || printf '%s ' "$pid"; done)"
  # the costs of recording a process: the function tables are written once
  # per directory, what a trace has besides its batches is some 15 KB; an
  # event of the server's takes a 3-byte code (its gids pass 2 047: 115 000
  # functions) and a 2-byte interval (from 28 ns to 3.6 µs at 2.3 GHz), 5
  # bytes, and its kernel-event records and longer intervals add up to half
  # a byte (the idlest process, the walwriter: 0.47 and 0.1)
  # (docs/trace-format.md, "Bytes per event")
  check_eq "postgres: every trace is under 40 KB plus 5.5 bytes per event ($(awk -F '\t' '{ b += $2; e += $3 } END { printf "%.2f", b / e }' facts.txt) over the session, $(awk -F '\t' '$3 > 100000 { r = $2 / $3; if (!n++ || r < lo) lo = r; if (r > hi) hi = r } END { printf "%.2f-%.2f", lo, hi }' facts.txt) per process of over 100 000 events; function tables $(du -cb data/*.ipt | tail -1 | cut -f1) bytes once)" "" \
    "$(awk -F '\t' '$2 > 40000 + 5.5 * $3 { printf "pid %s (%s): %s bytes for %s events; ", $1, substr($7, 1, 40), $2, $3 }' facts.txt | cut -c1-700)"
  pg_waits
  tps() { sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$1"; }
  echo "# postgres: pgbench -c 4 -j 2 -t 500: $(tps "$dir/run/plain/pgbench-run.log") tps plain, $(tps "$dir/run/plugin/pgbench-run.log") with the plugin build unrecorded, $(tps pgbench-run.log) recorded"
  plain_stop=$(cat "$dir/run/plain/shutdown.txt") rec_stop=$(cat shutdown.txt)
  check "postgres: pg_ctl stop -m fast ends the recorded server within 1 s of the plain one (plain ${plain_stop} s, recorded ${rec_stop} s)" \
    awk -v p="$plain_stop" -v r="$rec_stop" 'BEGIN { exit !(r - p <= 1.0) }'
  pg_exit_costs
  "$INCLPROF" report --by process data >by-process.txt 2>report.err
  check_eq "postgres: report --by process has a row per trace with events" "$(awk -F '\t' '$3 > 0' facts.txt | wc -l)" \
    "$(awk 'table && NF { n++ } /^ *Calls / { table = 1 } END { print n + 0 }' by-process.txt)"
  pg_reading
  pg_pprof
}

# pg_reading: the report as a person reads it on a 120-column terminal.
# Processes are named by their titles, as the server's log tells who each
# pid is (the checkpointer, the two launchers, each parallel worker,
# pgbench's backends); every line of the function table, --by process and
# --tree fits 120 columns and no two rows read alike; each pgbench backend's
# hot path (--tree --hot) runs through PostgresMain; the HTML page of one
# backend, in headless Chromium, shows exec_simple_query's butterfly: its
# 3500 calls, all from PostgresMain, as report --callers counts them.
pg_reading() {
  {
    sed -n 's/^\([0-9]*\) DEBUG:  checkpointer updated shared memory configuration values$/\1 postgres: checkpointer/p' server.log
    sed -n 's/^\([0-9]*\) DEBUG:  autovacuum launcher started$/\1 postgres: autovacuum launcher/p' server.log
    sed -n 's/^\([0-9]*\) DEBUG:  logical replication launcher started$/\1 postgres: logical replication launcher/p' server.log
    for pid in $workers; do echo "$pid postgres: parallel worker for PID"; done
    awk '{ print $1, "postgres: postgres postgres [local]" }' pgbench-backends.txt
  } | sort -u >titles-expected.txt
  check_eq "postgres: report --by process names each of the log's $(wc -l <titles-expected.txt) known processes by its title, the executable beside it" "" \
    "$(while read -r pid title; do grep -qF " $pid $title" by-process.txt || printf '%s ' "$pid"; done <titles-expected.txt)"
  for view in table process tree; do
    case $view in
    table) COLUMNS=120 "$INCLPROF" report data >w120-$view.txt 2>/dev/null ;;
    process) COLUMNS=120 "$INCLPROF" report --by process data >w120-$view.txt 2>/dev/null ;;
    tree) COLUMNS=120 "$INCLPROF" report --tree --min-percent 1 data >w120-$view.txt 2>/dev/null ;;
    esac
    check_eq "postgres: COLUMNS=120 report ($view): no line wider than 120 columns" 0 \
      "$(awk 'length($0) > 120' w120-$view.txt | wc -l)"
  done
  for view in table process; do
    # a row's text after its last percentage: the module (where a name is
    # in more than one) and the name
    check_eq "postgres: COLUMNS=120 report ($view): no two rows read alike" "" "$(awk '
      /^ *Calls / { table = 1; next } table && NF == 0 { table = 0 }
      table { sub(/^.*% /, ""); print }' w120-$view.txt | sort | uniq -d | head -3 | paste -sd'|' -)"
  done
  check_eq "postgres: COLUMNS=120 --by process keeps the titles (the checkpointer's row)" 1 \
    "$(grep -c " $(awk '$3 == "checkpointer" { print $1 }' titles-expected.txt) postgres: checkpointer (postgres, fork of" w120-process.txt)"
  for pid in $(awk '$2 == 3500 { print $1 }' pgbench-backends.txt); do
    COLUMNS=120 "$INCLPROF" report --tree --hot --process "$pid" data >hot-$pid.txt 2>/dev/null
    echo "$pid $(grep -c ' PostgresMain$' hot-$pid.txt) $(awk 'length($0) > 120' hot-$pid.txt | wc -l) $(grep -c '^ *hot path: ' hot-$pid.txt)"
  done >hot.txt
  check_eq "postgres: the hot path of each of pgbench's 4 backends runs through PostgresMain, within 120 columns" \
    "4" "$(awk '$2 == 1 && $3 == 0 && $4 == 1' hot.txt | wc -l)"
  pid=$(awk '$2 == 3500 { print $1; exit }' pgbench-backends.txt)
  PICS=$(sh "$INCLPROF_SRC/tests/viewers/pictures/setup.sh") || { fail "postgres: tests/viewers/pictures/setup.sh failed"; return; }
  "$INCLPROF" export --format html --process "$pid" -o backend.html data 2>html.err
  node "$PICS/butterfly-probe.mjs" backend.html butterfly.png exec_simple_query >butterfly.txt 2>butterfly.err
  check_eq "postgres: Chromium opens the backend's HTML page without errors" "requests 0
errors 0" "$(tail -n 2 butterfly.txt)"
  check_eq "postgres: the butterfly of exec_simple_query: 3500 calls, all from PostgresMain" "fn 3500 caller PostgresMain 3500" \
    "$(awk '$1 == "fn" { f = $3 } $1 == "caller" { c = c " caller " $2 " " $3 } END { print "fn " f c }' butterfly.txt)"
  check_eq "postgres: the butterfly's callees of exec_simple_query are report --callees's (name, calls)" \
    "$("$INCLPROF" report --callees exec_simple_query --process "$pid" --wide --fields calls data 2>/dev/null |
      awk '/^ *Calls/ { on = 1; next } on && /^$/ { exit } on { print $NF, $1 }' | sort)" \
    "$(awk '$1 == "callee" { print $2, $3 }' butterfly.txt | sort)"
}

# pg_pprof: the pprof export of the whole session fits its bound (16 MiB
# uncompressed by default), and go tool pprof reads it within 1 GB.
pg_pprof() {
  raw=$(gzip -dc prof.pb.gz | wc -c)
  HOME=$T_DIR PPROF_TMPDIR=$T_DIR /usr/bin/time -v go tool pprof -symbolize=none -top prof.pb.gz \
    >pprof-top.txt 2>pprof-time.txt
  st=$?
  rss=$(awk '/Maximum resident set size/ { print $NF }' pprof-time.txt)
  check "postgres: the pprof export of the session is at most 16 MiB uncompressed ($raw bytes, $(wc -c <prof.pb.gz) gzipped; $(grep -c 'pprof:' export.err) size note)" \
    test "$raw" -gt 0 -a "$raw" -le 16777216
  check "postgres: go tool pprof -top reads it within 1 GB (status $st, peak ${rss:-?} KB, $(awk '/Elapsed/ { print $NF }' pprof-time.txt))" \
    test "$st" = 0 -a "${rss:-999999999}" -le 1000000 -a -s pprof-top.txt
}

# pg_waits: as root the server, run as $PG_USER, was recorded with `record
# --user`: every trace has kernel events, opened by record's grant server,
# and the wait breakdown says why pgbench's backends waited: each of the
# four that ran the 3500 queries slept on its client (the next query) at
# some of its 3500 round trips, PostgresMain's blocked time within its
# Elapsed time, and its Application time below its Elapsed time.  How much
# of the time a backend sleeps depends on whether it or its client is the
# slower at the moment (pgbench's 4 clients and 2 threads share the
# machine with the 4 backends): 24-53 % of a recorded run on 2 cores.
pg_waits() {
  [ "$(id -u)" = 0 ] || return 0
  for f in data/*.ipb; do
    "$INCLPROF" info "$f" 2>/dev/null | grep -q "^transitions: *kevents" || printf '%s ' "${f#data/}"
  done >no-kevents.txt
  check_eq "postgres: every trace of the server (run as $PG_USER) has kernel events, opened by record --user" \
    "" "$(cat no-kevents.txt)"
  check "postgres: the traces say who opened the events" sh -c \
    "'$INCLPROF' info data/$(head -1 trace-pids.txt).ipb | grep -q 'opened for this user by the recording.s grant server'"
  for pid in $(awk '$2 == 3500 { print $1 }' pgbench-backends.txt); do
    csv_rows "procs/$pid.csv" function elapsed_inclusive_ns application_inclusive_ns offcpu_blocked_inclusive_ns |
      awk -F '\t' -v p="$pid" '$1 == "PostgresMain" { print p, $2, $3, $4 }'
  done >pg-waits.txt
  check "postgres: pgbench's four backends waited for their clients: PostgresMain blocked within its time, Application below Elapsed ($(awk '{ printf "%.0f%% ", 100 * $4 / $2 }' pg-waits.txt)blocked)" \
    awk 'BEGIN { n = 0 } $4 > 0 && $4 <= $2 && $3 < $2 { n++ } END { exit !(n == 4) }' pg-waits.txt
}

# pg_exit_costs: postgres -C shared_buffers (start, print a setting, exit)
# plain and recorded (record --user as root: record, its grant server, the
# server process), 3 times each, interleaved, at a real-time priority when
# the machine allows it (so that other programs on a busy machine take no
# turns in the middle of a run: a run's wall time is then its CPU time and
# its waits).  Each recorded run writes a directory of its own, so its
# process is the first of it: it writes the server's function tables (6.8
# MB) besides registering its 115 000 functions and call sites.  Checked on
# the medians: the time the recorded run spends off the CPU (wall less CPU)
# is within 50 ms of the plain run's (nothing waits: no RCU grace period, no
# disk discard, no timed wait), and its wall time within 250 ms of the plain
# one (what the runtime computes at start: docs/runtime.md, "Start-up and
# exit time").
pg_exit_costs() {
  prio= asuser= recuser=
  chrt -f 10 true 2>/dev/null && prio="chrt -f 10"
  [ "$(id -u)" = 0 ] && asuser="runuser -u $PG_USER --" recuser="--user $PG_USER"
  for i in 1 2 3; do
    for fl in plain plugin; do
      if [ "$fl" = plain ]; then
        $prio /usr/bin/time -f "plain %e %U %S" -o exit-time.txt $asuser "$(exe plain)" -C shared_buffers \
          -D "$dir/run/rec/pgdata" >/dev/null 2>&1
      else
        $prio /usr/bin/time -f "plugin %e %U %S" -o exit-time.txt "$INCLPROF" record $recuser -o "$dir/run/rec/exit-$i" \
          -- "$(exe plugin)" -C shared_buffers -D "$dir/run/rec/pgdata" >/dev/null 2>&1
      fi
      cat exit-time.txt
    done
  done >exit-costs.txt
  # median KIND FIELD: wall (1) or off the CPU (2) of KIND's runs, in s
  median() { awk -v k="$1" -v f="$2" '$1 == k { print f == 1 ? $2 : $2 - $3 - $4 }' exit-costs.txt | sort -n | sed -n 2p; }
  exit_plain=$(median plain 1) exit_rec=$(median plugin 1) off_plain=$(median plain 2) off_rec=$(median plugin 2)
  check "postgres: postgres -C shared_buffers waits no longer recorded than plain, within 50 ms (${prio:-normal priority}, medians of 3: off the CPU plain $off_plain s, recorded $off_rec s)" \
    awk -v p="$off_plain" -v r="$off_rec" 'BEGIN { exit !(r - p <= 0.05) }'
  check "postgres: postgres -C shared_buffers recorded within 250 ms of plain, its first process in the directory (plain $exit_plain s, recorded $exit_rec s)" \
    awk -v p="$exit_plain" -v r="$exit_rec" 'BEGIN { exit !(r - p <= 0.25) }'
}
