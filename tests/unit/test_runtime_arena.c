/* test_runtime_arena.c - the runtime's own memory: blocks come zeroed and
 * aligned, keep their bytes through a realloc, a freed block of a class is
 * the next one that class gives, blocks above the largest class are
 * mappings of their own, and four threads taking and giving back blocks at
 * once never get a block another thread holds. */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "base/base.h"
#include "check_main.h"

static int all_zero(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i])
      return 0;
  return 1;
}

START_TEST(blocks_are_zeroed_and_aligned) {
  static const size_t sizes[] = {1, 15, 16, 17, 100, 1000, 4096, 65520, 65536, 200000};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    unsigned char *p = ip_alloc(sizes[i]);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq((uintptr_t)p % 16, 0);
    ck_assert(all_zero(p, sizes[i]));
    memset(p, 0xab, sizes[i]);
    ip_free(p);
    unsigned char *q = ip_alloc(sizes[i]); /* the same class again: zeroed anew */
    ck_assert(all_zero(q, sizes[i]));
    ip_free(q);
  }
}
END_TEST

START_TEST(a_freed_block_is_reused) {
  void *p = ip_alloc(40);
  ip_free(p);
  void *q = ip_alloc(48); /* the same class (64 bytes with the header) */
  ck_assert_ptr_eq(p, q);
  ip_free(q);
}
END_TEST

START_TEST(realloc_keeps_the_bytes) {
  char *p = ip_realloc(NULL, 10);
  memcpy(p, "0123456789", 10);
  p = ip_realloc(p, 100000);
  ck_assert_int_eq(memcmp(p, "0123456789", 10), 0);
  ck_assert(all_zero((unsigned char *)p + 10, 100000 - 10));
  ck_assert_ptr_eq(ip_realloc(p, 50), p); /* shrinking keeps the block */
  ip_free(p);
  char *s = ip_strndup("abcdef", 3);
  ck_assert_str_eq(s, "abc");
  ip_free(s);
  s = ip_strdup("xyz");
  ck_assert_str_eq(s, "xyz");
  ip_free(s);
}
END_TEST

#define ROUNDS 20000
static void *churn(void *arg) {
  uintptr_t me = (uintptr_t)arg;
  void *held[16] = {0};
  for (int i = 0; i < ROUNDS; i++) {
    int k = i % 16;
    if (held[k]) {
      size_t n = 24 + (size_t)(k * 40);
      for (size_t b = 0; b < n; b++)
        if (((unsigned char *)held[k])[b] != (unsigned char)me)
          return (void *)1; /* another thread wrote into our block */
      ip_free(held[k]);
    }
    size_t n = 24 + (size_t)(k * 40);
    held[k] = ip_alloc(n);
    if (!held[k])
      return (void *)1;
    memset(held[k], (int)me, n);
  }
  for (int k = 0; k < 16; k++)
    ip_free(held[k]);
  return NULL;
}

/* A block of its own mapping grows by mremap: the bytes written so far
 * kept, every new byte zero, through doublings from 100 KB to 6.4 MB (an
 * array of pending entries, as the registry grows it), and at sizes that
 * are not whole pages. */
START_TEST(a_grown_mapping_keeps_its_bytes) {
  size_t n = 100000;
  unsigned char *p = ip_alloc(n);
  ck_assert_ptr_nonnull(p);
  for (size_t i = 0; i < n; i++)
    p[i] = (unsigned char)(i * 7 + 1);
  for (int round = 0; round < 6; round++) {
    size_t grown = 2 * n + 123;
    p = ip_realloc(p, grown);
    ck_assert_ptr_nonnull(p);
    size_t kept = 0;
    while (kept < n && p[kept] == (unsigned char)(kept * 7 + 1))
      kept++;
    ck_assert_uint_eq(kept, n);
    ck_assert(all_zero(p + n, grown - n));
    for (size_t i = n; i < grown; i++)
      p[i] = (unsigned char)(i * 7 + 1);
    n = grown;
  }
  ip_free(p);
}
END_TEST

START_TEST(threads_never_share_a_block) {
  pthread_t t[4];
  for (uintptr_t i = 0; i < 4; i++)
    pthread_create(&t[i], NULL, churn, (void *)(i + 1));
  for (int i = 0; i < 4; i++) {
    void *bad;
    pthread_join(t[i], &bad);
    ck_assert_ptr_null(bad);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("runtime_arena");
  TCase *tc = tcase_create("arena");
  tcase_add_test(tc, blocks_are_zeroed_and_aligned);
  tcase_add_test(tc, a_freed_block_is_reused);
  tcase_add_test(tc, realloc_keeps_the_bytes);
  tcase_add_test(tc, a_grown_mapping_keeps_its_bytes);
  tcase_add_test(tc, threads_never_share_a_block);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
