/* chrome_large.c - writes the large synthetic trace chrome_large.sh reads:
 * one thread, ticks are nanoseconds, no probe cost, no transitions.
 *   main [0, end) calls, from 1 s on, OUTER times outer(), each calling
 *   leaf() LEAVES times: the even leaves last 40 ns, the odd ones 30 ns,
 *   with 20 ns between calls.
 * 1 + 15 000 + 15 000 000 calls.  Every leaf starts between 1 s and 10 s
 * and lasts less than 1 us, so each leaf's Chrome event has the same size. */
#include "trace_gen.h"

#define OUTER  15000
#define LEAVES 1000

static void ev(tg_trace *t, tg_batch *b, uint64_t tick, Inclprof__EventKind kind, uint32_t fn) {
  if (b->n == TG_MAX_EVENTS)
    tg_flush(t, b);
  tg_ev(b, tick, 0, kind, fn);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: chrome_large FILE\n");
    return 2;
  }
  static tg_trace t;
  static tg_batch b;
  tg_begin(&t, 4343, 1e9, 0, INCLPROF__TRANSITION_MODE__TRANSITIONS_NONE);
  tg_module(&t, 1, "/opt/large");
  tg_function(&t, 1, 1, "main", "large.c", 1);
  tg_function(&t, 2, 1, "outer", "large.c", 2);
  tg_function(&t, 3, 1, "leaf", "large.c", 3);
  tg_thread(&t, 1, "main");
  tg_batch_init(&b, 1);
  uint64_t now = 0;
  ev(&t, &b, now, INCLPROF__EVENT_KIND__EV_ENTER, 1);
  now = 1000000000;
  for (int o = 0; o < OUTER; o++) {
    ev(&t, &b, now, INCLPROF__EVENT_KIND__EV_ENTER, 2);
    for (int l = 0; l < LEAVES; l++) {
      now += 20;
      ev(&t, &b, now, INCLPROF__EVENT_KIND__EV_ENTER, 3);
      now += l % 2 ? 30 : 40;
      ev(&t, &b, now, INCLPROF__EVENT_KIND__EV_EXIT, 3);
    }
    now += 20;
    ev(&t, &b, now, INCLPROF__EVENT_KIND__EV_EXIT, 2);
  }
  ev(&t, &b, now + 20, INCLPROF__EVENT_KIND__EV_EXIT, 1);
  tg_flush(&t, &b);
  tg_trailer(&t, 1, "exit");
  int rc = tg_write(&t, argv[1]);
  tg_free(&t);
  if (rc)
    perror(argv[1]);
  return rc ? 1 : 0;
}
