# asio.sh - a C++20 coroutine HTTP server on Debian's standalone Asio
# (libasio-dev) in `make field` (sourced by field.sh): asio_server.cc, driven
# by asio_client.py on the loopback address.
ASIO_REQUESTS=2000

# build_asio FLAVOUR DIR: asio_server.cc as C++20.
build_asio() {
  mkdir -p "$2" &&
    # shellcheck disable=SC2046
    g++ -std=c++20 $(flags "$1") -pthread -o "$2/asio_server" "$INCLPROF_SRC/tests/field/asio_server.cc" >"$2/build.log" 2>&1
  BIN=$2/asio_server
}

# run_asio CMD...: starts the server with CMD, sends $ASIO_REQUESTS requests
# over 8 connections, stops the server with SIGTERM; prints what the client
# counted and checked, and the server's own counts per route (not its
# latencies: server.txt keeps them).
run_asio() {
  rm -f port server.txt
  "$@" "$PWD/port" >server.txt 2>server.err &
  server=$!
  i=0
  until [ -f port ] && [ "$(wc -l <port)" = 2 ]; do
    i=$((i + 1)); [ "$i" -gt 600 ] && { kill "$server"; echo "server did not start"; return 1; }
    sleep 0.1
  done
  python3 "$INCLPROF_SRC/tests/field/asio_client.py" "$(sed -n 1p port)" "$ASIO_REQUESTS" 8
  kill -TERM "$(sed -n 2p port)"
  await_exit "$server" server SIGTERM
  sed 's/ mean_us [0-9]*$//' server.txt
}

# calls_like CSV REGEX: the calls of the functions whose names match REGEX.
calls_like() { csv_rows "$1" function calls | awk -F '\t' -v f="$2" '$1 ~ f { c += $2 } END { print c + 0 }'; }

# extra_asio: the server's own counts against the client's and against the
# recording: its per-request functions run once per request.
extra_asio() {
  cd "$dir/run/rec"
  for route in page timer pool; do
    check_eq "asio: recorded, the server counts the client's $route requests" \
      "$(awk -v r="$route" '$1 == "client" && $2 == r && $3 == "requests" { print $4 }' out.txt)" \
      "$(awk -v r="$route" '$1 == "server" && $2 == r && $3 == "requests" { print $4 }' out.txt)"
  done
  check_eq "asio: recorded, every response was the page asked for" "client failures 0" "$(grep '^client failures' out.txt)"
  check_eq "asio: recorded, every /pool page was rendered on a pool thread" "server pool renders on a pool thread 200" \
    "$(grep '^server pool renders' out.txt)"
  check "asio: the server measured each /timer request at 2 ms or more ($(awk '$2 == "timer" { print $6 }' server.txt) us on average)" \
    awk '$2 == "timer" && $6 < 2000 { exit 1 }' server.txt
  for fn in parse_request render_page record_request; do
    check_eq "asio: $fn is called once per request ($ASIO_REQUESTS)" "$ASIO_REQUESTS" "$(calls_like prof.csv "(^|::)$fn\\(")"
  done
  check_eq "asio: the trace has the server's 7 threads (main, 4 running the io_context, 2 of the pool)" 7 \
    "$("$INCLPROF" info data 2>/dev/null | awk '/^threads:/ { print $2 }')"
}
