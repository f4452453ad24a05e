/* test_export_pprof.c - the pprof writer on a hand-built session: the file
 * is gzip + profile.proto, pprof's flat/cum (computed here as pprof does)
 * equal the known Exclusive/Inclusive values, sample types, labels,
 * functions and mappings are as documented, --merge-threads merges, a call
 * path with call lines is one sample per line with its share of the values. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export/pprof.h"
#include "profile.pb-c.h"
#include "test_export_fixture.h"
#include "check_main.h"

static ip_session sess;
static ip_export_opts opts;

static void setup(void) {
  fx_session(&sess);
  memset(&opts, 0, sizeof opts);
}
static void teardown(void) { ip_session_free(&sess); }

/* Exports, gunzips and decodes. */
static InclprofPprof__Profile *export_profile(void) {
  FILE *f = tmpfile();
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(ip_export_pprof(&sess, &opts, f, "test.pb.gz"), 0);
  long n = ftell(f);
  rewind(f);
  unsigned char *gz = malloc((size_t)n);
  ck_assert_ptr_nonnull(gz);
  ck_assert_uint_eq(fread(gz, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  ck_assert(n > 2 && gz[0] == 0x1f && gz[1] == 0x8b); /* gzip magic */
  size_t cap = 1 << 20;
  unsigned char *raw = malloc(cap);
  z_stream z;
  memset(&z, 0, sizeof z);
  ck_assert_int_eq(inflateInit2(&z, 15 + 16), Z_OK);
  z.next_in = gz;
  z.avail_in = (uInt)n;
  z.next_out = raw;
  z.avail_out = (uInt)cap;
  ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
  size_t len = cap - z.avail_out;
  inflateEnd(&z);
  InclprofPprof__Profile *p = inclprof_pprof__profile__unpack(NULL, len, raw);
  ck_assert_ptr_nonnull(p);
  free(gz);
  free(raw);
  return p;
}

static const char *str(const InclprofPprof__Profile *p, int64_t i) {
  ck_assert(i >= 0 && (size_t)i < p->n_string_table);
  return p->string_table[i];
}

static int type_index(const InclprofPprof__Profile *p, const char *type) {
  for (size_t i = 0; i < p->n_sample_type; i++)
    if (!strcmp(str(p, p->sample_type[i]->type), type))
      return (int)i;
  return -1;
}

static const char *location_name(const InclprofPprof__Profile *p, uint64_t loc_id) {
  for (size_t i = 0; i < p->n_location; i++)
    if (p->location[i]->id == loc_id) {
      ck_assert_uint_eq(p->location[i]->n_line, 1);
      for (size_t k = 0; k < p->n_function; k++)
        if (p->function[k]->id == p->location[i]->line[0]->function_id)
          return str(p, p->function[k]->name);
    }
  ck_abort_msg("location %llu not found", (unsigned long long)loc_id);
  return NULL;
}

/* pprof's flat (leaf) and cum (anywhere on the stack, once per sample). */
static void flat_cum(const InclprofPprof__Profile *p, const char *type, const char *fn,
                     int64_t *flat, int64_t *cum) {
  int t = type_index(p, type);
  ck_assert_int_ge(t, 0);
  *flat = *cum = 0;
  for (size_t i = 0; i < p->n_sample; i++) {
    const InclprofPprof__Sample *s = p->sample[i];
    ck_assert_uint_eq(s->n_value, p->n_sample_type);
    for (size_t k = 0; k < s->n_location_id; k++)
      if (!strcmp(location_name(p, s->location_id[k]), fn)) {
        *cum += s->value[t];
        if (k == 0)
          *flat += s->value[t];
        break;
      }
  }
}

static void expect(const InclprofPprof__Profile *p, const char *type, const char *fn, int64_t flat,
                   int64_t cum) {
  int64_t f, c;
  flat_cum(p, type, fn, &f, &c);
  ck_assert_msg(f == flat && c == cum, "%s %s: flat %lld cum %lld, expected %lld %lld", type, fn,
                (long long)f, (long long)c, (long long)flat, (long long)cum);
}

/* The line of location loc_id (its first line). */
static int64_t location_line(const InclprofPprof__Profile *p, uint64_t loc_id) {
  for (size_t i = 0; i < p->n_location; i++)
    if (p->location[i]->id == loc_id)
      return p->location[i]->line[0]->line;
  return -1;
}

static int64_t total(const InclprofPprof__Profile *p, const char *type) {
  int t = type_index(p, type);
  int64_t sum = 0;
  for (size_t i = 0; i < p->n_sample; i++)
    sum += p->sample[i]->value[t];
  return sum;
}

START_TEST(flat_and_cum_are_exclusive_and_inclusive) {
  InclprofPprof__Profile *p = export_profile();
  ck_assert_str_eq(p->string_table[0], "");
  expect(p, "elapsed", "main", 50, 500);
  expect(p, "elapsed", "foo", 200, 450);
  expect(p, "elapsed", "bar", 250, 250);
  expect(p, "elapsed", "fact(int)", 60, 105);
  expect(p, "elapsed", "write", 40, 40);
  expect(p, "elapsed", FX_BOX_NAME, 5, 5);
  expect(p, "application", "main", 40, 440);
  expect(p, "application", "fact(int)", 60, 65);
  expect(p, "application", "write", 0, 0);
  expect(p, "calls", "bar", 2, 2);
  expect(p, "calls", FX_BOX_NAME, 3, 3);
  expect(p, "samples", "foo", 1, 4);
  ck_assert_int_eq(total(p, "elapsed"), 612); /* including the 7 ns outside functions */
  ck_assert_int_eq(total(p, "samples"), 6);
  inclprof_pprof__profile__free_unpacked(p, NULL);
}
END_TEST

START_TEST(sample_types_put_the_default_last) {
  InclprofPprof__Profile *p = export_profile();
  ck_assert_uint_eq(p->n_sample_type, 4);
  ck_assert_str_eq(str(p, p->sample_type[0]->type), "calls");
  ck_assert_str_eq(str(p, p->sample_type[0]->unit), "count");
  ck_assert_str_eq(str(p, p->sample_type[3]->type), "elapsed");
  ck_assert_str_eq(str(p, p->sample_type[3]->unit), "nanoseconds");
  ck_assert_str_eq(str(p, p->sample_type[type_index(p, "application")]->unit), "nanoseconds");
  ck_assert_str_eq(str(p, p->default_sample_type), "elapsed");
  ck_assert_int_eq(p->time_nanos, 1700000000000000000ll);
  ck_assert_int_gt(p->duration_nanos, 0);
  inclprof_pprof__profile__free_unpacked(p, NULL);

  opts.value = IP_VALUE_APPLICATION;
  p = export_profile();
  ck_assert_str_eq(str(p, p->sample_type[p->n_sample_type - 1]->type), "application");
  ck_assert_str_eq(str(p, p->default_sample_type), "application");
  inclprof_pprof__profile__free_unpacked(p, NULL);

  sess.processes[0].sample_hz = 0; /* not sampled: no samples type */
  sess.total.smp_incl = 0;
  opts.value = IP_VALUE_ELAPSED;
  p = export_profile();
  ck_assert_uint_eq(p->n_sample_type, 3);
  ck_assert_int_eq(type_index(p, "samples"), -1);
  inclprof_pprof__profile__free_unpacked(p, NULL);
}
END_TEST

START_TEST(functions_locations_mappings) {
  InclprofPprof__Profile *p = export_profile();
  ck_assert_uint_eq(p->n_function, FX_NFUNCS);
  ck_assert_uint_eq(p->n_location, FX_NFUNCS);
  int found_box = 0;
  for (size_t i = 0; i < p->n_function; i++) {
    const InclprofPprof__Function *f = p->function[i];
    ck_assert_uint_ne(f->id, 0);
    if (!strcmp(str(p, f->name), FX_BOX_NAME)) {
      found_box = 1;
      ck_assert_str_eq(str(p, f->system_name), "_ZNK2ns3BoxIiE3getEv");
      ck_assert_str_eq(str(p, f->filename), "box.hpp");
      ck_assert_int_eq(f->start_line, 7);
    }
  }
  ck_assert(found_box);
  ck_assert_uint_eq(p->n_mapping, 2);
  for (size_t i = 0; i < p->n_mapping; i++) {
    ck_assert(p->mapping[i]->has_functions);
    ck_assert_uint_ne(p->mapping[i]->id, 0);
  }
  for (size_t i = 0; i < p->n_location; i++) {
    const InclprofPprof__Location *l = p->location[i];
    const char *name = location_name(p, l->id);
    const char *module = NULL;
    for (size_t k = 0; k < p->n_mapping; k++)
      if (p->mapping[k]->id == l->mapping_id)
        module = str(p, p->mapping[k]->filename);
    ck_assert_ptr_nonnull(module);
    ck_assert_str_eq(module, strcmp(name, "write") ? "/usr/bin/demo" : "/lib/libc.so.6");
  }
  inclprof_pprof__profile__free_unpacked(p, NULL);
}
END_TEST

static const InclprofPprof__Label *label(const InclprofPprof__Profile *p,
                                         const InclprofPprof__Sample *s, const char *key) {
  for (size_t i = 0; i < s->n_label; i++)
    if (!strcmp(str(p, s->label[i]->key), key))
      return s->label[i];
  return NULL;
}

START_TEST(thread_labels_and_merging) {
  InclprofPprof__Profile *p = export_profile();
  /* one sample per path with a value: 3 + (root, 5 paths) */
  ck_assert_uint_eq(p->n_sample, 9);
  int workers = 0;
  for (size_t i = 0; i < p->n_sample; i++) {
    const InclprofPprof__Sample *s = p->sample[i];
    ck_assert_ptr_nonnull(label(p, s, "tid"));
    ck_assert_int_eq(label(p, s, "pid")->num, 100);
    ck_assert_str_eq(str(p, label(p, s, "process")->str), "demo");
    if (label(p, s, "tid")->num == 101) {
      workers++;
      ck_assert_str_eq(str(p, label(p, s, "thread")->str), "worker");
    }
  }
  ck_assert_int_eq(workers, 6);
  inclprof_pprof__profile__free_unpacked(p, NULL);

  /* A second thread running main;foo;bar merges into the first's paths. */
  ip_thread *t = &sess.threads[1];
  uint32_t m = fx_node(t, 0, FX_MAIN, 1, 1, 1, 0);
  fx_node(t, fx_node(t, m, FX_FOO, 1, 2, 2, 0), FX_BAR, 1, 3, 3, 0);
  opts.merge_threads = 1;
  p = export_profile();
  ck_assert_uint_eq(p->n_sample, 9); /* root (merged), 3 shared paths, 5 fact paths */
  for (size_t i = 0; i < p->n_sample; i++)
    ck_assert_uint_eq(p->sample[i]->n_label, 0);
  expect(p, "elapsed", "bar", 253, 253);
  expect(p, "elapsed", "main", 51, 506);
  expect(p, "calls", "bar", 3, 3);
  inclprof_pprof__profile__free_unpacked(p, NULL);
}
END_TEST

START_TEST(thread_filter) {
  opts.sel.has_tid = 1;
  opts.sel.tid = 101;
  InclprofPprof__Profile *p = export_profile();
  ck_assert_int_eq(total(p, "elapsed"), 112);
  expect(p, "elapsed", "main", 0, 0);
  expect(p, "elapsed", "fact(int)", 60, 105);
  ck_assert_uint_eq(p->n_function, 3); /* only the functions used */
  inclprof_pprof__profile__free_unpacked(p, NULL);
}
END_TEST

/* ns::Box<int>::get() called 3 times from fact's lines 41 (2 calls, 3 ns)
 * and 42 (1 call, 2 ns): two samples, fact's location at each line. */
START_TEST(call_lines_share_the_values) {
  ip_thread *t = &sess.threads[1];
  uint32_t box = 5;
  ck_assert_uint_eq(t->nodes[box].func, FX_BOX);
  sess.sites = calloc(2, sizeof *sess.sites);
  sess.sites[0] = (ip_site){strdup("demo.c"), 41};
  sess.sites[1] = (ip_site){strdup("demo.c"), 42};
  sess.n_sites = 2;
  t->sites = calloc(2, sizeof *t->sites);
  t->sites[0] = (ip_site_values){box, 0, 2, 3, 3};
  t->sites[1] = (ip_site_values){box, 1, 1, 2, 2};
  t->n_sites = t->cap_sites = 2;
  InclprofPprof__Profile *p = export_profile();
  expect(p, "elapsed", FX_BOX_NAME, 5, 5);
  expect(p, "calls", FX_BOX_NAME, 3, 3);
  expect(p, "elapsed", "fact(int)", 60, 105);
  int el = type_index(p, "elapsed"), calls = type_index(p, "calls");
  int seen = 0;
  for (size_t i = 0; i < p->n_sample; i++) {
    const InclprofPprof__Sample *x = p->sample[i];
    if (!x->n_location_id || strcmp(location_name(p, x->location_id[0]), FX_BOX_NAME))
      continue;
    int64_t line = location_line(p, x->location_id[1]);
    ck_assert_str_eq(location_name(p, x->location_id[1]), "fact(int)");
    ck_assert_msg(line == 41 || line == 42, "call line %lld", (long long)line);
    ck_assert_int_eq(x->value[calls], line == 41 ? 2 : 1);
    ck_assert_int_eq(x->value[el], line == 41 ? 3 : 2);
    seen |= line == 41 ? 1 : 2;
  }
  ck_assert_int_eq(seen, 3);
  inclprof_pprof__profile__free_unpacked(p, NULL);
}
END_TEST

/* Over --max-size the threads' call paths are merged, then the deepest
 * cut to their innermost frames under one location: every function keeps
 * its flat values, the total stays, and no sample is deeper than the cut. */
START_TEST(a_profile_over_its_size_is_merged_then_cut) {
  opts.max_size = 120;
  InclprofPprof__Profile *p = export_profile();
  size_t deepest = 0;
  int cut = 0;
  for (size_t i = 0; i < p->n_sample; i++) {
    const InclprofPprof__Sample *x = p->sample[i];
    ck_assert_uint_eq(x->n_label, 0);
    if (x->n_location_id > deepest)
      deepest = x->n_location_id;
    if (x->n_location_id &&
        !strcmp(location_name(p, x->location_id[x->n_location_id - 1]), "[outer frames left out]"))
      cut++;
  }
  ck_assert_int_gt(cut, 0);
  ck_assert_uint_lt(deepest, 6); /* fact's path is 5 deep below the thread's start */
  expect(p, "elapsed", "bar", 250, 250);
  expect(p, "calls", FX_BOX_NAME, 3, 3);
  ck_assert_int_eq(total(p, "elapsed"), 612);
  ck_assert_int_eq(total(p, "samples"), 6);
  inclprof_pprof__profile__free_unpacked(p, NULL);

  /* --max-size 0: everything, labels and whole paths */
  opts.max_size = UINT64_MAX;
  p = export_profile();
  ck_assert_uint_eq(p->n_sample, 9);
  for (size_t i = 0; i < p->n_sample; i++)
    ck_assert_ptr_nonnull(label(p, p->sample[i], "tid"));
  inclprof_pprof__profile__free_unpacked(p, NULL);
}
END_TEST

int main(void) {
  Suite *s = suite_create("export_pprof");
  TCase *tc = tcase_create("pprof");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, flat_and_cum_are_exclusive_and_inclusive);
  tcase_add_test(tc, sample_types_put_the_default_last);
  tcase_add_test(tc, functions_locations_mappings);
  tcase_add_test(tc, thread_labels_and_merging);
  tcase_add_test(tc, thread_filter);
  tcase_add_test(tc, call_lines_share_the_values);
  tcase_add_test(tc, a_profile_over_its_size_is_merged_then_cut);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
