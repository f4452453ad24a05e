/* test_convert_fuzz.c - bounded fuzzing of the loader and replay (run in
 * `make check`, also under ASan+UBSan): thousands of seeded random mutations
 * of a synthetic trace - byte flips with and without repaired checksums,
 * truncations, insertions, deletions.  Every load must either fail cleanly
 * or produce values that keep the invariants of the values' rules
 * ("The values" in docs/converter.md).  Also replays the fuzzers' corpus of
 * interesting traces (tests/fuzz/corpus, under INCLPROF_SRC or the current
 * directory) with the same expectations. */
#include <dirent.h>

#include "convert_fixture.h"
#include "check_main.h"

#define MUTATIONS 3000

static uint64_t rng_state;
static uint32_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(rng_state >> 33);
}

/* A small trace touching every record and event kind, with kernel-event
 * records (and one batch that lost them). */
static void seed_trace(tg_trace *t) {
  static tg_batch b;
  tg_begin_kev(t, 7, 2.5e9, 3.5, INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS, 1);
  tg_module(t, 1, "/bin/prog");
  tg_module(t, 2, "/lib/libc.so.6");
  for (uint32_t g = 1; g <= 6; g++)
    tg_function(t, g, g < 5 ? 1 : 2, g == 3 ? "ns::f(int, \"q\")" : "fn", "prog.c", g);
  for (uint32_t tid = 1; tid <= 2; tid++) {
    tg_thread(t, tid, "worker");
    tg_batch_init(&b, tid);
    uint64_t tick = 100;
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < 8; i++) {
        tg_ev(&b, tick += 7, 0, TG_ENTER, 1);
        tg_ev(&b, tick += 11, 0, TG_ENTER, 2);
        tg_ev(&b, tick += 5, 1, TG_CALL, 5);
        tg_kev(&b, tick + 2, INCLPROF__KERNEL_EVENT_KIND__KEV_SYSCALL);
        tg_kev(&b, tick + 3, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_BLOCKED);
        tg_kev(&b, tick + 8, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN);
        tg_kev(&b, tick + 9, INCLPROF__KERNEL_EVENT_KIND__KEV_PAGE_FAULT);
        tg_ev(&b, tick += 13, 1, TG_RET, 5);
        tg_ev(&b, tick += 3, 0, TG_CALL, 3);
        tg_ev(&b, tick += 1, 0, TG_ENTER, 3);
        tg_ev(&b, tick += 2, 0, TG_SAMPLE, (uint32_t)i & 1);
        tg_ev(&b, tick += 9, 0, TG_EXIT, 3);
        tg_ev(&b, tick += 1, 0, TG_RET, 3);
        tg_ev(&b, tick += 4, 0, TG_EXIT, 2);
        tg_ev(&b, tick += 6, 0, TG_EXIT, 1);
      }
      tg_ev(&b, tick += 2, 0, TG_PAUSE, 0);
      tg_ev(&b, tick += 50, 0, TG_RESUME, 0);
      b.klost = tid == 2 && round == 1;
      tg_flush(t, &b);
      tg_gap(t, tid, tick + 1, tick + 20);
    }
  }
  tg_trailer(t, 1, "exit");
}

static void mutate(uint8_t *buf, size_t *len, size_t cap) {
  uint32_t kind = rnd() % 5, pos = *len ? rnd() % (uint32_t)*len : 0;
  switch (kind) {
  case 0: /* flip bits, checksums left wrong */
    buf[pos] ^= (uint8_t)(1u << rnd() % 8);
    break;
  case 1: /* overwrite bytes past the preamble, checksums repaired */
  case 2:
    for (uint32_t i = 0, n = 1 + rnd() % 4; i<n && * len> IP_TRACE_PREAMBLE_LEN; i++)
      buf[IP_TRACE_PREAMBLE_LEN + rnd() % (*len - IP_TRACE_PREAMBLE_LEN)] = (uint8_t)rnd();
    tg_fix_crcs(buf, *len);
    break;
  case 3: /* truncate */
    *len = pos;
    break;
  default: /* insert or delete a byte */
    if (rnd() % 2 && *len < cap) {
      memmove(buf + pos + 1, buf + pos, *len - pos);
      buf[pos] = (uint8_t)rnd();
      (*len)++;
    } else if (*len) {
      memmove(buf + pos, buf + pos + 1, *len - pos - 1);
      (*len)--;
    }
  }
}

/* The invariants any successful load keeps, whatever the input. */
static void check_invariants(const ip_session *s) {
  ip_row *rows;
  size_t n = ip_aggregate(s, IP_BY_FUNCTION, NULL, &rows);
  for (size_t i = 0; i < n; i++) {
    const ip_values *v = &rows[i].v;
    ck_assert_uint_le(v->el_excl, v->el_incl);
    ck_assert_uint_le(v->app_incl, v->el_incl);
    ck_assert_uint_le(v->app_excl, v->app_incl);
    ck_assert_uint_le(v->el_incl, s->total.el_incl);
    ck_assert_uint_le(v->smp_excl, v->smp_incl);
    ck_assert_uint_le(v->smp_incl, s->total.smp_incl);
    ck_assert(v->calls == 0 || v->min_call <= v->max_call);
  }
  free(rows);
}

START_TEST(random_mutations_never_crash) {
  tg_trace t;
  seed_trace(&t);
  const char *dir = fx_dir();
  char path[128];
  snprintf(path, sizeof path, "%s/m.ipb", dir);
  size_t cap = t.len + 64;
  uint8_t *buf = malloc(cap);
  ck_assert_ptr_nonnull(buf);
  rng_state = 12345;
  int loaded = 0, refused = 0;
  for (int i = 0; i < MUTATIONS; i++) {
    size_t len = t.len;
    memcpy(buf, t.buf, len);
    for (uint32_t k = 0, n = 1 + rnd() % 3; k < n; k++)
      mutate(buf, &len, cap);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
    ip_session s;
    char error[512] = "";
    ip_load_opts o = {.quiet = 1, .raw = i & 1, .error = error, .error_len = sizeof error};
    char *p = path;
    int rc = ip_session_load(&s, &p, 1, &o);
    ck_assert(rc == 0 || rc == -1);
    /* A refusal is one line naming the file. */
    ck_assert(rc == 0 || (strstr(error, path) == error && !strchr(error, '\n')));
    if (rc == 0) {
      loaded++;
      check_invariants(&s);
      ip_session_free(&s);
    } else {
      refused++;
    }
  }
  /* The mutations exercised both paths. */
  ck_assert_int_gt(loaded, MUTATIONS / 10);
  ck_assert_int_gt(refused, MUTATIONS / 100);
  free(buf);
  tg_free(&t);
  fx_cleanup(dir);
}
END_TEST

START_TEST(unmutated_seed_is_clean) {
  tg_trace t;
  seed_trace(&t);
  const char *dir = fx_dir();
  ip_session s;
  fx_load(&s, fx_write(dir, "seed.ipb", &t), 0);
  ck_assert_uint_eq(s.n_damaged, 0);
  ck_assert_uint_eq(s.repairs, 0);
  ck_assert_uint_eq(s.events, 2 * 2 * (8 * 11 + 2));
  ck_assert_uint_eq(s.samples_in_runtime, 2 * 2 * 4);
  check_invariants(&s);
  ip_session_free(&s);
  tg_free(&t);
  fx_cleanup(dir);
}
END_TEST

/* A trace cut anywhere: before the header's end it is refused, after it the
 * records before the cut are used and the damage is named with its offset. */
START_TEST(truncation_keeps_the_records_before_it) {
  tg_trace t;
  seed_trace(&t);
  const char *dir = fx_dir();
  char path[128];
  snprintf(path, sizeof path, "%s/cut.ipb", dir);
  ip_session s;
  char error[512];
  ip_load_opts o = {.quiet = 1, .error = error, .error_len = sizeof error};
  char *p = path;
  size_t header_end = 0;
  for (size_t cut = 0; cut < t.len; cut += 7) {
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(t.buf, 1, cut, f), cut);
    ck_assert_int_eq(fclose(f), 0);
    int rc = ip_session_load(&s, &p, 1, &o);
    if (rc) {
      ck_assert_ptr_nonnull(strstr(error, path));
      ck_assert_uint_eq(header_end, 0); /* refusals only before the header is whole */
      continue;
    }
    if (!header_end)
      header_end = cut;
    ck_assert_uint_eq(s.n_processes, 1);
    if (s.n_damaged) {
      ck_assert_ptr_nonnull(strstr(s.processes[0].damage, path));
      ck_assert_ptr_nonnull(strstr(s.processes[0].damage, "offset "));
    }
    check_invariants(&s);
    ip_session_free(&s);
  }
  ck_assert_uint_gt(header_end, 0);
  tg_free(&t);
  fx_cleanup(dir);
}
END_TEST

/* A thread whose first tick lies 2^62 ticks after the process start, on a
 * 1 kHz clock (1 ms per tick): its start in ns does not fit 64 bits and is
 * held at the largest value (converting the double was undefined before). */
START_TEST(ticks_beyond_64_bit_ns_saturate) {
  tg_trace t;
  static tg_batch b;
  tg_begin(&t, 9, 1e3, 0, INCLPROF__TRANSITION_MODE__TRANSITIONS_NONE);
  tg_module(&t, 1, "/bin/prog");
  tg_function(&t, 1, 1, "far", "prog.c", 1);
  tg_thread(&t, 1, "main");
  tg_batch_init(&b, 1);
  tg_ev(&b, 1ull << 62, 0, TG_ENTER, 1);
  tg_ev(&b, (1ull << 62) + 4, 0, TG_EXIT, 1);
  tg_flush(&t, &b);
  tg_trailer(&t, 1, "exit");
  const char *dir = fx_dir();
  ip_session s;
  fx_load(&s, fx_write(dir, "far.ipb", &t), 0);
  ck_assert_uint_eq(s.n_threads, 1);
  ck_assert_uint_eq(s.threads[0].start_ns, UINT64_MAX);
  ck_assert_uint_eq(s.events, 2);
  check_invariants(&s);
  ip_session_free(&s);
  tg_free(&t);
  fx_cleanup(dir);
}
END_TEST

/* Every file of the fuzz corpus loads or is refused with one line naming it. */
START_TEST(fuzz_corpus_replays_cleanly) {
  const char *src = getenv("INCLPROF_SRC");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus", src ? src : ".");
  DIR *d = opendir(dir);
  ck_assert_msg(d != NULL, "%s: cannot open the fuzz corpus", dir);
  int files = 0, loaded = 0;
  for (const struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.')
      continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    char error[512] = "", *p = path;
    ip_load_opts o = {.quiet = 1, .error = error, .error_len = sizeof error};
    ip_session s;
    int rc = ip_session_load(&s, &p, 1, &o);
    ck_assert(rc == 0 || (strstr(error, path) == error && !strchr(error, '\n')));
    if (rc == 0) {
      loaded++;
      check_invariants(&s);
      ip_session_free(&s);
    }
    files++;
  }
  closedir(d);
  /* the corpus is there, and most of it reaches the replay */
  ck_assert_int_ge(files, 20);
  ck_assert_int_gt(loaded, files / 2);
}
END_TEST

int main(void) {
  Suite *su = suite_create("convert_fuzz");
  TCase *tc = tcase_create("mutations");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, unmutated_seed_is_clean);
  tcase_add_test(tc, random_mutations_never_crash);
  tcase_add_test(tc, truncation_keeps_the_records_before_it);
  tcase_add_test(tc, fuzz_corpus_replays_cleanly);
  tcase_add_test(tc, ticks_beyond_64_bit_ns_saturate);
  suite_add_tcase(su, tc);
  return ip_check_run(su);
}
