/* model/process_names.c - telling processes apart: a fork child names its
 * parent, an image started by exec names the image it replaced (same pid,
 * earlier trace ending in exec), and command lines lose the padding some
 * servers leave when they overwrite their argv with a title (empty trailing
 * arguments, trailing blanks). */
#include <stdio.h>
#include <string.h>

#include "model/profile.h"
#include "util/util.h"

char *ip_cmdline_join(char *const *argv, size_t n) {
  while (n && !*argv[n - 1])
    n--;
  size_t len = 1;
  for (size_t i = 0; i < n; i++)
    len += strlen(argv[i]) + 1;
  char *s = ip_must_calloc(len, 1);
  for (size_t i = 0; i < n; i++) {
    if (i)
      strcat(s, " ");
    strcat(s, argv[i]);
  }
  size_t k = strlen(s);
  while (k && (s[k - 1] == ' ' || s[k - 1] == '\t'))
    s[--k] = 0;
  return s;
}

void ip_processes_link(ip_session *s) {
  for (size_t i = 0; i < s->n_processes; i++) {
    ip_process *p = &s->processes[i];
    size_t best = SIZE_MAX;
    for (size_t j = 0; j < s->n_processes; j++) {
      const ip_process *q = &s->processes[j];
      if (j == i || q->pid != p->pid || !q->exit_reason || strcmp(q->exit_reason, "exec") ||
          q->start_unix_ns > p->start_unix_ns)
        continue;
      if (best == SIZE_MAX || q->start_unix_ns > s->processes[best].start_unix_ns)
        best = j;
    }
    p->exec_from = best == SIZE_MAX ? 0 : (uint32_t)best + 1;
  }
}

static const char *base_name(const char *exe) {
  if (!exe || !*exe)
    return "process";
  const char *slash = strrchr(exe, '/');
  return slash && slash[1] ? slash + 1 : exe;
}

/* The fork and exec suffixes after the first len bytes of buf. */
static const char *add_origin(const ip_session *s, const ip_process *p, int whole_paths, char *buf,
                              size_t n, int len) {
  if (p->forked_from && len >= 0 && (size_t)len < n)
    len += snprintf(buf + len, n - (size_t)len, " (fork of %u)", p->forked_from);
  if (p->exec_from && len >= 0 && (size_t)len < n) {
    const char *from = s->processes[p->exec_from - 1].executable;
    snprintf(buf + len, n - (size_t)len, " (after exec from %s)",
             whole_paths ? from : base_name(from));
  }
  return buf;
}

const char *ip_process_label(const ip_session *s, uint32_t k, char *buf, size_t n) {
  const ip_process *p = &s->processes[k];
  return add_origin(s, p, 1, buf, n, snprintf(buf, n, "%u %s", p->pid, p->executable));
}

const char *ip_process_viewer_name(const ip_session *s, uint32_t k, char *buf, size_t n) {
  const ip_process *p = &s->processes[k];
  return add_origin(s, p, 0, buf, n, snprintf(buf, n, "%s", base_name(p->executable)));
}
