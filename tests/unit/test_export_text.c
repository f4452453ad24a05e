/* test_export_text.c - the text writers on a hand-built session: folded
 * stacks (lines, values, thread frames, merging, separators in names),
 * callgrind (self and inclusive costs as callgrind_annotate computes them,
 * recursion counted once, name compression) and Chrome trace JSON (exact
 * microsecond decimals, escaping, the size bounds). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/call_budget.h"
#include "export/call_spool.h"
#include "export/callgrind.h"
#include "export/chrome.h"
#include "export/folded.h"
#include "export/json.h"
#include "test_export_fixture.h"
#include "check_main.h"

static ip_session sess;
static ip_export_opts opts;
static char *text;

static void setup(void) {
  fx_session(&sess);
  memset(&opts, 0, sizeof opts);
  text = NULL;
}
static void teardown(void) {
  ip_session_free(&sess);
  free(text);
}

/* Runs a writer into memory; text holds the result. */
static FILE *start(void) {
  free(text);
  text = NULL;
  FILE *f = tmpfile();
  ck_assert_ptr_nonnull(f);
  return f;
}
static const char *finish(FILE *f) {
  long n = ftell(f);
  rewind(f);
  text = calloc(1, (size_t)n + 1);
  ck_assert_uint_eq(fread(text, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  return text;
}

static const char *folded(void) {
  FILE *f = start();
  ip_export_folded(&sess, &opts, f);
  return finish(f);
}

START_TEST(folded_lines_and_sum) {
  const char *t = folded();
  ck_assert_ptr_nonnull(strstr(t, "thread 100 (main);main;foo;bar 250\n"));
  ck_assert_ptr_nonnull(strstr(t, "thread 101 (worker) 7\n"));
  ck_assert_ptr_nonnull(strstr(t, "thread 101 (worker);fact(int);fact(int);fact(int);write 40\n"));
  unsigned long long sum = 0;
  int lines = 0;
  for (const char *l = t; *l; l = strchr(l, '\n') + 1) {
    char line[256];
    const char *nl = strchr(l, '\n');
    ck_assert(nl && (size_t)(nl - l) < sizeof line);
    memcpy(line, l, (size_t)(nl - l));
    line[nl - l] = 0;
    const char *sp = strrchr(line, ' '); /* "stack value" */
    ck_assert(sp && sp > line && sp[1]);
    char *end;
    sum += strtoull(sp + 1, &end, 10);
    ck_assert(*end == 0);
    lines++;
  }
  ck_assert_uint_eq(sum, 612);
  ck_assert_int_eq(lines, 9);
}
END_TEST

START_TEST(folded_values_and_merging) {
  opts.value = IP_VALUE_APPLICATION;
  const char *t = folded();
  ck_assert_ptr_null(strstr(t, ";write ")); /* 0 application time: no line */
  ck_assert_ptr_nonnull(strstr(t, "thread 100 (main);main;foo 150\n"));
  opts.value = IP_VALUE_SAMPLES;
  t = folded();
  ck_assert_ptr_nonnull(strstr(t, "thread 100 (main);main;foo;bar 3\n"));
  opts.value = IP_VALUE_ELAPSED;
  opts.merge_threads = 1;
  t = folded();
  ck_assert_ptr_nonnull(strstr(t, "(no function) 7\n"));
  ck_assert_ptr_nonnull(strstr(t, "\nmain;foo;bar 250\n"));
  ck_assert_ptr_null(strstr(t, "thread"));
}
END_TEST

START_TEST(folded_separators_in_names) {
  free(sess.funcs[FX_BAR].pretty);
  sess.funcs[FX_BAR].pretty = strdup("odd;name\nwith breaks");
  const char *t = folded();
  ck_assert_ptr_nonnull(strstr(t, ";main;foo;odd,name with breaks 250\n"));
}
END_TEST

static const char *callgrind(void) {
  FILE *f = start();
  ip_export_callgrind(&sess, &opts, f);
  return finish(f);
}

/* callgrind_annotate's reading: self per fn; inclusive = sum of incoming
 * call costs, or self + outgoing for functions nobody calls.  First event. */
typedef struct cg_fn {
  char name[256];
  long long self, in, out;
  int called;
} cg_fn;

static cg_fn *cg_lookup(cg_fn *fns, int *n, const char *name) {
  for (int i = 0; i < *n; i++)
    if (!strcmp(fns[i].name, name))
      return &fns[i];
  memset(&fns[*n], 0, sizeof fns[*n]);
  snprintf(fns[*n].name, sizeof fns[*n].name, "%s", name);
  return &fns[(*n)++];
}

static int cg_read(const char *t, cg_fn *fns) {
  char names[64][256] = {{0}};
  int n = 0, in_call = 0;
  cg_fn *cur = NULL, *callee = NULL;
  char line[512];
  for (const char *l = t; *l;) {
    const char *nl = strchr(l, '\n');
    size_t len = (size_t)(nl - l);
    memcpy(line, l, len);
    line[len] = 0;
    l = nl + 1;
    int id;
    char rest[256] = "";
    if (sscanf(line, "fn=(%d) %255[^\n]", &id, rest) >= 1 ||
        sscanf(line, "cfn=(%d) %255[^\n]", &id, rest) >= 1) {
      if (*rest)
        snprintf(names[id], sizeof names[id], "%s", rest);
      ck_assert_msg(names[id][0], "compressed name %d used before it was defined", id);
      if (line[0] == 'f')
        cur = cg_lookup(fns, &n, names[id]);
      else
        callee = cg_lookup(fns, &n, names[id]);
    } else if (!strncmp(line, "calls=", 6)) {
      ck_assert_int_gt(atoi(line + 6), 0);
      in_call = 1;
    } else if (line[0] >= '0' && line[0] <= '9') {
      long long ln, cost;
      ck_assert_int_eq(sscanf(line, "%lld %lld", &ln, &cost), 2);
      if (in_call) {
        callee->in += cost;
        callee->called = 1;
        cur->out += cost;
        in_call = 0;
      } else {
        cur->self += cost;
      }
    }
  }
  return n;
}

static void cg_expect(cg_fn *fns, int n, const char *name, long long self, long long incl) {
  for (int i = 0; i < n; i++)
    if (!strcmp(fns[i].name, name)) {
      long long got = fns[i].called ? fns[i].in : fns[i].self + fns[i].out;
      ck_assert_msg(fns[i].self == self && got == incl,
                    "%s: self %lld incl %lld, expected %lld %lld", name, fns[i].self, got, self,
                    incl);
      return;
    }
  ck_abort_msg("%s not in the callgrind file", name);
}

START_TEST(callgrind_self_and_inclusive) {
  const char *t = callgrind();
  ck_assert_ptr_nonnull(strstr(t, "# callgrind format\nversion: 1\n"));
  ck_assert_ptr_nonnull(strstr(t, "events: Elapsed Application Calls Samples\n"));
  ck_assert_ptr_nonnull(strstr(t, "\ntotals: 612 512 11 6\n"));
  cg_fn fns[16];
  int n = cg_read(t, fns);
  cg_expect(fns, n, "main", 50, 500);
  cg_expect(fns, n, "foo", 200, 450);
  cg_expect(fns, n, "bar", 250, 250);
  cg_expect(fns, n, "fact(int)", 60, 105); /* recursion: counted once */
  cg_expect(fns, n, "write", 40, 40);
  cg_expect(fns, n, FX_BOX_NAME, 5, 5);
  cg_expect(fns, n, "thread 100 (main)", 0, 500);
  cg_expect(fns, n, "thread 101 (worker)", 7, 112);
  /* the name is written once, then referred to by number */
  ck_assert_ptr_nonnull(strstr(t, "fn=(4) fact(int)\n"));
  const char *def = "fn=(4) fact(int)\n";
  ck_assert_ptr_null(strstr(strstr(t, def) + strlen(def), "fact(int)\n"));
}
END_TEST

START_TEST(callgrind_value_first_and_merge) {
  opts.value = IP_VALUE_APPLICATION;
  opts.merge_threads = 1;
  const char *t = callgrind();
  ck_assert_ptr_nonnull(strstr(t, "events: Application Elapsed Calls Samples\n"));
  cg_fn fns[16];
  int n = cg_read(t, fns);
  cg_expect(fns, n, "(all threads)", 7, 512);
  cg_expect(fns, n, "main", 40, 440);
  cg_expect(fns, n, "fact(int)", 60, 65);
}
END_TEST

static void chrome_replay(const ip_call_visitor *v) {
  ip_thread *main_t = &sess.threads[0], *worker = &sess.threads[1];
  v->on_call(v->ctx, &sess, main_t, FX_BAR, 2, 1300, 125, 100);
  v->on_call(v->ctx, &sess, main_t, FX_BAR, 2, 1425, 125, 125);
  v->on_call(v->ctx, &sess, main_t, FX_FOO, 1, 1100, 450, 400);
  v->on_call(v->ctx, &sess, main_t, FX_MAIN, 0, 1000, 500, 440);
  v->on_call(v->ctx, &sess, worker, FX_BOX, 0, 2000123456, 5, 5);
}

/* The export of chrome_replay's calls, replayed once as the command does. */
static const char *chrome_calls(void) {
  FILE *f = start();
  ip_chrome_writer *w = ip_chrome_new(&opts, f);
  chrome_replay(ip_chrome_visitor(w));
  ip_chrome_write(w, f, &sess);
  ip_chrome_free(w);
  return finish(f);
}

START_TEST(chrome_events) {
  const char *t = chrome_calls();
  ck_assert_ptr_nonnull(strstr(t, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"));
  ck_assert_ptr_nonnull(strstr(
      t, "{\"name\":\"foo\",\"cat\":\"function\",\"ph\":\"X\",\"ts\":1.100,\"dur\":0.450,"
         "\"pid\":100,\"tid\":100,\"args\":{\"application_us\":0.400,\"transitional_pct\":11.1}}"));
  ck_assert_ptr_nonnull(strstr(t, "\"name\":\"ns::Box<int, \\\"q\\\\\\\\\\\">::get() const\""));
  ck_assert_ptr_nonnull(strstr(t, "\"ts\":2000123.456,\"dur\":0.005"));
  ck_assert_ptr_nonnull(strstr(t, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":100,\"tid\":100,"
                                  "\"args\":{\"name\":\"demo\"}}"));
  ck_assert_ptr_nonnull(strstr(t, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":100,\"tid\":101,"
                                  "\"args\":{\"name\":\"worker\"}}"));
  ck_assert_ptr_nonnull(strstr(t, "\n]}\n"));
}
END_TEST

static int count(const char *t, const char *what) {
  int n = 0;
  for (const char *p = t; (p = strstr(p, what)); p++)
    n++;
  return n;
}

START_TEST(chrome_bounds) {
  opts.min_duration_ns = 200;
  ck_assert_int_eq(count(chrome_calls(), "\"ph\":\"X\""), 2); /* foo, main */
  opts.min_duration_ns = 0;
  opts.sel.has_tid = 1;
  opts.sel.tid = 101;
  const char *t = chrome_calls();
  ck_assert_int_eq(count(t, "\"ph\":\"X\""), 1);
  ck_assert_int_eq(count(t, "thread_name"), 1);
  opts.sel.has_tid = 0;
  opts.sel.has_range = 1;
  opts.sel.start_ns = 1450; /* overlapping [1450, 1500): the second bar, foo, main */
  opts.sel.end_ns = 1500;
  ck_assert_int_eq(count(chrome_calls(), "\"ph\":\"X\""), 3);
  opts.sel.start_ns = 1501; /* after main ended at 1500: the second bar and foo */
  opts.sel.end_ns = 1549;
  ck_assert_int_eq(count(chrome_calls(), "\"ph\":\"X\""), 2);
  opts.sel.has_range = 0;
  opts.max_events = 3; /* the longest: main, foo, then the first bar of the two of 125 ns */
  const char *three = chrome_calls();
  ck_assert_int_eq(count(three, "\"ph\":\"X\""), 3);
  ck_assert_int_eq(count(three, "\"name\":\"bar\""), 1);
  ck_assert_ptr_nonnull(strstr(three, "\"ts\":1.300,\"dur\":0.125"));
  ck_assert_ptr_null(strstr(three, "Box"));
}
END_TEST

/* Equal durations: the caller ranks first although it ends after its callee. */
START_TEST(chrome_keeps_callers) {
  opts.max_events = 1;
  FILE *f = start();
  ip_chrome_writer *w = ip_chrome_new(&opts, f);
  const ip_call_visitor *v = ip_chrome_visitor(w);
  v->on_call(v->ctx, &sess, &sess.threads[0], FX_BAR, 1, 1000, 70, 70);
  v->on_call(v->ctx, &sess, &sess.threads[0], FX_FOO, 0, 1000, 70, 70);
  ip_chrome_write(w, f, &sess);
  ck_assert_uint_eq(ip_chrome_written(w), 1);
  ck_assert_uint_eq(ip_chrome_left_out(w), 1);
  ip_chrome_free(w);
  const char *t = finish(f);
  ck_assert_ptr_nonnull(strstr(t, "\"name\":\"foo\""));
  ck_assert_ptr_null(strstr(t, "\"name\":\"bar\""));
}
END_TEST

/* --max-size: the longest calls that fit, the size estimated before writing,
 * and the one line saying so. */
START_TEST(chrome_max_size) {
  opts.max_size = UINT64_MAX; /* --max-size 0: every call, written as the replay reports it */
  FILE *f = start();
  ip_chrome_writer *w = ip_chrome_new(&opts, f);
  chrome_replay(ip_chrome_visitor(w));
  ck_assert_uint_eq(ip_chrome_written(w), 5);
  ip_chrome_write(w, f, &sess);
  ip_chrome_free(w);
  size_t full = strlen(finish(f));
  opts.max_size = 0; /* the default bound: sized, nothing left out */
  ck_assert_uint_eq(strlen(chrome_calls()), full);
  opts.max_size = full; /* exactly the full size: nothing left out */
  ck_assert_uint_eq(strlen(chrome_calls()), full);
  opts.max_size = full - 1; /* one byte less: the shortest call (Box, 5 ns) goes */
  const char *four = chrome_calls();
  ck_assert_int_eq(count(four, "\"ph\":\"X\""), 4);
  ck_assert_ptr_null(strstr(four, "\"dur\":0.005"));
  ck_assert_uint_le(strlen(four), full - 1);
  /* the report of a writer that left calls out */
  f = start();
  ip_chrome_writer *r = ip_chrome_new(&opts, f);
  chrome_replay(ip_chrome_visitor(r));
  ip_chrome_write(r, f, &sess);
  char *err_text = NULL;
  size_t err_len = 0;
  FILE *e = open_memstream(&err_text, &err_len);
  ip_chrome_report(r, e);
  fclose(e);
  ip_chrome_free(r);
  finish(f);
  char want[256];
  snprintf(want, sizeof want,
           "inclprof export: chrome: all 5 calls would take %zu bytes, over --max-size %zu bytes: "
           "kept the 4 longest (125ns and longer, ",
           full, full - 1);
  ck_assert_msg(!strncmp(err_text, want, strlen(want)), "%s", err_text);
  ck_assert_ptr_nonnull(strstr(err_text, "left out 1; more with --max-size SIZE (0: every call)"));
  ck_assert_int_eq(count(err_text, "\n"), 1);
  free(err_text);
}
END_TEST

/* The floor while calls are added: 0 while all fit, then the first rank not
 * taken whole, which later calls (a smaller rank above it) never push
 * below the final plan's cut, and whose own calls may still be kept. */
START_TEST(budget_floor_under_final_cut) {
  ip_budget b = {0};
  ip_budget_add(&b, 100, 50);
  ck_assert_uint_eq(ip_budget_floor(&b, 0, 120), 0);
  ip_budget_add(&b, 80, 40);
  ip_budget_add(&b, 80, 40);
  ck_assert_uint_eq(ip_budget_floor(&b, 0, 120), 80); /* 50 + 80 > 120 */
  ck_assert_uint_eq(ip_budget_floor(&b, 2, 0), 80);   /* two calls at most */
  ip_budget_add(&b, 90, 10);
  ck_assert_uint_eq(ip_budget_floor(&b, 0, 120), 80);
  ip_budget_cut cut;
  ip_budget_plan(&b, 0, 120, &cut);
  ck_assert_uint_eq(cut.key, 80); /* 50 + 10 + one call of rank 80 */
  ck_assert_uint_eq(cut.quota, 1);
  ck_assert_uint_eq(cut.calls, 3);
  ip_budget_free(&b);
}
END_TEST

/* Records of two sizes past a 100-byte memory bound: read back in the order
 * they were put, from the temporary file and then the memory. */
START_TEST(spool_order_past_memory) {
  ip_spool *sp = ip_spool_new(100);
  for (uint64_t i = 0; i < 1000; i++) {
    ip_spool_put(sp, &i, sizeof i);
    if (i % 3 == 0) {
      uint32_t extra[3] = {(uint32_t)i, (uint32_t)i + 1, (uint32_t)i + 2};
      ip_spool_put(sp, extra, sizeof extra);
    }
  }
  uint64_t v;
  uint32_t extra[3];
  for (uint64_t i = 0; i < 1000; i++) {
    ck_assert(ip_spool_get(sp, &v, sizeof v));
    ck_assert_uint_eq(v, i);
    if (i % 3 == 0) {
      ck_assert(ip_spool_get(sp, extra, sizeof extra));
      ck_assert_uint_eq(extra[0], i);
      ck_assert_uint_eq(extra[2], i + 2);
    }
  }
  ck_assert(!ip_spool_get(sp, &v, sizeof v));
  ip_spool_free(sp);
}
END_TEST

/* Decimal integers at every digit count's edges, and the digit count. */
START_TEST(json_integers) {
  static const uint64_t v[] = {0, 9, 10, 99, 100, 999, 1000, 12345, 1000000007, UINT64_MAX};
  static const char *const want[] = {"0",   "9",    "10",    "99",         "100",
                                     "999", "1000", "12345", "1000000007", "18446744073709551615"};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
    char b[24];
    *ip_json_u64(b, v[i]) = 0;
    ck_assert_str_eq(b, want[i]);
    ck_assert_uint_eq(ip_json_digits(v[i]), strlen(want[i]));
  }
}
END_TEST

START_TEST(json_strings) {
  FILE *f = start();
  ip_json_string(f, "a\"b\\c\n\t\x01<>,");
  putc(' ', f);
  ip_json_string(
      f,
      "caf\xc3\xa9 \xff bad \xe2\x82 end \xed\xa0\x80"); /* é ok; stray, truncated, surrogate bytes */
  putc(' ', f);
  ip_json_string(f, NULL);
  ck_assert_str_eq(finish(f),
                   "\"a\\\"b\\\\c\\n\\t\\u0001<>,\" "
                   "\"caf\xc3\xa9 \\ufffd bad \\ufffd\\ufffd end \\ufffd\\ufffd\\ufffd\" \"\"");
}
END_TEST

int main(void) {
  Suite *s = suite_create("export_text");
  TCase *tc = tcase_create("text");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, folded_lines_and_sum);
  tcase_add_test(tc, folded_values_and_merging);
  tcase_add_test(tc, folded_separators_in_names);
  tcase_add_test(tc, callgrind_self_and_inclusive);
  tcase_add_test(tc, callgrind_value_first_and_merge);
  tcase_add_test(tc, chrome_events);
  tcase_add_test(tc, chrome_bounds);
  tcase_add_test(tc, chrome_keeps_callers);
  tcase_add_test(tc, chrome_max_size);
  tcase_add_test(tc, budget_floor_under_final_cut);
  tcase_add_test(tc, spool_order_past_memory);
  tcase_add_test(tc, json_strings);
  tcase_add_test(tc, json_integers);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
