// asio_server.cc - a small HTTP/1.1 server on Debian's standalone Asio with
// C++20 coroutines, for `make field`: one io_context run by 4 threads, each
// connection a coroutine on its own strand; GET /page renders a page, GET
// /timer waits 2 ms on a steady_timer first, GET /pool renders it on a
// thread pool (a coroutine spawned there and awaited).  The server counts
// its own requests per route and measures each request's latency (request
// parsed to response written); at SIGTERM it stops and prints, per route,
// the requests, their mean latency in microseconds, and how many pool
// renders ran on a pool thread.  parse_request, render_page and
// record_request are called once per request and kept out of line, so that
// each has a row whose count the server's own count checks.
// Usage: asio_server PORTFILE (writes the port it listens on, 127.0.0.1,
// and its pid, one a line)
#include <asio.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using asio::awaitable;
using asio::use_awaitable;
using asio::ip::tcp;
using std::chrono::steady_clock;

namespace {

enum route { route_page, route_timer, route_pool, route_unknown, n_routes };
constexpr std::array<const char *, n_routes> route_names{"page", "timer", "pool", "unknown"};

struct request {
  route where = route_unknown;
  long n = 0; // the client's number of the request (?n=)
};

struct stats {
  std::array<std::atomic<long>, n_routes> requests{};
  std::array<std::atomic<long>, n_routes> latency_ns{};
  std::atomic<long> pool_renders_on_pool{0};
};

// parse_request TEXT: the route and ?n= of "GET /route?n=K HTTP/1.1".
[[gnu::noinline]] request parse_request(const std::string &text) {
  request r;
  std::size_t start = text.find(' ');
  std::size_t end = text.find(' ', start + 1);
  if (start == std::string::npos || end == std::string::npos)
    return r;
  std::string target = text.substr(start + 1, end - start - 1);
  std::size_t q = target.find("?n=");
  std::string path = target.substr(0, q);
  if (q != std::string::npos)
    r.n = std::strtol(target.c_str() + q + 3, nullptr, 10);
  for (int i = 0; i < route_unknown; i++)
    if (path == std::string("/") + route_names[i])
      r.where = static_cast<route>(i);
  return r;
}

// render_page R: a page listing the first 40 multiples of the request's
// number, and their sum.
[[gnu::noinline]] std::string render_page(const request &r) {
  std::string body = "<html><body><h1>";
  body += route_names[r.where];
  body += " ";
  body += std::to_string(r.n);
  body += "</h1><ul>";
  long sum = 0;
  for (long i = 1; i <= 40; i++) {
    body += "<li>" + std::to_string(r.n * i) + "</li>";
    sum += r.n * i;
  }
  body += "</ul><p>" + std::to_string(sum) + "</p></body></html>\n";
  return body;
}

// record_request ST R T0: counts the request and its latency from T0.
[[gnu::noinline]] void record_request(stats &st, const request &r, steady_clock::time_point t0) {
  st.requests[r.where]++;
  st.latency_ns[r.where] += std::chrono::duration_cast<std::chrono::nanoseconds>(steady_clock::now() - t0).count();
}

awaitable<std::string> render_on_pool(const request &r, asio::thread_pool &pool, stats &st) {
  if (pool.get_executor().running_in_this_thread())
    st.pool_renders_on_pool++;
  co_return render_page(r);
}

awaitable<std::string> handle_request(const request &r, asio::thread_pool &pool, stats &st) {
  if (r.where == route_timer) {
    asio::steady_timer timer(co_await asio::this_coro::executor, std::chrono::milliseconds(2));
    co_await timer.async_wait(use_awaitable);
  }
  if (r.where == route_pool)
    co_return co_await asio::co_spawn(pool, render_on_pool(r, pool, st), use_awaitable);
  co_return render_page(r);
}

awaitable<void> session(tcp::socket socket, asio::thread_pool &pool, stats &st) {
  std::string buffer;
  try {
    for (;;) {
      std::size_t n = co_await asio::async_read_until(socket, asio::dynamic_buffer(buffer), "\r\n\r\n", use_awaitable);
      steady_clock::time_point t0 = steady_clock::now();
      request r = parse_request(buffer.substr(0, n));
      buffer.erase(0, n);
      std::string body = co_await handle_request(r, pool, st);
      std::string response = std::string(r.where == route_unknown ? "HTTP/1.1 404 Not Found" : "HTTP/1.1 200 OK") +
                             "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
      co_await asio::async_write(socket, asio::buffer(response), use_awaitable);
      record_request(st, r, t0);
    }
  } catch (const std::system_error &) {
    // the client closed the connection
  }
}

awaitable<void> listen(tcp::acceptor &acceptor, asio::thread_pool &pool, stats &st) {
  for (;;) {
    tcp::socket socket(asio::make_strand(acceptor.get_executor()));
    co_await acceptor.async_accept(socket, use_awaitable);
    asio::any_io_executor strand = socket.get_executor();
    asio::co_spawn(strand, session(std::move(socket), pool, st), asio::detached);
  }
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: asio_server PORTFILE\n");
    return 2;
  }
  asio::io_context io;
  asio::thread_pool pool(2);
  stats st;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  std::ofstream(argv[1]) << acceptor.local_endpoint().port() << "\n" << getpid() << "\n";
  asio::signal_set stop(io, SIGTERM, SIGINT);
  stop.async_wait([&](const std::error_code &, int) { io.stop(); });
  asio::co_spawn(io, listen(acceptor, pool, st), asio::detached);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; i++)
    threads.emplace_back([&io] { io.run(); });
  for (std::thread &t : threads)
    t.join();
  pool.join();
  for (int i = 0; i < n_routes; i++) {
    long n = st.requests[i];
    std::printf("server %s requests %ld mean_us %ld\n", route_names[i], n, n ? st.latency_ns[i] / n / 1000 : 0);
  }
  std::printf("server pool renders on a pool thread %ld\n", st.pool_renders_on_pool.load());
  return 0;
}
