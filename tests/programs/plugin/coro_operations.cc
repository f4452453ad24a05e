// coro_operations.cc - C++20 coroutines on a small scheduler of two worker
// threads sharing one queue: every request is a detached coroutine (its
// frame freed by its own final suspension, so frames are reused) that the
// main thread starts and that hops between the workers.  handle_plain works,
// hops twice and works again; handle_timer also waits: the worker that takes
// it sleeps 2 ms before resuming it.  Each coroutine counts its own
// operations and measures each one's latency itself (steady_clock, from the
// moment main calls it, read just before the call, to its co_return, each
// stored without a lock); the program prints, per coroutine, the count, the
// p50 (the ceil(n / 2)-th smallest latency) and the maximum in ns.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <coroutine>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>

using namespace std::chrono;

struct detached {
  struct promise_type {
    detached get_return_object() { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() {}
    void unhandled_exception() {}
  };
};

struct job {
  std::coroutine_handle<> h;
  bool sleep_first;
};

static std::mutex lock;
static std::condition_variable ready;
static std::deque<job> queue;
static bool closing;

static void post(std::coroutine_handle<> h, bool sleep_first)
{
  std::lock_guard<std::mutex> g(lock);
  queue.push_back({ h, sleep_first });
  ready.notify_one();
}

static void worker()
{
  for (;;) {
    job j;
    {
      std::unique_lock<std::mutex> g(lock);
      ready.wait(g, [] { return closing || !queue.empty(); });
      if (queue.empty())
        return;
      j = queue.front();
      queue.pop_front();
    }
    if (j.sleep_first)
      std::this_thread::sleep_for(milliseconds(2));
    j.h.resume();
  }
}

struct hop {
  bool sleep_first;
  bool await_ready() { return false; }
  void await_suspend(std::coroutine_handle<> h) { post(h, sleep_first); }
  void await_resume() {}
};

/* About us microseconds of work on the CPU, without probes (its clock
 * reads would be call-site probes, whose cost the profile removes, while
 * the program's own measurement includes it). */
__attribute__((noinline, no_instrument_function)) static unsigned long work(int us)
{
  auto until = steady_clock::now() + microseconds(us);
  unsigned long spins = 0;
  while (steady_clock::now() < until)
    spins++;
  return spins;
}

/* Latencies stored in place (no lock, no allocation: a blocked lock or a
 * reallocation between the end's reading and co_return would be in the
 * operation but not in its measurement). */
struct tally {
  std::atomic<size_t> n{ 0 };
  long long ns[256];
  void add(steady_clock::time_point t0)
  {
    long long d = duration_cast<nanoseconds>(steady_clock::now() - t0).count();
    ns[n.fetch_add(1)] = d;
  }
  void print(const char *name)
  {
    size_t n = this->n.load();
    std::sort(ns, ns + n);
    printf("%s %zu p50_ns %lld max_ns %lld\n", name, n, n ? ns[(n + 1) / 2 - 1] : 0, n ? ns[n - 1] : 0);
  }
};
static tally plain_ops, timer_ops;
/* main reads the clock just before it calls a coroutine, whose ramp then
 * runs the body on main's thread up to its first suspension. */
static steady_clock::time_point called_at;

detached handle_plain(int n)
{
  auto t0 = called_at;
  work(500 + n % 7);
  co_await hop{ false };
  co_await hop{ false };
  work(500);
  plain_ops.add(t0);
  co_return;
}

detached handle_timer(int n)
{
  auto t0 = called_at;
  work(100 + n % 5);
  co_await hop{ true };
  work(100);
  co_await hop{ false };
  timer_ops.add(t0);
  co_return;
}

int main()
{
  std::thread a(worker), b(worker);
  for (int i = 0; i < 150; i++) {
    called_at = steady_clock::now();
    handle_plain(i);
    if (i % 3 == 0) {
      called_at = steady_clock::now();
      handle_timer(i);
    }
    std::this_thread::sleep_for(milliseconds(2));
  }
  {
    std::unique_lock<std::mutex> g(lock);
    closing = true;
    ready.notify_all();
  }
  a.join();
  b.join();
  plain_ops.print("plain");
  timer_ops.print("timer");
  return 0;
}
