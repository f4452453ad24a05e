/* export_synthetic.c - writes the synthetic trace export_synthetic.sh reads:
 * ticks are nanoseconds, no probe cost, no transitions, so every value is
 * known exactly; the function names hold what viewers must escape.
 *   thread 1 "main thread":  A [0,1000) calls B [100,400) and B [500,600)
 *   thread 2 "recursive":    C [0,100) calls C [10,70) calls C [20,50)
 * A = ns::Box<int, "q\">::get() const, B = semi;colon "quoted" \back\slash,
 * C = operator<(a&, b&) */
#include "trace_gen.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: export_synthetic FILE\n");
    return 2;
  }
  tg_trace t;
  tg_batch b;
  tg_begin(&t, 4242, 1e9, 0, INCLPROF__TRANSITION_MODE__TRANSITIONS_NONE);
  tg_module(&t, 1, "/opt/synthetic");
  tg_function(&t, 1, 1, "ns::Box<int, \"q\\\">::get() const", "box.hpp", 10);
  tg_function(&t, 2, 1, "semi;colon \"quoted\" \\back\\slash", "odd.c", 20);
  tg_function(&t, 3, 1, "operator<(a&, b&)", "op.cc", 30);
  tg_thread(&t, 1, "main thread");
  tg_thread(&t, 2, "recursive");
  tg_batch_init(&b, 1);
  tg_ev(&b, 0, 0, INCLPROF__EVENT_KIND__EV_ENTER, 1);
  tg_ev(&b, 100, 0, INCLPROF__EVENT_KIND__EV_ENTER, 2);
  tg_ev(&b, 400, 0, INCLPROF__EVENT_KIND__EV_EXIT, 2);
  tg_ev(&b, 500, 0, INCLPROF__EVENT_KIND__EV_ENTER, 2);
  tg_ev(&b, 600, 0, INCLPROF__EVENT_KIND__EV_EXIT, 2);
  tg_ev(&b, 1000, 0, INCLPROF__EVENT_KIND__EV_EXIT, 1);
  tg_flush(&t, &b);
  tg_batch_init(&b, 2);
  tg_ev(&b, 0, 0, INCLPROF__EVENT_KIND__EV_ENTER, 3);
  tg_ev(&b, 10, 0, INCLPROF__EVENT_KIND__EV_ENTER, 3);
  tg_ev(&b, 20, 0, INCLPROF__EVENT_KIND__EV_ENTER, 3);
  tg_ev(&b, 50, 0, INCLPROF__EVENT_KIND__EV_EXIT, 3);
  tg_ev(&b, 70, 0, INCLPROF__EVENT_KIND__EV_EXIT, 3);
  tg_ev(&b, 100, 0, INCLPROF__EVENT_KIND__EV_EXIT, 3);
  tg_flush(&t, &b);
  tg_trailer(&t, 1, "exit");
  int rc = tg_write(&t, argv[1]);
  tg_free(&t);
  if (rc)
    perror(argv[1]);
  return rc ? 1 : 0;
}
