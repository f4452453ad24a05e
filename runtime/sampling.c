/* sampling.c - INCLPROF_SAMPLE_HZ: a per-thread CPU-time timer
 * (CLOCK_THREAD_CPUTIME_ID, delivered to the thread itself with
 * SIGEV_THREAD_ID) whose real-time signal appends a SAMPLE event to the
 * thread's buffer.  A sample that lands in the runtime's own code (the
 * inclprof_text section, or a flush) is marked so and counted apart.  The
 * program's SIGPROF/SIGALRM and setitimer are untouched: we use a real-time
 * signal of our own with SA_RESTART. */
#include <signal.h>
#include <string.h>
#include <sys/ucontext.h>
#include <time.h>

#include "rt.h"

extern const char __start_inclprof_text[] IP_HIDDEN;
extern const char __stop_inclprof_text[] IP_HIDDEN;

int ip_sampling_signal(void) { return SIGRTMAX - 3; }

static uintptr_t interrupted_pc(const void *ucv) {
  const ucontext_t *uc = ucv;
#if defined(__x86_64__)
  return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  return (uintptr_t)uc->uc_mcontext.pc;
#else
  (void)uc;
  return 0;
#endif
}

IP_RT_TEXT void ip_sample_handler(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  (void)si;
  struct ip_thread *t = &ip_tls;
  if (t->state != IP_TS_READY || atomic_load(&ip_st.init_state) != 1)
    return;
  uintptr_t pc = interrupted_pc(uc);
  int in_rt = t->in_flush || (pc >= (uintptr_t)__start_inclprof_text &&
                              pc < (uintptr_t)__stop_inclprof_text);
  atomic_fetch_add(&ip_st.samples, 1);
  if (in_rt)
    atomic_fetch_add(&ip_st.samples_in_runtime, 1);
  struct ip_event *p = t->pos;
  if (p >= t->hard_end) {
    t->dropped++;
    return;
  }
  t->pos = p + 1;
  p->tick = ip_tick();
  __asm__ __volatile__("" ::: "memory");
  p->arg = (uint64_t)in_rt << 3 | IP_K_SAMPLE;
}

void ip_sampling_init(void) {
  if (!ip_st.sample_hz)
    return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = ip_sample_handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(ip_sampling_signal(), &sa, NULL) != 0)
    ip_st.sample_hz = 0;
}

void ip_sampling_thread_start(struct ip_thread *t) {
  if (!ip_st.sample_hz || t->has_timer)
    return;
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = ip_sampling_signal();
  sev._sigev_un._tid = (int)t->tid;
  timer_t id;
  if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &id) != 0)
    return;
  long ns = 1000000000L / (long)ip_st.sample_hz;
  struct itimerspec its = {{ns / 1000000000L, ns % 1000000000L}, {ns / 1000000000L, ns % 1000000000L}};
  if (timer_settime(id, 0, &its, NULL) != 0) {
    timer_delete(id);
    return;
  }
  t->timer = id;
  t->has_timer = 1;
}

void ip_sampling_thread_stop(struct ip_thread *t) {
  if (!t->has_timer)
    return;
  timer_delete((timer_t)t->timer);
  t->has_timer = 0;
}
