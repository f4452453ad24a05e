/* test_convert_csv.c - the CSV export and the text views: exact headers per
 * level, RFC 4180 quoting of C++ names, exact values and percentages in the
 * rows, readable units, --by/--sort parsing, callers and callees values. */
#include "convert_fixture.h"
#include "export/csv.h"
#include "util/text_table.h"
#include "views/views.h"
#include "check_main.h"

#define CPP_NAME "std::map<int, \"q\">::at(int const&)"

static const char *const value_cols =
    "calls,elapsed_inclusive_ns,elapsed_exclusive_ns,application_inclusive_ns,"
    "application_exclusive_ns,elapsed_inclusive_pct,elapsed_exclusive_pct,"
    "application_inclusive_pct,application_exclusive_pct,inclusive_samples,exclusive_samples,"
    "inclusive_samples_pct,exclusive_samples_pct,offcpu_preempted_inclusive_ns,"
    "offcpu_preempted_exclusive_ns,offcpu_blocked_inclusive_ns,offcpu_blocked_exclusive_ns,"
    "syscall_inclusive_ns,syscall_exclusive_ns,page_fault_inclusive_ns,page_fault_exclusive_ns,"
    "page_faults_inclusive,page_faults_exclusive";

/* main (400 ns, own 100) calls the C++ function twice (100 ns each, the
 * second transitional) and write once (100 ns). */
static void load(ip_session *s) {
  tg_trace t;
  static tg_batch b;
  tg_begin(&t, 42, 1e9, 0, INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS);
  tg_module(&t, 1, "/bin/app, v2");
  tg_function(&t, 1, 1, "main", "app.cc", 3);
  tg_function(&t, 2, 1, CPP_NAME, "map.h", 99);
  tg_function(&t, 3, 0, "write", "", 0);
  tg_thread(&t, 7, "main");
  tg_batch_init(&b, 7);
  tg_ev(&b, 0, 0, TG_ENTER, 1);
  tg_ev(&b, 50, 0, TG_ENTER, 2);
  tg_ev(&b, 150, 0, TG_EXIT, 2);
  tg_ev(&b, 160, 0, TG_ENTER, 2);
  tg_ev(&b, 260, 1, TG_EXIT, 2);
  tg_ev(&b, 270, 0, TG_CALL, 3);
  tg_ev(&b, 370, 0, TG_RET, 3);
  tg_ev(&b, 400, 0, TG_EXIT, 1);
  tg_flush(&t, &b);
  const char *dir = fx_dir();
  fx_load(s, fx_write(dir, "42.ipb", &t), 0);
  fx_cleanup(dir);
  tg_free(&t);
}

static char *csv(const ip_session *s, ip_level l) {
  char *text;
  size_t len;
  FILE *f = open_memstream(&text, &len);
  ck_assert_int_eq(ip_export_csv(s, l, NULL, f), 0);
  fclose(f);
  return text;
}

START_TEST(csv_by_function_exact) {
  ip_session s;
  load(&s);
  char *text = csv(&s, IP_BY_FUNCTION), expect[2048];
  snprintf(expect, sizeof expect,
           "function,module,file,line,%s\n"
           "main,\"/bin/app, v2\",app.cc,3,1,400,100,300,100,100.000000,25.000000,100.000000,"
           "33.333333,0,0,0.000000,0.000000,0,0,0,0,0,0,0,0,0,0\n"
           "\"std::map<int, \"\"q\"\">::at(int const&)\",\"/bin/app, v2\",map.h,99,2,200,200,100,"
           "100,50.000000,50.000000,33.333333,33.333333,0,0,0.000000,0.000000,0,0,0,0,0,0,0,0,0,0\n"
           "write,[unknown],,0,1,100,100,100,100,25.000000,25.000000,33.333333,33.333333,0,0,"
           "0.000000,0.000000,0,0,0,0,0,0,0,0,0,0\n",
           value_cols);
  ck_assert_str_eq(text, expect);
  free(text);
  ip_session_free(&s);
}
END_TEST

START_TEST(csv_other_levels_key_columns) {
  ip_session s;
  load(&s);
  const char *keys[] = {"module", "pid,tid,thread", "pid,executable"};
  const char *first_row[] = {"\"/bin/app, v2\",3,400,", "42,7,main,4,400,", "42,/bin/prog,4,400,"};
  for (int l = IP_BY_MODULE; l <= IP_BY_PROCESS; l++) {
    char *text = csv(&s, (ip_level)l), head[1024];
    snprintf(head, sizeof head, "%s,%s\n", keys[l - 1], value_cols);
    ck_assert_msg(!strncmp(text, head, strlen(head)), "header of level %d: %s", l, text);
    ck_assert_msg(!strncmp(text + strlen(head), first_row[l - 1], strlen(first_row[l - 1])),
                  "first row of level %d: %s", l, text + strlen(head));
    free(text);
  }
  ip_session_free(&s);
}
END_TEST

START_TEST(callers_and_callees) {
  ip_session s;
  load(&s);
  ip_view_opts o = {.by = IP_BY_FUNCTION, .sort = IP_SORT_ELAPSED_INCL};
  char *text;
  size_t len;
  FILE *f = open_memstream(&text, &len);
  ck_assert_int_eq(ip_view_callers(f, &s, &o, "main", 1), 0);
  ck_assert_int_eq(ip_view_callers(f, &s, &o, "write", 0), 0);
  ck_assert_int_eq(ip_view_callers(f, &s, &o, "nothing", 0), -1);
  fclose(f);
  /* callees of main: the C++ function (2 calls, 200 ns) before write (100 ns) */
  const char *cpp = strstr(text, CPP_NAME), *wr = strstr(text, "  write\n");
  ck_assert_ptr_nonnull(cpp);
  ck_assert_ptr_nonnull(wr);
  ck_assert((cpp) < (wr));
  ck_assert_msg(strstr(text, "      2   200 ns    50.00%   200 ns    50.00%    100 ns     33.33%"),
                "%s", text);
  ck_assert_ptr_nonnull(strstr(text, "callers of write"));
  ck_assert_ptr_nonnull(strstr(text, "  main\n"));
  free(text);
  ip_session_free(&s);
}
END_TEST

START_TEST(units_and_parsing) {
  char b[32];
  ip_fmt_ns(b, sizeof b, 999);
  ck_assert_str_eq(b, "999 ns");
  ip_fmt_ns(b, sizeof b, 12345);
  ck_assert_str_eq(b, "12.35 us");
  ip_fmt_ns(b, sizeof b, 5600000);
  ck_assert_str_eq(b, "5.60 ms");
  ip_fmt_ns(b, sizeof b, 1234000000);
  ck_assert_str_eq(b, "1.234 s");
  ip_level l;
  ck_assert_int_eq(ip_level_parse("module", &l), 0);
  ck_assert_int_eq(l, IP_BY_MODULE);
  ck_assert_int_eq(ip_level_parse("file", &l), -1);
  ip_sort so;
  ck_assert_int_eq(ip_sort_parse("application-exclusive", &so), 0);
  ck_assert_int_eq(so, IP_SORT_APP_EXCL);
  ck_assert_int_eq(ip_sort_parse("elapsed_exclusive_ns", &so), 0);
  ck_assert_int_eq(so, IP_SORT_ELAPSED_EXCL);
  ck_assert_int_eq(ip_sort_parse("speed", &so), -1);
}
END_TEST

START_TEST(table_view_sorted_with_percentages) {
  ip_session s;
  load(&s);
  ip_view_opts o = {.by = IP_BY_FUNCTION, .sort = IP_SORT_ELAPSED_EXCL, .top = 2};
  char *text;
  size_t len;
  FILE *f = open_memstream(&text, &len);
  ip_view_table(f, &s, &o);
  fclose(f);
  /* exclusive order: the C++ function (200) then main (100); write cut by --top */
  const char *cpp = strstr(text, CPP_NAME), *m = strstr(text, "  main\n");
  ck_assert_ptr_nonnull(cpp);
  ck_assert_ptr_nonnull(m);
  ck_assert((cpp) < (m));
  ck_assert_ptr_null(strstr(text, "write"));
  ck_assert_ptr_nonnull(strstr(text, "33.33%"));
  free(text);
  ip_session_free(&s);
}
END_TEST

int main(void) {
  Suite *su = suite_create("convert_csv");
  TCase *tc = tcase_create("views");
  tcase_add_test(tc, csv_by_function_exact);
  tcase_add_test(tc, csv_other_levels_key_columns);
  tcase_add_test(tc, callers_and_callees);
  tcase_add_test(tc, units_and_parsing);
  tcase_add_test(tc, table_view_sorted_with_percentages);
  suite_add_tcase(su, tc);
  return ip_check_run(su);
}
