/* model/table_load.c - TableRef records: the Function records of an
 * object's units, kept once in a table file beside the traces
 * (docs/trace-format.md, "Function tables").  A table file is read once per
 * load and its entries interned once per module that uses it, so that the
 * processes of one executable share them: a TableRef then costs its file
 * only the copy of its gids.  A table file that is missing, damaged or not
 * the one the trace names leaves its gids without names (each reads as an
 * unknown function), said once per trace file with what to copy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "inclprof_abi.h"
#include "model/loader.h"
#include "read/read.h"
#include "util/util.h"

/* Reads t->path into t's entries, or sets t->error. */
static void read_table(ip_table *t, const char *key, uint32_t functions) {
  char err[600], why[700] = "";
  ip_reader *r = ip_reader_open(t->path, err, sizeof err);
  if (!r) {
    snprintf(why, sizeof why, "%s", strstr(err, "cannot open") ? "not there" : err);
  } else {
    Inclprof__Record *rec;
    int rc = ip_reader_next(r, &rec, err, sizeof err);
    if (rc <= 0 || rec->body_case != INCLPROF__RECORD__BODY_TABLE)
      snprintf(why, sizeof why, "not a function table file");
    else if (key && strcmp(rec->table->key, key))
      snprintf(why, sizeof why, "it holds table %s, not %s", rec->table->key, key);
    else if (rec->table->functions != functions)
      snprintf(why, sizeof why, "it holds %u functions, not %u", rec->table->functions, functions);
    t->entries = ip_must_calloc(functions + 1, sizeof *t->entries);
    while (!why[0] && (rc = ip_reader_next(r, &rec, err, sizeof err)) > 0) {
      const Inclprof__Function *fn = rec->function;
      if (rec->body_case != INCLPROF__RECORD__BODY_FUNCTION)
        continue;
      if (fn->gid != t->n + 1 || t->n == functions) {
        snprintf(why, sizeof why, "damaged: entry %zu has gid %u", t->n + 1, fn->gid);
        break;
      }
      t->entries[t->n++] = (ip_func){
          .name = ip_must_strdup(fn->name ? fn->name : "?"),
          .pretty = ip_must_strdup(fn->pretty && *fn->pretty ? fn->pretty
                                   : fn->name                ? fn->name
                                                             : "?"),
          .file = ip_must_strdup(fn->file ? fn->file : ""),
          .line = fn->line,
          .module = fn->module == 1,
          .flags = fn->flags,
          .id = fn->id,
      };
    }
    if (!why[0] && (rc < 0 || ip_reader_skipped(r)->regions))
      snprintf(why, sizeof why, "damaged: %s", rc < 0 ? err : "a damaged stretch was skipped");
    else if (!why[0] && t->n != functions)
      snprintf(why, sizeof why, "cut short: %zu of its %u functions", t->n, functions);
  }
  ip_reader_close(r);
  if (why[0])
    t->error = ip_must_strdup(why);
}

/* The table file at path, read at its first use in this load. */
static ip_table *table_at(ip_tables *tabs, const char *path, const char *key, uint32_t functions) {
  for (size_t i = 0; i < tabs->n_files; i++)
    if (!strcmp(tabs->files[i]->path, path))
      return tabs->files[i];
  ip_must_grow((void **)&tabs->files, &tabs->cap_files, tabs->n_files + 1, sizeof *tabs->files);
  ip_table *t = ip_must_calloc(1, sizeof *t);
  t->path = ip_must_strdup(path);
  read_table(t, key, functions);
  tabs->files[tabs->n_files++] = t;
  return t;
}

/* t's entries interned for module `module` of the session (once). */
static const ip_table_use *table_use(ip_file *f, ip_table *t, uint32_t module) {
  for (size_t i = 0; i < t->n_uses; i++)
    if (t->uses[i].module == module)
      return &t->uses[i];
  t->uses = ip_must_realloc(t->uses, t->n_uses + 1, sizeof *t->uses);
  ip_table_use *u = &t->uses[t->n_uses++];
  u->module = module;
  u->func = ip_must_calloc(t->n + 1, sizeof *u->func);
  u->site = ip_must_calloc(t->n + 1, sizeof *u->site);
  for (size_t k = 0; k < t->n; k++) {
    ip_func proto = t->entries[k];
    proto.module = proto.module ? module : 0;
    if ((proto.flags & INCLPROF_FN_CALL_SITE) && proto.file[0]) {
      u->site[k] = ip_tables_site(f->s, f->tabs, proto.file, proto.line) + 1;
      proto.file = "";
      proto.line = 0;
    }
    u->func[k] = ip_tables_func(f->s, f->tabs, &proto);
  }
  return u;
}

/* TRACE's directory and the table file's own name (never a path). */
static void table_path(char *out, size_t cap, const char *trace, const char *file) {
  const char *slash = strrchr(trace, '/');
  const char *name = strrchr(file, '/');
  name = name ? name + 1 : file;
  if (slash)
    snprintf(out, cap, "%.*s/%s", (int)(slash - trace), trace, name);
  else
    snprintf(out, cap, "%s", name);
}

void ip_file_take_table_ref(ip_file *f, const Inclprof__TableRef *r) {
  uint32_t first = 0;
  for (size_t i = 0; i + 1 < r->n_gid_runs && !first; i += 2)
    first = r->gid_runs[i];
  if (!first)
    return;
  if (f->ring && first < f->n_gid && f->gid_func[first] != UINT32_MAX)
    return; /* repeated at the start of a ring segment */
  ip_process *p = &f->s->processes[f->proc];
  p->n_functions += r->functions;
  char path[4400];
  table_path(path, sizeof path, f->path, r->file);
  ip_table *t = table_at(f->tabs, path, r->key, r->functions);
  if (t->error) {
    char msg[5200], warn[5600];
    snprintf(msg, sizeof msg,
             "its function table %s (%u functions) cannot be used: %s; their events read as "
             "unknown functions (copy the table files *.ipt of the directory it was recorded in "
             "beside the trace)",
             path, r->functions, t->error);
    if (!p->tables_missing) { /* the trace cannot be read whole: as damage, for the exit status */
      p->tables_missing = ip_must_strdup(msg);
      f->s->n_damaged++;
    }
    snprintf(warn, sizeof warn, "%s%s: %s", f->path,
             t->warned++ ? "" : " (and every other trace read that names it)", msg);
    if (t->warned == 1)
      ip_file_warn(f, NULL, warn);
    return;
  }
  uint32_t module = r->module < f->n_mod ? f->mod_index[r->module] : 0;
  const ip_table_use *u = table_use(f, t, module);
  size_t k = 0;
  for (size_t i = 0; i + 1 < r->n_gid_runs; i += 2) {
    if (!r->gid_runs[i]) { /* entries with no gid of their own in this process */
      k += r->gid_runs[i + 1];
      continue;
    }
    for (uint32_t j = 0; j < r->gid_runs[i + 1] && k < t->n; j++, k++) {
      uint32_t gid = r->gid_runs[i] + j;
      if (ip_file_define_func(f, gid, u->func[k]))
        return; /* an absurd gid: damage */
      if (u->site[k])
        ip_file_gid_site(f, gid, u->site[k]);
    }
  }
}

void ip_file_count_table_ref(ip_file *f, const Inclprof__TableRef *r) {
  ip_process *p = &f->s->processes[f->proc];
  p->n_functions += r->functions;
  char path[4400];
  table_path(path, sizeof path, f->path, r->file);
  struct stat st;
  if (p->tables_missing || (stat(path, &st) == 0 && S_ISREG(st.st_mode)))
    return;
  f->s->n_damaged++; /* as the full read counts it */
  char msg[4600];
  snprintf(msg, sizeof msg,
           "its function table %s (%u functions) is not there: copy the table files *.ipt of "
           "the directory it was recorded in beside the trace",
           path, r->functions);
  p->tables_missing = ip_must_strdup(msg);
}

void ip_table_files_free(ip_tables *tabs) {
  for (size_t i = 0; i < tabs->n_files; i++) {
    ip_table *t = tabs->files[i];
    for (size_t k = 0; k < t->n; k++) {
      free(t->entries[k].name);
      free(t->entries[k].pretty);
      free(t->entries[k].file);
    }
    for (size_t k = 0; k < t->n_uses; k++) {
      free(t->uses[k].func);
      free(t->uses[k].site);
    }
    free(t->entries);
    free(t->uses);
    free(t->path);
    free(t->error);
    free(t);
  }
  free(tabs->files);
  tabs->files = NULL;
  tabs->n_files = tabs->cap_files = 0;
}
