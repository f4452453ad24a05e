/* gen_session.c - writes a synthetic session of many process traces, as a
 * test suite that starts a process per test leaves: PROCS trace files of
 * EVENTS events each (one thread), all naming one function table file of
 * FUNCS instrumented functions and 8 library callees (docs/trace-format.md,
 * "Function tables").  Each process walks the same call graph (function f
 * calls three others, any may call a library function) from the first
 * function (which no other calls) down to DEPTH frames, taken at random
 * with a seed of its own, so
 * that the processes share some call paths and not others.  Every file ends
 * as the runtime ends one (Index, Trailer, Footer).  With `inline`, every
 * trace carries the Function records itself instead, as format 1 (what
 * runtimes wrote before the table files, for comparing with readers of
 * then).  Deterministic.  Prints the events and calls written and the calls
 * of the first function (every walk starts there), for exact checks.
 *   usage: gen_session DIR PROCS EVENTS FUNCS [DEPTH [inline]] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEN_NAME "gen_session"
#include "gen_frames.h"

#define N_LIBS    8
#define FANOUT    3
#define BATCH     16384
#define MAX_DEPTH 64
#define TABLE     "synthetic.00000000000000a1.ipt"
#define TABLE_KEY "00000000000000a1"

static int inline_tables; /* the Function records in every trace, format 1 */

static FILE *create(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) {
    perror(path);
    exit(1);
  }
  uint8_t pre[IP_TRACE_PREAMBLE_LEN];
  ip_frame_preamble(pre);
  if (inline_tables)
    pre[8] = 1, pre[9] = 0;
  fwrite(pre, 1, sizeof pre, f);
  return f;
}

static void finish(FILE *f, const char *path) {
  if (fclose(f)) {
    perror(path);
    exit(1);
  }
}

/* The Function records: FUNCS functions (gid 1..FUNCS), then the library
 * callees (module 2 in a trace, whose binding a table file leaves out). */
static void write_functions(FILE *f, uint32_t funcs) {
  Inclprof__Record r = INCLPROF__RECORD__INIT;
  for (uint32_t g = 1; g <= funcs + N_LIBS; g++) {
    char name[48], file[48];
    int lib = g > funcs;
    Inclprof__Function fn = INCLPROF__FUNCTION__INIT;
    fn.gid = g;
    fn.has_module = fn.has_id = fn.has_line = fn.has_flags = 1;
    fn.module = lib ? (inline_tables ? 2 : 0) : 1;
    fn.id = g;
    fn.flags = lib ? 0x02 : 0x01; /* INCLPROF_FN_CALLEE, INCLPROF_FN_INSTRUMENTED */
    snprintf(name, sizeof name, lib ? "lib_call_%u" : "synthetic_function_%u", g);
    snprintf(file, sizeof file, lib ? "" : "src/unit_%u.c", g / 64);
    fn.name = name;
    fn.file = file;
    fn.line = g % 1000;
    r.body_case = INCLPROF__RECORD__BODY_FUNCTION;
    r.function = &fn;
    put(f, &r);
  }
}

/* The table file the traces name. */
static void write_table(const char *dir, uint32_t funcs) {
  FILE *f = create(dir, TABLE);
  Inclprof__Record r = INCLPROF__RECORD__INIT;
  Inclprof__Table t = INCLPROF__TABLE__INIT;
  t.key = TABLE_KEY;
  t.path = "/usr/bin/synthetic";
  t.has_functions = 1;
  t.functions = funcs + N_LIBS;
  r.body_case = INCLPROF__RECORD__BODY_TABLE;
  r.table = &t;
  put(f, &r);
  write_functions(f, funcs);
  finish(f, TABLE);
}

typedef struct walk {
  uint32_t stack[MAX_DEPTH];
  int depth, lib_open, lib;
  uint64_t tick, events, calls, roots;
} walk;

/* The next event: enter a callee of the top frame (or the first function
 * on an empty stack), a library call pair, or an exit; every frame is
 * closed by the last event (a sample fills an odd last event). */
static uint32_t next_code(walk *w, uint32_t funcs, int depth_max, uint64_t left) {
  uint32_t r = next_rand();
  if (w->lib_open) {
    w->lib_open = 0;
    return (funcs + 1 + (uint32_t)w->lib) << 3 | INCLPROF__EVENT_KIND__EV_RET;
  }
  int room = left >= (uint64_t)w->depth + 2; /* for a pair and every exit */
  if (w->depth == 0) {
    if (!room)
      return INCLPROF__EVENT_KIND__EV_SAMPLE;
    w->stack[w->depth++] = 1;
    w->calls++;
    w->roots++;
    return 1u << 3 | INCLPROF__EVENT_KIND__EV_ENTER;
  }
  if (room && r % 16 == 0) {
    w->lib_open = 1;
    w->lib = (int)(r >> 8) % N_LIBS;
    w->calls++;
    return (funcs + 1 + (uint32_t)w->lib) << 3 | INCLPROF__EVENT_KIND__EV_CALL;
  }
  if (room && w->depth < depth_max && r % 8 < 5) {
    uint32_t top = w->stack[w->depth - 1];
    uint32_t fn = (uint32_t)(((uint64_t)top * 7 + ((r >> 4) % FANOUT) * 13) % (funcs - 1)) + 2;
    w->stack[w->depth++] = fn;
    w->calls++;
    return fn << 3 | INCLPROF__EVENT_KIND__EV_ENTER;
  }
  return w->stack[--w->depth] << 3 | INCLPROF__EVENT_KIND__EV_EXIT;
}

static void write_process(const char *dir, uint32_t k, uint64_t events, uint32_t funcs,
                          int depth_max, walk *w) {
  char name[64];
  uint32_t pid = 10000 + k, tid = pid;
  snprintf(name, sizeof name, "%u.ipb", pid);
  FILE *f = create(dir, name);
  Inclprof__Record r = INCLPROF__RECORD__INIT;
  Inclprof__Header h = INCLPROF__HEADER__INIT;
  h.format_major = IP_FORMAT_MAJOR;
  h.format_minor = IP_FORMAT_MINOR;
  h.pid = pid;
  h.has_ppid = 1;
  h.ppid = k ? 10000 : 1;
  h.executable = "/usr/bin/synthetic";
  h.has_ticks_per_second = h.has_probe_cost_ticks = h.has_transitions = h.has_clock = 1;
  h.has_start_unix_ns = 1;
  h.start_unix_ns = 1700000000000000000ull + (uint64_t)k * 1000000000ull;
  h.clock = INCLPROF__CLOCK_SOURCE__CLOCK_TSC;
  h.ticks_per_second = 3e9;
  h.probe_cost_ticks = 12.5;
  h.transitions = INCLPROF__TRANSITION_MODE__TRANSITIONS_NONE;
  h.run = "synthetic-session";
  r.body_case = INCLPROF__RECORD__BODY_HEADER;
  r.header = &h;
  put(f, &r);
  Inclprof__Module m1 = INCLPROF__MODULE__INIT, m2 = INCLPROF__MODULE__INIT;
  Inclprof__Module *mods[2] = {&m1, &m2};
  m1.id = 1;
  m1.path = "/usr/bin/synthetic";
  m2.id = 2;
  m2.path = "/usr/lib/libsynthetic.so";
  for (int i = 0; i < 2; i++) {
    r.body_case = INCLPROF__RECORD__BODY_MODULE;
    r.module = mods[i];
    put(f, &r);
  }
  uint32_t runs[2] = {1, funcs + N_LIBS};
  Inclprof__TableRef ref = INCLPROF__TABLE_REF__INIT, *refs = &ref;
  ref.module = 1;
  ref.file = TABLE;
  ref.key = TABLE_KEY;
  ref.has_functions = 1;
  ref.functions = funcs + N_LIBS;
  ref.n_gid_runs = 2;
  ref.gid_runs = runs;
  r.body_case = INCLPROF__RECORD__BODY_TABLE_REF;
  r.table_ref = &ref;
  if (inline_tables)
    write_functions(f, funcs);
  else
    put(f, &r);
  for (uint32_t g = funcs + 1; g <= funcs + N_LIBS && !inline_tables; g++) { /* bindings */
    Inclprof__Function b = INCLPROF__FUNCTION__INIT;
    b.gid = g;
    b.has_module = 1;
    b.module = 2;
    r.body_case = INCLPROF__RECORD__BODY_FUNCTION;
    r.function = &b;
    put(f, &r);
  }
  Inclprof__Thread th = INCLPROF__THREAD__INIT;
  th.tid = tid;
  r.body_case = INCLPROF__RECORD__BODY_THREAD;
  r.thread = &th;
  put(f, &r);
  static uint64_t dt[BATCH];
  static uint32_t code[BATCH];
  uint64_t seq = 0, done = 0;
  rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)k * 0x100000001b3ull + 1);
  memset(w, 0, sizeof *w);
  w->tick = 1000000;
  while (done < events) {
    size_t n = 0;
    Inclprof__EventBatch b = INCLPROF__EVENT_BATCH__INIT;
    b.tid = tid;
    b.seq = seq++;
    b.base_tick = w->tick;
    while (n < BATCH && done < events) {
      uint64_t step = n ? 5 + next_rand() % 200 : 0;
      w->tick += step;
      dt[n] = step << 1;
      code[n++] = next_code(w, funcs, depth_max, events - done);
      done++;
    }
    b.n_dt = b.n_code = n;
    b.dt = dt;
    b.code = code;
    r.body_case = INCLPROF__RECORD__BODY_EVENTS;
    r.events = &b;
    put(f, &r);
  }
  w->events = done;
  Inclprof__IndexThread it = INCLPROF__INDEX_THREAD__INIT, *itp = &it;
  it.tid = tid;
  it.has_events = it.has_batches = it.has_batches_lost = it.has_gaps = 1;
  it.events = done;
  it.batches = seq;
  Inclprof__Index ix = INCLPROF__INDEX__INIT;
  ix.n_threads = 1;
  ix.threads = &itp;
  ix.n_modules = 2;
  ix.modules = mods;
  ix.n_tables = !inline_tables;
  ix.tables = &refs;
  ix.has_functions = ix.has_mark_names = ix.has_offset = 1;
  ix.functions = inline_tables ? funcs + N_LIBS : 0;
  ix.offset = (uint64_t)ftell(f);
  r.body_case = INCLPROF__RECORD__BODY_INDEX;
  r.index = &ix;
  Inclprof__Footer ft = INCLPROF__FOOTER__INIT;
  ft.index_bytes = (uint32_t)put(f, &r);
  Inclprof__Trailer tr = INCLPROF__TRAILER__INIT;
  tr.has_clean = tr.has_events = tr.has_end_tick = 1;
  tr.clean = 1;
  tr.events = done;
  tr.end_tick = w->tick;
  tr.exit_reason = "exit";
  r.body_case = INCLPROF__RECORD__BODY_TRAILER;
  r.trailer = &tr;
  ft.trailer_bytes = (uint32_t)put(f, &r);
  r.body_case = INCLPROF__RECORD__BODY_FOOTER;
  r.footer = &ft;
  put(f, &r);
  finish(f, name);
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: gen_session DIR PROCS EVENTS FUNCS [DEPTH [inline]]\n");
    return 2;
  }
  const char *dir = argv[1];
  uint32_t procs = (uint32_t)strtoul(argv[2], NULL, 10);
  uint64_t events = strtoull(argv[3], NULL, 10);
  uint32_t funcs = (uint32_t)strtoul(argv[4], NULL, 10);
  int depth = argc > 5 ? atoi(argv[5]) : 12;
  inline_tables = argc > 6 && !strcmp(argv[6], "inline");
  if (!procs || events < 8 || funcs < 2 || funcs > (1u << 20) || depth < 2 || depth > MAX_DEPTH) {
    fprintf(stderr, "gen_session: PROCS >= 1, EVENTS >= 8, FUNCS in 2..1048576, DEPTH in "
                    "2..64\n");
    return 2;
  }
  if (!inline_tables)
    write_table(dir, funcs);
  uint64_t all_events = 0, calls = 0, roots = 0;
  walk w;
  for (uint32_t k = 0; k < procs; k++) {
    write_process(dir, k, events, funcs, depth, &w);
    all_events += w.events;
    calls += w.calls;
    roots += w.roots;
  }
  free(frame_buf);
  printf("gen_session: %u processes, %llu events, %llu calls, %llu calls of the first function\n",
         procs, (unsigned long long)all_events, (unsigned long long)calls,
         (unsigned long long)roots);
  return 0;
}
