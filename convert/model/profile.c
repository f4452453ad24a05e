/* model/profile.c - small questions every view and export asks of a loaded
 * profile (see model/profile.h): percentages, value sums, whether it was
 * sampled, a thread by tid. */
#include "model/profile.h"

double ip_pct(uint64_t value, uint64_t session_total) {
  return session_total ? 100.0 * (double)value / (double)session_total : 0.0;
}

void ip_values_add(ip_values *to, const ip_values *v) {
  if (v->calls && (!to->calls || v->min_call < to->min_call))
    to->min_call = v->min_call;
  if (v->max_call > to->max_call)
    to->max_call = v->max_call;
  to->calls += v->calls;
  to->el_incl += v->el_incl;
  to->el_excl += v->el_excl;
  to->app_incl += v->app_incl;
  to->app_excl += v->app_excl;
  to->smp_incl += v->smp_incl;
  to->smp_excl += v->smp_excl;
  for (int k = 0; k < IP_WAIT_N; k++) {
    to->wait_incl[k] += v->wait_incl[k];
    to->wait_excl[k] += v->wait_excl[k];
  }
  to->crit_incl += v->crit_incl;
  to->crit_excl += v->crit_excl;
}

int ip_session_has_wait(const ip_session *s) {
  for (size_t i = 0; i < s->n_processes; i++)
    if (s->processes[i].kernel_events)
      return 1;
  return 0;
}

int ip_session_has_critical(const ip_session *s) {
  for (size_t i = 0; i < s->n_processes; i++)
    if (s->processes[i].wake_edges)
      return 1;
  return 0;
}

int ip_session_sampled(const ip_session *s) {
  if (s->total.smp_incl || s->samples_in_runtime)
    return 1;
  for (size_t i = 0; i < s->n_processes; i++)
    if (s->processes[i].sample_hz)
      return 1;
  return 0;
}

const ip_thread *ip_session_thread(const ip_session *s, uint32_t tid) {
  for (size_t i = 0; i < s->n_threads; i++)
    if (s->threads[i].tid == tid)
      return &s->threads[i];
  return NULL;
}

const ip_process *ip_session_process(const ip_session *s, uint32_t pid) {
  for (size_t i = 0; i < s->n_processes; i++)
    if (s->processes[i].pid == pid)
      return &s->processes[i];
  return NULL;
}

const ip_process *ip_session_aggregate(const ip_session *s) {
  for (size_t i = 0; i < s->n_processes; i++)
    if (s->processes[i].aggregate)
      return &s->processes[i];
  return NULL;
}

int ip_session_interval_span(const ip_session *s, uint64_t *from_ns, uint64_t *to_ns) {
  uint64_t from = UINT64_MAX, to = 0;
  for (size_t i = 0; i < s->n_processes; i++) {
    const ip_process *p = &s->processes[i];
    if (!p->interval)
      return 0;
    uint64_t origin = p->start_unix_ns > s->start_unix_ns ? p->start_unix_ns - s->start_unix_ns : 0;
    uint64_t end = p->end_ns > p->interval_from_ns ? p->end_ns : p->interval_from_ns;
    if (origin + p->interval_from_ns < from)
      from = origin + p->interval_from_ns;
    if (origin + end > to)
      to = origin + end;
  }
  *from_ns = from;
  *to_ns = to;
  return s->n_processes > 0;
}
