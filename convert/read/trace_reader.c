/* read/trace_reader.c - streaming reader of one trace file (see read/trace_reader.h and
 * docs/trace-format.md): checks the preamble, then decodes one frame at a
 * time, its length and CRC checked by the one frame reader (frame_read.h).
 * After a damaged frame it searches the bytes that follow for the next frame
 * whose length, first field and CRC are valid and whose successor is valid
 * too (or ends the file), and goes on from there, counting what it skipped;
 * damage with no valid frame after it ends the stream with a message naming
 * the file and the byte offset. */
#include "read/trace_reader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame_read.h"
#include "read/batch_decode.h"
#include "trace_frame.h"

struct ip_reader {
  FILE *f;
  char *path;
  uint64_t offset; /* bytes consumed */
  unsigned minor;
  int damaged;
  char damage_msg[256]; /* repeated by every call after the damage */
  ip_reader_skips skips;
  uint8_t *buf;
  size_t cap;
  Inclprof__Record *rec; /* the current record: protobuf-c's, or &batch.rec */
  ip_batch_buf batch;    /* event batches, decoded in one pass into reused arrays */
};

static void say(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || !errlen)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

ip_reader *ip_reader_open(const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    say(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  uint8_t pre[IP_TRACE_PREAMBLE_LEN];
  size_t got = fread(pre, 1, sizeof pre, f);
  const char *fault = NULL;
  char msg[96];
  if (got == 0)
    fault = ferror(f) ? "cannot read" : "empty file, not a trace";
  else if (got < IP_TRACE_MAGIC_LEN || memcmp(pre, IP_TRACE_MAGIC, IP_TRACE_MAGIC_LEN))
    fault = "not an inclprof trace (bad magic); name a PID.ipb file or the directory "
            "'inclprof record' wrote";
  else if (got < sizeof pre)
    fault = "truncated preamble (file shorter than 12 bytes)";
  else {
    unsigned major = pre[8] | (unsigned)pre[9] << 8;
    if (major < IP_FORMAT_MAJOR_OLDEST || major > IP_FORMAT_MAJOR) {
      snprintf(msg, sizeof msg, "unsupported format version %u (this reader knows %u to %u)", major,
               IP_FORMAT_MAJOR_OLDEST, IP_FORMAT_MAJOR);
      fault = msg;
    }
  }
  if (fault) {
    say(err, errlen, "%s: %s", path, fault);
    fclose(f);
    return NULL;
  }
  ip_reader *r = calloc(1, sizeof *r);
  char *p = strdup(path);
  if (!r || !p) {
    say(err, errlen, "%s: out of memory", path);
    free(r);
    free(p);
    fclose(f);
    return NULL;
  }
  r->f = f;
  r->path = p;
  ip_batch_buf_init(&r->batch);
  r->offset = IP_TRACE_PREAMBLE_LEN;
  r->minor = pre[10] | (unsigned)pre[11] << 8;
  return r;
}

static void drop_record(ip_reader *r) {
  if (r->rec && r->rec != &r->batch.rec)
    inclprof__record__free_unpacked(r->rec, NULL);
  r->rec = NULL;
}

static int damage(ip_reader *r, uint64_t at, char *err, size_t errlen, const char *what) {
  r->damaged = 1;
  snprintf(r->damage_msg, sizeof r->damage_msg, "%s: offset %llu: %s", r->path,
           (unsigned long long)at, what);
  say(err, errlen, "%s", r->damage_msg);
  return -1;
}

/* Searches from the damaged frame at `start` for the next valid frame that
 * is followed by another valid frame or by the end of the file, reading the
 * rest of the file in windows; positions the stream there and counts the
 * bytes passed over.  0 when there is none. */
static int resync(ip_reader *r, uint64_t start, const char *why) {
  enum { WINDOW = 8 << 20 }; /* frames larger than this after damage are not found */
  if (fseeko(r->f, (off_t)start + 1, SEEK_SET) != 0)
    return 0;
  size_t cap = 2 * (size_t)WINDOW, have = 0;
  uint8_t *w = malloc(cap);
  if (!w)
    return 0;
  uint64_t base = start + 1; /* file offset of w[0] */
  int eof = 0, found = 0;
  while (!found) {
    if (!eof && have < cap) {
      size_t got = fread(w + have, 1, cap - have, r->f);
      have += got;
      eof = got == 0 || feof(r->f);
    }
    size_t scan_to = eof ? have : (have > (size_t)WINDOW ? have - (size_t)WINDOW : 0);
    size_t i = ip_frame_find(w, have, scan_to, eof);
    if (i < scan_to) {
      uint64_t at = base + i;
      if (r->skips.regions++ == 0) {
        r->skips.first_at = start;
        snprintf(r->skips.first_why, sizeof r->skips.first_why, "%s", why);
      }
      r->skips.bytes += at - start;
      r->offset = at;
      found = fseeko(r->f, (off_t)at, SEEK_SET) == 0;
      break;
    }
    if (eof)
      break;
    memmove(w, w + i, have - i); /* keep what may still start a frame */
    base += i;
    have -= i;
  }
  free(w);
  return found;
}

/* Reads one frame into r->rec: 1, 0 at a clean end, -1 on damage; with raw,
 * 2 when the frame is an event batch ip_batch_decode will decode, its bytes
 * swapped into raw undecoded. */
static int read_frame(ip_reader *r, ip_raw_batch *raw, char *err, size_t errlen) {
  if (r->damaged) {
    say(err, errlen, "%s", r->damage_msg);
    return -1;
  }
  uint64_t start = r->offset;
  uint8_t head[IP_FRAME_HEAD_MAX];
  size_t nbytes = 0;
  do { /* the length's bytes, up to the one that ends it */
    int c = getc(r->f);
    if (c == EOF) {
      if (nbytes == 0 && !ferror(r->f))
        return 0;
      return damage(r, start, err, errlen,
                    ferror(r->f) ? "read error" : ip_frame_fault_text(IP_FRAME_CUT_LENGTH));
    }
    head[nbytes++] = (uint8_t)c;
  } while ((head[nbytes - 1] & 0x80) && nbytes < sizeof head);
  uint64_t len;
  size_t head_len;
  ip_frame_fault fault = ip_frame_length(head, nbytes, &len, &head_len);
  if (fault != IP_FRAME_OK)
    return damage(r, start, err, errlen, ip_frame_fault_text(fault));
  size_t need = (size_t)len + IP_FRAME_CRC_LEN;
  if (need > r->cap) {
    uint8_t *nb = realloc(r->buf, need);
    if (!nb)
      return damage(r, start, err, errlen, "out of memory");
    r->buf = nb;
    r->cap = need;
  }
  if (fread(r->buf, 1, need, r->f) != need)
    return damage(r, start, err, errlen, ip_frame_fault_text(IP_FRAME_CUT_RECORD));
  if (!ip_frame_crc_ok(r->buf, (size_t)len))
    return damage(r, start, err, errlen, ip_frame_fault_text(IP_FRAME_BAD_CRC));
  if (raw && ip_batch_peek(r->buf, (size_t)len, &raw->tid)) {
    r->offset = start + (uint64_t)nbytes + need;
    uint8_t *mine = r->buf;
    size_t cap = r->cap;
    r->buf = raw->p;
    r->cap = raw->cap;
    raw->p = mine;
    raw->cap = cap;
    raw->len = (size_t)len;
    return 2;
  }
  int fast = ip_batch_decode(&r->batch, r->buf, (size_t)len);
  if (fast < 0)
    return damage(r, start, err, errlen, "out of memory");
  r->rec = fast ? &r->batch.rec : inclprof__record__unpack(NULL, (size_t)len, r->buf);
  if (!r->rec)
    return damage(r, start, err, errlen, "undecodable record");
  r->offset = start + (uint64_t)nbytes + need;
  return 1;
}

/* read_frame, going on past damage wherever a valid frame follows it. */
static int read_frame_resync(ip_reader *r, ip_raw_batch *raw, char *err, size_t errlen) {
  for (;;) {
    uint64_t start = r->offset;
    int rc = read_frame(r, raw, err, errlen);
    if (rc >= 0 || r->damaged != 1)
      return rc;
    const char *why = strstr(r->damage_msg, ": offset ");
    why = why ? strchr(why + 9, ':') : NULL;
    if (!resync(r, start, why ? why + 2 : "damaged record")) {
      r->damaged = 2; /* no valid frame after it: the stream ends here */
      return -1;
    }
    r->damaged = 0;
  }
}

int ip_reader_next_raw(ip_reader *r, Inclprof__Record **rec, ip_raw_batch *raw, char *err,
                       size_t errlen) {
  for (;;) {
    drop_record(r);
    int rc = read_frame_resync(r, raw, err, errlen);
    if (rc <= 0 || rc == 2)
      return rc;
    /* A record type from a newer minor version: skip it. */
    if (r->rec->body_case != INCLPROF__RECORD__BODY__NOT_SET) {
      *rec = r->rec;
      return 1;
    }
  }
}

int ip_reader_next(ip_reader *r, Inclprof__Record **rec, char *err, size_t errlen) {
  return ip_reader_next_raw(r, rec, NULL, err, errlen);
}

uint64_t ip_reader_offset(const ip_reader *r) { return r->offset; }
const ip_reader_skips *ip_reader_skipped(const ip_reader *r) { return &r->skips; }
unsigned ip_reader_minor(const ip_reader *r) { return r->minor; }
const char *ip_reader_path(const ip_reader *r) { return r->path; }

void ip_reader_close(ip_reader *r) {
  if (!r)
    return;
  drop_record(r);
  ip_batch_buf_free(&r->batch);
  fclose(r->f);
  free(r->buf);
  free(r->path);
  free(r);
}
