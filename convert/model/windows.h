/* model/windows.h - the recording windows of one trace file (Window
 * records): the time between an off and the next on is taken from no
 * thread's intervals, and the process says which windows it holds. */
#ifndef INCLPROF_WINDOWS_H
#define INCLPROF_WINDOWS_H

#include <stdint.h>

#include "inclprof.pb-c.h"

struct ip_file;
struct ip_process;
typedef struct ip_windows ip_windows;

ip_windows *ip_windows_new(void);
/* A Window record, in file order (the calling thread reads the file while
 * replay threads may be reading the list: entries are only appended). */
void ip_windows_take(ip_windows *w, const Inclprof__Window *rec);
/* Recording was off at some time so far (w may be NULL: never). */
int ip_windows_any(const ip_windows *w);
/* Ticks of [from, to) that recording was off; 0 when it never was. */
uint64_t ip_windows_off_ticks(const ip_windows *w, uint64_t from, uint64_t to);
/* Writes the windows into p (p->windows, p->n_windows) unless p is NULL,
 * and frees w. */
void ip_windows_finish(ip_windows *w, const struct ip_file *f, struct ip_process *p);

#endif
