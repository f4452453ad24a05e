/* test_runtime_own_string.c - the runtime's own mem* and str* functions
 * (runtime/base/own_string.c, compiled here under other names) give what
 * libc's give: copies, overlapping moves both ways, fills and compares of
 * every length from 0 to 200 at every alignment of 0 to 15, and the string
 * functions on their edge cases (empty strings, the terminator searched
 * for, a bound inside and past the string), and strtol, strtoul and
 * strtoull on signs, prefixes, bases, stray characters and overflow, with
 * the end pointer and errno libc gives. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"

/* The file's loops stay loops here too, as in the runtime's build. */
#pragma GCC optimize("no-tree-loop-distribute-patterns")
#define memcpy   own_memcpy
#define memmove  own_memmove
#define memset   own_memset
#define memcmp   own_memcmp
#define memrchr  own_memrchr
#define strlen   own_strlen
#define strnlen  own_strnlen
#define strchr   own_strchr
#define strrchr  own_strrchr
#define strcmp   own_strcmp
#define strncmp  own_strncmp
#define strcpy   own_strcpy
#define strncpy  own_strncpy
#define strcspn  own_strcspn
#define strstr   own_strstr
#define strtol   own_strtol
#define strtoul  own_strtoul
#define strtoull own_strtoull
#include "base/own_string.c"
#undef memcpy
#undef memmove
#undef memset
#undef memcmp
#undef memrchr
#undef strlen
#undef strnlen
#undef strchr
#undef strrchr
#undef strcmp
#undef strncmp
#undef strcpy
#undef strncpy
#undef strcspn
#undef strstr
#undef strtol
#undef strtoul
#undef strtoull
#include <errno.h>

enum { MAXN = 200, ROOM = MAXN + 64 };

static void pattern(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++)
    p[i] = (unsigned char)(seed * 131u + i * 7u + 1u);
}

static int sign(int v) { return (v > 0) - (v < 0); }

START_TEST(copies_and_fills_match_libc) {
  unsigned char a[ROOM], b[ROOM], src[ROOM];
  for (size_t n = 0; n <= MAXN; n++)
    for (size_t off = 0; off < 16; off++) {
      pattern(src, ROOM, (unsigned)n);
      memset(a, 0x5a, ROOM);
      memset(b, 0x5a, ROOM);
      ck_assert_ptr_eq(own_memcpy(a + off, src + 15 - off, n), a + off);
      memcpy(b + off, src + 15 - off, n);
      ck_assert_int_eq(memcmp(a, b, ROOM), 0);
      ck_assert_ptr_eq(own_memset(a + off, (int)(n + 0x100), n), a + off);
      memset(b + off, (int)(n + 0x100), n);
      ck_assert_int_eq(memcmp(a, b, ROOM), 0);
    }
}
END_TEST

START_TEST(overlapping_moves_match_libc) {
  unsigned char a[ROOM], b[ROOM];
  for (size_t n = 0; n <= MAXN; n += (n < 40 ? 1 : 7))
    for (size_t from = 0; from < 48; from += 3)
      for (size_t to = 0; to < 48; to += 5) {
        pattern(a, ROOM, (unsigned)(n + from));
        pattern(b, ROOM, (unsigned)(n + from));
        ck_assert_ptr_eq(own_memmove(a + to, a + from, n), a + to);
        memmove(b + to, b + from, n);
        ck_assert_int_eq(memcmp(a, b, ROOM), 0);
      }
}
END_TEST

START_TEST(compares_match_libc) {
  unsigned char a[ROOM], b[ROOM];
  for (size_t n = 0; n <= MAXN; n++) {
    pattern(a, ROOM, 3);
    pattern(b, ROOM, 3);
    ck_assert_int_eq(own_memcmp(a, b, n), 0);
    for (size_t at = 0; at < n; at += 5) {
      b[at] = (unsigned char)(a[at] + 0x80); /* above and below, as unsigned bytes */
      ck_assert_int_eq(sign(own_memcmp(a, b, n)), sign(memcmp(a, b, n)));
      ck_assert_int_eq(sign(own_memcmp(b, a, n)), sign(memcmp(b, a, n)));
      ck_assert_int_eq(own_memcmp(a, b, at), 0);
      b[at] = a[at];
    }
  }
}
END_TEST

START_TEST(string_functions_match_libc) {
  static const char *const s[] = {"", "a", "abc", "a/b/c", "INCLPROF_X=1", "\xff\x01", "abd", "ab"};
  char buf[32], ref[32];
  for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
    ck_assert_uint_eq(own_strlen(s[i]), strlen(s[i]));
    for (size_t m = 0; m < 6; m++)
      ck_assert_uint_eq(own_strnlen(s[i], m), strnlen(s[i], m));
    for (int c = 0; c < 256; c += 1)
      if (c == 0 || c == '/' || c == 'a' || c == 'b' || c == 0xff || c == '=') {
        ck_assert_ptr_eq(own_strchr(s[i], c), strchr(s[i], c));
        ck_assert_ptr_eq(own_strrchr(s[i], c), strrchr(s[i], c));
        ck_assert_ptr_eq(own_memrchr(s[i], c, strlen(s[i])), memrchr(s[i], c, strlen(s[i])));
      }
    ck_assert_uint_eq(own_strcspn(s[i], "/="), strcspn(s[i], "/="));
    ck_assert_uint_eq(own_strcspn(s[i], ""), strcspn(s[i], ""));
    for (size_t j = 0; j < sizeof s / sizeof s[0]; j++)
      ck_assert_ptr_eq(own_strstr(s[i], s[j]), strstr(s[i], s[j]));
    ck_assert_ptr_eq(own_strstr(s[i], "b/"), strstr(s[i], "b/"));
    for (size_t j = 0; j < sizeof s / sizeof s[0]; j++) {
      ck_assert_int_eq(sign(own_strcmp(s[i], s[j])), sign(strcmp(s[i], s[j])));
      for (size_t m = 0; m < 5; m++)
        ck_assert_int_eq(sign(own_strncmp(s[i], s[j], m)), sign(strncmp(s[i], s[j], m)));
    }
    memset(buf, 'x', sizeof buf);
    memset(ref, 'x', sizeof ref);
    ck_assert_ptr_eq(own_strcpy(buf, s[i]), buf);
    strcpy(ref, s[i]);
    ck_assert_int_eq(memcmp(buf, ref, sizeof buf), 0);
    for (size_t m = 0; m < 8; m++) {
      ck_assert_ptr_eq(own_strncpy(buf, s[i], m), buf);
      strncpy(ref, s[i], m);
      ck_assert_int_eq(memcmp(buf, ref, sizeof buf), 0);
    }
  }
}
END_TEST

START_TEST(number_parsing_matches_libc) {
  static const char *const s[] = {"0",
                                  "42",
                                  "  -17x",
                                  "+9",
                                  "0x1f",
                                  "0X",
                                  "0x",
                                  "017",
                                  "09",
                                  "",
                                  "-",
                                  "7fffffffffffffff",
                                  "8000000000000000",
                                  "-9223372036854775808",
                                  "-9223372036854775809",
                                  "18446744073709551615",
                                  "18446744073709551616",
                                  "99999999999999999999999",
                                  "ffffffffffffffff0",
                                  "-1",
                                  "55555555-55556000 r-xp",
                                  "\t\n 12 ",
                                  "zz"};
  static const int bases[] = {0, 8, 10, 16, 36};
  for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
    for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++) {
      char *e1, *e2;
      errno = 0;
      long l1 = own_strtol(s[i], &e1, bases[b]);
      int err1 = errno;
      errno = 0;
      long l2 = strtol(s[i], &e2, bases[b]);
      ck_assert_msg(l1 == l2 && e1 == e2 && err1 == errno, "strtol(\"%s\", %d)", s[i], bases[b]);
      errno = 0;
      unsigned long u1 = own_strtoul(s[i], &e1, bases[b]);
      err1 = errno;
      errno = 0;
      unsigned long u2 = strtoul(s[i], &e2, bases[b]);
      ck_assert_msg(u1 == u2 && e1 == e2 && err1 == errno, "strtoul(\"%s\", %d)", s[i], bases[b]);
      errno = 0;
      unsigned long long q1 = own_strtoull(s[i], &e1, bases[b]);
      err1 = errno;
      errno = 0;
      unsigned long long q2 = strtoull(s[i], &e2, bases[b]);
      ck_assert_msg(q1 == q2 && e1 == e2 && err1 == errno, "strtoull(\"%s\", %d)", s[i], bases[b]);
    }
}
END_TEST

int main(void) {
  Suite *s = suite_create("runtime_own_string");
  TCase *tc = tcase_create("own_string");
  tcase_add_test(tc, copies_and_fills_match_libc);
  tcase_add_test(tc, overlapping_moves_match_libc);
  tcase_add_test(tc, compares_match_libc);
  tcase_add_test(tc, string_functions_match_libc);
  tcase_add_test(tc, number_parsing_matches_libc);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
