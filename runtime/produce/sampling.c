/* sampling.c - INCLPROF_SAMPLE_HZ: a per-thread CPU-time sampler whose
 * real-time signal, delivered to the thread itself, appends a SAMPLE event to
 * the thread's buffer, with the interrupted instruction's address.  A sample that lands in the runtime's own code (the
 * inclprof_text section, or a flush) is marked so and counted apart.  The
 * program's SIGPROF/SIGALRM and setitimer are untouched: we use a real-time
 * signal of our own with SA_RESTART.
 *
 * The sampler, best first:
 *   perf: a software task-clock perf event of the thread (an hrtimer that runs
 *         only while the thread does), signalling its owner thread (F_SETSIG,
 *         F_SETOWN_EX) at each overflow.  It keeps the requested rate.  It is
 *         armed for one overflow at a time (PERF_EVENT_IOC_REFRESH from the
 *         handler), so a thread that blocks our signal gets no queue of them.
 *   timer: timer_create(CLOCK_THREAD_CPUTIME_ID) with SIGEV_THREAD_ID, armed
 *         for one expiry at a time from the handler.  The kernel checks
 *         CPU-time timers at its scheduler tick, so its rate is at most
 *         CONFIG_HZ per thread (250 on Debian's kernels).
 * Each period is drawn anew, uniformly between half and one and a half times
 * the mean (the handler sets the next one): a fixed period in step with a
 * program's own loop would find it at the same point of the loop sample
 * after sample, and the samples would stand for that point instead of the
 * whole loop.
 * In kevents mode a sample does not make the program look transitional: the
 * handler's own system calls (re-arming the sampler, rt_sigreturn) land in the
 * kevents ring, so it moves the thread's last-seen counter past them in
 * advance. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "produce/produce.h"

int ip_sampling_signal(void) { return SIGRTMAX - 3; }

/* Bytes one system call adds to a kevents ring's data_head (0: unknown). */
static atomic_uint_fast64_t syscall_record_bytes;

static uint64_t ring_head(const struct ip_rt_thread *t) { return *t->tr_src; }

/* Measures syscall_record_bytes on a thread whose kevents ring is open: the
 * smallest data_head step over a few getppid() calls (a context switch
 * during one only makes that step larger). */
static void measure_syscall_record(const struct ip_rt_thread *t) {
  if (ip_st.mode != INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS || t->tr_src == &ip_zero_head ||
      atomic_load(&syscall_record_bytes))
    return;
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 3; i++) {
    uint64_t before = ring_head(t);
    ip_syscall(SYS_getppid);
    uint64_t after = ring_head(t);
    if (after > before && after - before < best)
      best = after - before;
  }
  if (best != UINT64_MAX)
    atomic_store(&syscall_record_bytes, best);
}

/* The handler's own_calls system calls come next in the kevents ring, from
 * position at: queued for the ring's reader to leave out of the records,
 * so that an interval that is transitional for another reason (a
 * preemption, a page fault) is not split as if the program had made them.
 * A full queue leaves them in (more samples than the ring holds since its
 * last read). */
static IP_RT_TEXT void queue_own_calls(struct ip_rt_thread *t, uint64_t at, uint64_t own_calls) {
  unsigned head = atomic_load_explicit(&t->own_sys_head, memory_order_relaxed);
  if (!t->own_sys ||
      head - atomic_load_explicit(&t->own_sys_tail, memory_order_acquire) >= IP_OWN_SYS_Q)
    return;
  t->own_sys[head % IP_OWN_SYS_Q] = IP_OWN_SYS(at, own_calls);
  atomic_store_explicit(&t->own_sys_head, head + 1, memory_order_release);
}

/* The transition bit of a sample event, and the counter value the thread's
 * next event should compare with: the interval before the sample carries
 * whatever the kernel did in it; the handler's own system calls (own_calls)
 * are taken out of the interval after it.  A sample that interrupted the
 * runtime (perhaps a probe between its counter read and its store) keeps
 * any pending transition for the next event instead of taking it. */
static IP_RT_TEXT uint64_t sample_transition(struct ip_rt_thread *t, int in_rt,
                                             uint64_t own_calls) {
  uint64_t own = atomic_load(&syscall_record_bytes) * own_calls;
  if (ip_st.mode != INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS || !own)
    return 0;
  uint64_t now = *t->tr_src;
  queue_own_calls(t, now, own_calls);
  if (in_rt) {
    if (now == t->tr_last)
      t->tr_last = now + own;
    return 0;
  }
  uint64_t moved = now != t->tr_last;
  t->tr_last = now + own;
  return moved << 63;
}

static IP_RT_TEXT void record_sample(struct ip_rt_thread *t, const void *uc, uint64_t own_calls) {
  uintptr_t pc = ip_interrupted_pc(uc);
  int in_rt = t->in_flush || ip_in_probe_code(pc);
  atomic_fetch_add(&ip_st.samples, 1);
  if (in_rt)
    atomic_fetch_add(&ip_st.samples_in_runtime, 1);
  struct ip_event *p = ip_reserve(t);
  if (p >= t->hard_end) { /* headroom full (a handler never flushes) */
    t->dropped++;
    sample_transition(t, 1, own_calls); /* no event to carry a transition: leave it pending */
    return;
  }
  p->tick = ip_tick() | sample_transition(t, in_rt, own_calls);
  __asm__ __volatile__("" ::: "memory");
  p->arg = (uint64_t)pc << 4 | (uint64_t)in_rt << 3 | IP_K_SAMPLE;
}

/* The mean sampling period, ns. */
static IP_RT_TEXT uint64_t mean_period_ns(void) { return 1000000000u / ip_st.sample_hz; }

/* The thread's CPU time at which its next sample is due, on the sampler's
 * clock: the last due time plus a period drawn uniformly from [P/2, 3P/2]
 * (xorshift64 on the thread's own state), so that the rate stays the one
 * asked for although the kernel restarts a period only when the handler
 * re-arms it; but never sooner than P/4 after now, so that a handler run
 * late (its signal blocked for a while) does not make a burst of samples. */
static IP_RT_TEXT uint64_t next_due(struct ip_rt_thread *t, uint64_t now) {
  uint64_t x = t->sample_rng;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  t->sample_rng = x;
  uint64_t mean = mean_period_ns();
  uint64_t due = t->sample_due + mean / 2 + x % (mean + 1), soonest = now + mean / 4;
  t->sample_due = due > soonest ? due : soonest;
  return t->sample_due;
}

/* The thread's CPU time, ns (the timer sampler's clock). */
static IP_RT_TEXT uint64_t thread_cpu_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The timer armed for one expiry, when the thread's CPU time reaches due. */
static IP_RT_TEXT int arm_timer(timer_t id, uint64_t due) {
  struct itimerspec its = {{0, 0}, {(time_t)(due / 1000000000u), (long)(due % 1000000000u)}};
  return timer_settime(id, TIMER_ABSTIME, &its, NULL);
}

/* Re-arms the thread's sampler for its next sample. */
static IP_RT_TEXT void rearm(struct ip_rt_thread *t, int kind) {
  if (kind == IP_SAMPLER_PERF) { /* the count is the task clock, ns */
    uint64_t now = 0;
    if (read(t->sample_fd, &now, sizeof now) != (ssize_t)sizeof now)
      now = t->sample_due;
    uint64_t period = next_due(t, now) - now;
    ioctl(t->sample_fd, PERF_EVENT_IOC_PERIOD, &period);
    ioctl(t->sample_fd, PERF_EVENT_IOC_REFRESH, 1);
  } else {
    arm_timer((timer_t)t->timer, next_due(t, thread_cpu_ns()));
  }
}

/* cppcheck-suppress constParameterCallback ; a sigaction handler's type */
IP_RT_TEXT void ip_sample_handler(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  (void)si;
  struct ip_rt_thread *t = &ip_tls;
  int kind = t->has_timer;
  /* the handler's own system calls: re-arming (perf: a read, the next
   * period and the refresh; timer: the clock and one settime), and
   * rt_sigreturn */
  if (t->state == IP_TS_READY && !t->lent && atomic_load(&ip_st.init_state) == 1)
    record_sample(t, uc, kind == IP_SAMPLER_PERF ? 4 : kind == IP_SAMPLER_TIMER ? 3 : 1);
  if (kind == IP_SAMPLER_NONE)
    return;
  int saved = errno; /* after the sample: these are the handler's own calls */
  rearm(t, kind);
  errno = saved;
}

void ip_sampling_init(void) {
  if (!ip_st.sample_hz)
    return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = ip_sample_handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (ip_real_sigaction(ip_sampling_signal(), &sa, NULL) != 0)
    ip_st.sample_hz = 0;
}

/* The perf sampler, armed for its first overflow; -1 when refused. */
static int perf_sampler(struct ip_rt_thread *t) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_TASK_CLOCK;
  t->sample_due = 0;
  a.sample_period = next_due(t, 0); /* the count starts at 0 */
  a.disabled = 1;
  int fd = (int)ip_syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0)
    return -1;
  fd = ip_fd_own(fd);
  struct f_owner_ex owner = {F_OWNER_TID, (pid_t)t->tid};
  if (fcntl(fd, F_SETOWN_EX, &owner) != 0 || fcntl(fd, F_SETSIG, ip_sampling_signal()) != 0 ||
      fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0 || ioctl(fd, PERF_EVENT_IOC_REFRESH, 1) != 0) {
    ip_fd_forget(fd);
    ip_close(fd);
    return -1;
  }
  return fd;
}

/* The timer sampler, set in t before its first expiry (whose handler
 * arms the next). */
static void timer_sampler(struct ip_rt_thread *t) {
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = ip_sampling_signal();
  sev._sigev_un._tid = (int)t->tid;
  timer_t id;
  if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &id) != 0)
    return;
  t->timer = id;
  t->has_timer = IP_SAMPLER_TIMER;
  __asm__ __volatile__("" ::: "memory");
  t->sample_due = thread_cpu_ns();
  if (arm_timer(id, next_due(t, t->sample_due)) != 0) {
    t->has_timer = IP_SAMPLER_NONE;
    timer_delete(id);
  }
}

void ip_sampling_thread_start(struct ip_rt_thread *t) {
  if (!ip_st.sample_hz || t->has_timer)
    return;
  measure_syscall_record(t);
  /* splitmix64 of the tid and the clock: a non-zero xorshift state */
  uint64_t z = ((uint64_t)t->tid << 32 ^ ip_tick_cold()) + 0x9e3779b97f4a7c15u;
  z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9u;
  z = (z ^ z >> 27) * 0x94d049bb133111ebu;
  t->sample_rng = (z ^ z >> 31) | 1;
  t->sample_fd = -1; /* near RLIMIT_NOFILE: the timer, which takes no descriptor */
  if (!atomic_load(&ip_st.seccomp) && ip_fd_room_begin(1)) {
    t->sample_fd = perf_sampler(t);
    ip_fd_identify(t->sample_fd, &t->sample_fd_id);
    ip_fd_room_end(1);
  }
  if (t->sample_fd >= 0) {
    t->has_timer = IP_SAMPLER_PERF;
    return;
  }
  timer_sampler(t);
}

void ip_sampling_thread_stop(struct ip_rt_thread *t) {
  int kind = t->has_timer;
  t->has_timer = IP_SAMPLER_NONE; /* first: a signal still pending must not re-arm */
  __asm__ __volatile__("" ::: "memory");
  if (kind == IP_SAMPLER_PERF)
    ip_fd_release(t->sample_fd, &t->sample_fd_id);
  else if (kind == IP_SAMPLER_TIMER)
    timer_delete((timer_t)t->timer);
}

/* A fork child inherits no timer, and its copy of the perf sampler's
 * descriptor refers to the parent's thread: close it, make new ones. */
void ip_sampling_after_fork_child(struct ip_rt_thread *t) {
  int kind = t->has_timer;
  t->has_timer = IP_SAMPLER_NONE;
  __asm__ __volatile__("" ::: "memory");
  if (kind == IP_SAMPLER_PERF)
    ip_fd_release(t->sample_fd, &t->sample_fd_id);
}
