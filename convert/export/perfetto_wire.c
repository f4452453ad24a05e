/* export/perfetto_wire.c - the buffered output of the Perfetto export's
 * packets (see export/perfetto_wire.h). */
#include "export/perfetto_wire.h"

#include <stdlib.h>

#include "util/util.h"

enum { OUT_BUFFER = 1 << 18 };

void ip_pb_out_init(ip_pb_out *o, FILE *f) {
  *o = (ip_pb_out){.f = f, .cap = OUT_BUFFER};
  o->buf = ip_must_realloc(NULL, o->cap, 1);
}

static void drain(ip_pb_out *o) {
  fwrite(o->buf, 1, o->len, o->f);
  o->len = 0;
}

uint8_t *ip_pb_out_reserve_slow(ip_pb_out *o, size_t n) {
  drain(o);
  if (o->cap < n)
    o->buf = ip_must_realloc(o->buf, o->cap = n, 1);
  return o->buf + o->len;
}

void ip_pb_out_packet(ip_pb_out *o, const uint8_t *packet, size_t n) {
  uint8_t *p = ip_pb_out_reserve(o, n + 11);
  p = ip_pb_tag(p, 1, 2); /* Trace.packet, length-delimited */
  p = ip_pb_varint(p, n);
  memcpy(p, packet, n);
  ip_pb_out_commit(o, p + n);
}

void ip_pb_out_flush(ip_pb_out *o) {
  drain(o);
  free(o->buf);
  o->buf = NULL;
  o->len = o->cap = 0;
}
