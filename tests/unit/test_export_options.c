/* test_export_options.c - `inclprof export` option parsing: formats,
 * durations, ranges, which options fit which format, one-line errors. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "export/options.h"
#include "check_main.h"

static ip_export_opts o;
static char err[256];

/* Parses a NULL-terminated list of arguments, kept in argv_copy because
 * o.inputs points into them after the call. */
static char *argv_copy[16];
#define PARSE(...) parse((char *[]){"export", __VA_ARGS__, NULL})
static int parse(char **args) {
  int argc = 0;
  while (argc < 15 && args[argc]) {
    argv_copy[argc] = args[argc];
    argc++;
  }
  argv_copy[argc] = NULL;
  err[0] = 0;
  return ip_export_parse_args(argc, argv_copy, &o, err, sizeof err);
}

START_TEST(durations) {
  uint64_t ns;
  ck_assert_int_eq(ip_parse_duration("250", &ns), 0);
  ck_assert_uint_eq(ns, 250);
  ck_assert_int_eq(ip_parse_duration("250ns", &ns), 0);
  ck_assert_uint_eq(ns, 250);
  ck_assert_int_eq(ip_parse_duration("1.5us", &ns), 0);
  ck_assert_uint_eq(ns, 1500);
  ck_assert_int_eq(ip_parse_duration("2ms", &ns), 0);
  ck_assert_uint_eq(ns, 2000000);
  ck_assert_int_eq(ip_parse_duration("3s", &ns), 0);
  ck_assert_uint_eq(ns, 3000000000ull);
  const char *bad[] = {"", "-1", "+1", "ms", "1m", "1 ms", "1e400", "nan", "inf", "1.5msx", "20000000000s"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    ck_assert_msg(ip_parse_duration(bad[i], &ns) == -1, "'%s' accepted", bad[i]);
}
END_TEST

START_TEST(formats_and_defaults) {
  ck_assert_int_eq(PARSE("--format", "pprof"), IP_EXPORT_PARSE_OK);
  ck_assert_int_eq(o.format, IP_FMT_PPROF);
  ck_assert_ptr_null(o.output);
  ck_assert_uint_eq(o.n_inputs, 1);
  ck_assert_str_eq(o.inputs[0], "inclprof.data");
  ck_assert_int_eq(o.value, IP_VALUE_ELAPSED);
  ck_assert_int_eq(o.sel.has_range, 0);
  ck_assert_int_eq(o.sel.has_tid, 0);
  ck_assert_int_eq(o.sel.has_pid, 0);
  ck_assert_str_eq(ip_export_default_output(IP_FMT_PPROF), "inclprof.pb.gz");
  ck_assert_str_eq(ip_export_default_output(IP_FMT_CALLGRIND), "callgrind.out.inclprof");

  ck_assert_int_eq(PARSE("a.ipb", "-f", "chrome", "dir", "-o", "-", "--raw"), IP_EXPORT_PARSE_OK);
  ck_assert_int_eq(o.format, IP_FMT_CHROME);
  ck_assert_str_eq(o.output, "-");
  ck_assert_int_eq(o.raw, 1);
  ck_assert_uint_eq(o.n_inputs, 2);
  ck_assert_str_eq(o.inputs[0], "a.ipb");
  ck_assert_str_eq(o.inputs[1], "dir");

  ck_assert_int_eq(PARSE("--help"), IP_EXPORT_PARSE_HELP);
}
END_TEST

START_TEST(chrome_bounds) {
  ck_assert_int_eq(PARSE("--format=chrome", "--min-duration", "20us", "--max-events", "1000", "--time-range",
                         "1ms:2.5ms", "--thread", "4242"),
                   IP_EXPORT_PARSE_OK);
  ck_assert_uint_eq(o.min_duration_ns, 20000);
  ck_assert_uint_eq(o.max_events, 1000);
  ck_assert_uint_eq(o.sel.start_ns, 1000000);
  ck_assert_uint_eq(o.sel.end_ns, 2500000);
  ck_assert_int_eq(o.sel.has_tid, 1);
  ck_assert_uint_eq(o.sel.tid, 4242);
  ck_assert_int_eq(PARSE("-f", "chrome", "--time-range", "1ms:"), IP_EXPORT_PARSE_OK);
  ck_assert_uint_eq(o.sel.start_ns, 1000000);
  ck_assert_uint_eq(o.sel.end_ns, UINT64_MAX);
  ck_assert_int_eq(PARSE("-f", "chrome", "--time-range", ":5s"), IP_EXPORT_PARSE_OK);
  ck_assert_uint_eq(o.sel.start_ns, 0);
  ck_assert_uint_eq(o.sel.end_ns, 5000000000ull);
}
END_TEST

START_TEST(values) {
  ck_assert_int_eq(PARSE("-f", "folded", "--value", "application"), IP_EXPORT_PARSE_OK);
  ck_assert_int_eq(o.value, IP_VALUE_APPLICATION);
  ck_assert_int_eq(PARSE("-f", "pprof", "--value", "samples", "--merge-threads"), IP_EXPORT_PARSE_OK);
  ck_assert_int_eq(o.value, IP_VALUE_SAMPLES);
  ck_assert_int_eq(o.merge_threads, 1);
  ck_assert_int_eq(PARSE("-f", "csv", "--by", "module"), IP_EXPORT_PARSE_OK);
  ck_assert_int_eq(o.by, IP_BY_MODULE);
}
END_TEST

/* Each bad command line fails with one line naming the problem. */
START_TEST(errors) {
  static struct { /* not const: getopt may permute the arguments */
    char *args[6];
    const char *message;
  } cases[] = {
      {{"export", "a.ipb"}, "missing --format"},
      {{"export", "-f", "svg"}, "unknown format 'svg'"},
      {{"export", "-f", "pprof", "--bogus"}, "unknown option '--bogus'"},
      {{"export", "-f", "pprof", "-o"}, "option '-o' needs a value"},
      {{"export", "-f", "folded", "--value", "cpu"}, "unknown --value 'cpu'"},
      {{"export", "-f", "chrome", "--min-duration", "fast"}, "bad --min-duration 'fast'"},
      {{"export", "-f", "chrome", "--max-events", "0"}, "bad --max-events '0'"},
      {{"export", "-f", "chrome", "--time-range", "2ms:1ms"}, "bad --time-range '2ms:1ms'"},
      {{"export", "-f", "chrome", "--time-range", "2ms"}, "bad --time-range '2ms'"},
      {{"export", "-f", "chrome", "--thread", "x1"}, "bad --thread 'x1'"},
      {{"export", "-f", "pprof", "--min-duration", "1us"}, "--min-duration applies to --format chrome, not pprof"},
      {{"export", "-f", "chrome", "--merge-threads"}, "--merge-threads applies to"},
      {{"export", "-f", "pprof", "--by", "thread"}, "--by applies to --format csv, not pprof"},
      {{"export", "-f", "csv", "--by", "file"}, "unknown --by 'file' (function|module|thread|process)"},
      {{"export", "-f", "csv", "--process", "p1"}, "bad --process 'p1'"},
      {{"export", "-f", "csv", "--time-range", "1ms:2ms"}, "--time-range applies to --format chrome, not csv"},
      {{"export", "-f", "chrome", "--value", "elapsed"}, "--value applies to"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_int_eq(parse(cases[i].args), IP_EXPORT_PARSE_ERROR);
    ck_assert_msg(strstr(err, cases[i].message) != NULL, "case %zu: '%s'", i, err);
    ck_assert_msg(!strncmp(err, "inclprof export: ", 17) && !strchr(err, '\n'), "not one line: '%s'", err);
  }
}
END_TEST

START_TEST(selection_in_every_format) {
  ip_process procs[2] = {{.pid = 100}, {.pid = 200}};
  ip_thread threads[2] = {{.tid = 7, .process = 0}, {.tid = 8, .process = 1}};
  const ip_thread a = threads[0], b = threads[1];
  ip_session s = {.processes = procs, .n_processes = 2, .threads = threads, .n_threads = 2};
  static const char *const formats[] = {"csv", "pprof", "chrome", "callgrind", "folded"};
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
    ck_assert_int_eq(PARSE("-f", (char *)formats[i]), IP_EXPORT_PARSE_OK);
    ck_assert(ip_selected_thread(&s, &o.sel, &a) && ip_selected_thread(&s, &o.sel, &b));
    ck_assert_int_eq(PARSE("-f", (char *)formats[i], "--thread", "8"), IP_EXPORT_PARSE_OK);
    ck_assert(!ip_selected_thread(&s, &o.sel, &a) && ip_selected_thread(&s, &o.sel, &b));
    ck_assert_int_eq(PARSE("-f", (char *)formats[i], "--process", "100"), IP_EXPORT_PARSE_OK);
    ck_assert(ip_selected_thread(&s, &o.sel, &a) && !ip_selected_thread(&s, &o.sel, &b));
    ck_assert_int_eq(PARSE("-f", (char *)formats[i], "--process", "100", "--thread", "8"), IP_EXPORT_PARSE_OK);
    ck_assert(!ip_selected_thread(&s, &o.sel, &a) && !ip_selected_thread(&s, &o.sel, &b));
  }
  char why[64];
  ck_assert_int_eq(ip_selection_check(&s, &o.sel, why, sizeof why), 0);
  ck_assert_int_eq(PARSE("-f", "csv", "--process", "300"), IP_EXPORT_PARSE_OK);
  ck_assert_int_eq(ip_selection_check(&s, &o.sel, why, sizeof why), -1);
  ck_assert_str_eq(why, "--process 300: no such process");
}
END_TEST

int main(void) {
  Suite *s = suite_create("export_options");
  TCase *tc = tcase_create("options");
  tcase_add_test(tc, durations);
  tcase_add_test(tc, formats_and_defaults);
  tcase_add_test(tc, chrome_bounds);
  tcase_add_test(tc, values);
  tcase_add_test(tc, errors);
  tcase_add_test(tc, selection_in_every_format);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
