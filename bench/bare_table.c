/* bare_table.c - a stand-in for the inclprof runtime that points every
 * plugin-instrumented unit's hook table at the bare hook (TSC + 16-byte
 * append): plugin probes at their real places and through their real
 * indirect calls, with nothing else.  Linked instead of libinclprof. */
#include "bare_record.h"
#include "inclprof_abi.h"

static void bare_enter(const struct inclprof_fn *fn) { bare_append((uintptr_t)fn); }
static void bare_exit(const struct inclprof_fn *fn) { bare_append((uintptr_t)fn | 1u); }
static void bare_target(const void *target) { bare_append((uintptr_t)target); }
static void bare_target_ret(const void *target) { bare_append((uintptr_t)target | 1u); }

void __inclprof_register_tu(struct inclprof_tu *tu) {
  if (tu->abi_version != INCLPROF_ABI_VERSION)
    return;
  tu->hooks.enter = bare_enter;
  tu->hooks.exit = bare_exit;
  tu->hooks.call = bare_enter;
  tu->hooks.ret = bare_exit;
  tu->hooks.call_indirect = bare_target;
  tu->hooks.ret_indirect = bare_target_ret;
}

/* The hooks stay valid for the life of the program: nothing to undo. */
void __inclprof_unregister_tu(struct inclprof_tu *tu) { (void)tu; }
