/* record_wire.h - the protobuf field numbers (proto/inclprof.proto) of the
 * records read or written by hand besides the EventBatch (event_batch_wire.h):
 * the kinds of Record; the Thread, ThreadEnd and Gap fields the runtime's
 * index counts as frames are written (runtime/sink/trace_index.c), and the
 * Function field that tells a function from a callee's binding; and the
 * trace's tail, Index, IndexThread and Footer, which the runtime encodes by
 * hand and trace/trace_frame.c reads (the Footer).  Named here once;
 * tests/unit/test_record_wire.c checks them against the generated protobuf-c
 * descriptors and round-trips an index through the runtime's encoder and the
 * converter's reader. */
#ifndef INCLPROF_RECORD_WIRE_H
#define INCLPROF_RECORD_WIRE_H

#include "event_batch_wire.h"

/* Record: one field per kind of record (its oneof body). */
enum {
  IP_TAG_RECORD_HEADER = 1,
  IP_TAG_RECORD_MODULE = 2,
  IP_TAG_RECORD_FUNCTION = 3,
  IP_TAG_RECORD_THREAD = 4,
  IP_TAG_RECORD_THREAD_END = 5,
  /* IP_TAG_RECORD_EVENTS = 6: event_batch_wire.h */
  IP_TAG_RECORD_GAP = 7,
  IP_TAG_RECORD_MARK = 8,
  IP_TAG_RECORD_TRAILER = 9,
  IP_TAG_RECORD_SEGMENT = 10,
  IP_TAG_RECORD_THREAD_STATE = 11,
  IP_TAG_RECORD_INDEX = 12,
  IP_TAG_RECORD_FOOTER = 13,
  IP_TAG_RECORD_WINDOW = 14,
  IP_TAG_RECORD_SNAPSHOT = 15,
  IP_TAG_RECORD_THREAD_PROFILE = 16,
  IP_TAG_RECORD_TABLE = 17,    /* the first record of a table file */
  IP_TAG_RECORD_TABLE_REF = 18 /* a trace naming a table file */
};

/* Thread, ThreadEnd and Gap: the fields the index reads (and a Gap's ticks). */
enum {
  IP_TAG_THREAD_TID = 1,            /* varint */
  IP_TAG_THREAD_NAME = 2,           /* string */
  IP_TAG_THREAD_NO_TRANSITIONS = 4, /* string */
  IP_TAG_THREAD_END_TID = 1,        /* varint */
  IP_TAG_THREAD_END_TICK = 2,       /* varint */
  IP_TAG_THREAD_END_ALIVE = 3,      /* varint (bool) */
  IP_TAG_THREAD_END_STOPPED = 5,    /* string */
  IP_TAG_GAP_TID = 1,               /* varint */
  IP_TAG_GAP_START_TICK = 2,        /* varint */
  IP_TAG_GAP_END_TICK = 3           /* varint */
};

/* Function, Segment and ThreadState: the fields the snapshots of slow calls
 * read back (runtime/sink/trace_ring.c, snapshot_write.c); a Function's
 * name also tells a function from a callee's binding, a record of gid and
 * module only (trace_index.c).  Every Function field: trace/trace_frame.c
 * encodes a Record{function} by hand. */
enum {
  IP_TAG_FUNCTION_GID = 1,           /* varint */
  IP_TAG_FUNCTION_MODULE = 2,        /* varint */
  IP_TAG_FUNCTION_ID = 3,            /* varint */
  IP_TAG_FUNCTION_NAME = 4,          /* string */
  IP_TAG_FUNCTION_PRETTY = 5,        /* string */
  IP_TAG_FUNCTION_FILE = 6,          /* string */
  IP_TAG_FUNCTION_LINE = 7,          /* varint */
  IP_TAG_FUNCTION_SIZE = 8,          /* varint */
  IP_TAG_FUNCTION_FLAGS = 9,         /* varint */
  IP_TAG_FUNCTION_ADDR = 10,         /* varint */
  IP_TAG_SEGMENT_NUMBER = 1,         /* varint */
  IP_TAG_SEGMENT_START_TICK = 2,     /* varint */
  IP_TAG_THREAD_STATE_TID = 1,       /* varint */
  IP_TAG_THREAD_STATE_NEXT_SEQ = 2,  /* varint */
  IP_TAG_THREAD_STATE_TICK = 3,      /* varint */
  IP_TAG_THREAD_STATE_OPEN = 4,      /* packed varints */
  IP_TAG_THREAD_STATE_PAUSED = 5,    /* varint (bool) */
  IP_TAG_THREAD_STATE_CALL_OPEN = 6, /* varint (bool) */
  IP_TAG_THREAD_STATE_EXPECT_RET = 7 /* varint */
};

/* Index: what the records before it hold. */
enum {
  IP_TAG_INDEX_THREADS = 1,    /* IndexThread, repeated */
  IP_TAG_INDEX_MODULES = 2,    /* Module, repeated: the same bytes as Record.module */
  IP_TAG_INDEX_FUNCTIONS = 3,  /* varint */
  IP_TAG_INDEX_MARK_NAMES = 4, /* varint */
  IP_TAG_INDEX_OFFSET = 5,     /* varint */
  IP_TAG_INDEX_INCOMPLETE = 6, /* string */
  IP_TAG_INDEX_TABLES = 7      /* TableRef, repeated: the same bytes as Record.table_ref's body */
};

/* IndexThread: one thread of the Index. */
enum {
  IP_TAG_INDEX_THREAD_TID = 1,            /* varint */
  IP_TAG_INDEX_THREAD_NAME = 2,           /* string */
  IP_TAG_INDEX_THREAD_NO_TRANSITIONS = 3, /* string */
  IP_TAG_INDEX_THREAD_EVENTS = 4,         /* varint */
  IP_TAG_INDEX_THREAD_BATCHES = 5,        /* varint */
  IP_TAG_INDEX_THREAD_LOST = 6,           /* varint */
  IP_TAG_INDEX_THREAD_GAPS = 7,           /* varint */
  IP_TAG_INDEX_THREAD_ALIVE = 8,          /* varint (bool) */
  IP_TAG_INDEX_THREAD_KERNEL_LOST = 9,    /* varint */
  IP_TAG_INDEX_THREAD_STOPPED = 10        /* string */
};

/* Footer: the lengths of the Index and Trailer frames before it. */
enum {
  IP_TAG_FOOTER_INDEX_BYTES = 1,  /* fixed32 */
  IP_TAG_FOOTER_TRAILER_BYTES = 2 /* fixed32 */
};

#endif
