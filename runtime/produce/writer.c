/* writer.c - encoding off the program's threads.  A thread whose buffer is
 * full hands it to the writer thread as a job and goes on with a spare
 * buffer from the pool (buffer_pool.c); the writer encodes the batch
 * (flush.c, which empties every slot it takes), writes it and its Gap and
 * gives the buffer back to the pool.  No lock on the way: a job slot changes hands by compare-and-swap;
 * the writer polls the job slots while buffers come, and otherwise sleeps on
 * a futex that a hand-off wakes.
 *
 * Jobs carry a ticket in hand-off order and the writer always takes the
 * queued job with the smallest ticket, so a thread's batches reach the file
 * in seq order.  A thread has at most IP_INFLIGHT jobs in flight.  When it
 * cannot hand off (that many in flight, the pool empty, every job slot
 * taken) it encodes inline, as without a writer, and that is counted.
 * Before any inline encoding of a thread's events (that fallback, thread
 * exit, the final flush, a fatal signal) ip_writer_settle takes its queued
 * jobs back, waits for the one being written, and writes the taken-back ones
 * first.
 *
 * INCLPROF_WRITER=auto (the default) also encodes inline while the program's
 * threads keep every CPU busy (crowding.c): the writer would then only take
 * CPU time from them, and each hand-off would add its own cost.  `thread`
 * hands off even then; `inline` turns the writer off.
 *
 * A program that defines its own allocator would see the thread's creation
 * call it (glibc allocates a thread's TLS vector with the malloc the
 * program's symbols bind to), from whatever probe filled a buffer first,
 * perhaps one inside that allocator: then `auto` encodes inline, and only
 * `thread` starts the writer, at start-up.  An allocator library known to be
 * thread-safe and built without probes (jemalloc, tcmalloc, mimalloc...:
 * objects.c) is not the program's own: the writer starts as with libc's. */
#include <linux/futex.h>
#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "produce/produce.h"

enum { JOB_FREE, JOB_FILLING, JOB_QUEUED, JOB_WRITING };

struct job {
  atomic_int state;       /* JOB_*; FILLING: owned by the thread handing off or taking back */
  struct ip_event *block; /* the buffer, given back to the pool once written */
  struct ip_event *ev;    /* the batch: ev[0..n), every used slot of block */
  size_t n;
  uint32_t tid;
  uint64_t ticket;      /* hand-off order */
  uint64_t seq, g0, g1; /* the batch's seq; the hand-off's stall, written as a Gap */
  _Atomic(struct ip_rt_thread *) owner;
  struct ip_kev *kev; /* a copy of the batch's kernel-event records (kevents mode) */
  size_t kev_cap;     /* slots of kev, kept for the slot's next jobs */
  struct ip_kev_list kl;
};

static struct job jobs[IP_JOBS];
static atomic_int enabled = 1; /* INCLPROF_WRITER is not "inline" */
static int automatic = 1;      /* INCLPROF_WRITER is "auto": inline while crowded */
static atomic_int started;     /* the writer thread of this process runs */
static atomic_uint work;       /* futex word: bumped by every hand-off */
static atomic_uint_fast64_t next_ticket;
#define POLL_NS      500000       /* the writer's poll period while buffers come */
#define IDLE_POLLS   100          /* empty polls before it sleeps until woken */
#define START_SPARES 4            /* buffers the thread that starts the writer puts in the pool */
#define WRITER_STACK (256u << 10) /* the writer thread's stack (see start) */
static atomic_int sleeping;       /* the writer waits on work */
static void (*watch)(void);       /* called every IP_WATCH_MS while it sleeps */
static atomic_int stop_asked;     /* the writer ends once no job is queued */
static atomic_int running;        /* the writer thread has not yet ended */
static uint8_t *scratch;          /* the writer's scratch area, kept for the next writer */

static void futex(atomic_uint *w, int op, unsigned val, const struct timespec *ts) {
  ip_syscall(SYS_futex, (unsigned *)w, op | FUTEX_PRIVATE_FLAG, val, ts, 0L, 0L); /* no uaddr2 */
}

/* Encodes a job's batch and its Gap with the given scratch area (in the
 * aggregate mode: folds them into the owner's tree, which no one else
 * touches while the owner has a job queued or being written: see
 * ip_writer_settle), then gives the buffer back (encoding and folding leave
 * every arg 0) and tells the owner its job is done. */
static void write_job(struct job *j, uint8_t *scratch, size_t scratch_len, int in_signal) {
  if (atomic_load(&ip_st.init_state) == 1 && ip_st.aggregate) {
    struct ip_rt_thread *owner = atomic_load(&j->owner);
    ip_agg_fold(owner, j->ev, j->n, &j->kl, in_signal);
    ip_agg_gap(owner, j->g0, j->g1);
  } else if (atomic_load(&ip_st.init_state) == 1) {
    ip_encode_batch(scratch, scratch_len, j->tid, j->seq, j->ev, j->n, &j->kl, in_signal);
    if (atomic_load(&ip_st.init_state) == 1)
      ip_write_gap(j->tid, j->g0, j->g1);
  } else {
    memset(j->ev, 0, j->n * sizeof *j->ev);
  }
  struct ip_event *block = j->block;
  j->block = NULL; /* a fork child unmaps the blocks of unfinished jobs only */
  ip_pool_put(block);
  struct ip_rt_thread *owner = atomic_exchange(&j->owner, NULL);
  atomic_store(&j->state, JOB_FREE);
  atomic_fetch_sub(&owner->inflight, 1);
}

/* Keeps IP_INFLIGHT spares per thread (at most IP_POOL_SLOTS, or
 * IP_TIGHT_SPARES when the program's memory is bounded) in the pool: a
 * thread whose jobs wait finds a spare for each. */
static void top_up(void) {
  unsigned want = atomic_load(&ip_st.n_threads) * IP_INFLIGHT;
  unsigned most = ip_pool_tight() ? IP_TIGHT_SPARES : IP_POOL_SLOTS;
  if (want > most)
    want = most;
  while (ip_pool_spares() < want) {
    struct ip_event *b = ip_buffer_new(0);
    if (!b)
      return;
    ip_pool_put(b);
  }
}

/* The writer's thread id while it is SCHED_BATCH, else 0. */
static _Atomic pid_t batch_tid;

/* SCHED_BATCH: its wake-up never preempts the thread that woke it (on a
 * busy machine the writer would otherwise take the CPU of the program thread
 * that handed it the buffer, for as long as encoding takes).  A process of a
 * real-time policy keeps it for the writer too: a thread of the same
 * real-time priority never preempts its waker, and the writer must not
 * wait behind every ordinary task of the machine (ip_writer_at_exit). */
static void *writer_main(void *arg) {
  (void)arg;
  ip_syscall(SYS_prctl, PR_SET_NAME, "inclprof-writer");
  if ((sched_getscheduler(0) & ~SCHED_RESET_ON_FORK) == SCHED_OTHER &&
      sched_setscheduler(0, SCHED_BATCH, &(struct sched_param){.sched_priority = 0}) == 0)
    atomic_store(&batch_tid, gettid());
  size_t len = IP_SCRATCH_BYTES;
  if (!scratch) {
    void *m =
        mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
      atomic_store(&enabled, 0); /* every thread encodes inline */
      atomic_store(&running, 0);
      ip_own_thread_end();
      return NULL;
    }
    scratch = m;
    ip_mem_own(scratch, len, 0);
  }
  for (unsigned idle = 0;;) {
    unsigned seen = atomic_load(&work);
    struct job *first = NULL;
    for (unsigned i = 0; i < IP_JOBS; i++)
      if (atomic_load(&jobs[i].state) == JOB_QUEUED && (!first || jobs[i].ticket < first->ticket))
        first = &jobs[i];
    uint64_t ticket = first ? first->ticket : 0;
    int queued = JOB_QUEUED;
    if (first && atomic_compare_exchange_strong(&first->state, &queued, JOB_WRITING)) {
      if (first->ticket == ticket) {
        write_job(first, scratch, len, 0);
        idle = 0;
      } else /* taken back, written and handed off anew meanwhile: look again */
        atomic_store(&first->state, JOB_QUEUED);
      continue;
    }
    if (first)
      continue; /* its thread took it back meanwhile */
    if (atomic_load(&stop_asked))
      break;
    top_up();
    /* While buffers keep coming, poll every POLL_NS: waking the writer at
     * every hand-off cost the program thread more (on a busy machine the
     * futex wake held it for tens of microseconds); a thread wakes it only
     * when half its IP_INFLIGHT buffers wait.  After IDLE_POLLS empty polls
     * the writer sleeps until a hand-off wakes it. */
    if (++idle < IDLE_POLLS) {
      if (atomic_load(&work) == seen)
        futex(&work, FUTEX_WAIT, seen, &(struct timespec){.tv_nsec = POLL_NS});
      continue;
    }
    atomic_store(&sleeping, 1);
    if (atomic_load(&work) == seen)
      futex(&work, FUTEX_WAIT, seen, &(struct timespec){.tv_nsec = IP_WATCH_MS * 1000000L});
    atomic_store(&sleeping, 0);
    if (atomic_load(&work) == seen) {
      watch();
      continue; /* still idle: it sleeps again */
    }
    idle = 0;
  }
  atomic_store(&batch_tid, 0);
  ip_own_thread_end();
  atomic_store(&running, 0);
  return NULL;
}

/* Started by a thread's first full buffer (that one is encoded inline),
 * which also puts START_SPARES buffers in the pool, so that the next
 * hand-offs need not wait for the new thread to run.  It receives no
 * signal and does not keep the process alive (own_threads.c).  Its stack
 * is WRITER_STACK, not libc's 8 MB: the deepest encoding, ring rotation and
 * snapshot touch 20 KB of it, and 8 MB of address space counted against a
 * program's RLIMIT_AS and, locked by its mlockall, its RLIMIT_MEMLOCK. */
static void start(void) {
  if (atomic_exchange(&started, 1))
    return;
  atomic_store(&running, 1);
  if (ip_own_thread_start(writer_main, WRITER_STACK) != 0) {
    atomic_store(&running, 0);
    atomic_store(&enabled, 0);
    return;
  }
  for (unsigned i = 0; i < (ip_pool_tight() ? IP_TIGHT_SPARES : START_SPARES); i++) {
    struct ip_event *b = ip_buffer_new(0);
    if (b)
      ip_pool_put(b);
  }
}

void ip_writer_init(void (*watch_fn)(void)) {
  watch = watch_fn;
  const char *w = ip_set.writer;
  if (w && *w && strcmp(w, "auto") && strcmp(w, "inline") && strcmp(w, "thread")) {
    ip_say("inclprof: INCLPROF_WRITER='%s' is not auto, thread or inline; using auto\n", w);
    w = NULL;
  }
  int thread = w && !strcmp(w, "thread");
  atomic_store(&enabled, !(w && strcmp(w, "inline") == 0) && (thread || !ip_st.program_allocator));
  automatic = !w || !*w || strcmp(w, "auto") == 0;
  ip_crowding_init();
  if (thread && ip_st.program_allocator)
    start();
}

int ip_writer_stop(uint64_t deadline) {
  if (!atomic_load(&started))
    return 0;
  atomic_store(&stop_asked, 1);
  while (atomic_load(&running) && ip_tick() < deadline) {
    atomic_fetch_add(&work, 1);
    futex(&work, FUTEX_WAKE, 1, NULL);
    sched_yield();
  }
  if (atomic_load(&running))
    return -1;
  atomic_store(&started, 0); /* the next hand-off starts another */
  atomic_store(&stop_asked, 0);
  return 1;
}

/* A buffer the writer cannot take: encoded inline by the caller, and
 * counted so (counter: the cause when it is a count of its own); a signal
 * handler's caller keeps it in the headroom instead, counted nowhere. */
static int declined(int in_handler, int why, atomic_uint_fast64_t *counter) {
  if (!in_handler) {
    if (counter)
      atomic_fetch_add(counter, 1);
    atomic_fetch_add(&ip_st.inline_flushes, 1);
  }
  return why;
}

int ip_writer_begin(struct ip_rt_thread *t, struct ip_event **fresh, int in_handler) {
  if (!atomic_load(&enabled))
    return declined(in_handler, IP_WRITER_NEVER, NULL);
  /* a handler cannot encode inline: crowded or not, the writer takes it */
  if (!in_handler && automatic && ip_crowding_note(t, ip_tick_cold()))
    return declined(in_handler, IP_WRITER_NEVER, &ip_st.crowded_flushes);
  if (!atomic_load(&started)) {
    if (!in_handler) /* no thread is created from a signal handler */
      start();
    return declined(in_handler, IP_WRITER_NEVER, NULL);
  }
  if (atomic_load(&t->inflight) >= (int)IP_INFLIGHT || !(*fresh = ip_pool_take()))
    return declined(in_handler, IP_WRITER_BEHIND, NULL);
  for (unsigned i = 0; i < IP_JOBS; i++) {
    int free_ = JOB_FREE;
    if (atomic_compare_exchange_strong(&jobs[i].state, &free_, JOB_FILLING))
      return (int)i;
  }
  ip_pool_put(*fresh);
  return declined(in_handler, IP_WRITER_BEHIND, NULL);
}

/* The thread's saved kernel-event records go with the job: the thread's own
 * array is refilled at its next flush.  Without room for them the batch says
 * they were lost. */
static void take_kernel_events(struct job *j, const struct ip_rt_thread *t) {
  j->kl = (struct ip_kev_list){j->kev, 0, t->kev_lost, 0, 0};
  if (!t->kev_n)
    return;
  if (j->kev_cap < t->kev_n) {
    if (j->kev)
      munmap(j->kev, j->kev_cap * sizeof *j->kev);
    j->kev = mmap(NULL, t->kev_cap * sizeof *j->kev, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    j->kev_cap = j->kev == MAP_FAILED ? 0 : t->kev_cap;
    if (j->kev == MAP_FAILED)
      j->kev = NULL;
    ip_mem_own(j->kev, j->kev_cap * sizeof *j->kev, 0);
  }
  if (!j->kev) {
    j->kl = (struct ip_kev_list){NULL, 0, 1, 0, 0};
    return;
  }
  memcpy(j->kev, t->kev, t->kev_n * sizeof *j->kev);
  j->kl = (struct ip_kev_list){j->kev, t->kev_n, 0, t->kev_n_wake, t->kev_n_futex};
}

void ip_writer_submit(int slot, struct ip_rt_thread *t, struct ip_event *block, struct ip_event *ev,
                      size_t n, uint64_t g0, uint64_t g1) {
  struct job *j = &jobs[slot];
  take_kernel_events(j, t);
  j->block = block;
  j->ev = ev;
  j->n = n;
  j->tid = t->tid;
  j->seq = t->seq++;
  j->g0 = g0;
  j->g1 = g1;
  atomic_store(&j->owner, t);
  j->ticket = atomic_fetch_add(&next_ticket, 1);
  int behind = atomic_fetch_add(&t->inflight, 1) + 1 >= (int)IP_INFLIGHT / 2;
  atomic_store(&j->state, JOB_QUEUED);
  atomic_fetch_add(&ip_st.handoffs, 1);
  atomic_fetch_add(&work, 1);
  if (atomic_load(&sleeping) || behind)
    futex(&work, FUTEX_WAKE, 1, NULL);
}

/* The jobs a thread took back, written oldest first on the runtime's stack
 * after its scratch area (own_stack.c): its own may be 16 KB. */
struct taken_back {
  struct job **mine;
  int held;
  struct ip_rt_thread *t;
  int in_signal;
};

static void write_taken_back(void *v) {
  struct taken_back *b = v;
  while (b->held)
    write_job(b->mine[--b->held], b->t->scratch, b->t->scratch_len, b->in_signal);
}

/* Takes back t's queued jobs, newest first (the writer takes the oldest
 * queued job, so what it takes meanwhile is older than what we hold), waits
 * for the one being written, then writes the taken-back ones oldest first. */
int ip_writer_settle(struct ip_rt_thread *t, int wait) {
  if (!atomic_load(&t->inflight))
    return 1;
  struct job *mine[IP_INFLIGHT] = {NULL};
  int held = 0;
  for (;;) {
    struct job *newest = NULL;
    for (unsigned i = 0; i < IP_JOBS; i++)
      if (atomic_load(&jobs[i].owner) == t && atomic_load(&jobs[i].state) == JOB_QUEUED &&
          (!newest || jobs[i].ticket > newest->ticket) &&
          (!held || jobs[i].ticket < mine[held - 1]->ticket))
        newest = &jobs[i];
    if (!newest || held == (int)IP_INFLIGHT)
      break;
    int queued = JOB_QUEUED;
    if (!atomic_compare_exchange_strong(&newest->state, &queued, JOB_FILLING))
      break; /* the writer took it: every older job is written or being written */
    mine[held++] = newest;
  }
  /* The writer is writing one: a matter of one batch, unless it is starved. */
  uint64_t give_up = ip_tick_cold() + (uint64_t)(ip_st.ticks_per_second / 10);
  while (atomic_load(&t->inflight) > held) {
    int out = wait == IP_SETTLE_NOWAIT ||
              (wait == IP_SETTLE_WAIT ? ip_exit_deadline_passed() : ip_tick_cold() > give_up);
    if (out) { /* give the taken-back jobs to the writer again */
      for (int i = 0; i < held; i++)
        atomic_store(&mine[i]->state, JOB_QUEUED);
      return 0;
    }
    if (wait != IP_SETTLE_SPIN)
      sched_yield();
  }
  struct taken_back back = {mine, held, t, wait == IP_SETTLE_SPIN};
  ip_on_stack(t->scratch + t->scratch_len, IP_OWN_STACK_BYTES, write_taken_back, &back);
  return 1;
}

/* In a fork child: no writer runs; the parent's jobs are the parent's to
 * write.  Their buffers are unmapped, and the next hand-off starts a writer. */
void ip_writer_after_fork_child(void) {
  for (unsigned i = 0; i < IP_JOBS; i++) {
    if (atomic_load(&jobs[i].state) != JOB_FREE && jobs[i].block)
      ip_buffer_free(jobs[i].block);
    jobs[i].block = NULL;
    atomic_store(&jobs[i].owner, NULL);
    atomic_store(&jobs[i].state, JOB_FREE);
  }
  atomic_store(&ip_tls.inflight, 0);
  atomic_store(&started, 0);
  atomic_store(&running, 0);
  atomic_store(&stop_asked, 0);
  atomic_store(&sleeping, 0);
  atomic_store(&batch_tid, 0);
  atomic_store(&ip_st.handoffs, 0);
  atomic_store(&ip_st.inline_flushes, 0);
  atomic_store(&ip_st.crowded_flushes, 0);
  ip_crowding_after_fork_child();
}

/* The process ends, and with it the writer, which must run once more to
 * exit: as SCHED_BATCH, not preempting the thread it would run after, it
 * waited 10 ms (median; up to 100) of a short process's exit on a busy
 * machine.  Back to the ordinary policy, its wake-up may preempt. */
void ip_writer_at_exit(void) {
  pid_t tid = atomic_exchange(&batch_tid, 0);
  if (tid)
    sched_setscheduler(tid, SCHED_OTHER, &(struct sched_param){.sched_priority = 0});
}
