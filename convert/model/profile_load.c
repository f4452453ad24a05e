/* model/profile_load.c - a thread's call-path tree as the runtime's
 * aggregate mode summed it (a ThreadProfile record): taken into the
 * session's call tree straight from its paths, with no events to replay.
 * The runtime kept the values in compensated ticks with IP_FX fractional
 * bits, as the replay does; here they become ns.  Two paths of the record
 * that name the same session function under the same parent (a library
 * callee's call lines have a gid each) become one path, their values
 * summed.  A thread's later ThreadProfile (`inclprof ctl flush` writes the
 * trees so far, the end the whole) replaces the earlier one. */
#include <stdlib.h>
#include <string.h>

#include "model/latency.h"
#include "model/loader.h"
#include "util/util.h"

static uint64_t at(const uint64_t *v, size_t n, size_t i) { return i < n ? v[i] : 0; }

/* The per-call histogram of path i of p (Elapsed, ns) into lat; *k: its
 * first bucket entry, then the next path's. */
static void take_latency(const Inclprof__ThreadProfile *p, size_t *k, size_t i, uint64_t min,
                         uint64_t max, ip_lat *lat) {
  size_t n = p->n_latency_bucket < p->n_latency_count ? p->n_latency_bucket : p->n_latency_count;
  size_t cells = i < p->n_latency_buckets ? p->latency_buckets[i] : 0;
  ip_lat path = {0};
  uint64_t b = 0;
  for (size_t j = 0; j < cells && *k < n; j++, (*k)++) {
    b = j ? b + 1 + p->latency_bucket[*k] : p->latency_bucket[*k];
    if (b < UINT32_MAX)
      ip_lat_add_bucket(&path, (uint32_t)b, p->latency_count[*k], min, max);
  }
  ip_lat_merge(lat, &path);
  ip_lat_free(&path);
}

/* Forgets the tree and counts of an earlier ThreadProfile of th. */
static void forget(ip_tstate *ts, ip_thread *th) {
  for (size_t i = 0; th->lat && i < th->n_nodes; i++) {
    ip_lat_free(&th->lat[i].el);
    ip_lat_free(&th->lat[i].app);
  }
  ip_lat_free_all(th->lat_by_func, th->n_lat_by_func);
  th->lat_by_func = NULL;
  th->n_lat_by_func = 0;
  th->n_nodes = 1;
  memset(&th->nodes[0].v, 0, sizeof th->nodes[0].v);
  th->nodes[0].first_child = IP_NO_NODE;
  ip_u64map_free(&ts->child);
  memset(ts->child_hot_key, 0, sizeof ts->child_hot_key);
  ip_u64map_free(&ts->site_vals);
  th->n_sites = 0;
  ip_pc_index_free(&ts->pcs);
  th->n_pcs = 0;
  th->events = th->gaps = th->gap_ns = th->samples_outside = th->kernel_lost = 0;
  memset(&th->rep, 0, sizeof th->rep);
}

void ip_profile_take(ip_file *f, ip_tstate *ts, const Inclprof__ThreadProfile *p) {
  ip_thread *th = &f->s->threads[ts->thread];
  if (ts->profiled)
    forget(ts, th);
  ts->profiled = 1;
  size_t n = p->n_parent < p->n_gid ? p->n_parent : p->n_gid;
  uint32_t *node = ip_must_calloc(n + 1, sizeof *node);
  uint64_t since = p->start_tick > f->start_tick ? p->start_tick - f->start_tick : 0;
  uint64_t origin = (uint64_t)((double)since * f->ns_per_tick + 0.5);
  ts->origin_ns = origin < UINT64_MAX - f->proc_origin_ns ? f->proc_origin_ns + origin : UINT64_MAX;
  th->start_ns = ts->origin_ns;
  ts->el_ns = ip_replay_fx_ns(f, p->elapsed);
  th->events += p->events;
  th->gaps += p->gaps;
  th->gap_ns += ip_replay_fx_ns(f, p->gap_ticks << IP_FX);
  th->rep.popped += p->popped;
  th->rep.closed_at_end += p->closed_at_end;
  th->rep.unmatched += p->unmatched;
  th->rep.forked += p->forked;
  th->rep.unwound += p->unwound;
  th->samples_outside += p->samples_outside;
  th->kernel_lost += p->kernel_lost;
  /* the thread's end by the clock, and what the report's warning about
   * call-dense code reads, as a replay leaves them */
  ts->first_tick = p->start_tick;
  ts->hwm = p->end_tick > p->start_tick ? p->end_tick : p->start_tick;
  ts->probe_removed_fx = p->probe_removed;
  ts->app_intervals = p->app_intervals;
  ts->dense_intervals = p->dense_intervals;
  size_t k = 0; /* the next latency entry: they come in path order */
  for (size_t i = 0; i < n; i++) {
    uint32_t parent = p->parent[i];
    if (parent > i) /* a parent comes first: damage */
      parent = 0;
    uint32_t nd = ip_replay_child_node(ts, th, node[parent], ip_file_func(f, p->gid[i]));
    node[i + 1] = nd;
    ip_values *v = &th->nodes[nd].v;
    uint64_t calls = at(p->calls, p->n_calls, i);
    uint64_t min = ip_replay_fx_ns(f, at(p->min_call, p->n_min_call, i));
    uint64_t max = ip_replay_fx_ns(f, at(p->max_call, p->n_max_call, i));
    v->calls += calls;
    v->el_incl += ip_replay_fx_ns(f, at(p->elapsed_inclusive, p->n_elapsed_inclusive, i));
    v->el_excl += ip_replay_fx_ns(f, at(p->elapsed_exclusive, p->n_elapsed_exclusive, i));
    v->app_incl += ip_replay_fx_ns(f, at(p->application_inclusive, p->n_application_inclusive, i));
    v->app_excl += ip_replay_fx_ns(f, at(p->application_exclusive, p->n_application_exclusive, i));
    v->smp_incl += at(p->samples_inclusive, p->n_samples_inclusive, i);
    v->smp_excl += at(p->samples_exclusive, p->n_samples_exclusive, i);
    for (int w = 0; w < IP_WAIT_N; w++) {
      uint64_t wi = at(p->wait_inclusive, p->n_wait_inclusive, i * IP_WAIT_N + (size_t)w);
      uint64_t we = at(p->wait_exclusive, p->n_wait_exclusive, i * IP_WAIT_N + (size_t)w);
      v->wait_incl[w] += w == IP_W_FAULTS ? wi : ip_replay_fx_ns(f, wi);
      v->wait_excl[w] += w == IP_W_FAULTS ? we : ip_replay_fx_ns(f, we);
    }
    if (calls && min < v->min_call)
      v->min_call = min;
    if (calls && max > v->max_call)
      v->max_call = max;
    uint32_t site = ip_file_site(f, p->gid[i]); /* a call-site callee's call line */
    if (site && calls)
      ip_site_call(ts, th, nd, site, calls,
                   ip_replay_fx_ns(f, at(p->elapsed_inclusive, p->n_elapsed_inclusive, i)),
                   ip_replay_fx_ns(f, at(p->application_inclusive, p->n_application_inclusive, i)));
    ip_lat_pair *lat = th->lat            ? &th->lat[nd]
                       : th->lat_per_func ? ip_replay_func_lat(th, th->nodes[nd].func)
                                          : NULL;
    if (lat && (f->o->latency & IP_LAT_ELAPSED))
      take_latency(p, &k, i, min, max, &lat->el);
    else
      k += i < p->n_latency_buckets ? p->latency_buckets[i] : 0;
  }
  size_t np = p->n_sample_pc < p->n_sample_path ? p->n_sample_pc : p->n_sample_path;
  if (p->n_sample_count < np)
    np = p->n_sample_count;
  for (size_t j = 0; j < np; j++) /* samples by address, per path */
    for (uint32_t c = 0; p->sample_path[j] < n && c < p->sample_count[j]; c++)
      ip_pc_sample_add(&ts->pcs, th, p->sample_pc[j], node[p->sample_path[j] + 1]);
  free(node);
}
