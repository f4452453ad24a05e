// coro_ramp.cc - a small coroutine whose ramp GCC inlines into its caller at
// -O2: count_up(n) is started 300 times from a loop in main and resumed
// until it finishes; the program counts the coroutines it started and the
// resumptions and prints them.
#include <coroutine>
#include <cstdio>

static long started, resumed;

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

static volatile long sink;

task count_up(long n)
{
  for (long i = 0; i < n; i++) {
    sink = sink + i;
    co_await std::suspend_always{};
  }
}

int main()
{
  for (long k = 0; k < 300; k++) {
    task t = count_up(k % 3 + 1);
    started++;
    while (!t.handle.done()) {
      resumed++;
      t.handle.resume();
    }
    t.handle.destroy();
  }
  std::printf("started %ld resumed %ld\n", started, resumed);
  return 0;
}
