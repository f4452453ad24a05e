# dense_builds.sh - sourced by bench/dense.sh and bench/idle_cost.sh: Debian's
# python3.11 and lua5.4 sources, fetched as `make field` fetches them
# (tests/field/field.sh's fetch: a private deb-src list, cached in
# build/debian-src), built as FLAVOUR (plain: -O2 -g; plugin: with the
# plugin's defaults; filtered: with the plugin and the filter file $DENSE_FILTER)
# into $DENSE_DIR/PROGRAM-FLAVOUR, and kept there until the plugin, the
# flags or the filter change.  CPython is built as its interpreter alone
# (`make python`, the standard library read from the source tree).
#   dense_build PROGRAM FLAVOUR   sets BIN (empty, and WHY, when it failed)
#   dense_run PROGRAM TOOL...     runs PROGRAM's call-dense workload under TOOL
# The caller sets INCLPROF_SRC, INCLPROF_PLUGIN and DENSE_DIR.

INCLPROF_FIELD_DIR=$DENSE_DIR/src FIELD_DEFINITIONS_ONLY=1
export INCLPROF_SRC INCLPROF_PLUGIN
# field.sh (through tests/lib.sh) sets W and moves into a directory of its
# own: the caller's are kept
dense_caller_w=${W:-} dense_caller_dir=$PWD
set --
# shellcheck source=../tests/field/field.sh
. "$INCLPROF_SRC/tests/field/field.sh"
W=$dense_caller_w
cd "$dense_caller_dir" || exit 1
fail() { echo "bench: $*" >&2; } # field.sh's fetch reports with it

# The call-dense workloads: a Python function summing a range of a million
# integers (about 50 events per iteration, a nanosecond of the
# interpreter's code per event), the field suite's Lua script, and a C
# tree walk (tests/programs/convert/dense_walk.c: 2 to 3 ns per call).
dense_py() {
  printf 'def f(n):\n    x = 0\n    for i in range(n):\n        x += i\n    return x\nprint(f(%s))\n' \
    "${1:-1000000}" >"$DENSE_DIR/loop.py"
}
dense_run() {
  local p=$1
  shift
  case $p in
  python) "$@" -S -E "$DENSE_DIR/loop.py" ;;
  lua) "$@" "$INCLPROF_SRC/tests/field/work.lua" ;;
  walk) "$@" 4000 ;;
  esac
}

dense_flags() {
  case $1 in
  plain) echo "-O2 -g" ;;
  plugin) echo "-O2 -g -fplugin=$INCLPROF_PLUGIN" ;;
  filtered) echo "-O2 -g -fplugin=$INCLPROF_PLUGIN -fplugin-arg-inclprof-filter=$DENSE_FILTER" ;;
  esac
}

dense_build() {
  local p=$1 fl=$2 d=$DENSE_DIR/$1-$2 stamp
  BIN= WHY=
  stamp="$(dense_flags "$fl") $( [ "$fl" = plain ] || md5sum <"$INCLPROF_PLUGIN") $( [ "$fl" = filtered ] && md5sum <"$DENSE_FILTER")"
  case $p in python) BIN=$d/python ;; lua) BIN=$d/src/lua ;; walk) BIN=$d/walk ;; esac
  if [ -x "$BIN" ] && [ "$(cat "$d/.stamp" 2>/dev/null)" = "$stamp" ]; then
    return 0
  fi
  echo "bench: building $p ($fl)" >&2
  if [ "$p" = walk ]; then
    mkdir -p "$d" || return 1
    # shellcheck disable=SC2046
    gcc $(dense_flags "$fl") -o "$BIN" "$INCLPROF_SRC/tests/programs/convert/dense_walk.c" >"$d/build.log" 2>&1
  else
    local pkg=lua5.4
    [ "$p" = python ] && pkg=python3.11
    fetch "$pkg" || { BIN= WHY="apt-get source $pkg failed"; return 1; }
  fi
  case $p in
  python)
    unpack python3.11 "$d" &&
      (cd "$d" && ./configure -q --without-ensurepip CFLAGS="$(dense_flags "$fl")" &&
        make -j2 python) >"$d/build.log" 2>&1
    ;;
  lua)
    unpack lua5.4 "$d" &&
      make -C "$d/src" -j2 linux-noreadline CC="gcc -std=gnu99" MYCFLAGS="$(dense_flags "$fl")" \
        MYLDFLAGS="$(dense_flags "$fl")" >"$d/build.log" 2>&1
    ;;
  esac
  if [ ! -x "$BIN" ]; then
    WHY="the build failed (see $d/build.log)"
    BIN=
    return 1
  fi
  echo "$stamp" >"$d/.stamp"
}

# cpu_ms CMD...: the user CPU time of CMD in ms (its output discarded)
cpu_ms() {
  python3 -c 'import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
print("%.2f" % (ru.ru_utime * 1e3) if status == 0 else "failed")' "$@"
}

# instructions CMD...: the instructions CMD executes (callgrind)
instructions() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p'
}
