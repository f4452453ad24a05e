/* model/slowest.h - the slowest calls of one function and where their time
 * went.  Two replays of the same traces: the first, with
 * ip_slowest_visitor(), keeps the N longest calls (Elapsed or Application
 * Inclusive); ip_slowest_found() then turns the visitor to the second, which
 * sums every call made inside each of them per call path, with its wait
 * breakdown.  Calls nest exactly on a thread's compensated timeline, so "inside"
 * is: same thread, deeper, and within the slow call's start and end. */
#ifndef INCLPROF_SLOWEST_H
#define INCLPROF_SLOWEST_H

#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"
#include "util/util.h"

/* One slow call. */
typedef struct ip_slow_call {
  uint32_t thread;          /* index into ip_session.threads (the same in both replays) */
  uint32_t depth;           /* 0: an outermost frame */
  uint32_t node;            /* its call path (second replay), IP_NO_NODE until seen */
  uint64_t start_ns, el_ns; /* on the thread's timeline (ip_call_visitor) */
  uint64_t app_ns;          /* Application Inclusive */
  uint64_t wait[IP_WAIT_N]; /* its wait breakdown (kevents traces) */
  ip_u64map inner;          /* call path node -> index into inner_v */
  ip_values *inner_v;       /* per call path inside it: calls, el_incl, app_incl, wait_incl */
  uint32_t *inner_node;     /* the node of each inner_v entry */
  size_t n_inner, cap_inner;
} ip_slow_call;

typedef struct ip_slowest {
  const char *fn;      /* the function, as ip_func_named matches it */
  size_t want;         /* how many calls to keep */
  int by_app;          /* rank by Application Inclusive instead of Elapsed */
  uint64_t fn_calls;   /* calls of fn seen in the first replay */
  ip_slow_call *calls; /* the slowest, longest first once found */
  size_t n;
  uint8_t *match; /* per session function: 0 not looked at, 1 not fn, 2 fn */
  size_t n_match;
  uint8_t *on_thread; /* second replay: per thread, whether a slow call is on it */
  size_t n_on_thread;
  int second; /* the second replay */
  ip_call_visitor visitor;
} ip_slowest;

void ip_slowest_init(ip_slowest *w, const char *fn, size_t want, int by_app);
const ip_call_visitor *ip_slowest_visitor(ip_slowest *w);
/* After the first replay: orders the calls, longest first, and readies the
 * visitor for the second.  Returns the number kept (0: fn never ran). */
size_t ip_slowest_found(ip_slowest *w);
void ip_slowest_free(ip_slowest *w);

#endif
