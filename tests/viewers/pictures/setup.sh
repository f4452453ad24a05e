#!/bin/sh
# setup.sh - install what the picture exports' tests drive, into a cache
# directory (idempotent; prints the directory).
#   Debian packages (installed by `scripts/deps.sh test`, which `make check`
#   runs first): chromium (headless), protobuf-compiler (protoc --decode), nodejs.
#   npm: playwright-core (drives the system chromium; it downloads no browser)
#   and speedscope (its app, whose importer reads our speedscope files), pinned
#   by package.json + package-lock.json; `npm ci` gives up after
#   INCLPROF_NPM_TIMEOUT seconds (default 300).
# Directory: $INCLPROF_PICTURES, default ${XDG_CACHE_HOME:-$HOME/.cache}/inclprof/pictures.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=${INCLPROF_PICTURES:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/inclprof/pictures}
for tool in chromium protoc node npm; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "tests/viewers/pictures/setup.sh: '$tool' not found: run scripts/deps.sh test (as root)" >&2
    exit 1
  }
done
mkdir -p "$dir"
if ! cmp -s "$here/package-lock.json" "$dir/package-lock.json" || [ ! -d "$dir/node_modules/speedscope" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$dir/"
  limit=${INCLPROF_NPM_TIMEOUT:-300}
  echo "tests/viewers/pictures/setup.sh: installing playwright-core and speedscope into $dir (npm ci, once)" >&2
  if (cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 timeout --foreground -k 10 "$limit" npm ci --no-audit --no-fund \
        --loglevel=error --fetch-retries=1 --fetch-timeout=60000 >&2); then :; else
    rc=$?
    if [ "$rc" = 124 ]; then why="timed out after ${limit}s"; else why="failed (exit $rc)"; fi
    echo "tests/viewers/pictures/setup.sh: npm ci $why fetching playwright-core and speedscope from $(npm config get registry 2>/dev/null); check the network or npm's registry/proxy settings and rerun make check (INCLPROF_NPM_TIMEOUT=seconds sets the limit)" >&2
    rm -f "$dir/package-lock.json"
    exit 1
  fi
fi
cp "$here"/*.mjs "$dir/"
echo "$dir"
