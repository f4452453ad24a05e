/* export/progress.c - the progress line of long exports. */
#include "export/progress.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

enum { CALLS_PER_CHECK = 1 << 16 };

static void on_call(void *ctx, const ip_session *s, const ip_thread *t, uint32_t func,
                    uint32_t depth, uint64_t start_ns, uint64_t dur_ns, uint64_t app_ns) {
  ip_progress *p = ctx;
  if (p->inner)
    p->inner->on_call(p->inner->ctx, s, t, func, depth, start_ns, dur_ns, app_ns);
  if (++p->calls % CALLS_PER_CHECK)
    return;
  time_t now = time(NULL);
  if (now == p->shown)
    return;
  p->shown = now;
  fprintf(stderr, "\rinclprof export: %.1fM calls replayed, %lld s\033[K", (double)p->calls / 1e6,
          (long long)(now - p->started));
}

uint64_t ip_progress_input_bytes(char *const *paths, size_t n_paths) {
  uint64_t total = 0;
  struct stat st;
  char file[4096];
  for (size_t i = 0; i < n_paths; i++) {
    if (stat(paths[i], &st))
      continue;
    if (!S_ISDIR(st.st_mode)) {
      total += (uint64_t)st.st_size;
      continue;
    }
    DIR *d = opendir(paths[i]);
    if (!d)
      continue;
    for (const struct dirent *e; (e = readdir(d));)
      if ((size_t)snprintf(file, sizeof file, "%s/%s", paths[i], e->d_name) < sizeof file &&
          !stat(file, &st) && S_ISREG(st.st_mode))
        total += (uint64_t)st.st_size;
    closedir(d);
  }
  return total;
}

const ip_call_visitor *ip_progress_start(ip_progress *p, const ip_call_visitor *inner,
                                         char *const *paths, size_t n_paths) {
  *p = (ip_progress){.inner = inner};
  if (!isatty(STDERR_FILENO) || ip_progress_input_bytes(paths, n_paths) < IP_PROGRESS_MIN_BYTES)
    return inner;
  p->active = 1;
  p->started = p->shown = time(NULL);
  p->self.ctx = p;
  p->self.on_call = on_call;
  return &p->self;
}

void ip_progress_finish(const ip_progress *p) {
  if (p->active && p->shown != p->started)
    fputs("\r\033[K", stderr);
}
