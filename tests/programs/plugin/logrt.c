/* logrt.c - a tiny logging runtime for the plugin tests: it registers every
 * instrumented unit and prints one line per probe, so tests can assert on the
 * exact sequence independently of the real runtime.
 *   E name / X name      entry / exit of an instrumented function
 *   C name / R name      before / after a call to an uninstrumented callee
 *   I / J                before / after an indirect call (then the target's
 *                        name if a registered descriptor has that address,
 *                        else "?")
 *   F bits               a coroutine body's frame, before its E line: the
 *                        INCLPROF_CORO_* bits (1 start, 2 destroy, 0 resume)
 * Lines go to $LOGRT_FILE (appended, one write per line) or stderr.  With
 * LOGRT_TID=1 each line starts with the thread id.  At registration a line
 * "U path n_fns" is written, and "T id flags name pretty file line addr|noaddr"
 * (fields after "T " separated by tabs) per descriptor when LOGRT_TABLE=1.  Unregistration writes "D path". */
#define _GNU_SOURCE
#include "inclprof_abi.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int log_fd = 2;
static int with_tid;

#define MAX_UNITS 64
static struct inclprof_tu *units[MAX_UNITS];

static void emit(const char *kind, const char *text)
{
  char line[512];
  int n;
  if (with_tid)
    n = snprintf(line, sizeof line, "%ld %s %s\n", (long)syscall(SYS_gettid), kind, text);
  else
    n = snprintf(line, sizeof line, "%s %s\n", kind, text);
  if (n > (int)sizeof line - 1)
    n = (int)sizeof line - 1;
  if (write(log_fd, line, (size_t)n) < 0)
    abort();
}

static const char *name_of_address(const void *target)
{
  for (int u = 0; u < MAX_UNITS; u++)
    if (units[u])
      for (uint32_t i = 0; i < units[u]->n_fns; i++)
        if (units[u]->fns[i]->addr == target)
          return units[u]->fns[i]->name;
  return "?";
}

static void log_enter(const struct inclprof_fn *fn) { emit("E", fn->name); }
static void log_exit(const struct inclprof_fn *fn) { emit("X", fn->name); }
static void log_call(const struct inclprof_fn *fn) { emit("C", fn->name); }
static void log_ret(const struct inclprof_fn *fn) { emit("R", fn->name); }
static void log_call_indirect(const void *target) { emit("I", name_of_address(target)); }
static void log_ret_indirect(const void *target) { emit("J", name_of_address(target)); }
static void log_landing(const struct inclprof_fn *fn) { emit("L", fn->name); }

static void open_log(void)
{
  static int opened;
  if (opened)
    return;
  opened = 1;
  const char *path = getenv("LOGRT_FILE");
  if (path) {
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
      perror(path);
      abort();
    }
    log_fd = fd;
  }
  const char *tid = getenv("LOGRT_TID");
  with_tid = tid && strcmp(tid, "1") == 0;
}

static void log_coroutine_frame(const void *frame)
{
  char text[16];
  snprintf(text, sizeof text, "%u", (unsigned)((uintptr_t)frame & INCLPROF_CORO_BITS));
  emit("F", text);
}

void __inclprof_register_tu(struct inclprof_tu *tu)
{
  char text[512];
  open_log();
  if (tu->abi_version != INCLPROF_ABI_VERSION) {
    snprintf(text, sizeof text, "%s abi_version %u", tu->path, tu->abi_version);
    emit("BADABI", text);
    return;
  }
  for (int u = 0; u < MAX_UNITS; u++)
    if (!units[u]) {
      units[u] = tu;
      break;
    }
  snprintf(text, sizeof text, "%s %u", tu->path, tu->n_fns);
  emit("U", text);
  const char *table = getenv("LOGRT_TABLE");
  for (uint32_t i = 0; table && strcmp(table, "1") == 0 && i < tu->n_fns; i++) {
    const struct inclprof_fn *fn = tu->fns[i];
    snprintf(text, sizeof text, "%016" PRIx64 "\t%u\t%s\t%s\t%s\t%u\t%s", fn->id, fn->flags, fn->name,
             fn->pretty, *fn->file ? fn->file : "-", fn->line, fn->addr ? "addr" : "noaddr");
    emit("T", text);
  }
  tu->hooks.enter = log_enter;
  tu->hooks.exit = log_exit;
  tu->hooks.call = log_call;
  tu->hooks.ret = log_ret;
  tu->hooks.call_indirect = log_call_indirect;
  tu->hooks.ret_indirect = log_ret_indirect;
  tu->hooks.coroutine_frame = log_coroutine_frame;
  tu->hooks.landing = log_landing;
}

void __inclprof_unregister_tu(struct inclprof_tu *tu)
{
  for (int u = 0; u < MAX_UNITS; u++)
    if (units[u] == tu)
      units[u] = NULL;
  emit("D", tu->path);
}
