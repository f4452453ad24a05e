/* windows.c - when the process records: recording switched on and off for
 * a reason (inclprof_start/stop, `inclprof ctl`, INCLPROF_PAUSED, the timed
 * window of INCLPROF_DELAY and INCLPROF_DURATION), each switch written at
 * once as a Window record, and the deadlines the control thread
 * (ctl_channel.c) waits for: the window's start and end and the periodic
 * flush of INCLPROF_FLUSH_EVERY.  Off, every unit's hooks are null, as with
 * inclprof_stop(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "duration_syntax.h"
#include "entry/entry.h"
#include "settings_names.h"

static pthread_mutex_t win_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static int recording = 1;
/* CLOCK_MONOTONIC ns; 0: none */
static uint64_t start_at, stop_at, next_flush, next_interval;
static uint64_t duration_ns, flush_every_ns, interval_ns;

static uint64_t setting(const char *name, const char *v) {
  uint64_t ns = 0;
  if (v && *v && ip_duration_parse(v, &ns) != 0) {
    ip_say("inclprof: %s='%s' is not a duration (like 500ms, 10s, 2m); ignored\n", name, v);
    ns = 0;
  }
  return ns;
}

/* The off periods the aggregate mode's fold takes from the intervals. */
static void note_period(int on, uint64_t tick) {
  unsigned n = atomic_load(&ip_st.n_off_periods);
  struct ip_off_period *p = ip_st.off_periods;
  if (!on && n < sizeof ip_st.off_periods / sizeof *p) {
    p[n] = (struct ip_off_period){tick, UINT64_MAX};
    atomic_store(&ip_st.n_off_periods, n + 1);
  } else if (on && n && __atomic_load_n(&p[n - 1].on, __ATOMIC_RELAXED) == UINT64_MAX) {
    __atomic_store_n(&p[n - 1].on, tick, __ATOMIC_RELEASE);
  }
}

static void write_window(int on, const char *reason, uint64_t tick) {
  note_period(on, tick);
  Inclprof__Window w = INCLPROF__WINDOW__INIT;
  w.has_tick = w.has_recording = 1;
  w.tick = tick;
  w.recording = on != 0;
  w.reason = (char *)reason;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_WINDOW;
  rec.window = &w;
  ip_write_record(&rec, 0);
}

/* Called with win_lock held; tick: when it switched (the start-up's, for a
 * process that starts off).  Off: the Window record first, then the hooks,
 * so that no event of any thread is later than a window's end by more than
 * the swap.  On: the record first too, so that every event after it comes
 * after the record in the file. */
static int set_locked(int on, const char *reason, uint64_t tick) {
  if (recording == on)
    return 0;
  write_window(on, reason, tick);
  ip_units_set_paused(!on);
  recording = on;
  if (on && duration_ns && !stop_at)
    stop_at = ip_monotonic_ns() + duration_ns;
  return 1;
}

int ip_recording_set(int on, const char *reason) {
  if (!ip_lock(&win_lock, 0))
    return -1;
  int changed = set_locked(on, reason, ip_tick_cold());
  ip_unlock(&win_lock);
  return changed;
}

int ip_recording_on(void) { return __atomic_load_n(&recording, __ATOMIC_RELAXED); }

void ip_windows_start(void) {
  uint64_t delay = setting(IP_ENV_DELAY, ip_set.delay);
  duration_ns = setting(IP_ENV_DURATION, ip_set.duration);
  flush_every_ns = setting(IP_ENV_FLUSH_EVERY, ip_set.flush_every);
  interval_ns = setting(IP_ENV_INTERVAL, ip_set.interval);
  if (interval_ns && !ip_st.aggregate) {
    ip_say("inclprof: " IP_ENV_INTERVAL " needs " IP_ENV_MODE "=aggregate; no interval files\n");
    interval_ns = 0;
  }
  const char *p = ip_set.paused;
  int paused = p && *p && strcmp(p, "0");
  uint64_t now = ip_monotonic_ns();
  if (flush_every_ns)
    next_flush = now + flush_every_ns;
  if (interval_ns)
    next_interval = now + interval_ns;
  ip_st.intervals_on = interval_ns != 0;
  if (!ip_lock(&win_lock, 0))
    return;
  if (paused || delay)
    set_locked(0, paused ? "paused at start" : "delay", ip_st.start_tick);
  else if (duration_ns)
    stop_at = now + duration_ns;
  if (delay && !paused)
    start_at = now + delay;
  ip_unlock(&win_lock);
}

int ip_windows_wanted(void) {
  return start_at || stop_at || duration_ns || flush_every_ns || interval_ns || !ip_recording_on();
}

/* The fork child's file starts with the state its parent had. */
void ip_windows_after_fork_child(void) {
  ip_mutex_init(&win_lock);
  if (!recording)
    write_window(0, "off at fork", ip_st.start_tick);
}

int64_t ip_windows_due(int *flush) {
  uint64_t now = ip_monotonic_ns();
  *flush = 0;
  if (!ip_lock(&win_lock, 0))
    return 1000;
  if (start_at && now >= start_at) {
    start_at = 0;
    set_locked(1, "delay over", ip_tick_cold());
  }
  if (stop_at && now >= stop_at) {
    stop_at = 0;
    set_locked(0, "duration over", ip_tick_cold());
  }
  if (next_flush && now >= next_flush) {
    *flush |= IP_DUE_FLUSH;
    next_flush = now + flush_every_ns;
  }
  if (next_interval && now >= next_interval) {
    *flush |= IP_DUE_INTERVAL;
    next_interval += interval_ns; /* on the interval's own grid */
    if (next_interval <= now)
      next_interval = now + interval_ns;
  }
  uint64_t next = UINT64_MAX;
  const uint64_t at[] = {start_at, stop_at, next_flush, next_interval};
  for (size_t i = 0; i < 4; i++)
    if (at[i] && at[i] < next)
      next = at[i];
  ip_unlock(&win_lock);
  if (next == UINT64_MAX)
    return -1;
  return (int64_t)((next - now + 999999) / 1000000);
}
