// ip_guard.cc - every probe runs only when its hook is set.  Each probe call
// built for the current function is wrapped in `if (hook != 0)`: a unit's
// hooks are null until a runtime registers it (and again while recording is
// paused), so a program running without the runtime pays a load and a
// predictable branch per probe instead of an indirect call.
#include "ip_gcc.h"
#include "asan.h" /* create_cond_insert_point */

static auto_vec<gcall *> probe_calls;

void ip_guard_note(gcall *call)
{
  probe_calls.safe_push(call);
}

/* [load p = hook; p(arg)] becomes [load p = hook; if (p != 0)] -> [p(arg)] -> join.
 * The call side is marked the likely one, so a recording program keeps the
 * probe call on its straight path; the idle path is one taken branch. */
static void guard(gcall *call)
{
  tree fnptr = gimple_call_fn(call);
  gimple_stmt_iterator at_load = gsi_for_stmt(SSA_NAME_DEF_STMT(fnptr));
  basic_block then_bb, join_bb;
  gimple_stmt_iterator cond_at =
      create_cond_insert_point(&at_load, false, true, true, &then_bb, &join_bb);
  gcond *cond = gimple_build_cond(NE_EXPR, fnptr, build_int_cst(TREE_TYPE(fnptr), 0), NULL_TREE,
                                  NULL_TREE);
  gsi_insert_after(&cond_at, cond, GSI_NEW_STMT);
  gimple_stmt_iterator old_place = gsi_for_stmt(call);
  gsi_remove(&old_place, false);
  gimple_stmt_iterator in_then = gsi_start_bb(then_bb);
  gsi_insert_after(&in_then, call, GSI_NEW_STMT);
}

void ip_guard_probes(void)
{
  if (ip_asm_probes_usable(cfun))
    ip_asm_probes_build(probe_calls);
  else
    for (gcall *call : probe_calls)
      guard(call);
  probe_calls.truncate(0);
}
