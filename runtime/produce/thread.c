/* thread.c - per-thread buffers and their lifecycle: lazy set-up on a
 * thread's first probe (buffer, transition counter, Thread record, sampling
 * timer), the slow path of a probe (full buffer, signal-handler headroom,
 * a handler's full buffer handed to the writer thread),
 * flushing (with the time spent recorded as a Gap), thread exit, flushing
 * every thread on the way out, and the state reset in a fork child. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <time.h>
#include <unistd.h>

#include "base/pmu.h"
#include "produce/produce.h"

/* The passes of an inline flush's move of the events appended meanwhile
 * before its last one, which blocks signals (see flush_inline).  A pass
 * takes microseconds: no program's handlers append during each of 8. */
#define KEEP_TRIES 8u

static __thread struct ip_event junk_slot __attribute__((tls_model("initial-exec")));

/* The probes' code (IP_RT_TEXT): a probe, its slow path and the sampler. */
extern const char __start_inclprof_text[] IP_HIDDEN;
extern const char __stop_inclprof_text[] IP_HIDDEN;

static uint64_t tr_read(struct ip_rt_thread *t) {
  if (ip_st.mode == INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS)
    return *t->tr_src;
  if (ip_st.mode == INCLPROF__TRANSITION_MODE__TRANSITIONS_PMU)
    return ip_pmu_value((const volatile struct perf_event_mmap_page *)t->pmu_page);
  return 0;
}

/* The counter as a flush leaves it, at_end: its value when the Gap ended.
 * kevents: what came after the Gap is skipped as the flush's own unless
 * the thread was switched out there. */
static uint64_t tr_after_flush(struct ip_rt_thread *t, uint64_t at_end) {
  if (ip_st.mode == INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS)
    return ip_kevents_skip(t, at_end);
  return tr_read(t);
}

/* kevents: the ticks of the flush (its Gap ends at g1) that the thread
 * spent preempted, which its Gap leaves out (kevents.c). */
static uint64_t flush_preempted(struct ip_rt_thread *t, uint64_t at_end, uint64_t g1) {
  if (ip_st.mode != INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS)
    return 0;
  return ip_kevents_flush_preempted(t, at_end, g1);
}

static void thread_name(char out[17]) {
  memset(out, 0, 17);
  if (ip_syscall(SYS_prctl, PR_GET_NAME, out) != 0)
    out[0] = 0;
}

/* A name given since the last look (pthread_setname_np, prctl) is written
 * as a Thread record, which renames the thread in the trace. */
static void name_follow(struct ip_rt_thread *t) {
  char now[17];
  thread_name(now);
  if (memcmp(now, t->name, sizeof now) != 0) {
    memcpy(t->name, now, sizeof now);
    ip_write_thread(t->tid, now, ip_tick_cold());
  }
}

static int thread_setup(struct ip_rt_thread *t) {
  /* The scratch area, and after it the stack of the encoding
   * (ip_encode_and_write), are touched only when this thread encodes
   * inline. */
  void *m = mmap(NULL, IP_SCRATCH_BYTES + IP_OWN_STACK_BYTES, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return -1;
  ip_mem_own(m, IP_SCRATCH_BYTES + IP_OWN_STACK_BYTES, 0);
  t->buf = ip_buffer_new(atomic_load(&ip_st.n_threads) >= IP_EAGER_THREADS);
  if (!t->buf) {
    munmap(m, IP_SCRATCH_BYTES + IP_OWN_STACK_BYTES);
    return -1;
  }
  t->hard_end = t->buf + IP_BUF_EVENTS + IP_HEADROOM;
  t->scratch = m;
  t->scratch_len = IP_SCRATCH_BYTES;
  t->tid = (uint32_t)gettid();
  t->tr_src = &ip_zero_head;
  t->pmu_page = (void *)&ip_dummy_page;
  t->ring_fd2 = -1;
  t->wake_fd[0] = t->wake_fd[1] = -1;
  t->futex_fd = -1;
  t->seq = 0;
  t->skip = 0;
  /* On the list from now; flushes of other threads skip it until READY. */
  if (!ip_lock(&ip_st.threads_lock, 0)) {
    ip_buffer_free(t->buf);
    munmap(m, IP_SCRATCH_BYTES + IP_OWN_STACK_BYTES);
    return -1;
  }
  t->next = ip_st.threads;
  ip_st.threads = t;
  atomic_fetch_add(&ip_st.n_threads, 1);
  ip_unlock(&ip_st.threads_lock);
  ip_transitions_thread_open(t);
  thread_name(t->name);
  ip_write_thread(t->tid, t->name, ip_tick_cold());
  pthread_setspecific(ip_st.key, t);
  ip_sampling_thread_start(t);
  t->tr_last = tr_read(t);
  t->pos = t->buf;
  t->end = t->buf + IP_BUF_EVENTS;
  t->state = IP_TS_READY;
  return 0;
}

/* The slow path keeps the program's errno: a probe runs between any two of
 * its statements (say, errno2name() returning and printf's %m reading
 * errno), and setting up a thread or writing a table file makes system
 * calls that fail by design (a file not there yet). */
IP_RT_TEXT struct ip_event *ip_slow_slot(struct ip_rt_thread *t, struct ip_event *p) {
  if (IP_UNLIKELY(t->lent))
    return NULL; /* a child runs on this thread's state: it records nothing */
  if (t->state != IP_TS_READY) {
    int saved = errno;
    int ready = ip_thread_ensure() == 0;
    errno = saved;
    if (!ready && t->lent)
      return NULL; /* a thread that may not read the clock */
    if (!ready) {
      t->dropped++;
      return &junk_slot;
    }
    return ip_reserve(t);
  }
  if (p < t->hard_end)
    return p; /* the first slot past end, or headroom for signal handlers */
  t->dropped++;
  return &junk_slot; /* pos stays past hard_end until the next flush */
}

/* Hands the full buffer to the writer thread (writer.c) and goes on with a
 * spare one: 0, or IP_WRITER_* when it cannot (the caller encodes inline,
 * or in a signal handler keeps the events in the headroom).  Every signal
 * is blocked while the thread's pointers move to the new buffer, so no
 * handler appends meanwhile: the batch is everything up to pos, and the
 * buffer is the writer's from then on.  The stall (two sigprocmask calls, the
 * thread-name check) is written as the batch's Gap; the writer's wake-up
 * when it sleeps comes after the Gap, and a switch there is the program's
 * next interval's (tr_after_flush). */
static IP_RT_TEXT int handoff(struct ip_rt_thread *t, int in_handler) {
  if (t->skip || atomic_exchange(&t->busy, 1))
    return IP_WRITER_NEVER;
  /* From here probes of this thread (in code that starting the writer calls,
   * e.g. an instrumented allocator) use the headroom and never flush. */
  t->in_flush = 1;
  struct ip_event *fresh;
  int slot = ip_writer_begin(t, &fresh, in_handler);
  if (slot < 0) {
    t->in_flush = 0;
    atomic_store(&t->busy, 0);
    return slot;
  }
  ip_kevents_save(t);
  uint64_t g0 = ip_tick_cold();
  int pending = tr_read(t) != t->tr_last;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  struct ip_event *block = t->buf;
  const struct ip_event *stop = t->pos > t->hard_end ? t->hard_end : t->pos;
  t->buf = fresh;
  t->hard_end = fresh + IP_BUF_EVENTS + IP_HEADROOM;
  t->end = fresh + IP_BUF_EVENTS;
  t->pos = fresh;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  size_t n = (size_t)(stop - block);
  name_follow(t);
  uint64_t at_end = tr_read(t), g1 = ip_tick_cold();
  uint64_t held = flush_preempted(t, at_end, g1);
  ip_writer_submit(slot, t, block, block, n, g0, g1 - held);
  uint64_t after = tr_after_flush(t, at_end);
  t->tr_last = pending || held ? after - 1 : after; /* as in ip_thread_flush */
  t->in_flush = 0;
  atomic_store(&t->busy, 0);
  return 0;
}

uintptr_t ip_interrupted_pc(const void *ucv) {
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

int ip_in_probe_code(uintptr_t pc) {
  return pc >= (uintptr_t)__start_inclprof_text && pc < (uintptr_t)__stop_inclprof_text;
}

/* A buffer filled inside a signal handler goes to the writer thread as any
 * other (the handler cannot encode it: the interrupted code may hold the
 * loader's or the registry's lock).  Only where the handler interrupted
 * no probe of this thread (sig_handoff, signals.c): a probe between its
 * reservation and its store would store into a buffer the writer owns.
 * The writer behind (this thread's 8 buffers in flight, the pool empty)
 * is waited for, 1 s at most: a batch-class writer on a loaded machine can
 * wait over 100 ms for a CPU, and a handler has no other way to keep them;
 * without a writer (INCLPROF_WRITER=inline, or not started yet), or past
 * that wait, the handler's events go into the headroom and what does not
 * fit is dropped and counted; the handler tries no more (each later probe
 * would wait again), the wrapper allows it again for the next one. */
static IP_RT_TEXT void handler_handoff(struct ip_rt_thread *t) {
  struct timespec pause = {0, 100000}; /* 0.1 ms: the writer polls every 0.5 ms */
  int got = handoff(t, 1);
  for (int tries = 0; tries < 10000 && got == IP_WRITER_BEHIND; tries++) {
    nanosleep(&pause, NULL);
    got = handoff(t, 1);
  }
  if (got != 0)
    t->sig_handoff = 0;
}

/* Not while the exit's final flush runs: it takes this buffer itself, and the
 * events that happen meanwhile come after the end of the trace.  Once
 * recording has stopped (a write failed, a size limit, exit), a full buffer
 * sets every unit's hooks null: the probes skip their calls. */
static IP_RT_TEXT void slow_flush(struct ip_rt_thread *t) {
  /* A child the runtime did not see start (a clone system call of the
   * program's own making) writes nothing into its parent's trace: it
   * declines its state.  (A fork child whose fork handler has not run yet
   * gets it back from the handler.) */
  if (IP_UNLIKELY(t->pos > t->end) && t->state == IP_TS_READY && getpid() != ip_st.pid) {
    ip_thread_decline(t);
    return;
  }
  if (IP_UNLIKELY(atomic_load(&ip_st.init_state) == 2) && !t->sig_depth && !t->in_flush) {
    ip_units_set_paused(1);
    return;
  }
  if (t->state != IP_TS_READY || t->pos <= t->end || t->in_flush ||
      atomic_load(&ip_st.init_state) != 1 || atomic_load(&ip_st.final_flush))
    return;
  if (t->sig_depth) {
    if (t->sig_handoff)
      handler_handoff(t);
  } else if (handoff(t, 0) != 0) {
    ip_thread_flush_bounded(t); /* a probe may run under the loader's lock */
  }
}

IP_RT_TEXT void ip_slow_flush(struct ip_rt_thread *t) {
  int saved = errno; /* as in ip_slow_slot */
  slow_flush(t);
  errno = saved;
}

int ip_thread_ensure(void) {
  struct ip_rt_thread *t = &ip_tls;
  if (t->state == IP_TS_READY)
    return 0;
  if (IP_UNLIKELY(ip_tsc_off_here())) { /* started by one that disabled it: records nothing */
    if (!t->lent)
      ip_thread_lend(t);
    return -1;
  }
  if (t->state != IP_TS_NEW || atomic_load(&ip_st.init_state) != 1) {
    /* Dead, being set up (we are a signal handler inside it), or no runtime
     * (not started, disabled, or the process is exiting).  A thread never set
     * up still fills the junk slot: give it counters that read 0. */
    if (t->state == IP_TS_NEW) {
      t->tr_src = &ip_zero_head;
      t->pmu_page = (void *)&ip_dummy_page;
    }
    return -1;
  }
  if (getpid() != ip_st.pid) { /* a child the runtime did not see start: see ip_slow_flush */
    ip_thread_decline(t);
    return -1;
  }
  /* A handler's probe while the thread is set up fills the junk slot,
   * reading the counters: they read 0 until thread_setup opens them. */
  t->tr_src = &ip_zero_head;
  t->pmu_page = (void *)&ip_dummy_page;
  t->state = IP_TS_SETTING_UP;
  if (thread_setup(t) != 0) {
    t->state = IP_TS_NEW;
    t->pos = t->end = NULL;
    t->tr_src = &ip_zero_head;
    t->pmu_page = (void *)&ip_dummy_page;
    return -1;
  }
  return 0;
}

/* Writes [buf+skip, pos) inline and makes room.  Events appended by signal
 * handlers while the batch was being written are kept.  Returns without
 * writing when another context owns the buffer, or the writer thread is
 * writing this thread's previous batch, and we may not wait longer (in_signal,
 * the exit deadline). */
static void flush_inline(struct ip_rt_thread *t, int in_signal, int settle) {
  /* Not inside a flush of this thread's own: one below on the stack holds
   * the buffer, and waiting for it would never end (a handler that
   * interrupted it; an instrumented function of the program's that the
   * flush called, in a program linked with libinclprof.a). */
  if (t->state != IP_TS_READY || t->in_flush)
    return;
  t->in_flush = 1;
  while (atomic_exchange(&t->busy, 1)) {
    if (in_signal || ip_exit_deadline_passed()) {
      t->in_flush = 0;
      return;
    }
    sched_yield();
  }
  if (!ip_writer_settle(t, settle)) {
    t->in_flush = 0;
    atomic_store(&t->busy, 0);
    return;
  }
  ip_kevents_save(t);
  uint64_t g0 = ip_tick_cold();
  int pending = tr_read(t) != t->tr_last;
  struct ip_event *stop = t->pos > t->hard_end ? t->hard_end : t->pos;
  struct ip_event *from = t->buf + t->skip;
  size_t n = stop > from ? (size_t)(stop - from) : 0;
  /* Encoding leaves every arg of [from, stop) 0: what is left to clear
   * below is [buf, from), written by flush_other while the owner ran. */
  const struct ip_event *dirty_end = stop;
  if (n && atomic_load(&ip_st.init_state) == 1) {
    ip_encode_and_write(t, from, n, in_signal);
    dirty_end = from;
  }
  /* Keep the events signal handlers appended (at stop and after) while the
   * batch was written: move them to the front and reset pos - with a
   * compare-and-swap, because a handler may append again at any moment; if
   * one did, pos moved and we copy again.  Handlers now append behind the
   * moved events, never inside [stop, now), which is cleared last.  Should
   * pos move on every pass (instrumented code that this loop itself calls,
   * in a program linked with libinclprof.a that defines memmove), the last
   * pass runs with every signal blocked and takes pos back with an
   * exchange: what that code appended meanwhile is dropped, and the loop
   * ends whatever the program does. */
  struct ip_event *raw;
  const struct ip_event *now;
  size_t extra;
  sigset_t all, old;
  int last_pass = 0;
  for (unsigned tries = 0;; tries++) {
    if (tries == KEEP_TRIES) {
      sigfillset(&all);
      pthread_sigmask(SIG_SETMASK, &all, &old);
      last_pass = 1;
    }
    raw = t->pos;
    now = raw > t->hard_end ? t->hard_end : raw;
    extra = now > stop ? (size_t)(now - stop) : 0;
    memmove(t->buf, stop, extra * sizeof *stop);
    if (t->buf + extra < dirty_end)
      memset(t->buf + extra, 0, (size_t)(dirty_end - (t->buf + extra)) * sizeof *stop);
    if (last_pass) {
      struct ip_event *got = __atomic_exchange_n(&t->pos, t->buf + extra, __ATOMIC_RELAXED);
      const struct ip_event *got_end = got > t->hard_end ? t->hard_end : got;
      if (got_end > now) { /* slots past the junk slot's were counted by ip_slow_slot */
        t->dropped += (uint64_t)(got_end - now);
        memset((struct ip_event *)now, 0, (size_t)(got_end - now) * sizeof *stop);
      }
      break;
    }
    if (__atomic_compare_exchange_n(&t->pos, &raw, t->buf + extra, 0, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED))
      break;
  }
  /* The moved events' old copies, which a fatal-signal flush must not take
   * for new events - unless the front now reaches them (a nearly empty
   * buffer), where handlers may be appending already. */
  if (now > stop && t->buf + extra <= stop)
    memset(stop, 0, (size_t)(now - stop) * sizeof *stop);
  /* The whole buffer open again after a flush asked early (kevents.c) or a
   * fork child's first one, whose rest is faulted in first.  Not at the
   * process's final flush: no program event follows it (after a failed
   * exec the next event's flush does this). */
  if (!atomic_load(&ip_st.final_flush)) {
    if (t->end >= t->buf && t->end < t->buf + IP_BUF_EVENTS)
      t->end = t->buf + IP_BUF_EVENTS;
    ip_buffer_child_fault_rest(t->buf);
  }
  if (last_pass)
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  t->skip = 0;
  if (!in_signal && atomic_load(&ip_st.init_state) == 1)
    name_follow(t);
  uint64_t at_end = tr_read(t);
  uint64_t g1 = ip_tick_cold();
  uint64_t held = flush_preempted(t, at_end, g1);
  if (n && atomic_load(&ip_st.init_state) == 1) {
    if (ip_st.aggregate)
      ip_agg_gap(t, g0, g1 - held);
    else
      ip_write_gap(t->tid, g0, g1 - held);
  }
  uint64_t after = tr_after_flush(t, at_end);
  /* keep a transition that came before the flush, or a preemption inside it */
  t->tr_last = pending || held ? after - 1 : after;
  t->in_flush = 0;
  atomic_store(&t->busy, 0);
}

void ip_thread_flush(struct ip_rt_thread *t, int in_signal) {
  flush_inline(t, in_signal, in_signal ? IP_SETTLE_SPIN : IP_SETTLE_WAIT);
}

void ip_thread_flush_bounded(struct ip_rt_thread *t) { flush_inline(t, 0, IP_SETTLE_BOUNDED); }

/* Flushes another thread's filled events without touching its pointers
 * (it may be running): only slots whose arg is set (a probe writes arg last;
 * flushed slots are emptied), and records how far we got in its skip.
 * 0 when its owner is flushing the buffer right now, or the writer thread is
 * writing its previous batch (it is taken on a later pass). */
static int flush_other(struct ip_rt_thread *t, int in_signal) {
  if (t->state != IP_TS_READY)
    return 1;
  if (atomic_exchange(&t->busy, 1))
    return 0;
  if (!ip_writer_settle(t, in_signal ? IP_SETTLE_SPIN : IP_SETTLE_NOWAIT)) {
    atomic_store(&t->busy, 0);
    return 0;
  }
  const struct ip_event *stop = t->pos > t->hard_end ? t->hard_end : t->pos;
  struct ip_event *from = t->buf + t->skip;
  while (stop > from && stop[-1].arg == 0)
    stop--;
  if (stop > from) {
    ip_kevents_save(t);
    ip_encode_and_write(t, from, (size_t)(stop - from), in_signal);
    t->skip = (size_t)(stop - t->buf);
  }
  atomic_store(&t->busy, 0);
  return 1;
}

/* The calling thread's buffer, then every other thread's filled events, in
 * passes: a buffer whose owner is flushing it is taken on a later pass, so
 * the owners finish in parallel (the final flush stops them from starting
 * another).  A signal handler makes one pass; otherwise passes go on until
 * the caller's exit deadline.  Threads left out are counted in
 * ip_st.threads_not_flushed. */
void ip_threads_flush_all(int in_signal) {
  struct ip_rt_thread *self = &ip_tls;
  if (!self->in_flush)
    ip_thread_flush(self, in_signal);
  unsigned others = atomic_load(&ip_st.n_threads) - (self->state == IP_TS_READY);
  if (!ip_lock(&ip_st.threads_lock, in_signal)) {
    atomic_store(&ip_st.threads_not_flushed, others);
    return;
  }
  for (struct ip_rt_thread *t = ip_st.threads; t; t = t->next)
    t->final_done = t == self;
  unsigned left_out;
  for (;;) {
    left_out = 0;
    for (struct ip_rt_thread *t = ip_st.threads; t; t = t->next)
      if (!t->final_done && !(t->final_done = flush_other(t, in_signal)))
        left_out++;
    if (!left_out || in_signal || ip_exit_deadline_passed())
      break;
    /* Sleep rather than yield: among many runnable threads a yield waits a
     * whole scheduling round, a short sleep is woken first. */
    nanosleep(&(struct timespec){.tv_nsec = 100000}, NULL);
  }
  ip_unlock(&ip_st.threads_lock);
  atomic_store(&ip_st.threads_not_flushed, left_out);
}

/* t's buffer taken from its owner (who may be flushing it), waiting for it
 * until the monotonic time `until`; 0 if it is still busy then. */
static int take_within(struct ip_rt_thread *t, uint64_t until) {
  while (atomic_exchange(&t->busy, 1)) {
    if (ip_monotonic_ns() >= until)
      return 0;
    nanosleep(&(struct timespec){.tv_nsec = 200000}, NULL);
  }
  return 1;
}

unsigned ip_threads_flush_live(unsigned ms, unsigned *left_out, int interval) {
  *left_out = 0;
  if (atomic_load(&ip_st.init_state) != 1 || !ip_lock(&ip_st.threads_lock, 0))
    return 0;
  /* Once the final flush has begun, it writes every thread, and its last
   * interval file covers the time since the one before.  A pass that began
   * first runs to its end (the final flush waits for the thread list), so
   * that a thread busy with its own last flush still has its part of this
   * interval in this interval's file. */
  if (atomic_load(&ip_st.final_flush)) {
    ip_unlock(&ip_st.threads_lock);
    return 0;
  }
  unsigned n = 0;
  for (struct ip_rt_thread *t = ip_st.threads; t; t = t->next)
    n++;
  struct ip_rt_thread **left = ip_alloc(n * sizeof *left + 1);
  unsigned k = 0;
  for (struct ip_rt_thread *t = ip_st.threads; t && left; t = t->next)
    if (!flush_other(t, 0))
      left[k++] = t;
  uint64_t until = ip_monotonic_ns() + (uint64_t)ms * 1000000u;
  while (k && left && ip_monotonic_ns() < until) {
    nanosleep(&(struct timespec){.tv_nsec = 200000}, NULL);
    unsigned still = 0;
    for (unsigned i = 0; i < k; i++)
      if (!flush_other(left[i], 0))
        left[still++] = left[i];
    k = still;
  }
  /* Aggregate mode: every thread whose events were folded writes its tree
   * so far (a later one of the same thread replaces it for the reader), or,
   * for an interval, what it gained since the last one into the interval's
   * file. */
  uint8_t *frames = NULL;
  size_t len = 0, cap = 0;
  uint64_t end = ip_tick_cold(); /* the interval's */
  if (interval && ip_st.aggregate)
    ip_agg_interval_ended(&frames, &len, &cap);
  for (struct ip_rt_thread *t = ip_st.threads; ip_st.aggregate && t && left; t = t->next) {
    int skipped = 0;
    for (unsigned i = 0; i < k; i++)
      skipped |= left[i] == t;
    if (skipped || t->state != IP_TS_READY || !take_within(t, until))
      continue;
    /* its buffers handed to the writer folded first: none is folded meanwhile */
    if (ip_writer_settle(t, IP_SETTLE_BOUNDED)) {
      if (interval)
        ip_agg_interval(t, end, &frames, &len, &cap);
      else
        ip_agg_snapshot(t);
    }
    atomic_store(&t->busy, 0);
  }
  if (interval && ip_st.aggregate &&
      ip_write_interval_file(ip_st.intervals++, end, frames, len) != 0)
    ip_say("inclprof: cannot write interval %u's profile in %s/%u.intervals\n", ip_st.intervals,
           ip_st.dir, (unsigned)ip_st.pid);
  ip_free(frames);
  ip_unlock(&ip_st.threads_lock);
  *left_out = left ? k : n;
  ip_free(left);
  return n;
}

/* The thread's events written and its ThreadEnd (saying why when it stops
 * recording before it ends: stopped), and its state let go. */
static void thread_end(struct ip_rt_thread *t, const char *stopped) {
  if (t->state != IP_TS_READY)
    return;
  ip_sampling_thread_stop(t);
  ip_thread_flush(t, 0);
  /* Blocking: the holder of the thread list (a final flush) never waits for
   * this thread, and the buffer must leave the list before it is unmapped. */
  ip_lock(&ip_st.threads_lock, 0);
  while (atomic_exchange(&t->busy, 1)) /* a final flush may be reading this buffer */
    sched_yield();
  for (struct ip_rt_thread **pp = &ip_st.threads; *pp; pp = &(*pp)->next)
    if (*pp == t) {
      *pp = t->next;
      atomic_fetch_sub(&ip_st.n_threads, 1);
      break;
    }
  t->state = IP_TS_DEAD;
  ip_unlock(&ip_st.threads_lock);
  if (atomic_load(&ip_st.init_state) == 1 && !t->ended_at_exit) {
    name_follow(t);
    ip_agg_write(t, 0, 0); /* before its ThreadEnd, which ends it for the converter */
    Inclprof__ThreadEnd te = INCLPROF__THREAD_END__INIT;
    te.tid = t->tid;
    te.has_end_tick = 1;
    te.end_tick = ip_tick_cold();
    te.stopped = (char *)stopped;
    Inclprof__Record rec = INCLPROF__RECORD__INIT;
    rec.body_case = INCLPROF__RECORD__BODY_THREAD_END;
    rec.thread_end = &te;
    ip_write_record(&rec, 0);
  }
  ip_agg_free(t);
  ip_transitions_thread_close(t);
  atomic_fetch_add(&ip_st.dropped, t->dropped);
  t->pos = t->end = NULL;
  ip_buffer_free(t->buf);
  munmap(t->scratch, t->scratch_len + IP_OWN_STACK_BYTES);
}

void ip_thread_exit(struct ip_rt_thread *t) { thread_end(t, NULL); }

void ip_thread_stop(struct ip_rt_thread *t, const char *why) {
  thread_end(t, why);
  if (!t->lent)
    ip_thread_lend(t);
}

/* A child that shares this thread's memory and thread pointer (vfork, clone
 * with CLONE_VM|CLONE_VFORK) runs on its state while the thread waits:
 * lent, every probe takes the slow path (end is null), which records
 * nothing, and the child's reservations move pos, which comes back when
 * the thread takes its state back.  Nested vforks count. */
void ip_thread_lend(struct ip_rt_thread *t) {
  if (t->lent++)
    return;
  t->lent_pos = t->pos;
  t->lent_end = t->end;
  __asm__ __volatile__("" ::: "memory");
  t->end = NULL;
}

void ip_thread_take_back(struct ip_rt_thread *t) {
  if (!t->lent || --t->lent)
    return;
  t->pos = t->lent_pos;
  __asm__ __volatile__("" ::: "memory");
  t->end = t->lent_end;
}

/* In a child with a copy of the parent's memory that no fork handler set up
 * (clone without CLONE_VM, clone3, _Fork): the calling thread's state is the
 * parent's thread's, its kevents ring and perf events are not in the copy.
 * The child records nothing: lent for good, with counters that read 0. */
void ip_thread_decline(struct ip_rt_thread *t) {
  ip_thread_lend(t);
  t->tr_src = &ip_zero_head;
  t->pmu_page = (void *)&ip_dummy_page;
}

/* glibc runs the key destructors of an exiting thread in rounds, up to
 * PTHREAD_DESTRUCTOR_ITERATIONS, while any key still holds a value.  This key
 * is made at start-up, before the program's, so it comes first in a round:
 * it sets itself again until the last round, and the thread keeps recording
 * while the program's key destructors run.  The program's last thread is
 * left as it is: glibc then calls exit(0) on it (own_threads.c), whose
 * handlers and destructors it records, and the exit writes its events. */
static void key_destructor(void *v) {
  struct ip_rt_thread *t = v;
  if (++t->key_rounds < PTHREAD_DESTRUCTOR_ITERATIONS && pthread_setspecific(ip_st.key, t) == 0)
    return;
  if (ip_program_threads() == 1 && atomic_load(&ip_st.init_state) == 1)
    return;
  ip_thread_exit(t);
}

void ip_thread_key_init(void) { pthread_key_create(&ip_st.key, key_destructor); }

/* In a fork child: only the calling thread exists.  Its buffered events are
 * the parent's (already the parent's to write): drop them; counters and the
 * sampling timer are per thread and must be made anew.  A child forked in a
 * signal handler often never returns from it (a server starting workers
 * from its SIGCHLD or SIGUSR1 handler): the child is not inside a handler
 * of its own, so its probes flush as any thread's do. */
void ip_thread_after_fork_child(void) {
  /* The other threads' perf events came with the descriptor table: they
   * count the parent's threads and would keep them alive here. */
  for (struct ip_rt_thread *o = ip_st.threads; o; o = o->next)
    if (o != &ip_tls && o->state == IP_TS_READY) {
      ip_fd_release(o->ring_fd2, &o->ring_fd2_id);
      for (int k = 0; k < 2; k++)
        ip_fd_release(o->wake_fd[k], &o->wake_fd_id[k]);
      ip_fd_release(o->futex_fd, &o->futex_fd_id);
      if (o->has_timer == IP_SAMPLER_PERF)
        ip_fd_release(o->sample_fd, &o->sample_fd_id);
    }
  ip_st.threads = NULL;
  atomic_store(&ip_st.n_threads, 0);
  ip_writer_after_fork_child();
  struct ip_rt_thread *t = &ip_tls;
  t->sig_depth = 0;
  t->in_flush = 0;
  t->lent = 0;
  atomic_store(&t->busy, 0);
  if (t->state != IP_TS_READY)
    return;
  ip_agg_free(t); /* the parent's calls */
  ip_transitions_thread_close(t);
  ip_sampling_after_fork_child(t);
  t->tid = (uint32_t)gettid();
  t->seq = 0;
  t->skip = 0;
  t->dropped = 0;
  size_t faulted;
  t->buf = ip_buffer_renew_in_child(t->buf, &faulted);
  t->hard_end = t->buf + IP_BUF_EVENTS + IP_HEADROOM;
  t->pos = t->buf;
  t->end = t->buf + faulted; /* a flush there, before the pages not yet faulted in */
  t->tr_src = &ip_zero_head;
  t->pmu_page = (void *)&ip_dummy_page;
  ip_transitions_thread_open(t);
  thread_name(t->name);
  ip_write_thread(t->tid, t->name, ip_tick_cold());
  t->next = NULL;
  ip_st.threads = t;
  atomic_store(&ip_st.n_threads, 1);
  ip_sampling_thread_start(t);
  t->tr_last = tr_read(t);
}
