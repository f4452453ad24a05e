/* snapshot_watch.c - snapshots of slow calls (INCLPROF_SNAPSHOT_IF=
 * FUNCTION>DURATION[,...], INCLPROF_SNAPSHOT_MARGIN, INCLPROF_SNAPSHOT_KEEP):
 * the conditions, read once; which gids name a watched function (their
 * Function records, as they are written); the calls that the ring's walk of
 * the frames written (trace_ring.c) finds longer than their bound, each a
 * window wanted from its start less the margin to its end plus the margin;
 * and the snapshots kept.  A window is written (snapshot_write.c) once it
 * has ended (entry/snapshots.c: by the control thread after a flush of
 * every thread, or at the end of the trace).  At most KEEP snapshots are kept per process: past that
 * a new one replaces the least slow kept, and a call no slower than every
 * kept one is not written at all.  The probes are not involved. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "duration_syntax.h"
#include "sink/sink.h"

#define MAX_CONDS         IP_SNAPSHOT_CONDS
#define DEFAULT_MARGIN_NS 1000000u
#define DEFAULT_KEEP      16u
#define MAX_KEEP          10000u

struct cond {
  char *function;
  uint64_t bound_ns;
};

struct kept {
  char name[48]; /* <pid>-<number> under DIR/snapshots */
  uint64_t ticks;
};

static struct cond conds[MAX_CONDS];
static unsigned n_conds;
static uint64_t margin_ns, margin_ticks;
static int ticks_known; /* the bounds in ticks: the clock is calibrated after the trace opens */

static uint64_t to_ticks(uint64_t ns) {
  return (uint64_t)((double)ns * ip_st.ticks_per_second / 1e9);
}

static void know_ticks(void) {
  if (ticks_known)
    return;
  for (unsigned i = 0; i < n_conds; i++)
    ip_snapshot_bound[i] = to_ticks(conds[i].bound_ns);
  margin_ticks = to_ticks(margin_ns);
  ticks_known = 1;
}
static unsigned keep;
uint8_t *ip_snapshot_watch;
size_t ip_snapshot_watch_len;
uint64_t ip_snapshot_bound[IP_SNAPSHOT_CONDS];

/* wanted[] and kept[]: taken briefly, after ring_lock when both are held */
static pthread_mutex_t snap_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static struct ip_snapshot_want wanted[IP_SNAPSHOTS_WANTED];
static unsigned n_wanted;
static struct kept *kept;
static unsigned n_kept, next_number;

/* "handle>5ms": 0 when it is one (a duration with its unit), else -1. */
static int parse_cond(const char *text, size_t len, struct cond *c) {
  const char *gt = NULL;
  for (size_t i = 0; i < len; i++)
    if (text[i] == '>')
      gt = text + i;
  if (!gt || gt == text || gt + 1 == text + len)
    return -1;
  char dur[32];
  size_t dl = (size_t)(text + len - gt - 1);
  if (dl >= sizeof dur)
    return -1;
  memcpy(dur, gt + 1, dl);
  dur[dl] = 0;
  uint64_t ns;
  if ((dur[dl - 1] < 'a' || dur[dl - 1] > 'z') || ip_duration_parse(dur, &ns) || !ns)
    return -1;
  c->function = ip_strndup(text, (size_t)(gt - text));
  c->bound_ns = ns;
  return c->function ? 0 : -1;
}

static void read_conds(const char *v) {
  for (const char *p = v; *p && n_conds < MAX_CONDS;) {
    size_t len = strcspn(p, ",");
    if (len && parse_cond(p, len, &conds[n_conds]) == 0)
      n_conds++;
    else if (len)
      ip_say("inclprof: INCLPROF_SNAPSHOT_IF: '%.*s' is not FUNCTION>DURATION (like "
             "handle>5ms); ignored\n",
             (int)len, p);
    p += len + (p[len] == ',');
  }
}

void ip_snapshots_start(void) {
  for (unsigned i = 0; i < n_conds; i++)
    ip_free(conds[i].function);
  n_conds = 0;
  ip_free(ip_snapshot_watch);
  ip_snapshot_watch = NULL;
  ip_snapshot_watch_len = 0;
  ip_free(kept);
  kept = NULL;
  n_kept = n_wanted = next_number = 0;
  ip_mutex_init(&snap_lock); /* a fork child's may be held by a parent's thread */
  const char *v = ip_set.snapshot_if;
  if (!v || !*v)
    return;
  read_conds(v);
  margin_ns = DEFAULT_MARGIN_NS;
  ticks_known = 0;
  const char *m = ip_set.snapshot_margin;
  if (m && *m && ip_duration_parse(m, &margin_ns)) {
    ip_say("inclprof: INCLPROF_SNAPSHOT_MARGIN='%s' is not a duration (like 1ms); using 1ms\n", m);
    margin_ns = DEFAULT_MARGIN_NS;
  }
  keep = DEFAULT_KEEP;
  const char *k = ip_set.snapshot_keep;
  if (k && *k) {
    char *end;
    unsigned long n = strtoul(k, &end, 10);
    if (*end || n < 1 || n > MAX_KEEP)
      ip_say("inclprof: INCLPROF_SNAPSHOT_KEEP='%s' is not a count in 1..%u; keeping %u\n", k,
             MAX_KEEP, DEFAULT_KEEP);
    else
      keep = (unsigned)n;
  }
  kept = ip_alloc(keep * sizeof *kept);
  if (!kept)
    n_conds = 0;
}

int ip_snapshots_on(void) { return n_conds > 0; }

static int same_name(const char *want, const uint8_t *name, size_t len) {
  return len && strlen(want) == len && !memcmp(want, name, len);
}

/* A demangled name "ns::f(int)" matches "ns::f" too. */
static int same_pretty(const char *want, const uint8_t *pretty, size_t len) {
  size_t wl = strlen(want);
  return same_name(want, pretty, len) ||
         (len > wl && !memcmp(want, pretty, wl) && pretty[wl] == '(');
}

void ip_snapshot_function(uint32_t gid, const uint8_t *name, size_t name_len, const uint8_t *pretty,
                          size_t pretty_len) {
  for (unsigned i = 0; i < n_conds; i++) {
    if (!same_name(conds[i].function, name, name_len) &&
        !same_pretty(conds[i].function, pretty, pretty_len))
      continue;
    know_ticks(); /* a unit's Function records come after the calibration */
    if (gid >= ip_snapshot_watch_len) {
      size_t n = ip_snapshot_watch_len ? ip_snapshot_watch_len : 256;
      while (n <= gid)
        n *= 2;
      uint8_t *w = ip_realloc(ip_snapshot_watch, n);
      if (!w)
        return;
      memset(w + ip_snapshot_watch_len, 0, n - ip_snapshot_watch_len);
      ip_snapshot_watch = w;
      ip_snapshot_watch_len = n;
    }
    ip_snapshot_watch[gid] = (uint8_t)(i + 1);
    return;
  }
}

static uint64_t least_kept(unsigned *at) {
  uint64_t least = UINT64_MAX;
  for (unsigned i = 0; i < n_kept; i++)
    if (kept[i].ticks < least) {
      least = kept[i].ticks;
      *at = i;
    }
  return least;
}

void ip_snapshot_call(unsigned cond, uint32_t gid, uint32_t tid, uint64_t enter_tick,
                      uint64_t exit_tick, uint64_t gap_ticks) {
  know_ticks();
  uint64_t took = exit_tick - enter_tick;
  if (cond >= n_conds || took <= ip_snapshot_bound[cond] || !ip_lock(&snap_lock, 0))
    return;
  unsigned at = 0;
  if (n_kept == keep && took <= least_kept(&at)) {
    ip_unlock(&snap_lock);
    return; /* no slower than any snapshot kept */
  }
  struct ip_snapshot_want w = {.cond = cond,
                               .tid = tid,
                               .gid = gid,
                               .enter_tick = enter_tick,
                               .exit_tick = exit_tick,
                               .from_tick =
                                   enter_tick > margin_ticks ? enter_tick - margin_ticks : 0,
                               .to_tick = exit_tick + margin_ticks,
                               .took = took,
                               .gap_ticks = gap_ticks};
  if (n_wanted < IP_SNAPSHOTS_WANTED) {
    wanted[n_wanted++] = w;
  } else { /* the least slow window waiting gives way */
    unsigned least = 0;
    for (unsigned i = 1; i < n_wanted; i++)
      if (wanted[i].took < wanted[least].took)
        least = i;
    if (wanted[least].took < took)
      wanted[least] = w;
  }
  ip_unlock(&snap_lock);
}

int ip_snapshots_ripe(void) {
  if (!n_conds || !ip_lock(&snap_lock, 0))
    return 0;
  uint64_t now = ip_tick_cold();
  int ripe = 0;
  for (unsigned i = 0; i < n_wanted && !ripe; i++)
    ripe = wanted[i].to_tick <= now;
  ip_unlock(&snap_lock);
  return ripe;
}

int ip_snapshots_need(uint64_t tick) {
  if (!n_conds || !ip_lock(&snap_lock, 0))
    return 0;
  int need = 0;
  for (unsigned i = 0; i < n_wanted && !need; i++)
    need = wanted[i].from_tick < tick;
  ip_unlock(&snap_lock);
  return need;
}

static void remove_snapshot(const char *name) {
  char path[sizeof ip_st.dir + 160];
  snprintf(path, sizeof path, "%s/snapshots/%s/%d.ipb", ip_st.dir, name, (int)ip_st.pid);
  unlink(path);
  snprintf(path, sizeof path, "%s/snapshots/%s", ip_st.dir, name);
  rmdir(path);
}

/* Keeps a snapshot written, dropping the least slow kept past KEEP (or
 * this one, when slower ones were kept meanwhile). */
static void keep_one(const char *name, uint64_t took) {
  unsigned at = 0;
  char gone[48] = "";
  if (!ip_lock(&snap_lock, 0))
    return;
  if (n_kept == keep && least_kept(&at) < took) {
    memcpy(gone, kept[at].name, sizeof gone);
    kept[at] = kept[--n_kept];
  }
  if (n_kept < keep) {
    snprintf(kept[n_kept].name, sizeof kept[n_kept].name, "%s", name);
    kept[n_kept++].ticks = took;
  } else {
    snprintf(gone, sizeof gone, "%s", name);
  }
  ip_unlock(&snap_lock);
  if (gone[0])
    remove_snapshot(gone);
}

/* Each window is written in a hidden directory, .<pid>-writing-<k>, then
 * renamed DIR/snapshots/<pid>-<number> when whole. */
void ip_snapshots_save_all(const struct ip_snapshot_source *src, struct ip_snapshot_want *w,
                           unsigned n) {
  char top[sizeof ip_st.dir + 16];
  snprintf(top, sizeof top, "%s/snapshots", ip_st.dir);
  if (!n || (mkdir(top, 0777) != 0 && errno != EEXIST))
    return;
  struct ip_snapshot_out *out = ip_alloc(n * sizeof *out);
  if (!out)
    return;
  unsigned m = 0, at = 0;
  for (unsigned i = 0; i < n; i++) {
    if (!ip_lock(&snap_lock, 0))
      continue;
    int skip = n_kept == keep && w[i].took <= least_kept(&at);
    ip_unlock(&snap_lock);
    struct ip_snapshot_out *o = &out[m];
    snprintf(o->dir, sizeof o->dir, "%s/.%d-writing-%u", top, (int)ip_st.pid, m);
    char old[sizeof o->dir + 32];
    snprintf(old, sizeof old, "%s/%d.ipb", o->dir, (int)ip_st.pid);
    unlink(old); /* left by a process that ended while writing */
    rmdir(o->dir);
    if (skip || mkdir(o->dir, 0777) != 0)
      continue;
    w[i].number = ++next_number;
    o->want = &w[i];
    o->function = conds[w[i].cond].function;
    o->bound_ns = conds[w[i].cond].bound_ns;
    m++;
  }
  ip_snapshot_write(src, out, m);
  for (unsigned i = 0; i < m; i++) {
    struct ip_snapshot_want *x = (struct ip_snapshot_want *)out[i].want;
    char name[48], final[sizeof top + 64];
    int err = out[i].err;
    for (int tries = 0; !err && tries < 1000; tries++) {
      snprintf(name, sizeof name, "%d-%u", (int)ip_st.pid, x->number);
      snprintf(final, sizeof final, "%s/%s", top, name);
      if (rename(out[i].dir, final) == 0)
        break;
      if (errno != EEXIST && errno != ENOTEMPTY)
        err = errno;
      x->number = ++next_number; /* taken by the image before an exec: the next */
    }
    if (err) {
      char old[sizeof out[i].dir + 32];
      snprintf(old, sizeof old, "%s/%d.ipb", out[i].dir, (int)ip_st.pid);
      unlink(old);
      rmdir(out[i].dir);
      continue;
    }
    keep_one(name, x->took);
  }
  ip_free(out);
}

unsigned ip_snapshots_take(int all, struct ip_snapshot_want *out, unsigned max) {
  unsigned n = 0;
  uint64_t now = ip_tick_cold();
  if (!n_conds || !ip_lock(&snap_lock, 0))
    return 0;
  for (unsigned i = 0; i < n_wanted && n < max;) {
    if (all || wanted[i].to_tick <= now) {
      out[n] = wanted[i];
      if (out[n].to_tick > now)
        out[n].to_tick = now; /* the trace ends here */
      n++;
      wanted[i] = wanted[--n_wanted];
    } else {
      i++;
    }
  }
  ip_unlock(&snap_lock);
  for (unsigned i = 0; i < n; i++) /* in the order the calls ended */
    for (unsigned j = i + 1; j < n; j++)
      if (out[j].exit_tick < out[i].exit_tick) {
        struct ip_snapshot_want t = out[i];
        out[i] = out[j];
        out[j] = t;
      }
  return n;
}
