#!/bin/sh
# setup.sh - install the independent parsers the export tests use, into a
# cache directory (idempotent; prints the directory).
#   Debian packages (installed by `scripts/deps.sh test`, which `make check`
#   runs first): golang-go (go tool pprof), valgrind (callgrind_annotate), nodejs.
#   npm: @paulirish/trace_engine, the Chrome DevTools Performance panel's trace
#   engine, pinned with its dependencies by package.json + package-lock.json.
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
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi
cp "$here/trace-engine-load.mjs" "$dir/"
echo "$dir"
