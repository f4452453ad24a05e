/* gen_trace.c - writes a synthetic inclprof trace for the converter benchmark
 * (and as a fuzzing seed): a program of 64 instrumented functions and 8
 * library callees with a fixed call graph (function i calls 2i+1 and 2i+2,
 * any function may call a library function), taken at random; 1 %
 * transitional intervals, a sample every 1000 events, batches of 16384
 * events per thread; with `gaps`, a runtime gap of 1 us after each batch,
 * as the runtime writes one for every buffer it flushes.
 *   usage: gen_trace OUT.ipb EVENTS [THREADS [gaps]]
 * The file ends as the runtime ends one: Index, Trailer and Footer.
 * Deterministic (fixed seed), so runs are comparable.  Prints how many
 * events it wrote and how many calls they make (entries + library calls),
 * for the stress test's exact totals. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEN_NAME "gen_trace"
#include "gen_frames.h"

#define N_FUNCS   64
#define N_LIBS    8
#define MAX_DEPTH 8
#define BATCH     16384

static void tables(FILE *f, uint32_t nthreads) {
  Inclprof__Record r = INCLPROF__RECORD__INIT;
  Inclprof__Header h = INCLPROF__HEADER__INIT;
  h.format_major = IP_FORMAT_MAJOR;
  h.format_minor = IP_FORMAT_MINOR;
  h.pid = 4242;
  h.executable = "/usr/bin/synthetic";
  h.has_ticks_per_second = h.has_probe_cost_ticks = h.has_transitions = h.has_sample_hz = 1;
  h.has_clock = 1;
  h.clock = INCLPROF__CLOCK_SOURCE__CLOCK_TSC;
  h.ticks_per_second = 3e9;
  h.probe_cost_ticks = 12.5;
  h.transitions = INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS;
  h.sample_hz = 1000;
  r.body_case = INCLPROF__RECORD__BODY_HEADER;
  r.header = &h;
  put(f, &r);
  Inclprof__Module m = INCLPROF__MODULE__INIT;
  m.id = 1;
  m.path = "/usr/bin/synthetic";
  r.body_case = INCLPROF__RECORD__BODY_MODULE;
  r.module = &m;
  put(f, &r);
  for (uint32_t g = 1; g <= N_FUNCS + N_LIBS; g++) {
    char name[32], file[32];
    Inclprof__Function fn = INCLPROF__FUNCTION__INIT;
    fn.gid = g;
    fn.has_module = fn.has_id = fn.has_line = 1;
    fn.module = g <= N_FUNCS ? 1 : 0;
    fn.id = g;
    snprintf(name, sizeof name, g <= N_FUNCS ? "work_%u" : "lib_%u", g);
    snprintf(file, sizeof file, g <= N_FUNCS ? "synthetic.c" : "");
    fn.name = fn.pretty = name;
    fn.file = file;
    fn.line = g * 10;
    r.body_case = INCLPROF__RECORD__BODY_FUNCTION;
    r.function = &fn;
    put(f, &r);
  }
  for (uint32_t t = 0; t < nthreads; t++) {
    Inclprof__Thread th = INCLPROF__THREAD__INIT;
    th.tid = 1000 + t;
    r.body_case = INCLPROF__RECORD__BODY_THREAD;
    r.thread = &th;
    put(f, &r);
  }
}

typedef struct gen_thread {
  uint32_t stack[MAX_DEPTH + 1];
  int depth, lib_open;
  uint64_t tick, seq, emitted, gaps;
} gen_thread;

/* The Index, Trailer and Footer that end the file (docs/trace-format.md). */
static void finish(FILE *f, const gen_thread *threads, uint32_t nthreads, uint64_t events) {
  Inclprof__IndexThread it[64], *itp[64];
  for (uint32_t t = 0; t < nthreads; t++) {
    inclprof__index_thread__init(&it[t]);
    it[t].tid = 1000 + t;
    it[t].has_events = it[t].has_batches = it[t].has_batches_lost = it[t].has_gaps = 1;
    it[t].events = threads[t].emitted;
    it[t].batches = threads[t].seq;
    it[t].gaps = threads[t].gaps;
    itp[t] = &it[t];
  }
  Inclprof__Module m = INCLPROF__MODULE__INIT, *mp = &m;
  m.id = 1;
  m.path = "/usr/bin/synthetic";
  Inclprof__Index ix = INCLPROF__INDEX__INIT;
  ix.n_threads = nthreads;
  ix.threads = itp;
  ix.n_modules = 1;
  ix.modules = &mp;
  ix.has_functions = ix.has_mark_names = ix.has_offset = 1;
  ix.functions = N_FUNCS + N_LIBS;
  ix.offset = (uint64_t)ftell(f);
  Inclprof__Record r = INCLPROF__RECORD__INIT;
  r.body_case = INCLPROF__RECORD__BODY_INDEX;
  r.index = &ix;
  Inclprof__Footer ft = INCLPROF__FOOTER__INIT;
  ft.index_bytes = (uint32_t)put(f, &r);
  Inclprof__Trailer tr = INCLPROF__TRAILER__INIT;
  tr.has_clean = tr.has_events = 1;
  tr.clean = 1;
  tr.events = events;
  tr.exit_reason = "exit";
  r.body_case = INCLPROF__RECORD__BODY_TRAILER;
  r.trailer = &tr;
  ft.trailer_bytes = (uint32_t)put(f, &r);
  r.body_case = INCLPROF__RECORD__BODY_FOOTER;
  r.footer = &ft;
  put(f, &r);
}

/* The next event of a thread: push, pop, library call pair or sample. */
static uint32_t next_code(gen_thread *g, uint64_t remaining) {
  uint32_t r = next_rand();
  if (g->lib_open) {
    g->lib_open = 0;
    return (N_FUNCS + 1 + g->stack[g->depth]) << 3 | INCLPROF__EVENT_KIND__EV_RET;
  }
  if (g->emitted % 1000 == 999)
    return INCLPROF__EVENT_KIND__EV_SAMPLE;
  int must_close = remaining <= (uint64_t)g->depth;
  if (!must_close && g->depth > 0 && remaining > (uint64_t)g->depth + 2 && r % 8 == 0) {
    g->lib_open = 1;
    g->stack[g->depth] = r % N_LIBS; /* remembered for the RET */
    return (N_FUNCS + 1 + r % N_LIBS) << 3 | INCLPROF__EVENT_KIND__EV_CALL;
  }
  uint32_t caller = g->depth ? g->stack[g->depth - 1] - 1 : 0;
  uint32_t fn = g->depth ? 2 * caller + 1 + (r >> 8) % 2 + 1 : 1 + (r >> 8) % 2;
  if (!must_close && fn <= N_FUNCS && g->depth < MAX_DEPTH && (g->depth == 0 || r % 2) &&
      remaining > (uint64_t)g->depth + 1) {
    g->stack[g->depth++] = fn;
    return fn << 3 | INCLPROF__EVENT_KIND__EV_ENTER;
  }
  if (g->depth == 0)
    return INCLPROF__EVENT_KIND__EV_SAMPLE;
  return g->stack[--g->depth] << 3 | INCLPROF__EVENT_KIND__EV_EXIT;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: gen_trace OUT.ipb EVENTS [THREADS [gaps]]\n");
    return 2;
  }
  uint64_t total = strtoull(argv[2], NULL, 10);
  uint32_t nthreads = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 2;
  int gaps = argc > 4 && !strcmp(argv[4], "gaps");
  if (nthreads == 0 || nthreads > 64) {
    fprintf(stderr, "gen_trace: THREADS must be 1..64\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "wb");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  static uint8_t pre[IP_TRACE_PREAMBLE_LEN];
  ip_frame_preamble(pre);
  fwrite(pre, 1, sizeof pre, f);
  tables(f, nthreads);
  static gen_thread threads[64];
  static uint64_t dt[BATCH];
  static uint32_t code[BATCH];
  uint64_t per_thread = total / nthreads, done = 0, calls = 0;
  for (uint32_t t = 0; t < nthreads; t++)
    threads[t].tick = 1000000;
  while (done < per_thread * nthreads) {
    for (uint32_t t = 0; t < nthreads; t++) {
      gen_thread *g = &threads[t];
      size_t n = 0;
      Inclprof__EventBatch b = INCLPROF__EVENT_BATCH__INIT;
      b.tid = 1000 + t;
      b.seq = g->seq++;
      b.base_tick = g->tick;
      while (n < BATCH && g->emitted < per_thread) {
        uint64_t step = n ? 5 + next_rand() % 200 : 0;
        g->tick += step;
        dt[n] = step << 1 | (next_rand() % 100 == 0);
        code[n] = next_code(g, per_thread - g->emitted);
        unsigned kind = code[n++] & 7;
        calls += kind == INCLPROF__EVENT_KIND__EV_ENTER || kind == INCLPROF__EVENT_KIND__EV_CALL;
        g->emitted++;
      }
      done += n;
      b.n_dt = b.n_code = n;
      b.dt = dt;
      b.code = code;
      Inclprof__Record r = INCLPROF__RECORD__INIT;
      r.body_case = INCLPROF__RECORD__BODY_EVENTS;
      r.events = &b;
      if (!n)
        continue;
      put(f, &r);
      if (gaps) {
        Inclprof__Gap gp = INCLPROF__GAP__INIT;
        gp.tid = b.tid;
        gp.start_tick = g->tick;
        gp.end_tick = g->tick += 3000;
        g->gaps++;
        r.body_case = INCLPROF__RECORD__BODY_GAP;
        r.gap = &gp;
        put(f, &r);
      }
    }
  }
  finish(f, threads, nthreads, done);
  free(frame_buf);
  if (fclose(f)) {
    perror(argv[1]);
    return 1;
  }
  printf("gen_trace: %llu events, %llu calls\n", (unsigned long long)done,
         (unsigned long long)calls);
  return 0;
}
