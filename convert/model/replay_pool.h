/* model/replay_pool.h - reads one trace file and replays its threads on several
 * cores: the calling thread reads and checks records in file order and queues
 * each event batch, undecoded; jobs - 1 workers and the calling thread
 * itself (whenever the queue is full) decode and replay them, each thread's
 * batches in file order and one at a time; everything else runs on the
 * calling thread once every queued batch has been replayed.  No two threads
 * share replay state, so the session is the same as from a serial read. */
#ifndef INCLPROF_REPLAY_POOL_H
#define INCLPROF_REPLAY_POOL_H

#include <stddef.h>

#include "model/loader.h"
#include "read/read.h"

/* Applies one record on the calling thread (the serial loader's step). */
typedef void (*ip_take_record)(ip_file *f, const Inclprof__Record *rec);

/* Reads r to its end on `jobs` threads (jobs >= 2; f->visitor must
 * be NULL: a visitor sees calls in file order).  Returns what the last
 * ip_reader_next_raw returned: 0 at a clean end, -1 on damage (message in err). */
int ip_replay_pool_run(ip_file *f, ip_reader *r, unsigned jobs, ip_take_record take, char *err,
                       size_t errlen);

#endif
