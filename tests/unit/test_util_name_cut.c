/* test_util_name_cut.c - names cut to a width: what goes first (a return
 * type, the scopes' template arguments and namespaces, then those of the
 * parameters), the own name and the end of the signature kept, operators
 * and lambdas read right, plain text losing its middle, UTF-8 never split;
 * a table's names never cut to the same text (kept where they differ, a tag
 * as the last resort), checked on generated names at every width; and the
 * text table: names fitted to the width, deep levels as numbers, a name
 * column in the middle padded to at most IP_TT_PIPE_PAD without a width. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/name_cut.h"
#include "util/text_table.h"
#include "check_main.h"

static char out[4096];

static const char *cut(const char *name, size_t width) {
  ip_name_cut(name, width, 0, 0, 0, out, sizeof out);
  return out;
}

static int ends_with(const char *s, const char *end) {
  size_t a = strlen(s), b = strlen(end);
  return a >= b && !strcmp(s + a - b, end);
}

#define HOLDER(N)                                                                                  \
  "outer_space::inner_detail::Holder<std::map<std::__cxx11::basic_string<char, "                   \
  "std::char_traits<char>, std::allocator<char> >, std::vector<int, std::allocator<int> > >, "     \
  "outer_space::inner_detail::Policy<" N "> >::process(std::__cxx11::basic_string<char, "          \
  "std::char_traits<char>, std::allocator<char> > const&, unsigned long)"

START_TEST(fits_unchanged) {
  ck_assert_str_eq(cut("compute(int)", 12), "compute(int)");
  ck_assert_str_eq(cut("main", 40), "main");
}
END_TEST

START_TEST(scope_arguments_go_first) {
  const char *h = HOLDER("1");
  ck_assert_str_eq(cut(h, 150), "outer_space::inner_detail::Holder<...>::process(std::__cxx11::"
                                "basic_string<char, std::char_traits<char>, std::allocator<char> "
                                "> const&, unsigned long)");
  ck_assert_str_eq(
      cut(h, 90),
      "...::Holder<...>::process(std::__cxx11::basic_string<...> const&, unsigned long)");
  ck_assert_str_eq(cut(h, 40), "...::process(...> const&, unsigned long)");
}
END_TEST

START_TEST(return_type_goes_without_mark) {
  const char *n = "void std::vector<int, std::allocator<int> >::_M_realloc_insert<int>(int&&)";
  ck_assert_str_eq(cut(n, 70),
                   "std::vector<int, std::allocator<int> >::_M_realloc_insert<int>(int&&)");
  ck_assert_str_eq(cut(n, 50), "std::vector<...>::_M_realloc_insert<int>(int&&)");
}
END_TEST

START_TEST(overloads_keep_parameters) {
  ck_assert_str_eq(cut("ns::detail::compute(std::vector<std::string, std::allocator<std::string> "
                       "> const&)",
                       40),
                   "...::compute(std::vector<...> const&)");
  ck_assert_str_eq(cut("ns::detail::compute(double)", 20), "...::compute(double)");
}
END_TEST

START_TEST(operators_and_lambdas) {
  const char *op = "std::basic_ostream<char, std::char_traits<char> >& std::operator<< "
                   "<std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, "
                   "char const*)";
  cut(op, 60);
  ck_assert_uint_le(strlen(out), 60);
  ck_assert_ptr_nonnull(strstr(out, "operator<< <"));
  ck_assert(ends_with(out, "char const*)"));
  const char *lambda = "widgets::Registry::run(int)::{lambda(widgets::Item const&)#1}::operator()"
                       "(widgets::Item const&) const";
  ck_assert_str_eq(cut(lambda, 60), "...::{lambda(...)#1}::operator()(widgets::Item const&) const");
  ck_assert_str_eq(cut(lambda, 40), "...}::operator()(...::Item const&) const");
  const char *conv = "ns::Foo::operator std::__cxx11::basic_string<char, std::char_traits<char>, "
                     "std::allocator<char> >() const";
  ck_assert_str_eq(cut(conv, 50), "...::operator ...::basic_string<...>() const");
}
END_TEST

START_TEST(plain_and_unbalanced) {
  const char *path = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30";
  ip_name_cut(path, 30, 0, 0, IP_CUT_PLAIN, out, sizeof out);
  ck_assert_str_eq(out, "...nux-gnu/libstdc++.so.6.0.30");
  /* a name cut short by the runtime: no structure, its middle goes */
  const char *cutshort =
      "std::_Rb_tree<std::pair<int, int>, std::less<int> >::_M_insert<std::pair<int, int";
  cut(cutshort, 30);
  ck_assert_uint_le(strlen(out), 30);
  ck_assert(!strncmp(out, "std::_Rb_", 9));
  ck_assert(ends_with(out, "pair<int, int"));
}
END_TEST

START_TEST(utf8_never_split) {
  const char *n =
      "f\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9x";
  for (size_t w = 1; w < strlen(n); w++) {
    ip_name_cut(n, w, 0, 0, IP_CUT_PLAIN, out, sizeof out);
    ck_assert_uint_le(strlen(out), w);
    for (const char *p = out; *p; p++)
      if (((unsigned char)*p & 0xC0) == 0xC0) /* a lead byte has its continuation */
        ck_assert(((unsigned char)p[1] & 0xC0) == 0x80);
  }
}
END_TEST

static void cut_all(const char *const *names, size_t n, size_t width, char **cuts) {
  size_t widths[64] = {0};
  for (size_t i = 0; i < n; i++)
    widths[i] = width;
  ip_names_cut(names, widths, n, 0, cuts);
}

START_TEST(table_keeps_differences) {
  const char *names[] = {HOLDER("1"), HOLDER("2"), HOLDER("3"), "compute(int)", "compute(double)"};
  char *cuts[5];
  for (size_t w = 30; w <= 90; w += 10) {
    cut_all(names, 5, w, cuts);
    for (int i = 0; i < 3; i++) {
      char want[32];
      snprintf(want, sizeof want, "Policy<%d>", i + 1);
      ck_assert_msg(strstr(cuts[i], want), "width %zu: %s", w, cuts[i]);
      ck_assert_uint_le(strlen(cuts[i]), w);
    }
    ck_assert_str_eq(cuts[3], "compute(int)");
    for (int i = 0; i < 5; i++)
      free(cuts[i]);
  }
}
END_TEST

START_TEST(table_tags_as_last_resort) {
  char a[120], b[120];
  memset(a, 'x', 100), memset(b, 'x', 100);
  a[100] = b[100] = 0;
  a[50] = 'A', b[50] = 'B';
  const char *names[] = {a, b, a};
  char *cuts[3];
  cut_all(names, 3, 6, cuts);
  ck_assert_str_ne(cuts[0], cuts[1]);
  ck_assert_str_eq(cuts[0], cuts[2]); /* one name, one text */
  ck_assert(ends_with(cuts[0], "~1") && ends_with(cuts[1], "~2"));
  for (int i = 0; i < 3; i++) {
    ck_assert_uint_le(strlen(cuts[i]), 6);
    free(cuts[i]);
  }
}
END_TEST

/* Generated C++-like names that differ anywhere: every width keeps them
 * apart, within the width. */
START_TEST(table_generated_names) {
  static const char *const parts[] = {"ns::",  "detail::", "Box<int>::", "Map<K, V<int> >::",
                                      "f",     "g<char>",  "(int)",      "(double, char const*)",
                                      " const"};
  enum { N = 40 };
  char buf[N][256];
  const char *names[N];
  unsigned seed = 12345;
  for (int i = 0; i < N; i++) {
    buf[i][0] = 0;
    for (int k = 0; k < 4; k++) {
      seed = seed * 1103515245u + 12345u;
      strcat(buf[i], parts[(seed >> 16) % 4]);
    }
    seed = seed * 1103515245u + 12345u;
    strcat(buf[i], parts[4 + (seed >> 16) % 2]);
    seed = seed * 1103515245u + 12345u;
    strcat(buf[i], parts[6 + (seed >> 16) % 2]);
    names[i] = buf[i];
  }
  char *cuts[N];
  for (size_t w = 8; w <= 80; w++) {
    cut_all(names, N, w, cuts);
    for (int i = 0; i < N; i++) {
      ck_assert_uint_le(strlen(cuts[i]), w);
      for (int j = 0; j < i; j++)
        ck_assert_msg(!strcmp(names[i], names[j]) == !strcmp(cuts[i], cuts[j]),
                      "width %zu: '%s' and '%s' as '%s' and '%s'", w, names[i], names[j], cuts[i],
                      cuts[j]);
    }
    for (int i = 0; i < N; i++)
      free(cuts[i]);
  }
}
END_TEST

static char *printed(const ip_ttable *t, size_t width) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  ip_tt_print_fit(t, f, 0, width);
  fclose(f);
  return text;
}

START_TEST(text_table_fits_and_levels) {
  ip_ttable t;
  ip_tt_init(&t, 2);
  ip_tt_add(&t, "Calls");
  ip_tt_add(&t, "Call path");
  ip_tt_add(&t, "1");
  ip_tt_add_level(&t, 0, "main");
  ip_tt_add(&t, "2");
  ip_tt_add_level(&t, 1, "ns::detail::work(std::vector<int, std::allocator<int> > const&)");
  ip_tt_add(&t, "3");
  ip_tt_add_level(&t, 30, "leaf()");
  char *text = printed(&t, 40);
  ck_assert_str_eq(text, "Calls  Call path\n"
                         "    1  main\n"
                         "    2    ...::work(...ector<...> const&)\n"
                         "    3             [31] leaf()\n");
  free(text);
  text = printed(&t, 0);
  char deep[128];
  snprintf(deep, sizeof deep, "\n    3  %*sleaf()\n", 60, ""); /* two blanks a level */
  ck_assert_ptr_nonnull(strstr(text, deep));
  free(text);
  ip_tt_free(&t);
}
END_TEST

START_TEST(text_table_pipe_pads_names_little) {
  ip_ttable t;
  ip_tt_init(&t, 3);
  ip_tt_names(&t, 1, 0);
  ip_tt_add(&t, "At");
  ip_tt_add(&t, "Function");
  ip_tt_add(&t, "Why");
  char longname[200];
  memset(longname, 'n', 150);
  longname[150] = 0;
  ip_tt_add(&t, "a.c:1");
  ip_tt_add(&t, "%s", longname);
  ip_tt_add(&t, "unused");
  ip_tt_add(&t, "b.c:2");
  ip_tt_add(&t, "f");
  ip_tt_add(&t, "inlined");
  char *text = printed(&t, 0);
  char want[512];
  snprintf(want, sizeof want, "   At  Function%*s  Why\na.c:1  %s  unused\nb.c:2  f%*s  inlined\n",
           IP_TT_PIPE_PAD - 8, "", longname, IP_TT_PIPE_PAD - 1, "");
  ck_assert_str_eq(text, want);
  free(text);
  ip_tt_free(&t);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("name_cut");
  TCase *c = tcase_create("core");
  tcase_add_test(c, fits_unchanged);
  tcase_add_test(c, scope_arguments_go_first);
  tcase_add_test(c, return_type_goes_without_mark);
  tcase_add_test(c, overloads_keep_parameters);
  tcase_add_test(c, operators_and_lambdas);
  tcase_add_test(c, plain_and_unbalanced);
  tcase_add_test(c, utf8_never_split);
  tcase_add_test(c, table_keeps_differences);
  tcase_add_test(c, table_tags_as_last_resort);
  tcase_add_test(c, table_generated_names);
  tcase_add_test(c, text_table_fits_and_levels);
  tcase_add_test(c, text_table_pipe_pads_names_little);
  suite_add_tcase(s, c);
  return s;
}

int main(void) { return ip_check_run(suite()); }
