/* btrt.c - a stand-in runtime whose hooks unwind from inside the probe that
 * called them (glibc's backtrace(), libgcc's unwinder) and print the names
 * of the instrumented program's frames, innermost first:
 *   E|X|C|R NAME: FRAME FRAME ...    (NAME: the descriptor's name)
 *   I|J NAME: FRAME ...              (NAME: the indirect call's target)
 * Frames outside the program (the hooks, the trampolines, libc) are left
 * out; the program is linked with -rdynamic so dladdr names its functions. */
#define _GNU_SOURCE
#include "inclprof_abi.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <stdio.h>
#include <string.h>

static void *program; /* the executable's handle, to tell its frames */

static void show(const char *kind, const char *name) {
  void *pc[64];
  int n = backtrace(pc, 64);
  char line[512];
  int len = snprintf(line, sizeof line, "%s %s:", kind, name);
  for (int i = 0; i < n && len < (int)sizeof line - 64; i++) {
    Dl_info d;
    void *h;
    if (!dladdr1(pc[i], &d, &h, RTLD_DL_LINKMAP) || !d.dli_sname || h != program)
      continue;
    if (strncmp(d.dli_sname, "__inclprof", 10) == 0)
      continue;
    len += snprintf(line + len, sizeof line - len, " %s", d.dli_sname);
  }
  printf("%s\n", line);
}

static const char *target_name(const void *target) {
  Dl_info d;
  return dladdr(target, &d) && d.dli_sname ? d.dli_sname : "?";
}

static void on_enter(const struct inclprof_fn *fn) { show("E", fn->name); }
static void on_exit_(const struct inclprof_fn *fn) { show("X", fn->name); }
static void on_call(const struct inclprof_fn *fn) { show("C", fn->name); }
static void on_ret(const struct inclprof_fn *fn) { show("R", fn->name); }
static void on_call_indirect(const void *target) { show("I", target_name(target)); }
static void on_ret_indirect(const void *target) { show("J", target_name(target)); }

void __inclprof_register_tu(struct inclprof_tu *tu) {
  Dl_info d;
  void *h;
  if (dladdr1((const void *)tu, &d, &h, RTLD_DL_LINKMAP))
    program = h;
  tu->hooks.enter = on_enter;
  tu->hooks.exit = on_exit_;
  tu->hooks.call = on_call;
  tu->hooks.ret = on_ret;
  tu->hooks.call_indirect = on_call_indirect;
  tu->hooks.ret_indirect = on_ret_indirect;
}

void __inclprof_unregister_tu(struct inclprof_tu *tu) { memset(&tu->hooks, 0, sizeof tu->hooks); }
