// ip_landing.cc - landing probes: in a function that calls setjmp (any
// returns_twice callee but vfork), a probe right after each such call names
// the function, so the runtime knows the thread continues in it, whatever
// a longjmp skipped since.
#include "ip_gcc.h"

/* A returns_twice call whose second return is a longjmp's landing (not a
 * vfork child, which must not run the runtime). */
static bool lands_longjmp(gimple *stmt)
{
  gcall *call = dyn_cast<gcall *>(stmt);
  if (!call || !(gimple_call_flags(call) & ECF_RETURNS_TWICE))
    return false;
  tree callee = gimple_call_fndecl(call);
  const char *name = callee && DECL_NAME(callee) ? IDENTIFIER_POINTER(DECL_NAME(callee)) : "";
  return !strstr(name, "vfork");
}

/* The normal successor edge of a returns_twice call's block (its other one
 * goes to the abnormal dispatcher), or NULL. */
static edge fallthru_of(basic_block bb)
{
  edge e;
  edge_iterator ei;
  FOR_EACH_EDGE(e, ei, bb->succs)
    if (!(e->flags & (EDGE_ABNORMAL | EDGE_EH)))
      return e;
  return NULL;
}

unsigned ip_insert_landing_probes(function *fun, tree desc)
{
  if (!fun->calls_setjmp)
    return 0;
  auto_vec<gimple *> calls;
  basic_block bb;
  FOR_EACH_BB_FN(bb, fun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi))
      if (lands_longjmp(gsi_stmt(gsi)))
        calls.safe_push(gsi_stmt(gsi));
  unsigned n = 0;
  for (gimple *call : calls) {
    gimple_seq probe = ip_build_probe(IP_HOOK_LANDING, build_fold_addr_expr(desc));
    gimple_stmt_iterator gsi = gsi_for_stmt(call);
    if (!stmt_ends_bb_p(call)) {
      gsi_insert_seq_after(&gsi, probe, GSI_NEW_STMT);
    } else {
      edge e = fallthru_of(gimple_bb(call));
      if (!e)
        continue; /* nothing follows: a noreturn returns_twice call */
      gsi_insert_seq_on_edge_immediate(e, probe);
    }
    n++;
  }
  return n;
}
