/* test_convert_critical.c - the critical path (the rules: "Critical path"
 * in docs/converter.md): a worked example of a two-stage pipeline with a
 * decoy thread, replayed from a synthetic trace and checked to the
 * nanosecond per function (the decoy gets none, the thread exit that ends
 * the join is followed, the creation of a thread is followed back to its
 * creator); and on many random timelines, that the walk's pieces partition
 * the root's time exactly: contiguous, in order, summing to its length; the
 * what-if's prediction on the pipeline, worked by hand; the path and the
 * wake edges placed on the exports' timeline, with the path's time before a
 * thread's first event and after its last (a busy machine) in place too. */
#include "convert_fixture.h"
#include "check_main.h"
#include "model/critical.h"
#include "model/loader.h"

enum { MOD = 1, F_MAIN = 1, F_JOIN, F_STAGE_A, F_SIGNAL, F_STAGE_B, F_WAIT, F_DECOY };
enum { T_MAIN = 1, T_A = 2, T_B = 3, T_DECOY = 4 };
enum { US = 1000 }; /* ns per tick */

static void thread_end(tg_trace *t, uint32_t tid, uint64_t tick, int alive_at_exit) {
  Inclprof__ThreadEnd e = INCLPROF__THREAD_END__INIT;
  e.tid = tid;
  e.has_end_tick = 1;
  e.end_tick = tick;
  e.has_alive_at_exit = e.alive_at_exit = alive_at_exit;
  Inclprof__Record r = INCLPROF__RECORD__INIT;
  r.body_case = INCLPROF__RECORD__BODY_THREAD_END;
  r.thread_end = &e;
  tg_record(t, &r);
}

/* main starts A (a wake-up at 50) and joins B (asleep 110-5000, woken by
 * B's exit at 4900, which recorded no wake-up); A runs stage_a and wakes B
 * (2050) inside pthread_cond_signal; B, asleep in pthread_cond_wait since
 * 320, runs stage_b to 4800; the decoy runs 400-3000 and nobody waits on it.
 * Ticks are microseconds (the clocks' tolerance is 20 us), probes cost
 * nothing.  On a busy machine (busy): A, started, waits for a CPU 120-180
 * before its first event; B, after its last, 4820-4870 before its end; and
 * main, alive at the exit at 5200, 5120-5180 after its last event. */
static void write_pipeline(tg_trace *t, int busy) {
  static tg_batch b;
  tg_begin_header_wakes(t, T_MAIN, 1e6, 0, -1, -1, INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS,
                        1, 1);
  tg_module(t, MOD, "/bin/prog");
  tg_function(t, F_MAIN, MOD, "main", "p.c", 1);
  tg_function(t, F_JOIN, 0, "pthread_join", "", 0);
  tg_function(t, F_STAGE_A, MOD, "stage_a", "p.c", 10);
  tg_function(t, F_SIGNAL, 0, "pthread_cond_signal", "", 0);
  tg_function(t, F_STAGE_B, MOD, "stage_b", "p.c", 20);
  tg_function(t, F_WAIT, 0, "pthread_cond_wait", "", 0);
  tg_function(t, F_DECOY, MOD, "decoy", "p.c", 30);
  const uint32_t tids[] = {T_MAIN, T_A, T_B, T_DECOY};
  for (int i = 0; i < 4; i++)
    tg_thread(t, tids[i], "t");

  tg_batch_init(&b, T_MAIN);
  tg_ev(&b, 0, 0, TG_ENTER, F_MAIN);
  tg_wake(&b, 50, T_A);
  tg_ev(&b, 100, 1, TG_CALL, F_JOIN);
  tg_kev(&b, 110, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_BLOCKED);
  tg_kev(&b, 5000, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN);
  tg_ev(&b, 5010, 1, TG_RET, F_JOIN);
  tg_ev(&b, 5100, 0, TG_EXIT, F_MAIN);
  if (busy) {
    tg_kev(&b, 5120, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED);
    tg_kev(&b, 5180, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN);
  }
  tg_flush(t, &b);
  if (busy)
    thread_end(t, T_MAIN, 5200, 1);

  tg_batch_init(&b, T_A);
  if (busy) {
    tg_kev(&b, 120, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED);
    tg_kev(&b, 180, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN);
  }
  tg_ev(&b, 200, 0, TG_ENTER, F_STAGE_A);
  tg_ev(&b, 2000, 0, TG_CALL, F_SIGNAL);
  tg_kev(&b, 2010, INCLPROF__KERNEL_EVENT_KIND__KEV_SYSCALL);
  tg_wake(&b, 2050, T_B);
  tg_ev(&b, 2100, 1, TG_RET, F_SIGNAL);
  tg_ev(&b, 2200, 0, TG_EXIT, F_STAGE_A);
  tg_flush(t, &b);
  thread_end(t, T_A, 2300, 0);

  tg_batch_init(&b, T_DECOY);
  tg_ev(&b, 400, 0, TG_ENTER, F_DECOY);
  tg_ev(&b, 3000, 0, TG_EXIT, F_DECOY);
  tg_flush(t, &b);
  thread_end(t, T_DECOY, 3000, 0);

  tg_batch_init(&b, T_B);
  tg_ev(&b, 300, 0, TG_ENTER, F_STAGE_B);
  tg_ev(&b, 310, 0, TG_CALL, F_WAIT);
  tg_kev(&b, 320, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_BLOCKED);
  tg_kev(&b, 2080, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN);
  tg_ev(&b, 2090, 1, TG_RET, F_WAIT);
  tg_ev(&b, 4800, 0, TG_EXIT, F_STAGE_B);
  if (busy) {
    tg_kev(&b, 4820, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED);
    tg_kev(&b, 4870, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN);
  }
  tg_flush(t, &b);
  thread_end(t, T_B, 4900, 0);
}

static void assert_crit(const ip_session *s, const char *fn, uint64_t excl, uint64_t incl) {
  ip_values v = fx_func(s, fn);
  ck_assert_msg(v.crit_excl == excl && v.crit_incl == incl,
                "%s: critical exclusive %llu inclusive %llu, expected %llu %llu", fn,
                (unsigned long long)v.crit_excl, (unsigned long long)v.crit_incl,
                (unsigned long long)excl, (unsigned long long)incl);
}

START_TEST(pipeline_values) {
  tg_trace t;
  write_pipeline(&t, 0);
  const char *dir = fx_dir();
  char *path = (char *)fx_write(dir, "1.ipb", &t);
  ip_session s;
  ip_critical c = {0};
  ip_load_opts o = {.quiet = 1, .jobs = 1};
  ck_assert_int_eq(ip_session_load_critical(&s, &path, 1, &o, &c), 0);
  ck_assert(c.any_edges);
  ck_assert_uint_eq(c.wall_ns, 5100 * US);
  /* main 0-50 and 5000-5100; A 200-2050; B 2080-4900 */
  ck_assert_uint_eq(c.kind_ns[IP_CP_RUN], (50 + 100 + 1850 + 2820) * US);
  /* main woken 4900 (B's exit), back at 5000; B woken 2050, back at 2080 */
  ck_assert_uint_eq(c.kind_ns[IP_CP_RUNNABLE], (100 + 30) * US);
  ck_assert_uint_eq(c.kind_ns[IP_CP_EXTERNAL], 0);
  ck_assert_uint_eq(c.kind_ns[IP_CP_START], 150 * US); /* A: started at 50, first event at 200 */
  ck_assert_uint_eq(c.jumps, 3);
  ck_assert_uint_eq(c.exit_edges, 1);
  assert_crit(&s, "stage_a", 1800 * US, 1850 * US);
  assert_crit(&s, "pthread_cond_signal", 50 * US, 50 * US);
  assert_crit(&s, "stage_b", 2710 * US, 2750 * US);
  assert_crit(&s, "pthread_cond_wait", 40 * US, 40 * US);
  assert_crit(&s, "main", 140 * US, 250 * US);
  assert_crit(&s, "pthread_join", 110 * US, 110 * US);
  assert_crit(&s, "decoy", 0, 0);
  ip_critical_free(&c);
  ip_session_free(&s);
  fx_cleanup(dir);
  tg_free(&t);
}
END_TEST

START_TEST(no_wake_edges_no_path) {
  tg_trace t;
  static tg_batch b;
  tg_begin_kev(&t, 7, 1e9, 0, INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS, 1);
  tg_module(&t, MOD, "/bin/prog");
  tg_function(&t, F_MAIN, MOD, "main", "p.c", 1);
  tg_thread(&t, 7, "main");
  tg_batch_init(&b, 7);
  tg_ev(&b, 0, 0, TG_ENTER, F_MAIN);
  tg_ev(&b, 100, 0, TG_EXIT, F_MAIN);
  tg_flush(&t, &b);
  const char *dir = fx_dir();
  char *path = (char *)fx_write(dir, "7.ipb", &t);
  ip_session s;
  ip_critical c = {0};
  ip_load_opts o = {.quiet = 1};
  ck_assert_int_eq(ip_session_load_critical(&s, &path, 1, &o, &c), 0);
  ck_assert(!c.any_edges);
  ck_assert_uint_eq(fx_func(&s, "main").el_incl, 100);
  ck_assert_uint_eq(fx_func(&s, "main").crit_incl, 0);
  ip_critical_free(&c);
  ip_session_free(&s);
  fx_cleanup(dir);
  tg_free(&t);
}
END_TEST

/* The what-if on the pipeline, worked by hand: stage_a twice as fast ends
 * A's run to its wake-up (200-2050, all in stage_a) 925 us earlier, and B,
 * main's join and main with it; the decoy and a factor of 1 change nothing;
 * stage_b's time asleep inside it (320-2080) is not shortened, its running
 * time after the wake-up (2080-4800) is halved; the 10 us it saves before
 * its sleep are spent waiting for A all the same. */
static uint64_t predict(const char *fn, double factor, uint64_t *observed) {
  tg_trace t;
  write_pipeline(&t, 0);
  const char *dir = fx_dir();
  char *path = (char *)fx_write(dir, "1.ipb", &t);
  ip_session s;
  ip_critical c = {.what_if = fn};
  ip_load_opts o = {.quiet = 1, .jobs = 1};
  uint64_t predicted = UINT64_MAX;
  if (!ip_session_load_critical(&s, &path, 1, &o, &c))
    ip_whatif_predict(&s, &c, factor, observed, &predicted);
  ip_critical_free(&c);
  ip_session_free(&s);
  fx_cleanup(dir);
  tg_free(&t);
  return predicted;
}

START_TEST(what_if_pipeline) {
  uint64_t observed = 0;
  ck_assert_uint_eq(predict("stage_a", 2, &observed), (5100 - 925) * US);
  ck_assert_uint_eq(observed, 5100 * US);
  ck_assert_uint_eq(predict("stage_a", 1, &observed), 5100 * US);
  ck_assert_uint_eq(predict("decoy", 4, &observed), 5100 * US);
  ck_assert_uint_eq(predict("stage_b", 2, &observed), (5100 - 1360) * US);
  ck_assert_uint_eq(predict("no_such", 2, &observed), UINT64_MAX);
}
END_TEST

/* Every piece of c has its place on the exports' timeline, at its own
 * length (probes cost nothing: ticks are microseconds from the session
 * start), and the pieces cover the run from 0 to end_ns. */
static void assert_pieces_cover(const ip_session *s, const ip_critical *c, uint64_t end_ns) {
  uint64_t lo = UINT64_MAX, hi = 0, sum = 0;
  for (size_t i = 0; i < c->n_pieces; i++) {
    const ip_cp_piece *p = &c->pieces[i];
    uint64_t from, to;
    ck_assert_msg(ip_critical_piece_ns(s, c, i, &from, &to),
                  "piece %zu (thread %u, ticks %llu-%llu) has no place", i, p->thread,
                  (unsigned long long)p->from, (unsigned long long)p->to);
    ck_assert_uint_eq(from, p->from * US);
    ck_assert_uint_eq(to, p->to * US);
    lo = from < lo ? from : lo;
    hi = to > hi ? to : hi;
    sum += to - from;
  }
  ck_assert_uint_eq(lo, 0);
  ck_assert_uint_eq(hi, end_ns);
  ck_assert_uint_eq(sum, end_ns);
}

/* The path and its edges on the exports' timeline (probes cost nothing
 * here: ticks are microseconds from the session start): the pieces cover
 * the run from 0 to 5100 us, and the wake edges are main's start of A
 * (50 us, A's first event at 200 us) and A's wake-up of B (2050 us, B back
 * on a CPU at 2080 us); the exit that ended main's join is no arrow. */
START_TEST(timeline_times) {
  tg_trace t;
  write_pipeline(&t, 0);
  const char *dir = fx_dir();
  char *path = (char *)fx_write(dir, "1.ipb", &t);
  ip_session s;
  ip_critical c = {0};
  ip_load_opts o = {.quiet = 1, .jobs = 1};
  ck_assert_int_eq(ip_session_load_critical(&s, &path, 1, &o, &c), 0);
  assert_pieces_cover(&s, &c, 5100 * US);
  ip_wake_flow *f;
  size_t n = ip_critical_flows(&s, &c, &f);
  ck_assert_uint_eq(n, 2);
  int start_a = 0, wake_b = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t from = s.threads[f[i].waker].tid, to = s.threads[f[i].wakee].tid;
    start_a += from == T_MAIN && to == T_A && f[i].wake_ns == 50 * US && f[i].run_ns == 200 * US;
    wake_b += from == T_A && to == T_B && f[i].wake_ns == 2050 * US && f[i].run_ns == 2080 * US;
  }
  ck_assert(start_a == 1 && wake_b == 1);
  free(f);
  ip_critical_free(&c);
  ip_session_free(&s);
  fx_cleanup(dir);
  tg_free(&t);
}
END_TEST

/* On a busy machine the path holds time outside every interval of its
 * thread: A's start and its wait for a CPU before its first event (50-180),
 * B's wait for a CPU and its run after its last (4820-4900), and main's
 * after its last event up to the exit (5100-5200); each has its place and
 * the track covers the path's 5200 us. */
START_TEST(timeline_times_busy) {
  tg_trace t;
  write_pipeline(&t, 1);
  const char *dir = fx_dir();
  char *path = (char *)fx_write(dir, "1.ipb", &t);
  ip_session s;
  ip_critical c = {0};
  ip_load_opts o = {.quiet = 1, .jobs = 1};
  ck_assert_int_eq(ip_session_load_critical(&s, &path, 1, &o, &c), 0);
  ck_assert_uint_eq(c.wall_ns, 5200 * US);
  ck_assert_uint_eq(c.kind_ns[IP_CP_START], 70 * US);
  ck_assert_uint_eq(c.kind_ns[IP_CP_RUNNABLE], (60 + 50 + 100 + 30 + 60) * US);
  assert_pieces_cover(&s, &c, 5200 * US);
  ip_critical_free(&c);
  ip_session_free(&s);
  fx_cleanup(dir);
  tg_free(&t);
}
END_TEST

/* A small deterministic generator. */
static uint64_t rnd(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

/* Random threads with random sleeps (some preempted, some woken by a
 * random thread at a random time inside them, some by nobody) and random
 * starts: the pieces of every root cover it exactly. */
START_TEST(random_partitions) {
  uint64_t seed = 88172645463325252ull;
  for (int round = 0; round < 300; round++) {
    size_t n = 1 + rnd(&seed) % 6;
    ip_kline lines[6];
    const ip_kline *cl[6];
    ip_kline *ml[6];
    uint32_t index[6], tids[6];
    for (size_t i = 0; i < n; i++) {
      ip_kline *k = &lines[i];
      memset(k, 0, sizeof *k);
      k->creator = IP_NO_THREAD;
      k->first = i ? rnd(&seed) % 500 : 0;
      uint64_t t = k->first;
      size_t m = rnd(&seed) % 8;
      k->off = calloc(m + 1, sizeof *k->off);
      for (size_t j = 0; j < m; j++) {
        uint64_t out = t + rnd(&seed) % 100, in = out + rnd(&seed) % 300;
        k->off[k->n_off++] = (ip_offcpu){
            .out = out, .in = in, .waker = IP_NO_THREAD, .blocked = (uint8_t)(rnd(&seed) % 3 != 0)};
        t = in;
      }
      k->last = t + rnd(&seed) % 100;
      if (i && rnd(&seed) % 2) {
        k->creator = (uint32_t)(rnd(&seed) % n);
        k->created = k->first ? rnd(&seed) % k->first : 0;
      }
      cl[i] = ml[i] = k;
      index[i] = (uint32_t)(10 + i);
      tids[i] = (uint32_t)(100 + i);
    }
    /* wakers: any thread, at any time inside the sleep (wakers need not be
     * running then: the walk must still end) */
    for (size_t i = 0; i < n; i++)
      for (size_t j = 0; j < lines[i].n_off; j++) {
        ip_offcpu *o = &lines[i].off[j];
        if (o->blocked && rnd(&seed) % 3) {
          o->waker = (uint32_t)(rnd(&seed) % n);
          o->wake = o->out + (o->in > o->out ? rnd(&seed) % (o->in - o->out + 1) : 0);
        }
      }
    (void)ml;
    (void)tids;
    uint32_t root = (uint32_t)(rnd(&seed) % n);
    uint64_t t0 = lines[root].first, t1 = lines[root].last;
    if (rnd(&seed) % 2 && t1 > t0) /* a window inside the root's run */
      t0 += rnd(&seed) % (t1 - t0);
    ip_critical c = {0};
    ip_critical_walk(cl, index, n, root, t0, t1, &c);
    uint64_t at = t1, sum = 0;
    for (size_t i = 0; i < c.n_pieces; i++) { /* newest first, each ending where the next began */
      ck_assert_msg(c.pieces[i].to == at, "round %d piece %zu ends at %llu, not %llu", round, i,
                    (unsigned long long)c.pieces[i].to, (unsigned long long)at);
      ck_assert(c.pieces[i].from < c.pieces[i].to);
      ck_assert(c.pieces[i].thread >= 10 && c.pieces[i].thread < 10 + n);
      sum += c.pieces[i].to - c.pieces[i].from;
      at = c.pieces[i].from;
    }
    ck_assert_msg(at == t0 && sum == t1 - t0, "round %d: pieces cover %llu of %llu", round,
                  (unsigned long long)sum, (unsigned long long)(t1 - t0));
    ip_critical_free(&c);
    for (size_t i = 0; i < n; i++)
      free(lines[i].off);
  }
}
END_TEST

/* A wake-up is matched to the sleep it falls in, within the clocks'
 * tolerance; one that falls in no sleep is counted; one before the woken
 * thread's first event starts it; a sleep nobody woke that ends after a
 * thread's exit is woken by that exit. */
START_TEST(edges_matching) {
  ip_kline a = {0}, b = {0}, d = {0};
  a.creator = b.creator = d.creator = IP_NO_THREAD;
  ip_offcpu a_off[2] = {{.out = 100, .in = 400, .waker = IP_NO_THREAD, .blocked = 1},
                        {.out = 1000, .in = 1300, .waker = IP_NO_THREAD, .blocked = 1}};
  a.off = a_off;
  a.n_off = 2;
  a.first = 0;
  a.last = 2000;
  ip_wake b_wakes[3] = {{95, 1, 0}, {700, 1, 0}, {5, 3, 0}}; /* 95: 5 before the sleep */
  b.wake = b_wakes;
  b.n_wake = 3;
  b.first = 0;
  b.last = 900;
  b.end = 1250; /* its exit ends a's second sleep */
  d.first = 50;
  d.last = 60;
  ip_kline *lines[3] = {&a, &b, &d};
  const uint32_t tids[3] = {1, 2, 3};
  ip_critical c = {0};
  ip_critical_edges(lines, tids, 3, 10, 100, &c);
  ck_assert_uint_eq(a_off[0].waker, 1);
  ck_assert_uint_eq(a_off[0].wake, 100); /* moved into the sleep */
  ck_assert_uint_eq(a_off[1].waker, 1);
  ck_assert_uint_eq(a_off[1].wake, 1250);
  ck_assert(a_off[1].exit_edge);
  ck_assert_uint_eq(d.creator, 1);
  ck_assert_uint_eq(d.created, 5);
  ck_assert_uint_eq(c.edges, 3);
  ck_assert_uint_eq(c.edges_unmatched, 1); /* 700: a was running */
}
END_TEST

/* A wake-up a few ticks before the woken thread's next sleep (it woke, ran
 * for less than the clocks' tolerance and slept again) ends the sleep it
 * falls in; the next sleep keeps its own waker. */
START_TEST(edges_exact_before_tolerance) {
  ip_kline a = {0}, b = {0};
  a.creator = b.creator = IP_NO_THREAD;
  ip_offcpu a_off[2] = {{.out = 100, .in = 400, .waker = IP_NO_THREAD, .blocked = 1},
                        {.out = 405, .in = 900, .waker = IP_NO_THREAD, .blocked = 1}};
  a.off = a_off;
  a.n_off = 2;
  a.last = 2000;
  ip_wake b_wakes[2] = {{398, 1, 7}, {800, 1, 8}};
  b.wake = b_wakes;
  b.n_wake = 2;
  b.last = 2000;
  ip_kline *lines[2] = {&a, &b};
  const uint32_t tids[2] = {1, 2};
  ip_critical c = {0};
  ip_critical_edges(lines, tids, 2, 10, 100, &c);
  ck_assert_uint_eq(a_off[0].waker, 1);
  ck_assert_uint_eq(a_off[0].wake, 398);
  ck_assert_uint_eq(a_off[0].wake_node, 7);
  ck_assert_uint_eq(a_off[1].waker, 1);
  ck_assert_uint_eq(a_off[1].wake, 800);
  ck_assert_uint_eq(a_off[1].wake_node, 8);
  ck_assert_uint_eq(c.edges_unmatched, 0);
}
END_TEST

/* A sleep gets the futex word of the wait it began in, and only that: a
 * futex wait that returned (another system call, an event) leaves the next
 * sleep without one; the system-call record right after the wait's is its own. */
START_TEST(futex_waits_on_sleeps) {
  enum {
    SYS = INCLPROF__KERNEL_EVENT_KIND__KEV_SYSCALL,
    FUTEX = INCLPROF__KERNEL_EVENT_KIND__KEV_FUTEX_WAIT,
    OUT = INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_BLOCKED,
    PRE = INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED,
    IN = INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN
  };
  ip_kline *k = ip_kline_new();
  k->futex_slack = 5;
  ip_kline_record(k, SYS, 10, 0, 0, 1); /* system call, then its futex wait: sleeps */
  ip_kline_record(k, FUTEX, 11, 128, 0x1000, 1);
  ip_kline_record(k, OUT, 12, 0, 0, 1);
  ip_kline_record(k, IN, 50, 0, 0, 1);
  ip_kline_record(k, FUTEX, 60, 393, 0x2028, 1); /* futex wait, then its own record */
  ip_kline_record(k, SYS, 61, 0, 0, 1);
  ip_kline_record(k, PRE, 62, 0, 0, 1); /* preempted before it slept: kept */
  ip_kline_record(k, IN, 63, 0, 0, 1);
  ip_kline_record(k, OUT, 64, 0, 0, 1);
  ip_kline_record(k, IN, 90, 0, 0, 1);
  ip_kline_record(k, FUTEX, 100, 128, 0x3000, 1); /* did not sleep: a read did */
  ip_kline_record(k, SYS, 120, 0, 0, 1);
  ip_kline_record(k, OUT, 121, 0, 0, 1);
  ip_kline_record(k, IN, 150, 0, 0, 1);
  ip_kline_record(k, FUTEX, 160, 128, 0x4000, 1); /* returned to the program's code */
  ip_kline_event(k, 170);
  ip_kline_record(k, OUT, 171, 0, 0, 1);
  ip_kline_finish(k, 200);
  ck_assert_uint_eq(k->n_off, 5);
  ck_assert_uint_eq(k->off[0].futex, 0x1000);
  ck_assert_uint_eq(k->off[0].futex_op, 128);
  ck_assert_uint_eq(k->off[1].futex, 0); /* the preemption */
  ck_assert_uint_eq(k->off[2].futex, 0x2028);
  ck_assert_uint_eq(k->off[3].futex, 0);
  ck_assert_uint_eq(k->off[4].futex, 0);
  ip_kline_free(k);
}
END_TEST

/* The object of a futex word by the call that slept on it. */
START_TEST(lock_objects) {
  uint64_t o;
  unsigned at40 = ip_cond_signals_at(40), at43 = ip_cond_signals_at(43);
  ck_assert_uint_eq(at40, 40);
  ck_assert_uint_eq(ip_cond_signals_at(41), 32);
  ck_assert_uint_eq(at43, 32);
  ck_assert_uint_eq(ip_cond_signals_at(0), 0);
  ck_assert_int_eq(ip_lock_object("pthread_mutex_lock", 0x5000, 128, at40, &o), IP_LOCK_KNOWN);
  ck_assert_uint_eq(o, 0x5000);
  /* a condition variable's waiters sleep on __g_signals[0] or [1]: 40 and 44
   * bytes in up to glibc 2.40 ... */
  ck_assert_int_eq(ip_lock_object("pthread_cond_wait", 0x5028, 393, at40, &o), IP_LOCK_KNOWN);
  ck_assert_uint_eq(o, 0x5000);
  ck_assert_int_eq(ip_lock_object("pthread_cond_timedwait", 0x502c, 393, at40, &o), IP_LOCK_KNOWN);
  ck_assert_uint_eq(o, 0x5000);
  /* ... 32 and 36 from 2.41 */
  ck_assert_int_eq(ip_lock_object("pthread_cond_wait", 0x5020, 393, at43, &o), IP_LOCK_KNOWN);
  ck_assert_uint_eq(o, 0x5000);
  ck_assert_int_eq(ip_lock_object("pthread_cond_clockwait", 0x5024, 393, at43, &o), IP_LOCK_KNOWN);
  ck_assert_uint_eq(o, 0x5000);
  /* a glibc of unknown version: the word itself */
  ck_assert_int_eq(ip_lock_object("pthread_cond_wait", 0x5028, 393, 0, &o), IP_LOCK_WORD);
  ck_assert_uint_eq(o, 0x5028);
  /* ... and take the mutex again with a plain FUTEX_WAIT on its word */
  ck_assert_int_eq(ip_lock_object("pthread_cond_wait", 0x6000, 128, at43, &o), IP_LOCK_KNOWN);
  ck_assert_uint_eq(o, 0x6000);
  ck_assert_int_eq(ip_lock_object("sem_wait", 0x7000, 393, at40, &o), IP_LOCK_KNOWN);
  ck_assert_uint_eq(o, 0x7000);
  ck_assert_int_eq(ip_lock_object("pthread_rwlock_wrlock", 0x800c, 128, at40, &o), IP_LOCK_WORD);
  ck_assert_uint_eq(o, 0x800c);
  ck_assert_int_eq(ip_lock_object("my_spin_wait", 0x9000, 0, at40, &o), IP_LOCK_WORD);
}
END_TEST

int main(void) {
  Suite *s = suite_create("convert_critical");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, pipeline_values);
  tcase_add_test(tc, no_wake_edges_no_path);
  tcase_add_test(tc, random_partitions);
  tcase_add_test(tc, edges_matching);
  tcase_add_test(tc, edges_exact_before_tolerance);
  tcase_add_test(tc, what_if_pipeline);
  tcase_add_test(tc, timeline_times);
  tcase_add_test(tc, timeline_times_busy);
  tcase_add_test(tc, futex_waits_on_sleeps);
  tcase_add_test(tc, lock_objects);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
