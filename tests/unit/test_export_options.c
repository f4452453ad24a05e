/* test_export_options.c - `inclprof export` option parsing: formats,
 * durations, ranges, which options fit which format, one-line errors. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/export_options.h"
#include "check_main.h"

static ip_export_args args;
static const ip_export_opts *const o = &args.opts;
static ip_cli_msg msg;
static const char *const err = msg.text;

/* Parses a NULL-terminated list of arguments, kept in argv_copy because
 * args.inputs points into them after the call. */
static char *argv_copy[16];
#define PARSE(...) parse((char *[]){"export", __VA_ARGS__, NULL})
static int parse(char **list) {
  int argc = 0;
  while (argc < 15 && list[argc]) {
    argv_copy[argc] = list[argc];
    argc++;
  }
  argv_copy[argc] = NULL;
  return ip_export_parse_args(argc, argv_copy, &args, &msg);
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
  const char *bad[] = {"",      "-1",  "+1",  "ms",     "1m",          "1 ms",
                       "1e400", "nan", "inf", "1.5msx", "20000000000s"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    ck_assert_msg(ip_parse_duration(bad[i], &ns) == -1, "'%s' accepted", bad[i]);
}
END_TEST

START_TEST(formats_and_defaults) {
  ck_assert_int_eq(PARSE("--format", "pprof"), IP_CLI_OK);
  ck_assert_str_eq(args.format->name, "pprof");
  ck_assert_ptr_null(args.output);
  ck_assert_uint_eq(args.n_inputs, 1);
  ck_assert_str_eq(args.inputs[0], "inclprof.data");
  ck_assert_int_eq(o->value, IP_VALUE_ELAPSED);
  ck_assert_int_eq(o->sel.has_range, 0);
  ck_assert_int_eq(o->sel.has_tid, 0);
  ck_assert_int_eq(o->sel.has_pid, 0);
  ck_assert_str_eq(args.format->default_output, "inclprof.pb.gz");
  ck_assert_str_eq(ip_exporter_find("callgrind")->default_output, "callgrind.out.inclprof");
  ck_assert_ptr_null(ip_exporter_find("svg"));

  ck_assert_int_eq(PARSE("a.ipb", "-f", "chrome", "dir", "-o", "-", "--raw"), IP_CLI_OK);
  ck_assert_str_eq(args.format->name, "chrome");
  ck_assert_str_eq(args.output, "-");
  ck_assert_int_eq(args.raw, 1);
  ck_assert_uint_eq(args.n_inputs, 2);
  ck_assert_str_eq(args.inputs[0], "a.ipb");
  ck_assert_str_eq(args.inputs[1], "dir");

  ck_assert_int_eq(PARSE("--help"), IP_CLI_HELP);
}
END_TEST

START_TEST(chrome_bounds) {
  ck_assert_int_eq(PARSE("--format=chrome", "--min-duration", "20us", "--max-events", "1000",
                         "--time-range", "1ms:2.5ms", "--thread", "4242"),
                   IP_CLI_OK);
  ck_assert_uint_eq(o->min_duration_ns, 20000);
  ck_assert_uint_eq(o->max_events, 1000);
  ck_assert_uint_eq(o->sel.start_ns, 1000000);
  ck_assert_uint_eq(o->sel.end_ns, 2500000);
  ck_assert_int_eq(o->sel.has_tid, 1);
  ck_assert_uint_eq(o->sel.tid, 4242);
  ck_assert_int_eq(PARSE("-f", "chrome", "--time-range", "1ms:"), IP_CLI_OK);
  ck_assert_uint_eq(o->sel.start_ns, 1000000);
  ck_assert_uint_eq(o->sel.end_ns, UINT64_MAX);
  ck_assert_int_eq(PARSE("-f", "chrome", "--time-range", ":5s"), IP_CLI_OK);
  ck_assert_uint_eq(o->sel.start_ns, 0);
  ck_assert_uint_eq(o->sel.end_ns, 5000000000ull);
  ck_assert_int_eq(PARSE("-f", "chrome"), IP_CLI_OK);
  ck_assert_uint_eq(o->max_size, 0); /* the default bound */
  ck_assert_int_eq(PARSE("-f", "chrome", "--max-size", "64M"), IP_CLI_OK);
  ck_assert_uint_eq(o->max_size, 64u << 20);
  ck_assert_int_eq(PARSE("-f", "chrome", "--max-size", "1.5G"), IP_CLI_OK);
  ck_assert_uint_eq(o->max_size, 3ull << 29);
  ck_assert_int_eq(PARSE("-f", "chrome", "--max-size", "1000"), IP_CLI_OK);
  ck_assert_uint_eq(o->max_size, 1000);
  /* the runtime's INCLPROF_MAX_SIZE syntax too (include/inclprof/size_syntax.h) */
  ck_assert_int_eq(PARSE("-f", "chrome", "--max-size", "500MB"), IP_CLI_OK);
  ck_assert_uint_eq(o->max_size, 500u << 20);
  ck_assert_int_eq(PARSE("-f", "chrome", "--max-size", "2t"), IP_CLI_OK);
  ck_assert_uint_eq(o->max_size, 2ull << 40);
  ck_assert_int_eq(PARSE("-f", "chrome", "--max-size", "0"), IP_CLI_OK);
  ck_assert_uint_eq(o->max_size, UINT64_MAX); /* no bound */
}
END_TEST

START_TEST(values) {
  ck_assert_int_eq(PARSE("-f", "folded", "--value", "application"), IP_CLI_OK);
  ck_assert_int_eq(o->value, IP_VALUE_APPLICATION);
  ck_assert_int_eq(PARSE("-f", "pprof", "--value", "samples", "--merge-threads"), IP_CLI_OK);
  ck_assert_int_eq(o->value, IP_VALUE_SAMPLES);
  ck_assert_int_eq(o->merge_threads, 1);
  ck_assert_int_eq(PARSE("-f", "csv", "--by", "module"), IP_CLI_OK);
  ck_assert_int_eq(o->by, IP_BY_MODULE);
}
END_TEST

/* Each bad command line fails with one line naming the problem. */
START_TEST(errors) {
  static struct { /* not const: getopt may permute the arguments */
    char *args[6];
    const char *message;
  } cases[] = {
      {{"export", "a.ipb"}, "missing --format"},
      {{"export", "-f", "svg"},
       "unknown format 'svg' (csv, pprof, chrome, callgrind, folded, html, speedscope, "
       "perfetto or locks)"},
      {{"export", "-f", "pprof", "--bogus"}, "unknown option '--bogus'"},
      {{"export", "-f", "pprof", "-o"}, "option '-o' needs a value"},
      {{"export", "-f", "folded", "--value", "cpu"}, "unknown --value 'cpu'"},
      {{"export", "-f", "chrome", "--min-duration", "fast"}, "bad --min-duration 'fast'"},
      {{"export", "-f", "chrome", "--max-events", "0"}, "bad --max-events '0'"},
      {{"export", "-f", "chrome", "--max-size", "12X"}, "bad --max-size '12X'"},
      {{"export", "-f", "chrome", "--max-size", "1."}, "bad --max-size '1.'"},
      {{"export", "-f", "chrome", "--max-size", "0x10"}, "bad --max-size '0x10'"},
      {{"export", "-f", "chrome", "--max-size", "17179869184G"}, "bad --max-size '17179869184G'"},
      {{"export", "-f", "chrome", "--max-size", "-1"}, "bad --max-size '-1'"},
      {{"export", "-f", "csv", "--max-size", "1G"},
       "--max-size applies to --format chrome, speedscope or perfetto, not csv"},
      {{"export", "-f", "chrome", "--time-range", "2ms:1ms"}, "bad --time-range '2ms:1ms'"},
      {{"export", "-f", "chrome", "--time-range", "2ms"}, "bad --time-range '2ms'"},
      {{"export", "-f", "chrome", "--thread", "x1"}, "bad --thread 'x1'"},
      {{"export", "-f", "pprof", "--min-duration", "1us"},
       "--min-duration applies to --format chrome, speedscope or perfetto, not pprof"},
      {{"export", "-f", "chrome", "--merge-threads"},
       "--merge-threads applies to --format pprof, callgrind or folded, not chrome"},
      {{"export", "-f", "pprof", "--by", "thread"}, "--by applies to --format csv, not pprof"},
      {{"export", "-f", "csv", "--by", "file"},
       "unknown --by 'file' (function|module|thread|process)"},
      {{"export", "-f", "csv", "--process", "p1"}, "bad --process 'p1'"},
      {{"export", "-f", "csv", "--time-range", "1ms:2ms"},
       "--time-range applies to --format chrome, speedscope or perfetto, not csv"},
      {{"export", "-f", "chrome", "--value", "elapsed"},
       "--value applies to --format pprof, callgrind, folded or speedscope, not chrome"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_int_eq(parse(cases[i].args), IP_CLI_ERROR);
    ck_assert_msg(strstr(err, cases[i].message) != NULL, "case %zu: '%s'", i, err);
    ck_assert_msg(!strncmp(err, "inclprof export: ", 17) && !strchr(err, '\n'),
                  "not one line: '%s'", err);
    const char *tail = "; try 'inclprof export --help'";
    ck_assert_msg(strlen(err) > strlen(tail) && !strcmp(err + strlen(err) - strlen(tail), tail),
                  "no pointer to --help: '%s'", err);
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
    ck_assert_int_eq(PARSE("-f", (char *)formats[i]), IP_CLI_OK);
    ck_assert(ip_selected_thread(&s, &o->sel, &a) && ip_selected_thread(&s, &o->sel, &b));
    ck_assert_int_eq(PARSE("-f", (char *)formats[i], "--thread", "8"), IP_CLI_OK);
    ck_assert(!ip_selected_thread(&s, &o->sel, &a) && ip_selected_thread(&s, &o->sel, &b));
    ck_assert_int_eq(PARSE("-f", (char *)formats[i], "--process", "100"), IP_CLI_OK);
    ck_assert(ip_selected_thread(&s, &o->sel, &a) && !ip_selected_thread(&s, &o->sel, &b));
    ck_assert_int_eq(PARSE("-f", (char *)formats[i], "--process", "100", "--thread", "8"),
                     IP_CLI_OK);
    ck_assert(!ip_selected_thread(&s, &o->sel, &a) && !ip_selected_thread(&s, &o->sel, &b));
  }
  char why[64];
  ck_assert_int_eq(ip_selection_check(&s, &o->sel, why, sizeof why), 0);
  ck_assert_int_eq(PARSE("-f", "csv", "--process", "300"), IP_CLI_OK);
  ck_assert_int_eq(ip_selection_check(&s, &o->sel, why, sizeof why), -1);
  ck_assert_str_eq(why, "--process 300: no such process");
}
END_TEST

/* Every format of the list is complete, found by its name, and shown by
 * --help with its default output; a streaming format can also discard. */
START_TEST(exporter_table) {
  static const char *const names[] = {"csv",  "pprof",      "chrome",   "callgrind", "folded",
                                      "html", "speedscope", "perfetto", "locks"};
  size_t n = 0;
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  ip_export_usage(f);
  fclose(f);
  for (const ip_exporter *const *e = ip_exporters; *e; e++, n++) {
    ck_assert_str_eq((*e)->name, names[n]);
    ck_assert_ptr_eq(ip_exporter_find((*e)->name), *e);
    ck_assert_ptr_nonnull((*e)->write);
    ck_assert_int_eq((*e)->begin != NULL, (*e)->discard != NULL);
    ck_assert_int_eq(PARSE("-f", (char *)(*e)->name), IP_CLI_OK);
    ck_assert_ptr_eq(args.format, *e);
    ck_assert_msg(strstr(text, (*e)->default_output), "%s missing from --help",
                  (*e)->default_output);
  }
  ck_assert_uint_eq(n, 9);
  ck_assert_ptr_nonnull(ip_exporter_find("chrome")->begin);
  ck_assert_ptr_null(ip_exporter_find("csv")->begin);
  ck_assert_ptr_nonnull(strstr(text, "      --by LEVEL         csv: one row per LEVEL"));
  ck_assert_ptr_nonnull(strstr(text, "--merge-threads    pprof, callgrind or folded: merge"));
  ck_assert_ptr_nonnull(
      strstr(text, "--slowest FN       chrome, speedscope or perfetto: only FN's"));
  char list[128];
  ip_exporter_names(IP_EXOPT_MIN_DURATION | IP_EXOPT_TIME_RANGE, list, sizeof list);
  ck_assert_str_eq(list, "chrome, speedscope or perfetto");
  ip_exporter_names(0, list, sizeof list);
  ck_assert_str_eq(list,
                   "csv, pprof, chrome, callgrind, folded, html, speedscope, perfetto or locks");
  free(text);
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
  tcase_add_test(tc, exporter_table);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
