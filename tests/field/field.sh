#!/bin/sh
# field.sh - `make field`: real code bases from Debian's source packages
# (sqlite3, zstd, ninja-build, lua5.4, redis, leveldb, jq, nginx, yaml-cpp),
# each built plain, with the plugin and with -pg (zstd also with the plugin
# at -O3 -flto), run on a fixed workload.  It checks that every build
# behaves identically (outputs and
# checksums), that every export passes its viewer (go tool pprof, the DevTools
# trace engine, callgrind_annotate, a strict CSV parser), and that the 30
# most-called functions have gprof's call counts, apart from the mismatches
# tests/field/gprof-known.txt explains and those it measures: calls made in a
# process that ended with _exit() (gprof has no profile of it), counts that
# vary between runs of the same build, and calls gprof loses while threads
# run at once (tests/field/mcount_race.c shows it; classify.py judges them);
# the -pg runs of nginx, which forks its workers, preload gmon_fork.c, so
# that each process's gmon file counts its own calls (fork_calls.c shows
# why).  Some programs have checks of their own (extra_PROGRAM): call counts that
# follow from the workload, the modules and processes calls are charged to.
# Then it prints one table row per
# build: events, trace bytes, bytes/event, the run times plain, with the
# plugin but without the runtime, and recording (slowdown), the converter's
# speed, and the result.
# Usage: sh tests/field/field.sh [lua|sqlite|zstd|ninja|leveldb|redis|jq|nginx|yamlcpp|bash...]  (from the top of the
# repository, after make; default: all of them).  Needs the network once for
# apt-get source (cached in build/debian-src).  With FIELD_DEFINITIONS_ONLY
# set, sourcing it only defines the fetching, building and running of each
# program (bench/programs.sh builds lua, sqlite, zstd and jq with them, also
# as the fi and xray flavours: -finstrument-functions, and clang's XRay with
# FIELD_XRAY_LINK added to the link).
. "${INCLPROF_SRC:=$(pwd)}/tests/lib.sh"
. "$INCLPROF_SRC/tests/viewers/viewers.sh"

W=${INCLPROF_FIELD_DIR:-$INCLPROF_SRC/build/field}
CACHE=$INCLPROF_SRC/build/debian-src
KNOWN=$INCLPROF_SRC/tests/field/gprof-known.txt
mkdir -p "$W" "$CACHE"
ROWS=$W/table.txt
: >"$ROWS"
PROGRAMS=${*:-lua sqlite zstd ninja leveldb redis jq nginx yamlcpp postgres fmt cpython asio bash}
# The Debian source package of each program.
pkg_of() {
  case $1 in
  lua) echo lua5.4 ;; sqlite) echo sqlite3 ;; ninja) echo ninja-build ;; zstd) echo libzstd ;; yamlcpp) echo yaml-cpp ;;
  postgres) echo postgresql-15 ;; fmt) echo fmtlib ;; cpython) echo python3.11 ;;
  asio) ;; # libasio-dev, a binary package (scripts/deps.sh)
  *) echo "$1" ;;
  esac
}

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# fetch PACKAGE: its bookworm source package in $CACHE (scripts/debian-source.sh:
# the mirror of this machine's apt sources, a private apt state; the checks
# below expect bookworm's versions).
fetch() {
  if ! sh "$INCLPROF_SRC/scripts/debian-source.sh" "$CACHE" --suite bookworm "$1" 2>"$W/fetch-$1.log"; then
    fail "$(tail -n1 "$W/fetch-$1.log"), then rerun make field"
    return 1
  fi
}

# unpack PACKAGE DIR: the upstream tarball into DIR (fresh).
unpack() {
  rm -rf "$2" && mkdir -p "$2"
  tar xf "$(ls "$CACHE/$1"_*.orig.tar.* | grep -v '\.asc$' | grep -v www | head -1)" -C "$2" --strip-components=1
}

# debian_src PACKAGE DIR: the upstream tarball into DIR (fresh), with the
# patches of Debian's debian/patches/series applied.
debian_src() {
  unpack "$1" "$2" && tar xJf "$(ls "$CACHE/$1"_*.debian.tar.xz | head -1)" -C "$2" || return 1
  for patch in $(awk '!/^#/ && NF { print $1 }' "$2/debian/patches/series"); do
    patch -d "$2" -p1 -s <"$2/debian/patches/$patch" || return 1
  done
}

# The flavours: plain, plugin (probes, run without and with the runtime), pg;
# for bench/programs.sh also filtered (the plugin with FIELD_FILTER), fi and
# xray.
flags() {
  case $1 in
  plain) echo "-O2 -g" ;;
  plugin) echo "-O2 -g -fplugin=$INCLPROF_PLUGIN" ;;
  filtered) echo "-O2 -g -fplugin=$INCLPROF_PLUGIN -fplugin-arg-inclprof-filter=$FIELD_FILTER" ;;
  lto) echo "-O3 -flto -g -fplugin=$INCLPROF_PLUGIN" ;;
  pg) echo "-O2 -g -pg" ;;
  fi) echo "-O2 -g -finstrument-functions" ;;
  xray) echo "-O2 -g -fxray-instrument -fxray-instruction-threshold=1" ;;
  esac
}
# ldflags FLAVOUR: the flags of its link.
ldflags() { if [ "$1" = xray ]; then echo "$(flags xray) ${FIELD_XRAY_LINK:-}"; else flags "$1"; fi; }
# cc_of FLAVOUR: its C compiler.
cc_of() { if [ "$1" = xray ]; then echo "clang-$(sh "$INCLPROF_SRC/scripts/llvm-version.sh")"; else echo gcc; fi; }

# await_exit PID NAME WHAT [TENTHS]: waits up to TENTHS tenths of a second
# (default 300) for the server PID, asked to stop by WHAT, to end (then
# kills it), and prints "NAME exit STATUS".
await_exit() {
  i=0
  while kill -0 "$1" 2>/dev/null; do
    i=$((i + 1))
    [ "$i" -gt "${4:-300}" ] && { echo "$2 still running $((${4:-300} / 10)) s after $3"; kill -9 "$1"; break; }
    sleep 0.1
  done
  wait "$1"
  echo "$2 exit $?"
}

# --- the programs: build_P FLAVOUR DIR (leaves $BIN), run_P BIN (prints
# the behaviour to compare, in the current directory) -----------------------

build_lua() {
  unpack lua5.4 "$2" && make -C "$2/src" -j2 linux-noreadline CC="$(cc_of "$1") -std=gnu99" MYCFLAGS="$(flags "$1")" \
    MYLDFLAGS="$(ldflags "$1")" >"$2/build.log" 2>&1
  BIN=$2/src/lua
}
run_lua() { "$@" "$INCLPROF_SRC/tests/field/work.lua"; }

build_sqlite() {
  if [ ! -f "$W/sqlite3-amalg/sqlite3.c" ]; then
    unpack sqlite3 "$W/sqlite3-amalg" &&
      (cd "$W/sqlite3-amalg" && ./configure -q >/dev/null && make -j2 sqlite3.c shell.c) >"$W/sqlite3-amalg.log" 2>&1 || return 1
  fi
  mkdir -p "$2" && cp "$W/sqlite3-amalg/sqlite3.c" "$W/sqlite3-amalg/sqlite3.h" "$W/sqlite3-amalg/shell.c" "$2/" &&
    # shellcheck disable=SC2046
    "$(cc_of "$1")" $(ldflags "$1") -D_FILE_OFFSET_BITS=64 -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION \
      -o "$2/sqlite3" "$2/shell.c" "$2/sqlite3.c" -lm >"$2/build.log" 2>&1
  BIN=$2/sqlite3
}
run_sqlite() { rm -f work.db && "$@" work.db <"$INCLPROF_SRC/tests/field/work.sql"; }

build_zstd() {
  unpack libzstd "$2" && make -C "$2/programs" -j2 zstd-release CC="$(cc_of "$1")" MOREFLAGS="$(flags "$1")" \
    CFLAGS="$(flags "$1")" LDFLAGS="$(ldflags "$1")" >"$2/build.log" 2>&1
  BIN=$2/programs/zstd
}
zstd_input() {
  [ -f "$W/zstd-input" ] && return 0
  # 16 MB of source code: sqlite's and redis's tarballs, uncompressed
  { xz -dc "$CACHE"/sqlite3_*.orig.tar.xz && gzip -dc "$CACHE"/redis_*.orig.tar.gz; } | head -c 16000000 >"$W/zstd-input"
}
run_zstd() {
  zstd_input
  # --single-thread: no worker thread, so every run makes the same calls
  "$@" -q -f -6 --single-thread "$W/zstd-input" -o in.zst && "$@" -q -d -f in.zst -o out && cksum <in.zst && cksum <out
}

build_ninja() {
  unpack ninja-build "$2" &&
    (cd "$2" && CXX=g++ CFLAGS="$(flags "$1")" LDFLAGS="$(flags "$1")" python3 configure.py >/dev/null &&
      ninja ninja_test) >"$2/build.log" 2>&1
  BIN=$2/ninja_test
}
run_ninja() { "$@" 2>&1 | tr '\r' '\n' | grep -v '^inclprof: ' | tail -1; }

build_leveldb() {
  unpack leveldb "$2" || return 1
  (cd "$2" && mkdir -p port && printf '#define HAVE_FDATASYNC 1\n#define HAVE_FULLFSYNC 0\n#define HAVE_O_CLOEXEC 1\n#define HAVE_CRC32C 0\n#define HAVE_SNAPPY 0\n#define HAVE_ZSTD 0\n' >port/port_config.h &&
    # shellcheck disable=SC2046
    g++ $(flags "$1") -std=c++11 -DLEVELDB_PLATFORM_POSIX=1 -DLEVELDB_HAS_PORT_CONFIG_H=1 -I. -Iinclude \
      -o db_bench benchmarks/db_bench.cc util/histogram.cc util/testutil.cc \
      $(ls db/*.cc table/*.cc util/*.cc helpers/memenv/memenv.cc | grep -v -e _test.cc -e _bench -e env_windows -e testutil -e histogram -e leveldbutil) \
      -lgmock -lgtest -lpthread) >"$2/build.log" 2>&1
  BIN=$2/db_bench
}
run_leveldb() {
  rm -rf db && "$@" --db="$PWD/db" --num=50000 --benchmarks=fillseq,fillrandom,overwrite,readrandom,readseq,compact,readrandom 2>/dev/null |
    awk '$2 == ":" { found = $0; sub(/^[^(]*/, "", found); if (found !~ /found/) found = ""; print $1, found }'
}

build_redis() {
  unpack redis "$2" && make -C "$2" -j2 MALLOC=libc USE_SYSTEMD=no BUILD_TLS=no \
    REDIS_CFLAGS="$(flags "$1")" REDIS_LDFLAGS="$(flags "$1")" redis-server >"$2/build.log" 2>&1
  BIN=$2/src/redis-server
}
run_redis() {
  port=$((20000 + $$ % 10000))
  "$@" --port "$port" --save "" --appendonly no --dir "$PWD" --dbfilename dump.rdb >server.log 2>&1 &
  server=$!
  i=0
  until redis-cli -p "$port" ping >/dev/null 2>&1; do
    i=$((i + 1)); [ "$i" -gt 100 ] && { kill "$server"; echo "server did not start"; return 1; }
    sleep 0.1
  done
  redis-benchmark -p "$port" -q -n 20000 -c 4 -t set,get,incr,lpush,lpop,sadd,hset >/dev/null
  redis-cli -p "$port" bgsave >/dev/null
  i=0
  until redis-cli -p "$port" info persistence | grep -q 'rdb_bgsave_in_progress:0'; do
    i=$((i + 1)); [ "$i" -gt 300 ] && break
    sleep 0.1
  done
  redis-cli -p "$port" info persistence | grep -o 'rdb_last_bgsave_status:[a-z]*'
  redis-cli -p "$port" dbsize
  redis-cli -p "$port" get counter:__rand_int__
  redis-cli -p "$port" shutdown nosave >/dev/null 2>&1
  await_exit "$server" server SHUTDOWN
}

# jq: Debian's patches make libjq a shared library, which the libtool wrapper
# ./jq runs uninstalled from .libs (LD_LIBRARY_PATH).  The -pg build links
# libjq statically, since gprof profiles only the executable's own code, from
# position-independent code as a shared libjq is: GCC inlines no call of a
# global function there (it could be interposed), so both builds make the
# same calls.  The configure script comes from autoreconf, once, in
# $W/jq-src.
build_jq() {
  if [ ! -f "$W/jq-src/configure" ]; then
    debian_src jq "$W/jq-src" && (cd "$W/jq-src" && autoreconf -fi) >"$W/jq-src.log" 2>&1 ||
      { rm -f "$W/jq-src/configure"; return 1; }
  fi
  libs="--disable-static"
  # libjq static for -pg and XRay (whose runtime instruments no shared
  # library), and for -finstrument-functions: uftrace refuses the libtool
  # wrapper script that a shared build leaves as ./jq
  case $1 in pg | xray | fi) libs="--disable-shared --with-pic" ;; esac
  # shellcheck disable=SC2086
  rm -rf "$2" && cp -a "$W/jq-src" "$2" &&
    (cd "$2" && ./configure -q --disable-docs --disable-valgrind $libs CC="$(cc_of "$1")" CFLAGS="$(flags "$1")" \
      LDFLAGS="$(ldflags "$1")" &&
      make -j2) >"$2/build.log" 2>&1
  BIN=$2/jq
}
# onig.test (the regular expressions) of jq's test suite, one process: every
# test compiles its program with jq's builtins, some 8 M calls each, so the
# whole suite (jq.test too, extra_jq) is run without recording.
run_jq() { "$@" -L "$W/jq-src/tests/modules" --run-tests "$W/jq-src/tests/onig.test"; }

# extra_jq: checks that only jq has, after field jq.
extra_jq() {
  # jq.test, the main part of the suite (340 tests), plain and recorded: some
  # 5 G events, so each trace stops at 1 GB (--max-size; the run goes on
  # with the runtime loaded and recording off)
  cd "$dir/run/plain" && t0=$(now) &&
    "$(exe plain)" -L "$W/jq-src/tests/modules" --run-tests "$W/jq-src/tests/jq.test" >jq-test.txt 2>&1
  jq_plain_s=$(since "$t0")
  cd "$dir/run/plugin" && rm -rf jq-test.data && t0=$(now) &&
    "$INCLPROF" record --max-size 1G -o jq-test.data -- "$(exe plugin)" -L "$W/jq-src/tests/modules" \
      --run-tests "$W/jq-src/tests/jq.test" >jq-test.txt 2>&1
  jq_rec_s=$(since "$t0")
  check_eq "jq: jq.test, recorded, has the plain build's results ($(tail -1 "$dir/run/plain/jq-test.txt"))" \
    "$(cat "$dir/run/plain/jq-test.txt")" "$(sed '/^inclprof/d' "$dir/run/plugin/jq-test.txt")"
  suite_row "jq: jq.test (1 GB bound)" "$jq_plain_s" "$jq_rec_s" jq-test.data
  rm -rf jq-test.data
  # run_jq_tests compiles each test's program once: jq_compile (libjq), once
  # per test, as many as "N of M tests passed" says.
  cd "$dir/run/rec"
  tests=$(awk '/ tests passed / { print $3 }' out.txt)
  check_eq "jq: jq_compile is called once per test (onig.test: ${tests:-none} tests)" "${tests:-none}" \
    "$(csv_rows prof.csv function calls | awk -F '\t' '$1 == "jq_compile" { print $2 }')"
  check_eq "jq: gprof counts one jq_compile per test too" "${tests:-none}" \
    "$(awk -F '\t' '$1 == "jq_compile" { print $2 }' "$dir/run/pg/gprof.txt")"
  # The module of every function: src/main.c is the executable's (.libs/jq),
  # every other file of src/ is libjq's (.libs/libjq.so.1).
  check_eq "jq: libjq's functions are charged to libjq, main.c's to the jq executable" \
    "exe:main.c lib:libjq" "$(jq_modules prof.csv)"
  # The same through a relative LD_LIBRARY_PATH, as `LD_LIBRARY_PATH=.libs
  # .libs/jq` in the build directory runs it.
  rm -rf "$dir/run/rel" && mkdir -p "$dir/run/rel" && cd "$dir/plugin" &&
    LD_LIBRARY_PATH=.libs "$INCLPROF" record -o "$dir/run/rel/data" -- .libs/jq -n '[range(10)] | map(. * 2) | add' >"$dir/run/rel/out.txt" 2>&1
  cd "$dir/run/rel" && "$INCLPROF" export -f csv -o prof.csv data 2>export.err
  check_eq "jq: run with LD_LIBRARY_PATH=.libs, it prints 90" 90 "$(sed '/^inclprof/d' out.txt)"
  check_eq "jq: with LD_LIBRARY_PATH=.libs (relative), libjq's functions are charged to libjq, main.c's to the jq executable" \
    "exe:main.c lib:libjq" "$(jq_modules prof.csv)"
}
# jq_modules CSV: "exe:main.c lib:libjq" when the functions of src/main.c
# are charged to the module .libs/jq and those of the other files of src/ to
# libjq: .libs/libjq.so.1, or the file it links to (libjq.so.1.0.4), the
# name the kernel's mappings give it (and there are both); otherwise the
# offending rows.
jq_modules() {
  csv_rows "$1" function module file | awk -F '\t' '
    $3 == "src/main.c" { if ($2 ~ /\/\.libs\/jq$/) exe++; else bad = bad " " $1 "@" $2; next }
    $3 ~ /^src\// { if ($2 ~ /\/\.libs\/libjq\.so\.1(\.[0-9.]+)?$/) lib++; else bad = bad " " $1 "@" $2 }
    END { if (bad != "" || !exe || !lib) print "exe functions " exe + 0 ", libjq functions " lib + 0 ", charged elsewhere:" substr(bad, 1, 300)
      else print "exe:main.c lib:libjq" }'
}

# nginx: the http core and static files only (rewrite needs PCRE, gzip zlib);
# -Werror as nginx sets it.
build_nginx() {
  debian_src nginx "$2" &&
    (cd "$2" && ./configure --without-http_rewrite_module --without-http_gzip_module \
      --with-cc-opt="$(flags "$1")" --with-ld-opt="$(flags "$1")" && make -j2) >"$2/build.log" 2>&1
  BIN=$2/objs/nginx
}
# A master and two workers on 127.0.0.1 (their user is the caller's, so that
# they write their traces and gmon files where the master does), driven by ab
# (4000 requests: 3000 of a page, 1000 of a missing one), then nginx -s
# quit.  Every -pg process starts its gmon counts afresh when it is forked
# (gmon_fork.c), so the files sum to the calls made; nginx clears its
# workers' environment but for the variables env names, GMON_OUT_PREFIX
# among them (else each worker writes gmon.out, over the other's).  Prints what ab
# counted, the statuses of the access log and the page's checksum.
NGINX_REQUESTS=4001 # 3000 + 1000 with ab, one with curl
run_nginx() {
  for nginx do :; done # the executable: the last argument
  port=$((40000 + $$ % 10000))
  mkdir -p html quit && cp "$dir/plain/html/index.html" html/ &&
    printf 'user %s %s;\nworker_processes 2;\nenv GMON_OUT_PREFIX;\ndaemon off;\npid nginx.pid;\nerror_log error.log notice;\nevents { worker_connections 64; }\nhttp {\n  access_log access.log;\n  server {\n    listen 127.0.0.1:%s;\n    location / { root html; }\n  }\n}\n' \
      "$(id -un)" "$(id -gn)" "$port" >nginx.conf || return 1
  rm -f nginx.pid access.log error.log
  preload=
  [ -n "${GMON_OUT_PREFIX:-}" ] && preload=$W/gmon_fork.so
  env ${preload:+LD_PRELOAD=$preload} "$@" -p "$PWD/" -e "$PWD/error.log" -c nginx.conf >server.log 2>&1 &
  server=$!
  i=0
  until [ -s nginx.pid ] && [ "$(grep -c 'start worker process' error.log 2>/dev/null)" -ge 2 ]; do
    i=$((i + 1)); [ "$i" -gt 300 ] && { kill "$server"; echo "nginx did not start"; return 1; }
    sleep 0.1
  done
  url=http://127.0.0.1:$port
  timeout 120 ab -q -s 10 -n 3000 -c 4 "$url/index.html" 2>&1 | grep -E '^(Document Length|Complete requests|Failed requests|Non-2xx responses):'
  timeout 120 ab -q -s 10 -n 1000 -c 2 "$url/missing.html" 2>&1 | grep -E '^(Document Length|Complete requests|Failed requests|Non-2xx responses):'
  curl -s --max-time 10 "$url/index.html" | cksum
  (unset GMON_OUT_PREFIX; cd quit && "$nginx" -p "$PWD/../" -e "$PWD/../error.log" -c nginx.conf -s quit)
  await_exit "$server" nginx "nginx -s quit"
  awk '{ n[$9]++ } END { for (s in n) print "status " s ": " n[s] }' access.log | sort
}

# extra_nginx: the recorded run's processes and its requests.
extra_nginx() {
  cd "$dir/run/rec"
  "$INCLPROF" info data >info.txt 2>&1
  check_eq "nginx: three traces, the master's and one per worker" 3 "$(ls data/*.ipb | wc -l)"
  # Per process: the master's cycle, each worker's cycle, and the requests:
  # ngx_http_handler runs once per request, when its header has been read
  # (from ngx_http_process_request, which GCC inlines into its callers), and
  # again only for an internal redirect, which this configuration makes none
  # of.
  : >processes.txt
  for pid in $(awk '/^process:/ { pid = $3; sub(/,$/, "", pid); print pid }' info.txt); do
    "$INCLPROF" export -f csv --process "$pid" -o "process-$pid.csv" data 2>/dev/null
    csv_rows "process-$pid.csv" function calls | awk -F '\t' -v pid="$pid" '
      $1 == "ngx_master_process_cycle" { m = $2 } $1 == "ngx_worker_process_cycle" { w = $2 }
      $1 == "ngx_http_handler" { r = $2 }
      END { print pid, "master " m + 0, "worker " w + 0, "requests " r + 0 }' >>processes.txt
  done
  check_eq "nginx: one master process and two workers, each in its own trace" \
    "master 0 worker 1,master 0 worker 1,master 1 worker 0" "$(cut -d' ' -f2-5 processes.txt | sort | paste -sd, -)"
  check_eq "nginx: ngx_http_handler is called once per request ($NGINX_REQUESTS)" "$NGINX_REQUESTS" "$(calls_of prof.csv ngx_http_handler)"
  check_eq "nginx: the workers' requests add up to the $NGINX_REQUESTS sent ($(awk '$4 == "worker" && $5 == 1 { printf "%s%s", s, $7; s = " + " }' processes.txt))" \
    "$NGINX_REQUESTS" "$(awk '$4 == "worker" && $5 == 1 { s += $7 } END { print s + 0 }' processes.txt)"
  check_eq "nginx: gprof counts one ngx_http_handler per request too" "$NGINX_REQUESTS" \
    "$(awk -F '\t' '$1 == "ngx_http_handler" { print $2 }' "$dir/run/pg/gprof.txt")"
}

# yaml-cpp: its test binary, with Debian's googletest (use-archive-googletest
# builds /usr/src/googletest into it, with the same flags).
build_yamlcpp() {
  rm -rf "$2" && debian_src yaml-cpp "$2/src" &&
    (cmake -S "$2/src" -B "$2/build" -DCMAKE_BUILD_TYPE=None -DYAML_CPP_BUILD_TESTS=ON -DYAML_CPP_BUILD_TOOLS=OFF \
      -DINSTALL_GTEST=OFF -DCMAKE_C_FLAGS="$(flags "$1")" -DCMAKE_CXX_FLAGS="$(flags "$1")" \
      -DCMAKE_EXE_LINKER_FLAGS="$(flags "$1")" && make -C "$2/build" -j2 yaml-cpp-tests) >"$2/build.log" 2>&1
  BIN=$2/build/test/yaml-cpp-tests
}
# Every test's result and gtest's summary, without the times.
run_yamlcpp() {
  "$@" 2>&1 | sed 's/ ([0-9]* ms[^)]*)$//' | grep -E '^\[ *(OK|FAILED|DISABLED|PASSED) *\]|tests? from .* ran|DISABLED TESTS?$'
}

# trace_facts DATA...: one tab-separated line per trace of the recordings:
# pid, file bytes, events, events dropped, batches lost, "clean" when the
# process shut down cleanly (else the trailer's words), command line.
trace_facts() {
  "$INCLPROF" info "$@" 2>/dev/null | awk '
    /^trace:/ { file = $2; pid = cmd = events = lost = ""; dropped = "?" }
    /^process:/ { pid = $3; sub(/,$/, "", pid) }
    /^command:/ { cmd = $0; sub(/^command: */, "", cmd) }
    /^events:/ { events = $2; lost = $(NF - 2) }
    /^trailer:/ {
      t = $0; sub(/^trailer: */, "", t)
      if (t ~ /^clean shutdown, .* dropped$/) { n = split(t, w, " "); dropped = w[n - 1]; t = "clean" }
      size = 0; stat = "stat -c %s \"" file "\""; stat | getline size; close(stat)
      printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", pid, size, events, dropped, lost, t, cmd }'
}

# suite_row NAME PLAIN_S REC_S DATA...: a table row for a test suite run
# plain and recorded into DATA (no plugin-only run, no conversion); its
# result is that of the checks since fails_before.
suite_row() {
  suite_name=$1 suite_plain_s=$2 suite_rec_s=$3
  shift 3
  suite_result=ok
  [ "$T_FAILS" = "${fails_before:-0}" ] || suite_result=FAIL
  printf '%s\t%s\t%s\t%s\t-\t%s\t-\t%s\n' "$suite_name" "$(trace_facts "$@" | awk -F '\t' '{ s += $3 } END { print s + 0 }')" \
    "$(du -scb "$@" | tail -1 | cut -f1)" "$suite_plain_s" "$suite_rec_s" "$suite_result" >>"$ROWS"
}

# calls_of CSV FUNCTION: its calls in a CSV export.
calls_of() { csv_rows "$1" function calls | awk -F '\t' -v f="$2" '$1 == f { print $2 }'; }

# extra_yamlcpp: gtest runs each test through testing::TestInfo::Run(),
# once per test of every test suite that runs, a disabled test included (Run()
# reports it as disabled and returns): as many calls as the tests that ran
# and the disabled ones, when each disabled test is in a suite that runs
# (gtest prints "[ DISABLED ]" for each disabled test Run() sees).
extra_yamlcpp() {
  cd "$dir/run/rec"
  ran=$(sed -n 's/^\[==========\] \([0-9]*\) tests* from .* ran\.$/\1/p' out.txt)
  disabled=$(sed -n 's/^ *YOU HAVE \([0-9]*\) DISABLED TESTS*$/\1/p' out.txt)
  check_eq "yamlcpp: every test that ran passed ($(grep -F '[  PASSED  ]' out.txt))" "[  PASSED  ] ${ran:-none} tests." \
    "$(grep -F '[  PASSED  ]' out.txt)"
  check_eq "yamlcpp: each of the ${disabled:-none} disabled tests is in a test suite that runs" "${disabled:-none}" \
    "$(grep -c '^\[ DISABLED \]' out.txt)"
  check_eq "yamlcpp: testing::TestInfo::Run() is called once per test, ${ran:-none} run and ${disabled:-none} disabled" \
    "$((${ran:-0} + ${disabled:-0}))" "$(calls_of prof.csv 'testing::TestInfo::Run()')"
  check_eq "yamlcpp: testing::Test::Run() is called once per test that ran" "${ran:-none}" "$(calls_of prof.csv 'testing::Test::Run()')"
}

# --- checks ----------------------------------------------------------------

# gprof_calls BIN: "NAME<TAB>CALLS" from the gmon.* files in the current
# directory, read from the call graph's primary lines ("[7] ... 12+30 name
# [7]"): their count includes recursive calls, the flat profile's does not.
# A clone (f.constprop.0) counts as its function, as in inclprof.
gprof_calls() {
  gprof -b -q "$1" gmon.* 2>/dev/null | awk '
    /^\[[0-9]+\]/ && $5 ~ /^[0-9]+(\+[0-9]+)?$/ {
      n = split($5, part, "+"); calls = part[1] + (n > 1 ? part[2] : 0)
      name = $6; for (i = 7; i <= NF; i++) name = name " " $i
      sub(/ \[[0-9]+\]$/, "", name); sub(/ <cycle [0-9]+>$/, "", name); sub(/ <cycle [0-9]+> *\[[0-9]+\]$/, "", name)
      gsub(/\.(constprop|part|cold|isra)\.[0-9]+/, "", name) # GCC clones under their source name
      c[name] += calls }
    END { for (n in c) printf "%s\t%s\n", n, c[n] }' | sort
}

# compare_gprof PROGRAM CSV: the 30 most-called functions against gprof.  A
# mismatch is explained by a line of $KNOWN for this program (or "*") and the
# function, or "[not instrumented]" for a function inclprof has no source
# file for; the others go to pending.txt for classify.
compare_gprof() {
  p=$1
  us=$(printf '\037') # not white space: an empty file stays a field for read
  csv_rows "$2" function file calls | sort -t "$(printf '\t')" -k3,3nr | head -30 | tr '\t' "$us" >top30.txt
  : >pending.txt
  explained=0
  while IFS="$us" read -r fn file calls; do
    g=$(awk -F '\t' -v f="$fn" '$1 == f { print $2 }' gprof.txt)
    [ "${g:-0}" = "$calls" ] && continue
    key=$fn
    [ -z "$file" ] && key="[not instrumented]"
    why=$(awk -F '\t' -v p="$p" -v f="$key" '($1 == p || $1 == "*") && $2 == f { print $3; exit }' "$KNOWN")
    if [ -n "$why" ]; then
      explained=$((explained + 1))
      printf '  %s: %s: inclprof %s, gprof %s: %s\n' "$p" "$fn" "$calls" "${g:-none}" "$why" >>"$W/gprof-explained.txt"
    else
      printf '%s%s%s%s%s\n' "$fn" "$us" "$calls" "$us" "${g:-none}" >>pending.txt
    fi
  done <top30.txt
}

# classify PROGRAM FLAVOUR: the mismatches of pending.txt, judged by
# classify.py on two more recorded runs, two more -pg runs and the first
# run's calls per thread: counts that vary from run to run, or calls gprof
# lost while threads ran at once; any other fails.
classify() {
  p=$1
  for r in 2 3; do
    mkdir -p "$dir/run/rec$r" "$dir/run/pg$r"
    cd "$dir/run/rec$r" && "run_$p" "$INCLPROF" record -o "$dir/run/rec$r/data" -- "$(exe "$2")" >out.txt 2>&1
    check_eq "$p: recorded again ($r), it behaves as the plain one" "$(cat "$dir/run/plain/out.txt")" "$(sed '/^inclprof/d' out.txt)"
    "$INCLPROF" export -f csv -o prof.csv data 2>export.err
    rm -rf data
    cd "$dir/run/pg$r" && export GMON_OUT_PREFIX="$PWD/gmon" && "run_$p" "$(exe pg)" >out.txt 2>&1
    unset GMON_OUT_PREFIX
    gprof_calls "$dir/pg/bin" >gprof.txt
  done
  mkdir -p "$dir/run/threads" && cd "$dir/run/threads" && rm -f thread-*.csv process-*.csv
  for pid in $("$INCLPROF" info "$dir/run/rec/data" 2>/dev/null |
    awk '/^process:/ { pid = $3; sub(/,$/, "", pid) } /^trailer:.*exit reason: _exit;/ { print pid }'); do
    "$INCLPROF" export -f csv --process "$pid" -o "process-$pid.csv" "$dir/run/rec/data" 2>/dev/null
  done
  "$INCLPROF" export -f csv --by thread -o threads.csv "$dir/run/rec/data" 2>/dev/null
  for tid in $(csv_rows threads.csv tid calls | awk -F '\t' '$2 > 0 { print $1 }'); do
    "$INCLPROF" export -f csv --thread "$tid" -o "thread-$tid.csv" "$dir/run/rec/data" 2>/dev/null
  done
  python3 "$INCLPROF_SRC/tests/field/classify.py" judge "$dir/run/pg/pending.txt" "$dir/run" "$dir/run/threads" \
    "$dir/run/rec/spans.txt" "$LOST_CALLS" >verdict.txt
  n_lost=0 n_var=0 n_gone=0 fails_classify=$T_FAILS
  while IFS="$(printf '\t')" read -r verdict fn why; do
    if [ "$verdict" = ok ]; then
      case $why in
      calls\ gprof\ lost*) n_lost=$((n_lost + 1)) ;;
      processes\ gprof*) n_gone=$((n_gone + 1)) ;;
      *) n_var=$((n_var + 1)) ;;
      esac
      printf '  %s: %s: %s\n' "$p" "$fn" "$why" >>"$W/gprof-measured.txt"
    else
      fail "$p: $fn: $why"
    fi
  done <verdict.txt
  [ "$T_FAILS" = "$fails_classify" ] &&
    ok "$p: of the 30 most-called functions, $n_var vary from run to run (not compared), $n_lost lost calls in gprof and $n_gone were called in a process gprof has no profile of (see below)"
}

# The programs whose call counts are compared with gprof's (built with -pg
# too); the others have checks of their own against an independent count.
GPROF_PROGRAMS="lua sqlite zstd ninja leveldb redis jq nginx yamlcpp"
has_gprof() { case " $GPROF_PROGRAMS " in *" $1 "*) return 0 ;; esac; return 1; }

# build_key PROGRAM FLAVOUR: what a build depends on: its flags, the build
# function, the program's source when it is one of this directory's
# (PROGRAM_server.cc) and, built with the plugin, the plugin itself.  A build
# whose key is unchanged is not redone.
build_key() {
  {
    flags "$2"; type "build_$1"
    cat "$INCLPROF_SRC/tests/field/$1_server.cc" 2>/dev/null
    case $2 in plain | pg) ;; *) cksum <"$INCLPROF_PLUGIN" ;; esac
  } | cksum
}

# exe FLAVOUR: the path every run of that build goes through.  Their lengths
# are equal: a program sees its argv[0] (lua's GC paces itself by the bytes it
# allocates, its arg table included, so a shorter path shifts its marking by
# a call).
exe() { echo "$dir/bin-$(printf '%-6s' "$1" | tr ' ' _)"; }

# field PROGRAM [lto]: build, run, record, export and compare one program.
field() {
  p=$1
  v=${2:-plugin}
  name=$p
  [ "$v" = lto ] && name="$p -O3 -flto"
  pkg=$(pkg_of "$p")
  [ -z "$pkg" ] || fetch "$pkg" || return
  [ "$p" = zstd ] && { fetch sqlite3 && fetch redis || return; }
  dir=$W/$p
  mkdir -p "$dir"
  for fl in plain "$v" pg; do
    [ "$fl" = pg ] && { [ "$v" = lto ] || ! has_gprof "$p"; } && continue
    [ "$fl" = plain ] && [ "$v" = lto ] && [ -x "$dir/plain/bin" ] && continue
    key=$(build_key "$p" "$fl")
    if [ -x "$dir/$fl/bin" ] && [ "$(cat "$dir/$fl/.key" 2>/dev/null)" = "$key" ]; then
      # the path every run goes through, also for a cache copied from elsewhere
      ln -sfn "$(readlink -f "$dir/$fl/bin")" "$(exe "$fl")"
      ok "$name: built $fl (cached in $dir/$fl)"
      continue
    fi
    BIN=
    "build_$p" "$fl" "$dir/$fl"
    [ -x "$BIN" ] || { fail "$name: the $fl build failed: $(tail -3 "$dir/$fl/build.log" 2>/dev/null | tr '\n' ' ')"; return; }
    mkdir -p "$dir/$fl" && ln -sf "$BIN" "$dir/$fl/bin" && ln -sfn "$BIN" "$(exe "$fl")" && echo "$key" >"$dir/$fl/.key"
    ok "$name: built $fl"
  done
  rm -rf "$dir/run" && mkdir -p "$dir/run/plain" "$dir/run/$v" "$dir/run/pg" "$dir/run/rec"
  plain_s=0 bare_s=0 rec_s=0 # a run that fails keeps 0 (and fails the behaviour check)
  cd "$dir/run/plain" && t0=$(now) && "run_$p" "$(exe plain)" >out.txt 2>&1 && plain_s=$(since "$t0")
  cd "$dir/run/$v" && t0=$(now) && "run_$p" "$(exe "$v")" >out.txt 2>&1 && bare_s=$(since "$t0")
  cd "$dir/run/rec" && t0=$(now) && "run_$p" "$INCLPROF" record -o "$dir/run/rec/data" -- "$(exe "$v")" >out.txt 2>&1 &&
    rec_s=$(since "$t0")
  check_eq "$name: the plugin build behaves as the plain one" "$(cat "$dir/run/plain/out.txt")" "$(cat "$dir/run/$v/out.txt")"
  check_eq "$name: recorded, it behaves as the plain one" "$(cat "$dir/run/plain/out.txt")" "$(sed '/^inclprof/d' "$dir/run/rec/out.txt")"
  result=ok
  [ "$T_FAILS" = "${fails_before:-0}" ] || result=FAIL
  # Exports, each through its viewer.
  cd "$dir/run/rec"
  t0=$(now)
  "$INCLPROF" export -f csv -o prof.csv data 2>export.err
  conv_s=$(since "$t0")
  events=$("$INCLPROF" info data 2>/dev/null | awk '/^events:/ { s += $2 } END { print s + 0 }')
  bytes=$(du -sb data | awk '{ print $1 }')
  check "$name: CSV passes the strict parser" csv_valid prof.csv
  "$INCLPROF" export -f pprof -o prof.pb.gz data 2>>export.err
  check "$name: pprof opens it" pprof_raw prof.pb.gz
  "$INCLPROF" export -f callgrind -o callgrind.out data 2>>export.err
  check "$name: callgrind_annotate reads it" callgrind_annotate_clean callgrind.out
  "$INCLPROF" export -f chrome -o prof.json data 2>>export.err
  check "$name: the DevTools trace engine loads the Chrome export ($(du -h prof.json | cut -f1))" \
    sh -c "node '$VIEWERS_DIR/trace-engine-load.mjs' prof.json >engine.txt"
  python3 "$INCLPROF_SRC/tests/field/classify.py" spans prof.json >spans.txt
  rm -f prof.json
  if [ "$v" != lto ] && has_gprof "$p"; then
    cd "$dir/run/pg" && export GMON_OUT_PREFIX="$PWD/gmon" && "run_$p" "$(exe pg)" >out.txt 2>&1
    unset GMON_OUT_PREFIX
    check_eq "$name: the -pg build behaves as the plain one" "$(cat "$dir/run/plain/out.txt")" "$(cat out.txt)"
    gprof_calls "$dir/pg/bin" >gprof.txt
    fails_gprof=$T_FAILS
    compare_gprof "$p" "$dir/run/rec/prof.csv"
    [ -s pending.txt ] && classify "$p" "$v"
    [ "$T_FAILS" = "$fails_gprof" ] &&
      ok "$p: the 30 most-called functions have gprof's counts, apart from $explained mismatches explained as gprof's and $(wc -l <"$dir/run/pg/pending.txt") measured"
  fi
  type "extra_$p" >/dev/null 2>&1 && "extra_$p"
  [ "$T_FAILS" = "${fails_before:-0}" ] || result=FAIL
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$events" "$bytes" "$plain_s" "$bare_s" "$rec_s" "$conv_s" "$result" >>"$ROWS"
}

# mcount_demo: whether gprof loses calls of threads running at once here:
# tests/field/mcount_race.c with one thread (every call must be counted) and
# two.  Sets LOST_CALLS to what it showed (empty if no call was lost).
mcount_demo() {
  d=$W/mcount
  LOST_CALLS=
  rm -rf "$d" && mkdir -p "$d" && cd "$d" || return
  if ! gcc -O2 -g -pg -pthread -o mcount_race "$INCLPROF_SRC/tests/field/mcount_race.c" >build.log 2>&1; then
    fail "mcount_race does not build: $(head -3 build.log | tr '\n' ' ')"
    return
  fi
  n=3000000
  for t in 1 2; do
    rm -f gmon.* && GMON_OUT_PREFIX=$d/gmon ./mcount_race "$t" "$n"
    c=$(gprof_calls ./mcount_race | awk -F '\t' '$1 == "tick" || $1 == "tock" { s += $2 } END { print s + 0 }')
    eval "counted$t=\$c"
  done
  check_eq "gprof counts every call of one thread (mcount_race: $n calls)" "$n" "$counted1"
  if [ "$counted2" -lt $((2 * n)) ]; then
    LOST_CALLS="mcount_race: gprof counts $counted2 of the $((2 * n)) calls of two threads"
    ok "gprof loses calls of two threads running at once: it counts $counted2 of mcount_race's $((2 * n))"
  else
    echo "# gprof lost no call of mcount_race's two threads here ($counted2 of $((2 * n))): no mismatch is put down to lost calls"
  fi
}

# gmon_fork_demo: tests/field/fork_calls.c built with -pg, run plain and
# with gmon_fork.so (which the -pg runs of nginx preload): plain, the child's
# gmon file counts the parent's calls made before the fork once more; with
# it, the files sum to the calls made.
gmon_fork_demo() {
  d=$W/gmon-fork
  rm -rf "$d" && mkdir -p "$d" && cd "$d" || return
  if ! gcc -O2 -shared -fPIC -o "$W/gmon_fork.so" "$INCLPROF_SRC/tests/field/gmon_fork.c" >build.log 2>&1 ||
    ! gcc -O2 -g -pg -o fork_calls "$INCLPROF_SRC/tests/field/fork_calls.c" >>build.log 2>&1; then
    fail "gmon_fork.so or fork_calls does not build: $(head -3 build.log | tr '\n' ' ')"
    return
  fi
  for preload in "" "$W/gmon_fork.so"; do
    rm -f gmon.* && env ${preload:+LD_PRELOAD=$preload} GMON_OUT_PREFIX="$d/gmon" ./fork_calls 100000 3000
    counts=$(gprof_calls ./fork_calls | awk -F '\t' '$1 == "tick" || $1 == "tock" { printf "%s %s ", $1, $2 }')
    if [ -z "$preload" ]; then
      check_eq "gprof counts a parent's calls again in the gmon file of a child it forked (fork_calls: 100000 tick before the fork)" \
        "tick 200000 tock 6000 " "$counts"
    else
      check_eq "with gmon_fork.so, the gmon files of a parent and its child count the calls made" "tick 100000 tock 6000 " "$counts"
    fi
  done
}

for part in postgres fmt cpython asio sqlite_tcl redis bash; do
  . "$INCLPROF_SRC/tests/field/$part.sh"
done

[ -n "${FIELD_DEFINITIONS_ONLY:-}" ] && return 0
check "viewers installed" viewers_ready
need gprof redis-benchmark redis-cli ninja python3 cmake autoreconf ab curl
: >"$W/gprof-explained.txt"
: >"$W/gprof-measured.txt"
mcount_demo
case " $PROGRAMS " in *" nginx "*) gmon_fork_demo ;; esac
start=$(now)
for p in $PROGRAMS; do
  fails_before=$T_FAILS
  field "$p"
  if [ "$p" = zstd ]; then
    fails_before=$T_FAILS
    field zstd lto
  fi
done

echo
echo "gprof's own mismatches (tests/field/gprof-known.txt):"
cat "$W/gprof-explained.txt"
echo
echo "mismatches measured (three recorded runs, three -pg runs, calls per thread):"
cat "$W/gprof-measured.txt"
echo
echo "make field: $(since "$start") s"
awk -F '\t' 'BEGIN {
    printf "| program | events | trace bytes | bytes/event | plain | plugin, no runtime | recording (slowdown) | converter events/s | result |\n"
    printf "|---|---:|---:|---:|---:|---:|---:|---:|---|\n" }
  { bpe = $2 ? $3 / $2 : 0; slow = $4 > 0 ? $6 / $4 : 0; bare = $4 > 0 ? $5 / $4 : 0
    eps = $7 > 0 ? $2 / $7 / 1e6 : 0
    plugin = $5 == "-" ? "–" : sprintf("%.2f s (%.2fx)", $5, bare)
    conv = $7 == "-" ? "–" : sprintf("%.1f M", eps)
    printf "| %s | %.1f M | %.1f MB | %.2f | %.2f s | %s | %.2f s (%.1fx) | %s | %s |\n",
      $1, $2 / 1e6, $3 / 1e6, bpe, $4, plugin, $6, slow, conv, $8 }' "$ROWS"
done_testing
