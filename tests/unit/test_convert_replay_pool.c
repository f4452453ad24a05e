/* test_convert_replay_pool.c - a session replayed with --jobs 2 and 3
 * (model/replay_pool.c) equals the one replayed on one thread, field by
 * field: the call trees and values of every thread, the function table (a
 * function used before its definition gets a placeholder first), the
 * samples that landed in the runtime (counted apart, summed back from the
 * workers), a runtime gap, a thread ended mid-trace whose tid then starts a
 * new thread; a trace whose every batch is followed by its runtime gap,
 * with Function records between the batches of different threads, some
 * of whose gids were used before; and on damaged copies of the trace (bytes changed, with and
 * without their checksums repaired), the same outcome, damage and values.
 * A session of three files read in parallel (model/session_files.c), whose
 * module and function tables overlap, equals the one read file after file,
 * also with one file damaged, and fails the same way with one that is no
 * trace or whose header is unusable.  Kept as sums (ip_keep: each thread's
 * values without its paths, or the session's function and module values
 * alone), file after file or in parallel, the session gives every row of
 * every level the paths give. */
#include <check.h>

#include "check_main.h"
#include "convert_fixture.h"
#include "model/aggregate.h"
#include "model/latency.h"
#include "model/loader.h"
#include "read/trace_paths.h"

#define THREADS 4
#define ROUNDS  12
#define CYCLES  30 /* per batch, 10 events each */

static uint64_t in_runtime; /* samples written with the in-runtime flag */

/* One batch of CYCLES call cycles for thread t; gid 5 is defined late. */
static void cycles(tg_trace *tr, tg_batch *b, uint64_t *tick, unsigned t) {
  for (unsigned c = 0; c < CYCLES; c++) {
    static const struct {
      Inclprof__EventKind kind;
      uint32_t arg;
    } cycle[] = {
        {INCLPROF__EVENT_KIND__EV_ENTER, 1},  {INCLPROF__EVENT_KIND__EV_ENTER, 2},
        {INCLPROF__EVENT_KIND__EV_SAMPLE, 0}, {INCLPROF__EVENT_KIND__EV_EXIT, 2},
        {INCLPROF__EVENT_KIND__EV_CALL, 3},   {INCLPROF__EVENT_KIND__EV_RET, 3},
        {INCLPROF__EVENT_KIND__EV_SAMPLE, 1}, {INCLPROF__EVENT_KIND__EV_ENTER, 4},
        {INCLPROF__EVENT_KIND__EV_EXIT, 4},   {INCLPROF__EVENT_KIND__EV_EXIT, 1},
    };
    for (unsigned k = 0; k < 10; k++) {
      uint32_t arg = cycle[k].arg == 4 && t == 3 ? 5 : cycle[k].arg;
      *tick += 7 + (*tick * 13 + k) % 50;
      tg_ev(b, *tick, (c + k) % 17 == 0, cycle[k].kind, arg);
    }
    in_runtime++;
  }
  tg_flush(tr, b);
}

static void thread_end(tg_trace *t, uint32_t tid) {
  Inclprof__ThreadEnd e = INCLPROF__THREAD_END__INIT;
  e.tid = tid;
  Inclprof__Record r = INCLPROF__RECORD__INIT;
  r.body_case = INCLPROF__RECORD__BODY_THREAD_END;
  r.thread_end = &e;
  tg_record(t, &r);
}

/* Process 77 + v.  Variant 0 defines outer, inner, libcall, leaf and late
 * in /bin/prog; 1 the same inner, libcall and late, with outer and leaf in
 * /lib/libx.so (module 1, /bin/prog module 2); 2 all but libcall in
 * /lib/liby.so. */
/* THREADS threads from tid first on: their batches, first ticks and Thread
 * records. */
static void threads_begin(tg_trace *tr, tg_batch *b, uint64_t *tick, uint32_t first) {
  for (unsigned i = 0; i < THREADS; i++) {
    tg_batch_init(&b[i], first + i);
    tick[i] = 1000ull * (i + 1);
    tg_thread(tr, first + i, NULL);
  }
}

static void build_variant(tg_trace *tr, unsigned v) {
  static const char *const lib[] = {"/bin/prog", "/lib/libx.so", "/lib/liby.so"};
  tg_trace t;
  tg_begin(&t, 77 + v, 1e9, 3, INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS);
  uint32_t prog = v == 1 ? 2 : 1;
  tg_module(&t, 1, lib[v]);
  if (v == 1)
    tg_module(&t, 2, "/bin/prog");
  tg_function(&t, 1, 1, v ? "xouter" : "outer", "a.c", 1);
  tg_function(&t, 2, prog, "inner", "a.c", 2);
  tg_function(&t, 3, 0, "libcall", "", 0);
  tg_function(&t, 4, 1, v ? "xleaf" : "leaf", "a.c", 4);
  static tg_batch b[THREADS];
  uint64_t tick[THREADS];
  threads_begin(&t, b, tick, 10);
  in_runtime = 0;
  for (unsigned round = 0; round < ROUNDS; round++) {
    for (unsigned i = 0; i < THREADS; i++)
      cycles(&t, &b[i], &tick[i], i);
    if (round == 3)
      tg_function(&t, 5, prog, "late", "a.c", 5);
    if (round == 4)
      tg_gap(&t, 12, tick[2], tick[2] + 400);
    if (round == 6) {
      thread_end(&t, 11);
      tg_batch_init(&b[1], 11); /* the same tid again: a new thread */
    }
  }
  tg_trailer(&t, 1, "exit");
  *tr = t;
}

static void build_trace(tg_trace *tr) { build_variant(tr, 0); }

static const char *write_trace(const char *dir) {
  tg_trace t;
  build_trace(&t);
  const char *path = fx_write(dir, "pool.ipb", &t);
  tg_free(&t);
  return path;
}

static void load_jobs(ip_session *s, const char *path, unsigned jobs) {
  ip_load_opts o = {.quiet = 1, .jobs = jobs};
  char *p = (char *)path;
  ck_assert_int_eq(ip_session_load(s, &p, 1, &o), 0);
}

static void assert_same(const ip_session *a, const ip_session *b) {
  ck_assert_uint_eq(a->n_modules, b->n_modules);
  for (size_t i = 0; i < a->n_modules; i++)
    ck_assert_str_eq(a->modules[i].path, b->modules[i].path);
  ck_assert_uint_eq(a->n_funcs, b->n_funcs);
  for (size_t i = 0; i < a->n_funcs; i++) {
    ck_assert_str_eq(a->funcs[i].pretty, b->funcs[i].pretty);
    ck_assert_uint_eq(a->funcs[i].module, b->funcs[i].module);
  }
  ck_assert_uint_eq(a->n_files, b->n_files);
  ck_assert_uint_eq(a->samples_in_runtime, b->samples_in_runtime);
  ck_assert_uint_eq(a->events, b->events);
  ck_assert_uint_eq(a->gaps, b->gaps);
  ck_assert_uint_eq(a->batches_lost, b->batches_lost);
  ck_assert_int_eq(memcmp(&a->total, &b->total, sizeof a->total), 0);
  ck_assert_int_eq(memcmp(&a->rep, &b->rep, sizeof a->rep), 0);
  ck_assert_uint_eq(a->n_damaged, b->n_damaged);
  ck_assert_uint_eq(a->n_processes, b->n_processes);
  for (size_t i = 0; i < a->n_processes; i++) {
    const ip_process *x = &a->processes[i], *y = &b->processes[i];
    ck_assert_str_eq(x->damage ? x->damage : "", y->damage ? y->damage : "");
    ck_assert_uint_eq(x->pid, y->pid);
    ck_assert_uint_eq(x->n_mods, y->n_mods);
    for (size_t m = 0; m < x->n_mods; m++)
      ck_assert_uint_eq(x->mods[m].module, y->mods[m].module);
    ck_assert_int_eq(memcmp(&x->total, &y->total, sizeof x->total), 0);
  }
  ck_assert_uint_eq(a->n_threads, b->n_threads);
  for (size_t i = 0; i < a->n_threads; i++) {
    const ip_thread *x = &a->threads[i], *y = &b->threads[i];
    ck_assert_uint_eq(x->tid, y->tid);
    ck_assert_uint_eq(x->process, y->process);
    ck_assert_uint_eq(x->start_ns, y->start_ns);
    ck_assert_uint_eq(x->end_ns, y->end_ns);
    ck_assert_uint_eq(x->events, y->events);
    ck_assert_uint_eq(x->batches, y->batches);
    ck_assert_uint_eq(x->gap_ns, y->gap_ns);
    ck_assert_int_eq(memcmp(&x->total, &y->total, sizeof x->total), 0);
    ck_assert_uint_eq(x->n_nodes, y->n_nodes);
    ck_assert_int_eq(memcmp(x->nodes, y->nodes, x->n_nodes * sizeof *x->nodes), 0);
    ck_assert_uint_eq(x->n_fn, y->n_fn);
    ck_assert_int_eq(memcmp(x->fn, y->fn, x->n_fn * sizeof *x->fn), 0);
    ck_assert_uint_eq(x->n_mod, y->n_mod);
    ck_assert_int_eq(memcmp(x->mod, y->mod, x->n_mod * sizeof *x->mod), 0);
  }
}

START_TEST(jobs_give_the_serial_session) {
  const char *dir = fx_dir();
  const char *path = write_trace(dir);
  ip_session one, two, three;
  load_jobs(&one, path, 1);
  load_jobs(&two, path, 2);
  load_jobs(&three, path, 3);
  /* What the trace holds, so that the comparison is not of empty sessions. */
  ck_assert_uint_eq(one.n_threads, THREADS + 1);
  ck_assert_uint_eq(one.events, THREADS * ROUNDS * CYCLES * 10);
  ck_assert_uint_eq(one.samples_in_runtime, in_runtime);
  ck_assert_uint_eq(one.samples_in_runtime, THREADS * ROUNDS * CYCLES);
  ck_assert_uint_eq(one.gaps, 1);
  ck_assert_uint_eq(one.n_funcs, 6); /* 4, the placeholder of gid 5 (used first), late */
  ck_assert_str_eq(one.funcs[4].pretty, "<unknown function gid 5>");
  ck_assert_str_eq(one.funcs[5].pretty, "late");
  assert_same(&one, &two);
  assert_same(&one, &three);
  ip_session_free(&one);
  ip_session_free(&two);
  ip_session_free(&three);
  fx_cleanup(dir);
}
END_TEST

/* One batch of thread tid: CYCLES calls of outer (gid 1) around leaf, then
 * the runtime gap the runtime writes after every batch (100 ticks). */
static void leaf_batch(tg_trace *tr, tg_batch *b, uint64_t *tick, uint32_t leaf) {
  for (unsigned c = 0; c < CYCLES; c++) {
    static const Inclprof__EventKind kind[] = {
        INCLPROF__EVENT_KIND__EV_ENTER, INCLPROF__EVENT_KIND__EV_ENTER,
        INCLPROF__EVENT_KIND__EV_EXIT, INCLPROF__EVENT_KIND__EV_EXIT};
    for (unsigned k = 0; k < 4; k++) {
      *tick += 5 + (*tick * 7 + k) % 40;
      tg_ev(b, *tick, c % 11 == k, kind[k], k == 0 || k == 3 ? 1 : leaf);
    }
  }
  tg_flush(tr, b);
  tg_gap(tr, b->tid, *tick, *tick + 100);
  *tick += 100;
}

/* The leaf gid of thread 20 + i in a round (see below). */
static uint32_t leaf_of(unsigned i, unsigned round) {
  if (i == 1 && round >= 1)
    return 7;
  if ((i == 2 && round >= 3) || (i == 3 && round >= 2))
    return 6;
  return 2;
}

START_TEST(gaps_and_functions_between_batches_give_the_serial_session) {
  /* Threads 20-23, each batch followed by its gap; Function records
   * between the batches of different threads: gid 6 right after thread
   * 20's batch of round 3 (thread 23 used it from round 2, before it was
   * defined; thread 22 from round 3, after), gid 7 after thread 22's batch
   * of round 5 (thread 21 used it from round 1). */
  const char *dir = fx_dir();
  tg_trace t;
  tg_begin(&t, 91, 1e9, 3, INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS);
  tg_module(&t, 1, "/bin/prog");
  tg_function(&t, 1, 1, "outer", "a.c", 1);
  tg_function(&t, 2, 1, "leaf", "a.c", 2);
  static tg_batch b[THREADS];
  uint64_t tick[THREADS];
  threads_begin(&t, b, tick, 20);
  for (unsigned round = 0; round < ROUNDS; round++)
    for (unsigned i = 0; i < THREADS; i++) {
      uint32_t leaf = leaf_of(i, round);
      leaf_batch(&t, &b[i], &tick[i], leaf);
      if (i == 0 && round == 3)
        tg_function(&t, 6, 1, "mid", "a.c", 6);
      if (i == 2 && round == 5)
        tg_function(&t, 7, 1, "late", "a.c", 7);
    }
  tg_trailer(&t, 1, "exit");
  const char *path = fx_write(dir, "gaps.ipb", &t);
  tg_free(&t);
  ip_session s[3];
  for (unsigned j = 0; j < 3; j++)
    load_jobs(&s[j], path, j + 1);
  ck_assert_uint_eq(s[0].gaps, THREADS * ROUNDS);
  ck_assert_uint_eq(s[0].events, THREADS * ROUNDS * CYCLES * 4);
  /* outer, leaf, the placeholders of gid 7 (thread 21, round 1) and gid 6
   * (thread 23, round 2), then mid and late as their records come */
  ck_assert_uint_eq(s[0].n_funcs, 6);
  ck_assert_str_eq(s[0].funcs[2].pretty, "<unknown function gid 7>");
  ck_assert_str_eq(s[0].funcs[3].pretty, "<unknown function gid 6>");
  ck_assert_str_eq(s[0].funcs[4].pretty, "mid");
  ck_assert_str_eq(s[0].funcs[5].pretty, "late");
  for (unsigned j = 1; j < 3; j++)
    assert_same(&s[0], &s[j]);
  for (unsigned j = 0; j < 3; j++)
    ip_session_free(&s[j]);
  fx_cleanup(dir);
}
END_TEST

static uint64_t rng = 0x2545f4914f6cdd1dULL;
static uint32_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 32);
}

START_TEST(damaged_traces_give_the_serial_session) {
  const char *dir = fx_dir();
  char path[128], err1[512], err2[512];
  snprintf(path, sizeof path, "%s/m.ipb", dir);
  tg_trace t;
  build_trace(&t);
  uint8_t *buf = malloc(t.len);
  ck_assert_ptr_nonnull(buf);
  int loaded = 0, damaged = 0;
  for (int i = 0; i < 200; i++) {
    memcpy(buf, t.buf, t.len);
    for (uint32_t k = 0, n = 1 + rnd() % 3; k < n; k++)
      buf[IP_TRACE_PREAMBLE_LEN + rnd() % (t.len - IP_TRACE_PREAMBLE_LEN)] ^= (uint8_t)(1 + rnd());
    if (i & 1) /* repaired checksums: the change reaches the decoder and the replay */
      tg_fix_crcs(buf, t.len);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(buf, 1, t.len, f), t.len);
    ck_assert_int_eq(fclose(f), 0);
    ip_session one, two;
    char *p = path;
    ip_load_opts o1 = {.quiet = 1, .jobs = 1, .error = err1, .error_len = sizeof err1};
    ip_load_opts o2 = {.quiet = 1, .jobs = 2, .error = err2, .error_len = sizeof err2};
    int rc1 = ip_session_load(&one, &p, 1, &o1), rc2 = ip_session_load(&two, &p, 1, &o2);
    ck_assert_int_eq(rc1, rc2);
    if (rc1) {
      ck_assert_str_eq(err1, err2);
      continue;
    }
    loaded++;
    damaged += one.n_damaged > 0;
    assert_same(&one, &two);
    ip_session_free(&one);
    ip_session_free(&two);
  }
  /* Both kinds of outcome were compared. */
  ck_assert_int_gt(loaded, 100);
  ck_assert_int_gt(damaged, 50);
  free(buf);
  tg_free(&t);
  fx_cleanup(dir);
}
END_TEST

/* Loads every trace in dir with `jobs`, keeping `keep`: the outcome, and
 * the error if any. */
static int load_dir_keep(ip_session *s, const char *dir, unsigned jobs, ip_keep keep, char *err,
                         size_t errlen) {
  ip_load_opts o = {.quiet = 1,
                    .jobs = jobs,
                    .error = err,
                    .error_len = errlen,
                    .small_files_in_parallel = 1,
                    .keep = keep,
                    .latency = IP_LAT_ELAPSED};
  char *p = (char *)dir;
  err[0] = 0;
  return ip_session_load(s, &p, 1, &o);
}

/* Both sessions' per-call distributions by function are the same. */
static void assert_same_latency(const ip_session *a, const ip_session *b) {
  ck_assert_uint_eq(a->n_funcs, b->n_funcs);
  ip_lat_pair *x = ip_lat_by_function(a, NULL), *y = ip_lat_by_function(b, NULL);
  ck_assert(x && y);
  uint64_t calls = 0;
  for (size_t f = 0; f < a->n_funcs; f++) {
    ck_assert_uint_eq(x[f].el.n, y[f].el.n);
    calls += x[f].el.n;
    for (double q = 0; q <= 1.0; q += 0.25)
      ck_assert_uint_eq(ip_lat_quantile(&x[f].el, q), ip_lat_quantile(&y[f].el, q));
  }
  ck_assert_uint_gt(calls, 0);
  ip_lat_free_all(x, a->n_funcs);
  ip_lat_free_all(y, b->n_funcs);
}

/* The rows of level l in both sessions are the same. */
static void assert_same_rows(const ip_session *a, const ip_session *b, ip_level l) {
  ip_row *x, *y;
  size_t nx = ip_aggregate(a, l, NULL, &x), ny = ip_aggregate(b, l, NULL, &y);
  ck_assert_uint_eq(nx, ny);
  ck_assert_uint_gt(nx, 0);
  for (size_t i = 0; i < nx; i++) {
    ck_assert_uint_eq(x[i].key, y[i].key);
    ck_assert_int_eq(memcmp(&x[i].v, &y[i].v, sizeof x[i].v), 0);
  }
  free(x);
  free(y);
}

/* Loads every trace in dir with `jobs`: the outcome, and the error if any. */
static int load_dir(ip_session *s, const char *dir, unsigned jobs, char *err, size_t errlen) {
  ip_load_opts o = {
      .quiet = 1, .jobs = jobs, .error = err, .error_len = errlen, .small_files_in_parallel = 1};
  char *p = (char *)dir;
  err[0] = 0;
  return ip_session_load(s, &p, 1, &o);
}

START_TEST(files_read_in_parallel_give_the_serial_session) {
  const char *dir = fx_dir();
  tg_trace t[3];
  for (unsigned v = 0; v < 3; v++) {
    char name[16];
    snprintf(name, sizeof name, "%c.ipb", 'a' + v);
    build_variant(&t[v], v);
    fx_write(dir, name, &t[v]);
  }
  ip_paths files = {0};
  char err[3][512];
  ck_assert_int_eq(ip_paths_add(&files, dir, err[0], sizeof err[0]), 0);
  ck_assert_uint_eq(ip_files_readers(&files, 1, 0), 0);
  ck_assert_uint_eq(ip_files_readers(&files, 2, 0), 2); /* each file a third of the bytes */
  ck_assert_uint_eq(ip_files_readers(&files, 4, 0), 3);
  ck_assert_uint_eq(ip_files_readers(&files, 2, IP_PARALLEL_MIN_AVERAGE), 0); /* small files */
  ip_paths_free(&files);
  ip_session s[3];
  for (unsigned j = 0; j < 3; j++)
    ck_assert_int_eq(load_dir(&s[j], dir, j + 1, err[j], sizeof err[j]), 0);
  ck_assert_uint_eq(s[0].n_processes, 3);
  ck_assert_uint_eq(s[0].n_threads, 3 * (THREADS + 1));
  ck_assert_uint_eq(s[0].n_modules, 4); /* [unknown], /bin/prog, /lib/libx.so, /lib/liby.so */
  /* 0: outer, inner, libcall, leaf, the placeholder of gid 5, late; 1 adds
   * xouter and xleaf; 2 its own outer, inner, leaf and late */
  ck_assert_uint_eq(s[0].n_funcs, 6 + 2 + 4);
  ck_assert_str_eq(s[0].modules[s[0].funcs[6].module].path, "/lib/libx.so");
  for (unsigned j = 1; j < 3; j++)
    assert_same(&s[0], &s[j]);
  for (unsigned j = 0; j < 3; j++)
    ip_session_free(&s[j]);
  /* b.ipb cut in the middle: read up to the damage, the same way. */
  char path[128];
  snprintf(path, sizeof path, "%s/b.ipb", dir);
  ck_assert_int_eq(truncate(path, (off_t)t[1].len / 2), 0);
  for (unsigned j = 0; j < 3; j++)
    ck_assert_int_eq(load_dir(&s[j], dir, j + 1, err[j], sizeof err[j]), 0);
  ck_assert_uint_eq(s[0].n_damaged, 1);
  ck_assert_ptr_nonnull(s[0].processes[1].damage);
  for (unsigned j = 1; j < 3; j++)
    assert_same(&s[0], &s[j]);
  for (unsigned j = 0; j < 3; j++)
    ip_session_free(&s[j]);
  /* b.ipb no trace at all: the same error. */
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fputs("not a trace, but long enough to look like one", f);
  ck_assert_int_eq(fclose(f), 0);
  for (unsigned j = 0; j < 3; j++)
    ck_assert_int_eq(load_dir(&s[j], dir, j + 1, err[j], sizeof err[j]), -1);
  ck_assert_ptr_nonnull(strstr(err[0], "b.ipb: not an inclprof trace (bad magic)"));
  ck_assert_str_eq(err[0], err[1]);
  ck_assert_str_eq(err[0], err[2]);
  /* b.ipb a trace whose header has no clock rate: it fails while read, in
   * parallel with the others, and stops the load the same way. */
  tg_trace bad;
  tg_begin(&bad, 90, 0, 3, INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS);
  tg_trailer(&bad, 1, "exit");
  fx_write(dir, "b.ipb", &bad);
  tg_free(&bad);
  for (unsigned j = 0; j < 3; j++)
    ck_assert_int_eq(load_dir(&s[j], dir, j + 1, err[j], sizeof err[j]), -1);
  ck_assert_ptr_nonnull(strstr(err[0], "b.ipb: offset 12: header has no valid ticks_per_second"));
  ck_assert_str_eq(err[0], err[1]);
  ck_assert_str_eq(err[0], err[2]);
  for (unsigned v = 0; v < 3; v++)
    tg_free(&t[v]);
  fx_cleanup(dir);
}
END_TEST

START_TEST(sums_kept_give_the_rows_of_the_paths) {
  const char *dir = fx_dir();
  tg_trace t[3];
  for (unsigned v = 0; v < 3; v++) {
    char name[16];
    snprintf(name, sizeof name, "%c.ipb", 'a' + v);
    build_variant(&t[v], v);
    fx_write(dir, name, &t[v]);
  }
  char err[512];
  for (unsigned jobs = 1; jobs <= 2; jobs++) {
    ip_session paths, sums, totals;
    ck_assert_int_eq(load_dir_keep(&paths, dir, jobs, IP_KEEP_PATHS, err, sizeof err), 0);
    ck_assert_int_eq(load_dir_keep(&sums, dir, jobs, IP_KEEP_SUMS, err, sizeof err), 0);
    ck_assert_int_eq(load_dir_keep(&totals, dir, jobs, IP_KEEP_TOTALS, err, sizeof err), 0);
    for (size_t i = 0; i < sums.n_threads; i++) {
      ck_assert_uint_eq(sums.threads[i].n_nodes, 1); /* the root alone */
      ck_assert_uint_eq(totals.threads[i].n_fn, 0);
    }
    ck_assert_uint_gt(paths.threads[0].n_nodes, 1);
    ck_assert(totals.sums_folded && !sums.sums_folded);
    for (ip_level l = IP_BY_FUNCTION; l <= IP_BY_PROCESS; l++) {
      assert_same_rows(&paths, &sums, l);
      assert_same_rows(&paths, &totals, l);
    }
    assert_same_latency(&paths, &sums);
    assert_same_latency(&paths, &totals);
    ip_session_free(&paths);
    ip_session_free(&sums);
    ip_session_free(&totals);
  }
  for (unsigned v = 0; v < 3; v++)
    tg_free(&t[v]);
  fx_cleanup(dir);
}
END_TEST
int main(void) {
  Suite *s = suite_create("replay_pool");
  TCase *tc = tcase_create("jobs");
  tcase_set_timeout(tc, 60); /* 400 loads with threads: seconds on a loaded machine */
  tcase_add_test(tc, jobs_give_the_serial_session);
  tcase_add_test(tc, gaps_and_functions_between_batches_give_the_serial_session);
  tcase_add_test(tc, files_read_in_parallel_give_the_serial_session);
  tcase_add_test(tc, sums_kept_give_the_rows_of_the_paths);
  tcase_add_test(tc, damaged_traces_give_the_serial_session);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
