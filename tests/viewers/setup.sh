#!/bin/sh
# setup.sh - install the independent parsers the export tests use, into a
# cache directory (idempotent; prints the directory).
#   Debian packages (installed by `scripts/deps.sh test`, which `make check`
#   runs first): golang-go (go tool pprof), valgrind (callgrind_annotate), nodejs.
#   npm: @paulirish/trace_engine, the Chrome DevTools Performance panel's trace
#   engine, pinned with its dependencies by package.json + package-lock.json;
#   `npm ci` gives up after INCLPROF_NPM_TIMEOUT seconds (default 300).
# Directory: $INCLPROF_VIEWERS, default ${XDG_CACHE_HOME:-$HOME/.cache}/inclprof/viewers.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=${INCLPROF_VIEWERS:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/inclprof/viewers}
for tool in go callgrind_annotate node npm; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "tests/viewers/setup.sh: '$tool' not found: run scripts/deps.sh test (as root)" >&2
    exit 1
  }
done
mkdir -p "$dir"
# Reinstall the npm packages only when the pinned set changed.
if ! cmp -s "$here/package-lock.json" "$dir/package-lock.json" || [ ! -d "$dir/node_modules/@paulirish/trace_engine" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$dir/"
  limit=${INCLPROF_NPM_TIMEOUT:-300}
  echo "tests/viewers/setup.sh: installing the DevTools trace engine into $dir (npm ci, once)" >&2
  if (cd "$dir" && timeout --foreground -k 10 "$limit" npm ci --no-audit --no-fund --loglevel=error \
        --fetch-retries=1 --fetch-timeout=60000 >&2); then :; else
    rc=$?
    if [ "$rc" = 124 ]; then why="timed out after ${limit}s"; else why="failed (exit $rc)"; fi
    echo "tests/viewers/setup.sh: npm ci $why fetching @paulirish/trace_engine and its dependencies from $(npm config get registry 2>/dev/null); check the network or npm's registry/proxy settings and rerun make check (INCLPROF_NPM_TIMEOUT=seconds sets the limit)" >&2
    rm -f "$dir/package-lock.json"
    exit 1
  fi
fi
cp "$here/trace-engine-load.mjs" "$dir/"
echo "$dir"
