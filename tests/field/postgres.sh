# postgres.sh - PostgreSQL 15 in `make field` (sourced by field.sh): the
# server, pgbench and pg_regress built from Debian's postgresql-15 source and
# run as an unprivileged system user (the server refuses root).
PG_USER=inclprof-field

# build_postgres FLAVOUR DIR: the upstream tree configured without readline
# and ICU.  Plain: built and installed into DIR/inst (the server looks for
# its share files there), with pg_regress and its regress.so.  Any other
# flavour builds only the server (src/backend) and installs it into a copy of
# the plain installation: initdb, pg_ctl, pgbench, psql and the regression
# tests are the plain build's in every run.
build_postgres() {
  unpack postgresql-15 "$2" &&
    (cd "$2" && ./configure -q --prefix="$2/inst" --without-readline --without-icu --without-zlib \
      CC=gcc CFLAGS="$(flags "$1")" LDFLAGS="$(ldflags "$1")" &&
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
# test's result and the server's exit.  The shutdown's seconds, from
# pg_ctl stop to the server's end, go to shutdown.txt.
run_postgres() {
  plain=$W/postgres/plain
  pg_template || { echo "initdb failed: $(tail -2 "$W/postgres/initdb.log")"; return 1; }
  rm -rf pgdata regress && cp -a "$W/postgres/pgdata-template" pgdata && mkdir -p regress &&
    { [ "$(id -u)" != 0 ] || chown -R "$PG_USER" "$PWD"; } || return 1
  port=$((30000 + $$ % 10000))
  as_pg_server "$@" -D "$PWD/pgdata" -p "$port" -k "$PWD" >server.log 2>&1 &
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
    grep -E '^number of (transactions actually processed|failed transactions)'
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
# rows once (SeqNext once per row, plus once at each participant's end), and
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
  rows=0
  for pid in $leader $workers; do rows=$((rows + $(pg_calls "procs/$pid.csv" SeqNext))); done
  check_eq "postgres: SeqNext returned each of the 200000 rows once in the parallel count(*)'s leader and its 2 workers, plus their 3 ends" \
    200003 "$rows"
  check_eq "postgres: each of the $(echo "$workers" | wc -w) parallel workers of the log (index builds and the count) ran ParallelWorkerMain once" \
    "" "$(for pid in $workers; do [ "$(pg_calls "procs/$pid.csv" ParallelWorkerMain)" = 1 ] || printf '%s ' "$pid"; done)"
  # the costs of recording a process
  check_eq "postgres: every trace is under 100 KB plus 4.2 bytes per event (the top of the documented range)" "" \
    "$(awk -F '\t' '$2 > 100000 + 4.2 * $3 { printf "pid %s (%s): %s bytes for %s events; ", $1, substr($7, 1, 40), $2, $3 }' facts.txt | cut -c1-700)"
  pg_waits
  plain_stop=$(cat "$dir/run/plain/shutdown.txt") rec_stop=$(cat shutdown.txt)
  check "postgres: pg_ctl stop -m fast ends the recorded server within 1 s of the plain one (plain ${plain_stop} s, recorded ${rec_stop} s)" \
    awk -v p="$plain_stop" -v r="$rec_stop" 'BEGIN { exit !(r - p <= 1.0) }'
  pg_exit_costs
  "$INCLPROF" report --by process data >by-process.txt 2>report.err
  check_eq "postgres: report --by process has a row per trace with events" "$(awk -F '\t' '$3 > 0' facts.txt | wc -l)" \
    "$(awk 'table && NF { n++ } /^Calls / { table = 1 } END { print n + 0 }' by-process.txt)"
}

# pg_waits: as root the server, run as $PG_USER, was recorded with `record
# --user`: every trace has kernel events, opened by record's grant server,
# and the wait breakdown says why pgbench's backends waited: PostgresMain
# spends most of its time blocked on its client (the next query), and its
# Application time is below its Elapsed time.
pg_waits() {
  [ "$(id -u)" = 0 ] || return 0
  for f in data/*.ipb; do
    "$INCLPROF" info "$f" 2>/dev/null | grep -q "^transitions: *kevents" || printf '%s ' "${f#data/}"
  done >no-kevents.txt
  check_eq "postgres: every trace of the server (run as $PG_USER) has kernel events, opened by record --user" \
    "" "$(cat no-kevents.txt)"
  check "postgres: the traces say who opened the events" sh -c \
    "'$INCLPROF' info data/$(head -1 trace-pids.txt).ipb | grep -q 'opened for this user by the recording.s grant server'"
  for pid in $(awk '{ print $1 }' pgbench-backends.txt); do
    csv_rows "procs/$pid.csv" function elapsed_inclusive_ns application_inclusive_ns offcpu_blocked_inclusive_ns |
      awk -F '\t' -v p="$pid" '$1 == "PostgresMain" { print p, $2, $3, $4 }'
  done >pg-waits.txt
  check "postgres: pgbench's backends waited for their clients: PostgresMain blocked 30-100% of its time, Application below Elapsed ($(awk '{ printf "%.0f%% ", 100 * $4 / $2 }' pg-waits.txt)blocked)" \
    awk 'BEGIN { n = 0 } $4 >= 0.3 * $2 && $4 <= $2 && $3 < $2 { n++ } END { exit !(n >= 4) }' pg-waits.txt
}

# pg_exit_costs: postgres -C shared_buffers (start, print a setting, exit)
# plain and recorded, 3 times each, interleaved: the recorded one's median
# within 50 ms of the plain one's.
pg_exit_costs() {
  for i in 1 2 3; do
    for fl in plain plugin; do
      exit_t0=$(now)
      if [ "$fl" = plain ]; then as_pg "$(exe plain)" -C shared_buffers -D "$dir/run/rec/pgdata" >/dev/null 2>&1
      else as_pg_server "$INCLPROF" record -o "$dir/run/rec/exit-$i" -- "$(exe plugin)" -C shared_buffers -D "$dir/run/rec/pgdata" >/dev/null 2>&1; fi
      echo "$fl $(since "$exit_t0")"
    done
  done >exit-costs.txt
  exit_plain=$(awk '$1 == "plain" { print $2 }' exit-costs.txt | sort -n | sed -n 2p)
  exit_rec=$(awk '$1 == "plugin" { print $2 }' exit-costs.txt | sort -n | sed -n 2p)
  check "postgres: postgres -C shared_buffers exits within 50 ms of plain recorded (median of 3: plain $exit_plain s, recorded $exit_rec s)" \
    awk -v p="$exit_plain" -v r="$exit_rec" 'BEGIN { exit !(r - p <= 0.05) }'
}
