/* test_convert_latency.c - the per-call distributions (convert/model/latency.c
 * over include/inclprof/latency_buckets.h): every value falls in a bucket
 * whose middle is within 1/128 of it, quantiles of a million known values
 * are within that of the exact order statistic, the smallest and largest are
 * exact, and merging two histograms equals adding every value to one. */
#include "model/latency.h"

#include <check.h>
#include <stdlib.h>

#include "check_main.h"
#include "latency_buckets.h"

START_TEST(every_value_is_in_its_bucket_and_near_its_middle) {
  /* every value to 1000, then a geometric walk to the top of uint64_t */
  size_t bad = 0, n = 0;
  for (uint64_t v = 0; v < UINT64_MAX / 2; v = v < 1000 ? v + 1 : v + v / 97 + 1, n++) {
    uint32_t b = ip_lat_bucket(v);
    uint64_t lo = ip_lat_bucket_low(b), w = ip_lat_bucket_width(b), mid = ip_lat_bucket_mid(b);
    double err = v ? ((double)mid - (double)v) / (double)v : 0;
    bad += b >= IP_LAT_BUCKETS || lo > v || v - lo >= w || err > 1.0 / 128 || err < -1.0 / 128;
  }
  ck_assert_uint_eq(bad, 0);
  ck_assert_uint_gt(n, 4000);
  ck_assert_uint_eq(ip_lat_bucket(UINT64_MAX), IP_LAT_BUCKETS - 1);
  ck_assert_uint_eq(ip_lat_bucket(63), 63);
  ck_assert_uint_eq(ip_lat_bucket(64), 64);
  ck_assert_uint_eq(ip_lat_bucket_low(ip_lat_bucket(1007)), 1000); /* 512..1023: width 8 */
}
END_TEST

static int by_value(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

START_TEST(quantiles_of_a_known_sample) {
  enum { N = 1000000 };
  uint64_t *v = malloc(N * sizeof *v);
  ck_assert_ptr_nonnull(v);
  ip_lat h = {0};
  srand(7);
  for (int i = 0; i < N; i++) { /* 98 % near 40 us, 2 % near 2 ms: bimodal */
    v[i] = i % 50 == 49 ? 2000000 + (uint64_t)(rand() % 400000) : 40000 + (uint64_t)(rand() % 3000);
    ip_lat_add(&h, v[i]);
  }
  qsort(v, N, sizeof *v, by_value);
  const double q[] = {0.5, 0.9, 0.97, 0.99, 0.999};
  for (size_t i = 0; i < sizeof q / sizeof *q; i++) {
    uint64_t exact = v[(size_t)(q[i] * N) - 1], got = ip_lat_quantile(&h, q[i]);
    double err = ((double)got - (double)exact) / (double)exact;
    ck_assert_msg(err <= 1.0 / 128 && err >= -1.0 / 128, "q %.3f: %llu for %llu", q[i],
                  (unsigned long long)got, (unsigned long long)exact);
  }
  ck_assert_uint_eq(ip_lat_quantile(&h, 0), v[0]);
  ck_assert_uint_eq(ip_lat_quantile(&h, 1), v[N - 1]);
  ck_assert_uint_eq(h.min, v[0]);
  ck_assert_uint_eq(h.max, v[N - 1]);
  ck_assert_uint_eq(h.n, N);
  ck_assert_uint_eq(ip_lat_count_between(&h, 1000000, UINT64_MAX), N / 50);
  ip_lat_free(&h);
  free(v);
}
END_TEST

START_TEST(merging_equals_adding_everything_to_one) {
  ip_lat a = {0}, b = {0}, all = {0};
  for (uint64_t i = 1; i < 100000; i += 7) {
    ip_lat_add(i % 3 ? &a : &b, i * i);
    ip_lat_add(&all, i * i);
  }
  ip_lat_merge(&a, &b);
  ck_assert_uint_eq(a.n, all.n);
  ck_assert_uint_eq(a.present, all.present);
  ck_assert_uint_eq(a.min, all.min);
  ck_assert_uint_eq(a.max, all.max);
  int differ = 0;
  for (int p = 1; p <= 1000; p++)
    differ += ip_lat_quantile(&a, p / 1000.0) != ip_lat_quantile(&all, p / 1000.0);
  ck_assert_int_eq(differ, 0);
  ip_lat empty = {0};
  ck_assert_uint_eq(ip_lat_quantile(&empty, 0.5), 0);
  ip_lat_merge(&empty, &all);
  ck_assert_uint_eq(ip_lat_quantile(&empty, 0.99), ip_lat_quantile(&all, 0.99));
  ip_lat_free(&a);
  ip_lat_free(&b);
  ip_lat_free(&all);
  ip_lat_free(&empty);
}
END_TEST

START_TEST(one_value_is_exact) {
  ip_lat h = {0};
  ip_lat_add(&h, 231826124);
  ck_assert_uint_eq(ip_lat_quantile(&h, 0.5), 231826124);
  ck_assert_uint_eq(ip_lat_quantile(&h, 0.999), 231826124);
  ck_assert_uint_eq(__builtin_popcountll(h.present), 1);
  ip_lat_free(&h);
}
END_TEST

int main(void) {
  Suite *s = suite_create("latency");
  TCase *tc = tcase_create("latency");
  tcase_add_test(tc, every_value_is_in_its_bucket_and_near_its_middle);
  tcase_add_test(tc, quantiles_of_a_known_sample);
  tcase_add_test(tc, merging_equals_adding_everything_to_one);
  tcase_add_test(tc, one_value_is_exact);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
