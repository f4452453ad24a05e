/* model/file_load.c - ip_load_file: reads one trace file record by record
 * (streaming: each event batch is replayed and freed before the next is
 * read; with --jobs N the threads' batches are replayed on N cores,
 * model/replay_pool.h), into the session's tables and its own process.
 * Damage after the header is a warning; the data before it stays. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/loader.h"
#include "model/replay_pool.h"
#include "model/symbolize.h"
#include "model/windows.h"
#include "read/read.h"
#include "util/util.h"

#define MAX_MODULE_ID (1u << 20)

/* Reads the first record, which must be the header. */
static Inclprof__Header *first_header(ip_reader *r, char *err, size_t errlen) {
  Inclprof__Record *rec;
  int rc = ip_reader_next(r, &rec, err, errlen);
  if (rc == 0)
    snprintf(err, errlen, "%s: offset %llu: no records after the preamble (empty trace)",
             ip_reader_path(r), (unsigned long long)ip_reader_offset(r));
  if (rc <= 0)
    return NULL;
  if (rec->body_case == INCLPROF__RECORD__BODY_TABLE) {
    snprintf(err, errlen,
             "%s: a function table file (the traces of its directory share it), not a trace: "
             "give the trace files (*.ipb) or their directory",
             ip_reader_path(r));
    return NULL;
  }
  if (rec->body_case != INCLPROF__RECORD__BODY_HEADER) {
    snprintf(err, errlen, "%s: offset 12: first record is not a header", ip_reader_path(r));
    return NULL;
  }
  return rec->header;
}

static uint64_t ns_after_start(const ip_file *f, uint64_t tick) {
  return tick > f->start_tick ? (uint64_t)((double)(tick - f->start_tick) * f->ns_per_tick) : 0;
}

static int take_header(ip_file *f, const Inclprof__Header *h, char *err, size_t errlen) {
  ip_process *p = &f->s->processes[f->proc];
  double tps = h->has_ticks_per_second ? h->ticks_per_second : 0;
  if (!(tps > 0) || !isfinite(tps)) {
    if (h->clock != INCLPROF__CLOCK_SOURCE__CLOCK_MONOTONIC) {
      snprintf(err, errlen, "%s: offset 12: header has no valid ticks_per_second", f->path);
      return -1;
    }
    tps = 1e9;
  }
  p->pid = h->pid;
  p->ppid = h->ppid;
  p->executable = ip_must_strdup(h->executable ? h->executable : "");
  p->cmdline = ip_cmdline_join(h->argv, h->n_argv);
  free(p->start_cmdline);
  p->start_cmdline = ip_cmdline_join(h->argv, h->n_argv);
  p->trace_path = ip_must_strdup(f->path);
  p->transitions = h->transitions;
  p->transitions_note = ip_must_strdup(h->transitions_note);
  p->sample_hz = h->sample_hz;
  p->start_unix_ns = h->start_unix_ns;
  p->format_major = h->format_major;
  p->format_minor = h->format_minor;
  p->clock = h->clock;
  p->clock_unfenced = h->clock_unfenced;
  p->ticks_per_second = tps;
  p->hostname = ip_must_strdup(h->hostname);
  p->runtime_version = ip_must_strdup(h->runtime_version);
  p->run = ip_must_strdup(h->run);
  p->forked_from = h->forked_from;
  p->kernel_events = f->kernel_events = h->has_kernel_events && h->kernel_events;
  p->aggregate = h->has_aggregate && h->aggregate;
  p->wake_edges = f->wake_edges = p->kernel_events && h->has_wake_edges && h->wake_edges;
  p->futex_waits = p->wake_edges && h->has_futex_waits && h->futex_waits;
  f->ns_per_tick = 1e9 / tps;
  if (f->ns_per_tick > 1e6) { /* below 1 kHz: no real clock */
    snprintf(err, errlen, "%s: offset 12: header: implausible ticks_per_second %g", f->path, tps);
    return -1;
  }
  f->ns_per_tick_fx = (uint64_t)(f->ns_per_tick * 4294967296.0 + 0.5);
  double cost = h->probe_cost_ticks;
  if (!(cost > 0) || !(cost < 1e9))
    cost = 0;
  p->probe_cost_ns = cost * f->ns_per_tick;
  f->cost_fx = f->o && f->o->raw ? 0 : (uint64_t)(cost * (1 << IP_FX) + 0.5);
  double hidden = h->has_probe_hidden_ticks ? h->probe_hidden_ticks : 0;
  if (!(hidden > 0) || !(hidden <= cost))
    hidden = 0;
  f->hidden_fx = f->cost_fx ? (uint64_t)(hidden * (1 << IP_FX) + 0.5) : 0;
  double ptr_call = h->has_pointer_call_cost_ticks ? h->pointer_call_cost_ticks : 0;
  if (!(ptr_call > 0) || !(ptr_call < 1e9))
    ptr_call = 0;
  f->ptr_call_fx = f->cost_fx ? (uint64_t)(ptr_call * (1 << IP_FX) + 0.5) : 0;
  p->ptr_call_cost_ns = ptr_call * f->ns_per_tick;
  f->dense_fx = (uint64_t)(IP_DENSE_NS / f->ns_per_tick * (1 << IP_FX) + 0.5);
  f->off_cpu_floor = (uint64_t)(IP_OFF_CPU_FLOOR_NS / f->ns_per_tick + 0.5);
  p->probe_hidden_ns = hidden * f->ns_per_tick;
  double kev = h->has_kevent_cost_ticks ? h->kevent_cost_ticks : 0;
  if (!(kev > 0) || !(kev < 1e9))
    kev = 0;
  f->kevent_fx = f->o && f->o->raw ? 0 : (uint64_t)(kev * (1 << IP_FX) + 0.5);
  p->kevent_cost_ns = kev * f->ns_per_tick;
  double fault = h->has_fault_cost_ticks ? h->fault_cost_ticks : 0;
  if (!(fault > 0) || !(fault < 1e9))
    fault = 0;
  f->fault_fx = (uint64_t)(fault * (1 << IP_FX) + 0.5);
  p->fault_cost_ns = fault * f->ns_per_tick;
  f->start_tick = h->start_tick;
  f->interval_start_tick = h->has_interval_start_tick ? h->interval_start_tick : 0;
  p->interval = h->has_interval_start_tick;
  p->interval_number = h->interval;
  p->interval_from_ns = ns_after_start(f, f->interval_start_tick);
  uint64_t origin = f->s->start_unix_ns;
  f->proc_origin_ns = h->start_unix_ns > origin ? h->start_unix_ns - origin : 0;
  return 0;
}

void ip_file_take_module(ip_file *f, const Inclprof__Module *m) {
  ip_process *p = &f->s->processes[f->proc];
  if (f->ring && m->id < f->n_mod && f->mod_index[m->id])
    return; /* repeated at the start of a ring segment */
  p->n_modules++;
  if (m->id >= MAX_MODULE_ID)
    return;
  uint32_t idx = ip_tables_module(f->s, f->tabs, m->path);
  ip_must_grow((void **)&f->mod_index, &f->n_mod, (size_t)m->id + 1, sizeof *f->mod_index);
  f->mod_index[m->id] = idx; /* unset entries are 0: the unknown module */
  ip_must_grow((void **)&p->mods, &p->cap_mods, p->n_mods + 1, sizeof *p->mods);
  p->mods[p->n_mods++] = (ip_proc_module){.module = idx,
                                          .id = m->id,
                                          .load_address = m->load_address,
                                          .has_stat = m->has_file_mtime_ns && m->has_file_size,
                                          .mtime_ns = m->file_mtime_ns,
                                          .size = m->file_size};
}

/* A table callee's binding (a Function record of gid and module only):
 * the object its name binds to in this process (nothing when its table
 * could not be read: its gid reads as unknown).  0 when fn is none. */
static int take_binding(ip_file *f, const Inclprof__Function *fn) {
  if (fn->name)
    return 0;
  if (fn->gid >= f->n_gid || f->gid_func[fn->gid] == UINT32_MAX)
    return 1;
  ip_func proto = f->s->funcs[f->gid_func[fn->gid]];
  proto.module = fn->module < f->n_mod ? f->mod_index[fn->module] : 0;
  ip_file_define_func(f, fn->gid, ip_tables_func(f->s, f->tabs, &proto));
  return 1;
}

static void take_function(ip_file *f, const Inclprof__Function *fn) {
  if (take_binding(f, fn))
    return;
  if (f->ring && fn->gid < f->n_gid && f->gid_func[fn->gid] != UINT32_MAX)
    return; /* repeated at the start of a ring segment */
  f->s->processes[f->proc].n_functions++;
  ip_func proto = {
      .name = fn->name ? fn->name : "?",
      .pretty = fn->pretty,
      .file = fn->file,
      .line = fn->line,
      .module = fn->module < f->n_mod ? f->mod_index[fn->module] : 0,
      .flags = fn->flags,
      .id = fn->id,
  };
  ip_sym sym;
  ip_file_name_address(f, fn, &proto, &sym);
  ip_file_call_site(f, fn->gid, &proto);
  ip_file_define_func(f, fn->gid, ip_tables_func(f->s, f->tabs, &proto));
}

void ip_file_take_trailer(const ip_file *f, ip_process *p, const Inclprof__Trailer *t) {
  p->end_ns = ns_after_start(f, t->end_tick);
  if (t->write_error && *t->write_error && !p->write_error)
    p->stopped_ns = p->end_ns;
  else if (p->write_error && p->end_ns > p->stopped_ns)
    p->ran_on = 1;
  p->has_trailer = 1;
  if (t->n_argv) { /* the command line at the end: a title set since the header */
    free(p->cmdline);
    p->cmdline = ip_cmdline_join(t->argv, t->n_argv);
  }
  free(p->size_policy);
  p->size_policy = t->size_policy ? ip_must_strdup(t->size_policy) : NULL;
  p->max_size = t->max_size;
  if (t->has_ring_dropped_events) {
    p->ring_dropped_events = t->ring_dropped_events;
    p->ring_dropped_bytes = t->ring_dropped_bytes;
  }
  p->clean = t->has_clean && t->clean;
  free(p->exit_reason);
  p->exit_reason = ip_must_strdup(t->exit_reason);
  p->trailer_events = t->events;
  p->dropped_events = t->dropped_events;
  p->samples_taken = t->samples_taken;
  p->samples_in_runtime = t->samples_in_runtime;
  p->threads_not_flushed = t->threads_not_flushed;
  free(p->write_error);
  p->write_error = t->write_error && *t->write_error ? ip_must_strdup(t->write_error) : NULL;
  free(p->exec_unrecorded);
  p->exec_unrecorded =
      t->exec_unrecorded && *t->exec_unrecorded ? ip_must_strdup(t->exec_unrecorded) : NULL;
  p->bytes_written = t->bytes_written;
  p->has_writer_counts = t->has_buffers_handed_off;
  p->buffers_handed_off = t->buffers_handed_off;
  p->inline_flushes = t->inline_flushes;
  p->crowded_flushes = t->crowded_flushes;
}

static void take_segment(ip_file *f, const Inclprof__Segment *sg) {
  ip_process *p = &f->s->processes[f->proc];
  f->ring = 1;
  if (!f->ring_started)
    p->kept_from_ns = ns_after_start(f, sg->start_tick);
  f->ring_started = 1;
  p->ring_segment = sg->number;
  p->max_size = sg->max_size;
  p->ring_dropped_events = sg->dropped_events;
  p->ring_dropped_bytes = sg->dropped_bytes;
  p->ring_dropped_batches = sg->dropped_batches;
}

/* A snapshot's description: the slow call and the window kept around it. */
static void take_snapshot(ip_file *f, const Inclprof__Snapshot *sn) {
  ip_process *p = &f->s->processes[f->proc];
  char took[32], bound[32], at[32], from[32], to[32], text[1024];
  ip_fmt_ns(took, sizeof took,
            (uint64_t)((double)(sn->call_end_tick - sn->call_start_tick - sn->call_gap_ticks) *
                       f->ns_per_tick));
  ip_fmt_ns(bound, sizeof bound, sn->bound_ns);
  ip_fmt_ns(at, sizeof at, ns_after_start(f, sn->call_start_tick));
  ip_fmt_ns(from, sizeof from, ns_after_start(f, sn->window_start_tick));
  ip_fmt_ns(to, sizeof to, ns_after_start(f, sn->window_end_tick));
  char held[96] = "";
  if (sn->call_gap_ticks) {
    char g[32];
    ip_fmt_ns(g, sizeof g, (uint64_t)((double)sn->call_gap_ticks * f->ns_per_tick));
    snprintf(held, sizeof held, ", %s of it the runtime's holds of the thread (not counted)", g);
  }
  snprintf(text, sizeof text,
           "#%u: a call of %s took %s by the clock (over %s%s), from %s on thread %u; every "
           "thread from %s to %s%s",
           sn->number, sn->function ? sn->function : "?", took, bound, held, at, sn->tid, from, to,
           sn->partial ? " (the ring no longer held the window's start: it begins later)" : "");
  free(p->snapshot);
  p->snapshot = ip_must_strdup(text);
  p->snapshot_ns =
      (uint64_t)((double)(sn->call_end_tick - sn->call_start_tick - sn->call_gap_ticks) *
                 f->ns_per_tick);
  p->snapshot_tid = sn->tid;
  p->snapshot_from = sn->call_start_tick;
  p->snapshot_to = sn->call_end_tick;
}

static void take_record(ip_file *f, const Inclprof__Record *rec) {
  ip_tstate *ts;
  switch (rec->body_case) {
  case INCLPROF__RECORD__BODY_MODULE:
    ip_file_take_module(f, rec->module);
    break;
  case INCLPROF__RECORD__BODY_FUNCTION:
    take_function(f, rec->function);
    break;
  case INCLPROF__RECORD__BODY_TABLE_REF:
    ip_file_take_table_ref(f, rec->table_ref);
    break;
  case INCLPROF__RECORD__BODY_THREAD:
    ts = ip_replay_thread(f, rec->thread->tid);
    if (rec->thread->name) {
      ip_thread *th = &f->s->threads[ts->thread];
      if (!th->first_name)
        th->first_name = ip_must_strdup(rec->thread->name);
      free(th->name);
      th->name = ip_must_strdup(rec->thread->name);
    }
    if (rec->thread->no_transitions && !f->s->threads[ts->thread].no_transitions)
      f->s->threads[ts->thread].no_transitions = ip_must_strdup(rec->thread->no_transitions);
    break;
  case INCLPROF__RECORD__BODY_THREAD_END:
    ts = ip_replay_thread(f, rec->thread_end->tid);
    if (rec->thread_end->stopped && !f->s->threads[ts->thread].stopped)
      f->s->threads[ts->thread].stopped = ip_must_strdup(rec->thread_end->stopped);
    if (rec->thread_end->alive_at_exit && rec->thread_end->has_end_tick)
      ip_replay_alive_at_exit(f, ts, rec->thread_end->end_tick, rec->thread_end->transitional);
    if (rec->thread_end->has_end_tick)
      ip_kline_ended(f, ts, rec->thread_end->end_tick);
    ip_replay_finish(f, ts);
    break;
  case INCLPROF__RECORD__BODY_EVENTS:
    ts = ip_replay_thread(f, rec->events->tid);
    ip_replay_batch(f, ts, rec->events);
    break;
  case INCLPROF__RECORD__BODY_GAP:
    ts = ip_replay_thread(f, rec->gap->tid);
    ip_replay_gap(f, ts, rec->gap);
    break;
  case INCLPROF__RECORD__BODY_TRAILER:
    ip_file_take_trailer(f, &f->s->processes[f->proc], rec->trailer);
    break;
  case INCLPROF__RECORD__BODY_SEGMENT:
    take_segment(f, rec->segment);
    break;
  case INCLPROF__RECORD__BODY_WINDOW:
    ip_windows_take(f->win, rec->window);
    break;
  case INCLPROF__RECORD__BODY_THREAD_PROFILE:
    ts = ip_replay_thread(f, rec->thread_profile->tid);
    ip_profile_take(f, ts, rec->thread_profile);
    break;
  case INCLPROF__RECORD__BODY_SNAPSHOT:
    take_snapshot(f, rec->snapshot);
    break;
  case INCLPROF__RECORD__BODY_THREAD_STATE:
    ts = ip_replay_thread(f, rec->thread_state->tid);
    if (!ts->have_tick && !ts->next_seq)
      ip_replay_resume(f, ts, rec->thread_state);
    break;
  default: /* a second header, mark names: nothing to replay */
    break;
  }
}

static void close_file(ip_file *f) {
  for (size_t i = 0; i < f->n_states; i++) {
    if (!f->states[i]->finished)
      ip_replay_finish(f, f->states[i]);
    free(f->states[i]);
  }
  free(f->states);
  ip_windows_finish(f->win, f, &f->s->processes[f->proc]);
  free(f->gid_func);
  free(f->gid_site);
  free(f->mod_index);
  ip_u64map_free(&f->tid_state);
}

/* What the reader passed over in f's file, and the damage that ended it
 * (end_err, or NULL): one warning, kept as the process's damage. */
static void note_damage(ip_file *f, const ip_reader *r, const char *end_err) {
  const ip_reader_skips *k = ip_reader_skipped(r);
  ip_process *p = &f->s->processes[f->proc];
  /* A frame still being written ends a running process's trace. */
  if (end_err && !k->regions && !p->has_trailer && strstr(end_err, "truncated frame") &&
      ip_process_running(p))
    end_err = NULL;
  if (!k->regions && !end_err)
    return;
  char msg[1200] = "";
  if (k->regions) {
    char size[32];
    ip_fmt_bytes(size, sizeof size, k->bytes);
    snprintf(msg, sizeof msg,
             "%s: %llu damaged stretch%s skipped (%s, the first at offset %llu: %s); the records "
             "around %s are used",
             ip_reader_path(r), (unsigned long long)k->regions, k->regions > 1 ? "es" : "", size,
             (unsigned long long)k->first_at, k->first_why, k->regions > 1 ? "them" : "it");
  }
  if (end_err)
    snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "%s%s (the records before it are used)",
             k->regions ? "; then " : "", end_err);
  free(p->damage);
  p->damage = ip_must_strdup(msg);
  p->cut = end_err != NULL;
  f->s->n_damaged++;
  ip_file_warn(f, NULL, msg);
}

/* A ring trace's newest segment PATH begins with Segment n > 0: the segment
 * before it, PATH.prev, is read first when it is there and belongs to the
 * same process.  Without it the newest segment alone is replayed. */
static void load_prev(ip_file *f, uint32_t pid, uint64_t start_unix_ns, uint32_t n) {
  char path[4200], err[512];
  snprintf(path, sizeof path, "%.4000s.prev", f->path);
  f->ring = 1;
  ip_reader *r = ip_reader_open(path, err, sizeof err);
  const Inclprof__Header *ph = r ? first_header(r, err, sizeof err) : NULL;
  f->s->processes[f->proc].ring_prev_missing =
      !ph || ph->pid != pid || ph->start_unix_ns != start_unix_ns;
  if (!r)
    return;
  if (ph && ph->pid == pid && ph->start_unix_ns == start_unix_ns) {
    ip_process *p = &f->s->processes[f->proc];
    Inclprof__Record *rec;
    int rc;
    p->ring_prev_read = 1;
    if (n == 1)
      f->ring_started = 1; /* the first segment: kept from the start */
    while ((rc = ip_reader_next(r, &rec, err, sizeof err)) > 0)
      if (rec->body_case != INCLPROF__RECORD__BODY_TRAILER)
        take_record(f, rec);
    if (!p->damage)
      note_damage(f, r, rc < 0 ? err : NULL);
  }
  ip_reader_close(r);
}

int ip_file_start_ns(const char *path, uint64_t *start_unix_ns, char *err, size_t errlen) {
  ip_reader *r = ip_reader_open(path, err, errlen);
  const Inclprof__Header *h = r ? first_header(r, err, errlen) : NULL;
  if (h)
    *start_unix_ns = h->start_unix_ns;
  ip_reader_close(r);
  return h ? 0 : -1;
}

int ip_file_wake_edges(const char *path) {
  char err[512];
  ip_reader *r = ip_reader_open(path, err, sizeof err);
  const Inclprof__Header *h = r ? first_header(r, err, sizeof err) : NULL;
  int edges = h && h->kernel_events && h->wake_edges;
  ip_reader_close(r);
  return edges;
}

int ip_load_file(ip_session *s, ip_tables *t, const char *path, const ip_load_opts *o,
                 ip_warnings *defer) {
  char err[512];
  ip_reader *r = ip_reader_open(path, err, sizeof err);
  if (!r) {
    ip_load_fail(o, err);
    return -1;
  }
  const Inclprof__Header *h = first_header(r, err, sizeof err);
  ip_file f = {.s = s, .tabs = t, .o = o, .path = path, .defer = defer, .win = ip_windows_new()};
  if (o && o->visitor && o->visitor->on_call)
    f.visitor = o->visitor;
  if (!h) {
    ip_load_fail(o, err);
    ip_reader_close(r);
    ip_windows_finish(f.win, &f, NULL);
    return -1;
  }
  f.proc = ip_tables_process(s, t);
  if (take_header(&f, h, err, sizeof err)) {
    ip_load_fail(o, err);
    ip_reader_close(r);
    ip_windows_finish(f.win, &f, NULL);
    return -1;
  }
  s->n_files++;
  if (o && o->from_index && ip_file_from_index(&f) == 0) {
    ip_reader_close(r);
    close_file(&f);
    return 0;
  }
  Inclprof__Record *rec;
  /* cppcheck-suppress variableScope ; the header goes with the next record read */
  uint32_t pid = h->pid;
  /* cppcheck-suppress variableScope ; the same */
  uint64_t start_unix_ns = h->start_unix_ns;
  int rc = ip_reader_next(r, &rec, err, sizeof err);
  if (rc > 0 && rec->body_case == INCLPROF__RECORD__BODY_SEGMENT && rec->segment->number > 0)
    load_prev(&f, pid, start_unix_ns, rec->segment->number);
  if (rc > 0) {
    take_record(&f, rec);
    if (o && o->jobs > 1 && !f.visitor)
      rc = ip_replay_pool_run(&f, r, o->jobs, take_record, err, sizeof err);
    else
      while ((rc = ip_reader_next(r, &rec, err, sizeof err)) > 0)
        take_record(&f, rec);
  }
  note_damage(&f, r, rc < 0 ? err : NULL);
  ip_reader_close(r);
  close_file(&f);
  return 0;
}
