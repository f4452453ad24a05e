/* cli/info_snapshots.c - `inclprof info DIR` lists DIR/snapshots/: one
 * directory per snapshot of a slow call (record --snapshot-if), each a trace
 * of the window around it whose second record, a Snapshot, says which call
 * it was; read up to that record only. */
#include "cli/info_snapshots.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/read.h"
#include "util/util.h"

typedef struct snap_row {
  char name[256];
  unsigned long pid, number;
  char function[256], took[32], bound[32], at[32], from[32], to[32], size[32];
  unsigned tid;
  int partial;
} snap_row;

static int by_name(const void *a, const void *b) {
  const snap_row *x = a, *y = b;
  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  return (x->number > y->number) - (x->number < y->number);
}

static uint64_t ns_of(uint64_t ticks, double tps) { return (uint64_t)((double)ticks * 1e9 / tps); }

/* The Snapshot record of the trace in dir/name/: 0 with *row filled. */
static int read_row(const char *top, const char *name, snap_row *row) {
  memset(row, 0, sizeof *row);
  snprintf(row->name, sizeof row->name, "%s", name);
  if (sscanf(name, "%lu-%lu", &row->pid, &row->number) != 2)
    return -1;
  char path[4600], err[512];
  snprintf(path, sizeof path, "%s/%s/%lu.ipb", top, name, row->pid);
  struct stat st;
  if (stat(path, &st) != 0)
    return -1;
  ip_fmt_bytes(row->size, sizeof row->size, (uint64_t)st.st_size);
  ip_reader *r = ip_reader_open(path, err, sizeof err);
  Inclprof__Record *rec;
  double tps = 0;
  uint64_t start = 0;
  int found = 0;
  for (int i = 0; r && i < 2 && ip_reader_next(r, &rec, err, sizeof err) > 0; i++) {
    if (rec->body_case == INCLPROF__RECORD__BODY_HEADER) {
      tps = rec->header->ticks_per_second;
      start = rec->header->start_tick;
    } else if (rec->body_case == INCLPROF__RECORD__BODY_SNAPSHOT && tps > 0) {
      const Inclprof__Snapshot *sn = rec->snapshot;
      snprintf(row->function, sizeof row->function, "%s", sn->function ? sn->function : "?");
      ip_fmt_ns(row->took, sizeof row->took, ns_of(sn->call_end_tick - sn->call_start_tick, tps));
      ip_fmt_ns(row->bound, sizeof row->bound, sn->bound_ns);
      ip_fmt_ns(row->at, sizeof row->at, ns_of(sn->call_start_tick - start, tps));
      ip_fmt_ns(row->from, sizeof row->from, ns_of(sn->window_start_tick - start, tps));
      ip_fmt_ns(row->to, sizeof row->to, ns_of(sn->window_end_tick - start, tps));
      row->tid = sn->tid;
      row->partial = sn->partial;
      found = 1;
    }
  }
  ip_reader_close(r);
  return found ? 0 : -1;
}

void info_snapshots(const char *dir) {
  char top[4200];
  snprintf(top, sizeof top, "%s/snapshots", dir);
  DIR *d = opendir(top);
  if (!d)
    return;
  snap_row *rows = NULL;
  size_t n = 0, unreadable = 0;
  const struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue; /* one being written is hidden */
    rows = ip_must_realloc(rows, n + 1, sizeof *rows);
    if (read_row(top, e->d_name, &rows[n]) == 0)
      n++;
    else
      unreadable++;
  }
  closedir(d);
  if (n)
    qsort(rows, n, sizeof *rows, by_name);
  printf("snapshots:    %zu in %s/ ('inclprof report %s/NAME' reads one)", n, top, top);
  if (unreadable)
    printf("; %zu more without a readable Snapshot record", unreadable);
  printf("\n");
  ip_ttable t;
  ip_tt_init(&t, 8);
  const char *head[] = {"name", "function", "took", "over", "call at", "thread", "window", "size"};
  for (size_t i = 0; i < 8; i++)
    ip_tt_add(&t, "%s", head[i]);
  for (size_t i = 0; i < n; i++) {
    const snap_row *r = &rows[i];
    ip_tt_add(&t, "%s", r->name);
    ip_tt_add(&t, "%s", r->function);
    ip_tt_add(&t, "%s", r->took);
    ip_tt_add(&t, "%s", r->bound);
    ip_tt_add(&t, "%s", r->at);
    ip_tt_add(&t, "%u", r->tid);
    ip_tt_add(&t, "%s to %s%s", r->from, r->to, r->partial ? " (start not kept)" : "");
    ip_tt_add(&t, "%s", r->size);
  }
  if (n)
    ip_tt_print(&t, stdout, 4);
  ip_tt_free(&t);
  free(rows);
  printf("\n");
}
