/* model/process_names.c - telling processes apart: a fork child names its
 * parent, an image started by exec names the image it replaced (same pid,
 * earlier trace ending in exec), a process that gave itself a title (argv
 * written over, prctl(PR_SET_NAME)) is named by it with its executable
 * beside it, and command lines lose the padding some servers leave when
 * they overwrite their argv with a title (empty trailing arguments,
 * trailing blanks). */
#include <stdio.h>
#include <stdlib.h>
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

/* The command line ps shows for pid now (NULs as blanks), or NULL. */
static char *cmdline_now(uint32_t pid) {
  char path[64], buf[4096];
  snprintf(path, sizeof path, "/proc/%u/cmdline", pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char *argv[256];
  size_t argc = 0;
  for (size_t at = 0; at < n && argc < 256; at += strlen(buf + at) + 1)
    argv[argc++] = buf + at;
  return argc ? ip_cmdline_join(argv, argc) : NULL;
}

/* In this order: a title written over the argv while recorded, the main
 * thread renamed while recorded, a title inherited from the parent. */
static void find_title(ip_session *s, size_t i) {
  ip_process *p = &s->processes[i];
  const ip_process *origin = p; /* the first ancestor in the session: its start is the program's */
  for (int hops = 0; origin->forked_from && hops < 64; hops++) {
    const ip_process *up = ip_session_process(s, origin->forked_from);
    if (!up || up == origin)
      break;
    origin = up;
  }
  char *now = !p->has_trailer && ip_process_running(p) ? cmdline_now(p->pid) : NULL;
  const char *end = now ? now : p->cmdline;
  int has_end = end && *end;
  if (has_end && p->start_cmdline && strcmp(end, p->start_cmdline))
    p->title = ip_must_strdup(end);
  for (size_t t = 0; !p->title && t < s->n_threads; t++) {
    const ip_thread *th = &s->threads[t];
    if (th->process == i && th->tid == p->pid && th->name && *th->name && th->first_name &&
        strcmp(th->name, th->first_name))
      p->title = ip_must_strdup(th->name);
  }
  if (!p->title && has_end && origin->start_cmdline && strcmp(end, origin->start_cmdline))
    p->title = ip_must_strdup(end);
  free(now);
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
  for (size_t i = 0; i < s->n_processes; i++)
    find_title(s, i);
}

static const char *base_name(const char *exe) {
  if (!exe || !*exe)
    return "process";
  const char *slash = strrchr(exe, '/');
  return slash && slash[1] ? slash + 1 : exe;
}

/* The fork and exec suffixes after the first len bytes of buf: " (fork of
 * PID) (after exec from EXECUTABLE)", or with a title ", fork of PID, after
 * exec from EXECUTABLE)" after the executable. */
static const char *add_origin(const ip_session *s, const ip_process *p, int whole_paths, char *buf,
                              size_t n, int len) {
  const char *open = p->title ? ", " : " (";
  if (p->forked_from && len >= 0 && (size_t)len < n) {
    len += snprintf(buf + len, n - (size_t)len, "%sfork of %u%s", open, p->forked_from,
                    p->title ? "" : ")");
  }
  if (p->exec_from && len >= 0 && (size_t)len < n) {
    const char *from = s->processes[p->exec_from - 1].executable;
    len += snprintf(buf + len, n - (size_t)len, "%safter exec from %s%s", open,
                    whole_paths ? from : base_name(from), p->title ? "" : ")");
  }
  if (p->title && len >= 0 && (size_t)len < n)
    snprintf(buf + len, n - (size_t)len, ")");
  return buf;
}

const char *ip_process_label(const ip_session *s, uint32_t k, char *buf, size_t n) {
  const ip_process *p = &s->processes[k];
  if (p->title)
    return add_origin(s, p, 1, buf, n,
                      snprintf(buf, n, "%u %s (%s", p->pid, p->title, p->executable));
  return add_origin(s, p, 1, buf, n, snprintf(buf, n, "%u %s", p->pid, p->executable));
}

const char *ip_process_viewer_name(const ip_session *s, uint32_t k, char *buf, size_t n) {
  const ip_process *p = &s->processes[k];
  if (p->title)
    return add_origin(s, p, 0, buf, n,
                      snprintf(buf, n, "%s (%s", p->title, base_name(p->executable)));
  return add_origin(s, p, 0, buf, n, snprintf(buf, n, "%s", base_name(p->executable)));
}

const char *ip_thread_title(const ip_session *s, uint32_t k, char *buf, size_t n) {
  const ip_thread *t = &s->threads[k];
  const ip_process *p = &s->processes[t->process];
  const char *title = p->title && !(t->name && !strcmp(t->name, p->title)) ? p->title : NULL;
  snprintf(buf, n, "%u/%u%s%s%s%s%s%s", p->pid, t->tid, t->name ? " (" : "", t->name ? t->name : "",
           t->name ? ")" : "", title ? " of \"" : "", title ? title : "", title ? "\"" : "");
  return buf;
}
