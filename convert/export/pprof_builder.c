/* export/pprof_builder.c - one pprof profile built piece by piece, packed
 * with protobuf-c and gzipped with zlib (see export/pprof_builder.h).  The
 * messages live in growing arrays; the pointers protobuf-c wants between
 * them are set when the profile is written. */
#include "export/pprof_builder.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

void ip_pprof_init(ip_pprof *p) {
  memset(p, 0, sizeof *p);
  ip_strtab_init(&p->strings);
}

void ip_pprof_free(ip_pprof *p) {
  ip_strtab_free(&p->strings);
  free(p->type_names);
  free(p->comment_texts);
  free(p->mappings);
  free(p->functions);
  free(p->locations);
  free(p->location_first_line);
  free(p->lines);
  free(p->labels);
  free(p->set_first_label);
  free(p->sample_first_location);
  free(p->sample_set);
  free(p->sample_locations);
  free(p->values);
  memset(p, 0, sizeof *p);
}

void ip_pprof_sample_type(ip_pprof *p, const char *type, const char *unit) {
  ip_must_grow((void **)&p->type_names, &p->cap_types, 2 * p->n_types + 2, sizeof *p->type_names);
  p->type_names[2 * p->n_types] = type;
  p->type_names[2 * p->n_types + 1] = unit;
  p->n_types++;
}

void ip_pprof_comment(ip_pprof *p, const char *text) {
  ip_must_grow((void **)&p->comment_texts, &p->cap_comments, p->n_comments + 1,
               sizeof *p->comment_texts);
  p->comment_texts[p->n_comments++] = text;
}

void ip_pprof_times(ip_pprof *p, int64_t time_nanos, int64_t duration_nanos) {
  p->time_nanos = time_nanos;
  p->duration_nanos = duration_nanos;
}

uint64_t ip_pprof_mapping(ip_pprof *p, const char *filename) {
  ip_must_grow((void **)&p->mappings, &p->cap_mappings, p->n_mappings + 1, sizeof *p->mappings);
  InclprofPprof__Mapping *m = &p->mappings[p->n_mappings];
  inclprof_pprof__mapping__init(m);
  m->id = ++p->n_mappings;
  m->filename = ip_strtab_intern(&p->strings, filename);
  m->has_functions = 1;
  m->has_filenames = 1;
  m->has_line_numbers = 1;
  m->has_inline_frames = 1;
  return m->id;
}

uint64_t ip_pprof_function(ip_pprof *p, const char *name, const char *system_name,
                           const char *filename, int64_t start_line) {
  ip_must_grow((void **)&p->functions, &p->cap_functions, p->n_functions + 1, sizeof *p->functions);
  InclprofPprof__Function *fn = &p->functions[p->n_functions];
  inclprof_pprof__function__init(fn);
  fn->id = ++p->n_functions;
  fn->name = ip_strtab_intern(&p->strings, name);
  fn->system_name = ip_strtab_intern(&p->strings, system_name);
  fn->filename = ip_strtab_intern(&p->strings, filename);
  fn->start_line = start_line;
  return fn->id;
}

uint64_t ip_pprof_location(ip_pprof *p, uint64_t mapping, uint64_t address,
                           const ip_pprof_line *lines, size_t n) {
  ip_must_grow((void **)&p->locations, &p->cap_locations, p->n_locations + 1, sizeof *p->locations);
  ip_must_grow((void **)&p->location_first_line, &p->cap_location_first_line, p->n_locations + 1,
               sizeof *p->location_first_line);
  ip_must_grow((void **)&p->lines, &p->cap_lines, p->n_lines + n, sizeof *p->lines);
  p->location_first_line[p->n_locations] = p->n_lines;
  for (size_t i = 0; i < n; i++) {
    InclprofPprof__Line *l = &p->lines[p->n_lines++];
    inclprof_pprof__line__init(l);
    l->function_id = lines[i].function;
    l->line = lines[i].line;
  }
  InclprofPprof__Location *loc = &p->locations[p->n_locations];
  inclprof_pprof__location__init(loc);
  loc->id = ++p->n_locations;
  loc->mapping_id = mapping;
  loc->address = address;
  loc->n_line = n;
  return loc->id;
}

uint32_t ip_pprof_label_set(ip_pprof *p) {
  ip_must_grow((void **)&p->set_first_label, &p->cap_sets, p->n_sets + 1,
               sizeof *p->set_first_label);
  p->set_first_label[p->n_sets++] = p->n_labels;
  return (uint32_t)p->n_sets;
}

static InclprofPprof__Label *new_label(ip_pprof *p, const char *key) {
  ip_must_grow((void **)&p->labels, &p->cap_labels, p->n_labels + 1, sizeof *p->labels);
  InclprofPprof__Label *l = &p->labels[p->n_labels++];
  inclprof_pprof__label__init(l);
  l->key = ip_strtab_intern(&p->strings, key);
  return l;
}

void ip_pprof_label_str(ip_pprof *p, const char *key, const char *str) {
  InclprofPprof__Label *l = new_label(p, key);
  l->str = ip_strtab_intern(&p->strings, str);
}

void ip_pprof_label_num(ip_pprof *p, const char *key, int64_t num) { new_label(p, key)->num = num; }

void ip_pprof_sample(ip_pprof *p, const uint64_t *locations, size_t n, const int64_t *values,
                     uint32_t label_set) {
  size_t k = p->n_samples++;
  ip_must_grow((void **)&p->sample_first_location, &p->cap_samples, p->n_samples,
               sizeof *p->sample_first_location);
  ip_must_grow((void **)&p->sample_set, &p->cap_sample_set, p->n_samples, sizeof *p->sample_set);
  ip_must_grow((void **)&p->sample_locations, &p->cap_sample_locations, p->n_sample_locations + n,
               sizeof *p->sample_locations);
  ip_must_grow((void **)&p->values, &p->cap_values, p->n_samples * p->n_types, sizeof *p->values);
  p->sample_first_location[k] = p->n_sample_locations;
  p->sample_set[k] = label_set;
  if (n)
    memcpy(p->sample_locations + p->n_sample_locations, locations, n * sizeof *locations);
  p->n_sample_locations += n;
  if (p->n_types)
    memcpy(p->values + k * p->n_types, values, p->n_types * sizeof *values);
}

static int write_gzip(const uint8_t *data, size_t len, FILE *f, const char *cmd, const char *name) {
  z_stream z;
  uint8_t chunk[65536] = {0};
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    fprintf(stderr, "inclprof %s: %s: zlib could not start compressing\n", cmd, name);
    return -1;
  }
  int rc = Z_OK;
  size_t left = len;
  while (rc != Z_STREAM_END) {
    uInt step = left > (1u << 30) ? (1u << 30) : (uInt)left;
    z.next_in = (Bytef *)(uintptr_t)(data + (len - left));
    z.avail_in = step;
    z.next_out = chunk;
    z.avail_out = sizeof chunk;
    rc = deflate(&z, step == left ? Z_FINISH : Z_NO_FLUSH);
    left -= step - z.avail_in;
    size_t produced = sizeof chunk - z.avail_out;
    if (rc == Z_STREAM_ERROR || fwrite(chunk, 1, produced, f) != produced) {
      deflateEnd(&z);
      fprintf(stderr, "inclprof %s: %s: write failed: %s\n", cmd, name, strerror(errno));
      return -1;
    }
  }
  deflateEnd(&z);
  return 0;
}

/* Pointer arrays of n messages of size `size` at v (at least one entry). */
static void **pointers(void *v, size_t n, size_t size) {
  void **ptrs = ip_must_calloc(n ? n : 1, sizeof *ptrs);
  for (size_t i = 0; i < n; i++)
    ptrs[i] = (char *)v + i * size;
  return ptrs;
}

int ip_pprof_write(ip_pprof *p, FILE *f, const char *cmd, const char *name) {
  InclprofPprof__Profile prof = INCLPROF_PPROF__PROFILE__INIT;
  InclprofPprof__ValueType *types = ip_must_calloc(p->n_types + 1, sizeof *types);
  for (size_t i = 0; i < p->n_types; i++) {
    inclprof_pprof__value_type__init(&types[i]);
    types[i].type = ip_strtab_intern(&p->strings, p->type_names[2 * i]);
    types[i].unit = ip_strtab_intern(&p->strings, p->type_names[2 * i + 1]);
  }
  int64_t *comments = ip_must_calloc(p->n_comments + 1, sizeof *comments);
  for (size_t i = 0; i < p->n_comments; i++)
    comments[i] = ip_strtab_intern(&p->strings, p->comment_texts[i]);
  InclprofPprof__Line **line_ptrs =
      (InclprofPprof__Line **)pointers(p->lines, p->n_lines, sizeof *p->lines);
  for (size_t i = 0; i < p->n_locations; i++)
    p->locations[i].line = line_ptrs + p->location_first_line[i];
  InclprofPprof__Label **label_ptrs =
      (InclprofPprof__Label **)pointers(p->labels, p->n_labels, sizeof *p->labels);
  InclprofPprof__Sample *samples = ip_must_calloc(p->n_samples + 1, sizeof *samples);
  for (size_t i = 0; i < p->n_samples; i++) {
    InclprofPprof__Sample *s = &samples[i];
    inclprof_pprof__sample__init(s);
    size_t first = p->sample_first_location[i];
    size_t end = i + 1 < p->n_samples ? p->sample_first_location[i + 1] : p->n_sample_locations;
    s->n_location_id = end - first;
    s->location_id = p->sample_locations + first;
    s->n_value = p->n_types;
    s->value = p->values + i * p->n_types;
    if (p->sample_set[i]) {
      size_t set = p->sample_set[i] - 1, from = p->set_first_label[set];
      s->n_label = (set + 1 < p->n_sets ? p->set_first_label[set + 1] : p->n_labels) - from;
      s->label = label_ptrs + from;
    }
  }
  prof.n_sample_type = p->n_types;
  prof.sample_type = (InclprofPprof__ValueType **)pointers(types, p->n_types, sizeof *types);
  prof.default_sample_type = p->n_types ? types[p->n_types - 1].type : 0;
  prof.n_sample = p->n_samples;
  prof.sample = (InclprofPprof__Sample **)pointers(samples, p->n_samples, sizeof *samples);
  prof.n_mapping = p->n_mappings;
  prof.mapping =
      (InclprofPprof__Mapping **)pointers(p->mappings, p->n_mappings, sizeof *p->mappings);
  prof.n_location = p->n_locations;
  prof.location =
      (InclprofPprof__Location **)pointers(p->locations, p->n_locations, sizeof *p->locations);
  prof.n_function = p->n_functions;
  prof.function =
      (InclprofPprof__Function **)pointers(p->functions, p->n_functions, sizeof *p->functions);
  prof.time_nanos = p->time_nanos;
  prof.duration_nanos = p->duration_nanos;
  prof.n_comment = p->n_comments;
  prof.comment = comments;
  prof.n_string_table = p->strings.n;
  prof.string_table = p->strings.strs;

  size_t len = inclprof_pprof__profile__get_packed_size(&prof);
  uint8_t *buf = ip_must_realloc(NULL, len ? len : 1, 1);
  inclprof_pprof__profile__pack(&prof, buf);
  int rc = write_gzip(buf, len, f, cmd, name);
  free(buf);
  free(prof.sample_type);
  free(prof.sample);
  free(prof.mapping);
  free(prof.location);
  free(prof.function);
  free(samples);
  free(label_ptrs);
  free(line_ptrs);
  free(comments);
  free(types);
  return rc;
}
