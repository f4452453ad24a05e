// coroutines.cc - C++20 coroutines on a small scheduler per thread, two
// threads: each request is a coroutine that renders a page, suspends twice
// (the scheduler resumes it later), renders again and finishes; then its
// frame is destroyed.  The program counts requests, resumptions,
// destructions and pages itself and prints them.
#include <atomic>
#include <coroutine>
#include <cstdio>
#include <deque>
#include <thread>
#include <vector>

static std::atomic<long> requests, resumes, destroys, pages;

struct task {
  struct promise_type {
    task get_return_object() { return task{std::coroutine_handle<promise_type>::from_promise(*this)}; }
    std::suspend_always initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    void return_void() {}
    void unhandled_exception() {}
  };
  std::coroutine_handle<promise_type> handle;
};

struct scheduler {
  std::deque<std::coroutine_handle<>> ready;
  void run()
  {
    while (!ready.empty()) {
      std::coroutine_handle<> h = ready.front();
      ready.pop_front();
      resumes++;
      h.resume();
    }
  }
};
static thread_local scheduler *current;

struct yield_to_scheduler {
  bool await_ready() { return false; }
  void await_suspend(std::coroutine_handle<> h) { current->ready.push_back(h); }
  void await_resume() {}
};

__attribute__((noinline)) int render_page(int n)
{
  pages++;
  return n * 3 + 1;
}

task handle_request(int n)
{
  requests++;
  int size = render_page(n);
  co_await yield_to_scheduler{};
  co_await yield_to_scheduler{};
  size += render_page(size);
  if (size < 0)
    printf("impossible\n");
}

static void serve(int first, int count)
{
  scheduler s;
  current = &s;
  std::vector<task> tasks;
  for (int i = first; i < first + count; i++) {
    tasks.push_back(handle_request(i));
    s.ready.push_back(tasks.back().handle);
  }
  s.run();
  for (task &t : tasks) {
    destroys++;
    t.handle.destroy();
  }
}

int main()
{
  std::thread a(serve, 0, 300), b(serve, 300, 200);
  a.join();
  b.join();
  printf("requests %ld resumes %ld destroys %ld pages %ld\n", requests.load(), resumes.load(),
         destroys.load(), pages.load());
  return 0;
}
