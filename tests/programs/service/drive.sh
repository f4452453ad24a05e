# drive.sh - helpers of the service tests (sourced after tests/lib.sh):
# builds tests/programs/service/phase_server.c with the plugin and drives it.
#   server_build                 ./phase_server
#   server_start DIR [OPTS...]   runs it under `inclprof record -o DIR OPTS`,
#                                commands from the FIFO cmd (kept open on
#                                fd 3), answers in acks; sets $pid (the
#                                program's) and $rec (record's)
#   send LINE                    sends a command and waits for its answer
#   wait_file PATH               waits (30 s at most) until PATH exists
#   calls FILE FUNCTION          the Calls column of FUNCTION's row in a report
server_build() {
  cc_plugin phase_server -O2 -pthread "$INCLPROF_SRC/tests/programs/service/phase_server.c"
}
wait_file() {
  i=0
  while [ ! -e "$1" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
  [ -e "$1" ]
}
server_start() {
  dir=$1
  shift
  rm -f cmd acks
  mkfifo cmd && : >acks
  "$INCLPROF" record -o "$dir" "$@" -- ./phase_server cmd acks >record.txt 2>&1 &
  rec=$!
  exec 3>cmd
  n_sent=0
  i=0
  while [ -z "$(ls "$dir" 2>/dev/null | grep '\.ipb$')" ] && [ $i -lt 600 ]; do
    sleep 0.05
    i=$((i + 1))
  done
  pid=$(ls "$dir" | sed -n 's/^\([0-9]*\)\.ipb$/\1/p' | head -n1)
}
send() {
  echo "$*" >&3
  n_sent=$((n_sent + 1))
  i=0
  while [ "$(grep -c '^done' acks)" -lt $n_sent ] && [ $i -lt 600 ]; do
    sleep 0.05
    i=$((i + 1))
  done
}
server_quit() {
  echo quit >&3
  exec 3>&-
  wait "$rec"
}
calls() { awk -v f="$2" '$NF == f { print $1; found = 1 } END { if (!found) print 0 }' "$1"; }
