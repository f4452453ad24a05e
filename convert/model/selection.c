/* model/selection.c - threads, processes and calls a selection keeps (see
 * model/selection.h). */
#include "model/selection.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int ip_selected_thread(const ip_session *s, const ip_selection *sel, const ip_thread *t) {
  if (!sel)
    return 1;
  if (sel->has_tid && t->tid != sel->tid)
    return 0;
  return !sel->has_pid || s->processes[t->process].pid == sel->pid;
}

static int in_window(const ip_selection *sel, uint32_t thread, uint32_t depth, uint64_t start_ns,
                     uint64_t dur_ns) {
  for (size_t i = 0; i < sel->n_windows; i++) {
    const ip_sel_window *w = &sel->windows[i];
    if (w->thread == thread && depth >= w->depth && start_ns >= w->start_ns &&
        start_ns + dur_ns <= w->end_ns)
      return 1;
  }
  return 0;
}

int ip_selected_call(const ip_selection *sel, uint32_t thread, uint32_t depth, uint64_t start_ns,
                     uint64_t dur_ns) {
  if (!sel)
    return 1;
  if (sel->n_windows && !in_window(sel, thread, depth, start_ns, dur_ns))
    return 0;
  if (!sel->has_range)
    return 1;
  if (start_ns >= sel->end_ns)
    return 0;
  return dur_ns ? start_ns + dur_ns > sel->start_ns : start_ns >= sel->start_ns;
}

int ip_selection_check(const ip_session *s, const ip_selection *sel, char *err, size_t errlen) {
  if (sel->has_tid && !ip_session_thread(s, sel->tid)) {
    snprintf(err, errlen, "--thread %" PRIu32 ": no such thread", sel->tid);
    return -1;
  }
  if (sel->has_pid && !ip_session_process(s, sel->pid)) {
    snprintf(err, errlen, "--process %" PRIu32 ": no such process", sel->pid);
    return -1;
  }
  return 0;
}

int ip_func_named(const ip_func *f, const char *fn) {
  size_t n = strlen(fn);
  return !strcmp(f->pretty, fn) || !strcmp(f->name, fn) ||
         (f->name[0] == '*' && !strcmp(f->name + 1, fn)) ||
         (!strchr(fn, '(') && !strncmp(f->pretty, fn, n) && f->pretty[n] == '(');
}
