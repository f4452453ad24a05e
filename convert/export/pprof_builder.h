/* export/pprof_builder.h - one pprof profile (proto/profile.proto) built
 * piece by piece and written gzipped to a whole-or-nothing output
 * (util/output_file.h): sample types, comments, mappings, functions,
 * locations of one or more lines, label sets and samples, each string
 * interned once.  Both pprof writers use it: `export --format pprof`
 * (export/pprof.c) and `diff --pprof` (export/diff_pprof.c). */
#ifndef INCLPROF_EXPORT_PPROF_BUILDER_H
#define INCLPROF_EXPORT_PPROF_BUILDER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "export/strtab.h"
#include "profile.pb-c.h"
#include "util/util.h"

/* One line of a location: a function (an id from ip_pprof_function) and
 * the source line in it (0: unknown). */
typedef struct ip_pprof_line {
  uint64_t function;
  int64_t line;
} ip_pprof_line;

typedef struct ip_pprof {
  ip_strtab strings;
  const char **type_names; /* type, unit of each sample type: interned when written */
  size_t n_types, cap_types;
  const char **comment_texts; /* interned when written */
  size_t n_comments, cap_comments;
  int64_t time_nanos, duration_nanos;
  InclprofPprof__Mapping *mappings;
  size_t n_mappings, cap_mappings;
  InclprofPprof__Function *functions;
  size_t n_functions, cap_functions;
  InclprofPprof__Location *locations; /* .line set when written */
  size_t *location_first_line;        /* per location: its first entry of lines */
  size_t n_locations, cap_locations, cap_location_first_line;
  InclprofPprof__Line *lines;
  size_t n_lines, cap_lines;
  InclprofPprof__Label *labels; /* the label sets, one after another */
  size_t n_labels, cap_labels;
  size_t *set_first_label; /* per label set: its first label; the next set's first ends it */
  size_t n_sets, cap_sets;
  size_t *sample_first_location; /* per sample: its first entry of sample_locations */
  uint32_t *sample_set;          /* per sample: its label set (0: none) */
  size_t n_samples, cap_samples, cap_sample_set;
  uint64_t *sample_locations; /* every sample's location ids, leaf first */
  size_t n_sample_locations, cap_sample_locations;
  int64_t *values; /* n_types per sample */
  size_t cap_values;
} ip_pprof;

void ip_pprof_init(ip_pprof *p);
void ip_pprof_free(ip_pprof *p);

/* Adds a sample type, before the first sample (each has one value per
 * type); the last one added is the default_sample_type.  type and unit must live until the
 * profile is written. */
void ip_pprof_sample_type(ip_pprof *p, const char *type, const char *unit);
/* Adds a comment; text must live until the profile is written. */
void ip_pprof_comment(ip_pprof *p, const char *text);
void ip_pprof_times(ip_pprof *p, int64_t time_nanos, int64_t duration_nanos);

/* A mapping of the module file `filename`; returns its id. */
uint64_t ip_pprof_mapping(ip_pprof *p, const char *filename);
/* A function; returns its id.  name is what a reader shows (demangled),
 * system_name as in the binary; filename may be NULL, start_line 0. */
uint64_t ip_pprof_function(ip_pprof *p, const char *name, const char *system_name,
                           const char *filename, int64_t start_line);
/* A location in mapping (0: none) at address (0: none) of n lines, the
 * innermost first (the functions inlined into the last one); returns its id. */
uint64_t ip_pprof_location(ip_pprof *p, uint64_t mapping, uint64_t address,
                           const ip_pprof_line *lines, size_t n);

/* Starts a label set, which the labels added next go to; returns its id. */
uint32_t ip_pprof_label_set(ip_pprof *p);
void ip_pprof_label_str(ip_pprof *p, const char *key, const char *str);
void ip_pprof_label_num(ip_pprof *p, const char *key, int64_t num);

/* A sample of the n locations (ids, leaf first), one value per sample type,
 * labelled with label_set (0: none). */
void ip_pprof_sample(ip_pprof *p, const uint64_t *locations, size_t n, const int64_t *values,
                     uint32_t label_set);

/* Packs the profile and writes it gzipped to f, an output opened whole or
 * not at all (util/output_file.h) by command cmd as name.  Returns 0, or -1
 * after a one-line error naming it (the caller then closes it as failed). */
int ip_pprof_write(ip_pprof *p, FILE *f, const char *cmd, const char *name);

#endif
