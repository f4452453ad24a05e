#!/bin/sh
# deps_terminal.sh - scripts/deps.sh at a real terminal, as a person runs
# `make demo`: in a pseudo-terminal (script), with an apt-get stand-in that
# restores the terminal's modes as apt-get does when it finishes its progress
# display, then works for a minute.  apt-get must stay in the terminal's
# foreground process group: it runs on (a background group would be stopped by
# SIGTTOU there), and the Ctrl-C typed two seconds in reaches it and ends the
# install at once.
# timing: its checks compare times measured within one run, with margins;
# a heavily loaded machine can still push one past them.
. "$INCLPROF_SRC/tests/lib.sh"
need script stty

mkdir bin
# Every package is missing, and this is root: deps.sh goes straight to install.
cat >bin/dpkg-query <<'EOF2'
#!/bin/sh
exit 1
EOF2
cat >bin/id <<'EOF2'
#!/bin/sh
echo 0
EOF2
# Every package is in the archive.
cat >bin/apt-cache <<'EOF2'
#!/bin/sh
[ "$1" = policy ] && echo "  Candidate: 1.0"
exit 0
EOF2
cat >bin/apt-get <<EOF2
#!/bin/sh
trap 'echo "apt-get got SIGINT" >>"$T_DIR/events"; exit 130' INT
echo "apt-get \$1 started" >>"$T_DIR/events"
stty sane </dev/tty
echo "apt-get \$1 set the terminal" >>"$T_DIR/events"
sleep 60 &
wait \$!
echo "apt-get \$1 finished" >>"$T_DIR/events"
EOF2
chmod +x bin/*
: >events
# Whether the update runs first depends on this machine's package-list stamp;
# both paths go through the same apt_run, and the last check covers either.
# The typist keeps the terminal open for 30 s more; script's own end is timed.
t0=$(date +%s)
(sleep 2; printf '\003'; sleep 30) | {
  timeout 40 script -qec "PATH='$T_DIR/bin':\$PATH sh '$INCLPROF_SRC/scripts/deps.sh' test" \
    /dev/null >typed.log 2>&1
  date +%s >ended
}
took=$(($(cat ended) - t0))
check "apt-get ran" grep -q 'apt-get .* started' events
check "apt-get set the terminal's modes and went on (not stopped by SIGTTOU)" grep -q 'set the terminal' events
check "Ctrl-C reached apt-get" grep -q 'apt-get got SIGINT' events
check "apt-get did not run to its end" sh -c "! grep -q finished events"
if [ "$took" -le 15 ]; then ok "Ctrl-C ended deps.sh at once (${took}s)"; else fail "Ctrl-C ended deps.sh only after ${took}s"; fi
# The first apt-get is the update when the package lists are stale (older
# than 12 hours on this machine), else the install; each is announced.
if grep -q 'apt-get update started' events; then
  check "deps.sh said it was updating the package lists before apt-get ran" \
    grep -q 'inclprof: updating the package lists' typed.log
else
  check "deps.sh said what it was installing before apt-get ran" \
    grep -q 'inclprof: installing Debian packages' typed.log
fi
done_testing
