// asio_server.cc - a small HTTP/1.1 server on Debian's standalone Asio with
// C++20 coroutines, for `make field`: one io_context run by 4 threads, each
// connection a coroutine (session) on its own strand; handle_request, a
// coroutine, serves one request through the coroutine of its route:
// page_route renders a page, timer_route waits 2 ms on a steady_timer
// first, pool_route renders it on a thread pool (render_on_pool, spawned
// there and awaited); GET /stop is served as /pool, then stops the server.
// The server counts its own requests per route and measures each
// request's latency twice, as the time from a coroutine's call to its
// co_return: the handler's (handle_request, called by session) and the
// route's (the route's coroutine, called by handle_request).  parse_request, render_page and
// record_request are called once per request (render_page once per page)
// and kept out of line, so that each has a row whose count the server's
// own count checks; body_checksum is inlined where session calls it and
// called out of line through a pointer on the pool.  At the end it prints,
// per route, the requests, the latencies' p50, p98.5, p99 and p99.5 in
// nanoseconds (the ceil(q x n)-th smallest), the pool renders that ran on a pool thread and
// the calls of body_checksum through the pointer, the threads that handled
// /stop (its handler's last run, its render on the pool: Linux thread
// ids) and the time from main's start to its end.
// Usage: asio_server PORTFILE (writes the port it listens on, 127.0.0.1,
// and its pid, one a line)
#include <asio.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>
#include <vector>

using asio::awaitable;
using asio::use_awaitable;
using asio::ip::tcp;
using std::chrono::steady_clock;

namespace {

enum route { route_page, route_timer, route_pool, route_stop, route_unknown, n_routes };
constexpr std::array<const char *, n_routes> route_names{"page", "timer", "pool", "stop", "unknown"};

struct request {
  route where = route_unknown;
  long n = 0; // the client's number of the request (?n=)
};

// Latencies of one route, in nanoseconds, in the order they were taken.
struct latencies {
  std::vector<long> ns = std::vector<long>(1 << 14);
  std::atomic<long> n{0};
  void add(long v) {
    long i = n++;
    if (i < static_cast<long>(ns.size()))
      ns[i] = v;
  }
  // quantile Q: the ceil(Q x n)-th smallest.
  long quantile(double q) {
    long k = std::min(n.load(), static_cast<long>(ns.size()));
    if (k == 0)
      return 0;
    std::sort(ns.begin(), ns.begin() + k);
    long at = std::max(1L, static_cast<long>(std::ceil(q * k)));
    return ns[at - 1];
  }
};

struct stats {
  std::array<std::atomic<long>, n_routes> requests{};
  std::array<latencies, n_routes> handler{}, route{};
  latencies handler_all;
  std::atomic<long> pool_renders_on_pool{0};
  std::atomic<long> checksums_through_pointer{0};
  std::atomic<unsigned> checksum{0};
  unsigned (*checksum_of)(const std::string &) = nullptr; // body_checksum, called through it on the pool
  std::atomic<long> stop_handler_tid{0}, stop_render_tid{0};
};

long ns_since(steady_clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(steady_clock::now() - t0).count();
}

long thread_id() { return static_cast<long>(syscall(SYS_gettid)); }

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

// body_checksum BODY: a hash of the page (the server sums it, the client
// checks none of it); small, so GCC inlines its direct call.
unsigned body_checksum(const std::string &body) {
  unsigned h = 0;
  for (char c : body)
    h = h * 31 + static_cast<unsigned char>(c);
  return h;
}

// record_request ST R: counts the request.
[[gnu::noinline]] void record_request(stats &st, const request &r) { st.requests[r.where]++; }

awaitable<std::string> render_on_pool(const request &r, asio::thread_pool &pool, stats &st) {
  if (pool.get_executor().running_in_this_thread())
    st.pool_renders_on_pool++;
  if (r.where == route_stop)
    st.stop_render_tid = thread_id();
  std::string page = render_page(r);
  st.checksum += st.checksum_of(page);
  st.checksums_through_pointer++;
  co_return page;
}

// The coroutines of the routes, called at T0: each adds its latency up to
// its co_return to the route's (pool_route to /pool's, for /stop too).
awaitable<std::string> page_route(const request &r, stats &st, steady_clock::time_point t0) {
  std::string page = render_page(r);
  st.route[r.where].add(ns_since(t0));
  co_return page;
}

awaitable<std::string> timer_route(const request &r, stats &st, steady_clock::time_point t0) {
  asio::steady_timer timer(co_await asio::this_coro::executor, std::chrono::milliseconds(2));
  co_await timer.async_wait(use_awaitable);
  std::string page = render_page(r);
  st.route[r.where].add(ns_since(t0));
  co_return page;
}

awaitable<std::string> pool_route(const request &r, asio::thread_pool &pool, stats &st, steady_clock::time_point t0) {
  std::string page = co_await asio::co_spawn(pool, render_on_pool(r, pool, st), use_awaitable);
  st.route[route_pool].add(ns_since(t0)); // /stop's too
  co_return page;
}

// handle_request R T0: the page of request R, from the coroutine of its
// route; called at T0, it adds its latency to the handler's.
awaitable<std::string> handle_request(const request &r, asio::thread_pool &pool, stats &st,
                                      steady_clock::time_point t0) {
  std::string body;
  if (r.where == route_page)
    body = co_await page_route(r, st, steady_clock::now());
  else if (r.where == route_timer)
    body = co_await timer_route(r, st, steady_clock::now());
  else if (r.where != route_unknown)
    body = co_await pool_route(r, pool, st, steady_clock::now());
  if (r.where == route_stop)
    st.stop_handler_tid = thread_id();
  long ns = ns_since(t0);
  st.handler[r.where].add(ns);
  st.handler_all.add(ns);
  co_return body;
}

awaitable<void> session(tcp::socket socket, asio::io_context &io, asio::thread_pool &pool, stats &st) {
  std::string buffer;
  try {
    for (;;) {
      std::size_t n = co_await asio::async_read_until(socket, asio::dynamic_buffer(buffer), "\r\n\r\n", use_awaitable);
      request r = parse_request(buffer.substr(0, n));
      buffer.erase(0, n);
      std::string body = co_await handle_request(r, pool, st, steady_clock::now());
      st.checksum += body_checksum(body);
      std::string response = std::string(r.where == route_unknown ? "HTTP/1.1 404 Not Found" : "HTTP/1.1 200 OK") +
                             "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
      co_await asio::async_write(socket, asio::buffer(response), use_awaitable);
      record_request(st, r);
      if (r.where == route_stop)
        io.stop();
    }
  } catch (const std::system_error &) {
    // the client closed the connection
  }
}

awaitable<void> listen(tcp::acceptor &acceptor, asio::io_context &io, asio::thread_pool &pool, stats &st) {
  for (;;) {
    tcp::socket socket(asio::make_strand(acceptor.get_executor()));
    co_await acceptor.async_accept(socket, use_awaitable);
    asio::any_io_executor strand = socket.get_executor();
    asio::co_spawn(strand, session(std::move(socket), io, pool, st), asio::detached);
  }
}

// run_io IO: runs the io_context's event loop (Asio's own functions, from a
// system header, have no probes: this is the io threads' first function).
[[gnu::noinline]] void run_io(asio::io_context &io) { io.run(); }

} // namespace

int main(int argc, char **argv) {
  steady_clock::time_point start = steady_clock::now();
  if (argc != 2) {
    std::fprintf(stderr, "usage: asio_server PORTFILE\n");
    return 2;
  }
  asio::io_context io;
  asio::thread_pool pool(2);
  stats st;
  st.checksum_of = body_checksum;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  std::ofstream(argv[1]) << acceptor.local_endpoint().port() << "\n" << getpid() << "\n";
  asio::signal_set stop(io, SIGTERM, SIGINT);
  stop.async_wait([&](const std::error_code &, int) { io.stop(); });
  asio::co_spawn(io, listen(acceptor, io, pool, st), asio::detached);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; i++)
    threads.emplace_back(run_io, std::ref(io));
  for (std::thread &t : threads)
    t.join();
  pool.join();
  for (int i = 0; i < n_routes; i++)
    std::printf("server %s requests %ld\n", route_names[i], st.requests[i].load());
  std::printf("server pool renders on a pool thread %ld\n", st.pool_renders_on_pool.load());
  std::printf("server body_checksum calls through the pointer %ld\n", st.checksums_through_pointer.load());
  for (int i = 0; i < n_routes; i++)
    std::printf("latency %s handler_p50_ns %ld handler_p985_ns %ld handler_p99_ns %ld handler_p995_ns %ld "
                "route_p50_ns %ld route_p985_ns %ld route_p99_ns %ld route_p995_ns %ld\n",
                route_names[i], st.handler[i].quantile(0.5), st.handler[i].quantile(0.985),
                st.handler[i].quantile(0.99), st.handler[i].quantile(0.995), st.route[i].quantile(0.5),
                st.route[i].quantile(0.985), st.route[i].quantile(0.99), st.route[i].quantile(0.995));
  std::printf("latency all handler_p50_ns %ld handler_p985_ns %ld handler_p99_ns %ld handler_p995_ns %ld\n",
              st.handler_all.quantile(0.5), st.handler_all.quantile(0.985), st.handler_all.quantile(0.99),
              st.handler_all.quantile(0.995));
  std::printf("threads stop_handler %ld stop_render %ld\n", st.stop_handler_tid.load(), st.stop_render_tid.load());
  std::printf("run_ns %ld\n", ns_since(start));
  return 0;
}
