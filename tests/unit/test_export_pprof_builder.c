/* test_export_pprof_builder.c - the one pprof builder both pprof writers use:
 * a location of several lines (a function inlined into another) keeps them
 * innermost first with their functions and lines, samples keep their
 * locations (leaf first), values and label sets, the last sample type is
 * the default, and strings are interned once. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export/pprof_builder.h"
#include "check_main.h"

/* Writes p to a temporary file, gunzips and decodes it. */
static InclprofPprof__Profile *written(ip_pprof *p) {
  FILE *f = tmpfile();
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(ip_pprof_write(p, f, "test", "test.pb.gz"), 0);
  long n = ftell(f);
  rewind(f);
  unsigned char *gz = malloc((size_t)n);
  ck_assert_ptr_nonnull(gz);
  ck_assert_uint_eq(fread(gz, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  size_t cap = 1 << 16;
  unsigned char *raw = malloc(cap);
  z_stream z;
  memset(&z, 0, sizeof z);
  ck_assert_int_eq(inflateInit2(&z, 15 + 16), Z_OK);
  z.next_in = gz;
  z.avail_in = (uInt)n;
  z.next_out = raw;
  z.avail_out = (uInt)cap;
  ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
  inflateEnd(&z);
  InclprofPprof__Profile *prof = inclprof_pprof__profile__unpack(NULL, cap - z.avail_out, raw);
  ck_assert_ptr_nonnull(prof);
  free(gz);
  free(raw);
  return prof;
}

static const char *str(const InclprofPprof__Profile *p, int64_t i) {
  ck_assert(i >= 0 && (size_t)i < p->n_string_table);
  return p->string_table[i];
}

START_TEST(location_of_several_lines) {
  ip_pprof p;
  ip_pprof_init(&p);
  ip_pprof_sample_type(&p, "calls", "count");
  ip_pprof_sample_type(&p, "elapsed", "nanoseconds");
  uint64_t map = ip_pprof_mapping(&p, "/bin/prog");
  uint64_t outer = ip_pprof_function(&p, "outer()", "_Z5outerv", "prog.c", 10);
  uint64_t inner = ip_pprof_function(&p, "inner()", "_Z5innerv", "prog.c", 3);
  ip_pprof_line both[2] = {{inner, 4}, {outer, 12}};
  uint64_t loc_both = ip_pprof_location(&p, map, 0x1234, both, 2);
  ip_pprof_line alone = {outer, 10};
  uint64_t loc_outer = ip_pprof_location(&p, map, 0, &alone, 1);
  uint32_t set = ip_pprof_label_set(&p);
  ip_pprof_label_str(&p, "thread", "worker");
  ip_pprof_label_num(&p, "tid", 42);
  const uint64_t path[2] = {loc_both, loc_outer};
  const int64_t v1[2] = {3, 700}, v0[2] = {0, 50};
  ip_pprof_sample(&p, path, 2, v1, set);
  ip_pprof_sample(&p, NULL, 0, v0, 0);
  ip_pprof_comment(&p, "made by the test");
  ip_pprof_times(&p, 1000, 2000);
  InclprofPprof__Profile *prof = written(&p);
  ip_pprof_free(&p);

  ck_assert_uint_eq(prof->n_location, 2);
  const InclprofPprof__Location *l = prof->location[0];
  ck_assert_uint_eq(l->id, loc_both);
  ck_assert_uint_eq(l->mapping_id, map);
  ck_assert_uint_eq(l->address, 0x1234);
  ck_assert_uint_eq(l->n_line, 2);
  ck_assert_uint_eq(l->line[0]->function_id, inner);
  ck_assert_int_eq(l->line[0]->line, 4);
  ck_assert_uint_eq(l->line[1]->function_id, outer);
  ck_assert_int_eq(l->line[1]->line, 12);
  ck_assert_uint_eq(prof->location[1]->n_line, 1);
  ck_assert_int_eq(prof->location[1]->line[0]->line, 10);

  ck_assert_uint_eq(prof->n_function, 2);
  ck_assert_str_eq(str(prof, prof->function[1]->name), "inner()");
  ck_assert_str_eq(str(prof, prof->function[1]->system_name), "_Z5innerv");
  ck_assert_int_eq(prof->function[1]->start_line, 3);
  ck_assert_int_eq(prof->function[0]->filename, prof->function[1]->filename); /* interned once */
  ck_assert_str_eq(str(prof, prof->mapping[0]->filename), "/bin/prog");

  ck_assert_uint_eq(prof->n_sample, 2);
  const InclprofPprof__Sample *s = prof->sample[0];
  ck_assert_uint_eq(s->n_location_id, 2);
  ck_assert_uint_eq(s->location_id[0], loc_both);
  ck_assert_uint_eq(s->location_id[1], loc_outer);
  ck_assert_uint_eq(s->n_value, 2);
  ck_assert_int_eq(s->value[0], 3);
  ck_assert_int_eq(s->value[1], 700);
  ck_assert_uint_eq(s->n_label, 2);
  ck_assert_str_eq(str(prof, s->label[0]->str), "worker");
  ck_assert_int_eq(s->label[1]->num, 42);
  ck_assert_uint_eq(prof->sample[1]->n_location_id, 0);
  ck_assert_uint_eq(prof->sample[1]->n_label, 0);
  ck_assert_int_eq(prof->sample[1]->value[1], 50);

  ck_assert_str_eq(str(prof, prof->default_sample_type), "elapsed");
  ck_assert_uint_eq(prof->n_comment, 1);
  ck_assert_str_eq(str(prof, prof->comment[0]), "made by the test");
  ck_assert_int_eq(prof->time_nanos, 1000);
  ck_assert_int_eq(prof->duration_nanos, 2000);
  ck_assert_str_eq(prof->string_table[0], "");
  inclprof_pprof__profile__free_unpacked(prof, NULL);
}
END_TEST

int main(void) {
  Suite *s = suite_create("export_pprof_builder");
  TCase *tc = tcase_create("pprof_builder");
  tcase_add_test(tc, location_of_several_lines);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
