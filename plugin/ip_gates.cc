// ip_gates.cc - keeps GCC from hiding the calls of instrumented functions
// before the pass sees them: tail-recursion elimination ("tailr", and "tailc",
// which does it too while marking sibling calls; both turn self-recursion
// into a loop) and function splitting ("fnsplit", whose head
// is then inlined into callers that call the f.part.N rest directly) are
// switched off for every function that may get probes, and a self-recursive
// one is not inlined (into itself or its callers); unless tail-recursion=loop
// or partial-inlining=yes; with tail-calls=jump "tailc" runs in functions
// that do not call themselves, to mark the sibling calls.  A function a noinline rule names is inlined
// nowhere, nor is a coroutine's body into its ramp (so the body's run from
// the ramp, which starts the coroutine's operation, has its probes), nor the
// ramp into its callers (so its row counts the coroutines started, and the
// operation starts with the frame's allocation).
// Under profile instrumentation or feedback (-fprofile-generate,
// -fprofile-use) the passes before GCC's "profile" pass (the early
// tail-recursion elimination and the early inliner) run as without the
// plugin: the profile's checksum of each function's control flow is taken
// there, so a profile made without the plugin fits a build with it, and the
// reverse.
#include "ip_gcc.h"
#include "ip_names.h"

/* Has the "profile" pass (instrumentation, or reading the profile) begun? */
static bool profile_pass_seen;

/* Must the passes running now leave the control flow as a build without the
 * plugin has it, for the profile's checksums? */
static bool before_profile(void)
{
  return (profile_arc_flag || flag_branch_probabilities) && !profile_pass_seen;
}

static bool is_pass(const char *name)
{
  return current_pass && current_pass->name && strcmp(current_pass->name, name) == 0;
}

static void not_inlinable(cgraph_edge *e)
{
  if (e->inline_failed) {
    e->inline_failed = CIF_UNSPECIFIED;   /* a final "cannot inline" */
    e->call_stmt_cannot_inline_p = 1;
  }
}

static bool self_recursive(cgraph_node *node)
{
  for (cgraph_edge *e = node->callees; e; e = e->next_callee)
    if (e->recursive_p())
      return true;
  return false;
}

/* Is FN a coroutine's ramp: a function, not itself a coroutine part, that
 * calls a coroutine's body (only the ramp and the destroy function do). */
static bool is_ramp(cgraph_node *fn)
{
  const char *ramp;
  size_t len;
  if (ip_coroutine_part(ip_function_name(fn->decl), &ramp, &len) != IP_CORO_NONE)
    return false;
  for (cgraph_edge *e = fn->callees; e; e = e->next_callee) {
    cgraph_node *callee = e->callee ? e->callee->ultimate_alias_target() : NULL;
    if (callee && ip_coroutine_part(ip_function_name(callee->decl), &ramp, &len) == IP_CORO_BODY)
      return true;
  }
  return false;
}

/* Calls of CALLER that stay calls: to a function a noinline rule names
 * (unless it must be inlined), to a coroutine's body (into its ramp) or
 * ramp (into its callers) that may get probes, and, with KEEP_RECURSION, to a
 * self-recursive function that may get probes, which is inlined neither into
 * itself (ipa-inline's "recursive inlining" unrolls a recursion a few levels
 * deep) nor into its callers (which peels off the first level). */
static void keep_out_of_line(cgraph_node *caller, bool keep_recursion)
{
  for (cgraph_edge *e = caller->callees; e; e = e->next_callee) {
    cgraph_node *callee = e->callee ? e->callee->ultimate_alias_target() : NULL;
    if (!callee)
      continue;
    const char *ramp;
    size_t len;
    if ((keep_recursion && self_recursive(callee) && ip_may_instrument(callee->decl)) ||
        (ip_noinline(callee->decl) && !DECL_DISREGARD_INLINE_LIMITS(callee->decl)) ||
        ((ip_coroutine_part(ip_function_name(callee->decl), &ramp, &len) == IP_CORO_BODY ||
          is_ramp(callee)) &&
         ip_may_instrument(callee->decl)))
      not_inlinable(e);
  }
}

/* Does FUN call itself directly (what tail-recursion elimination would make
 * a loop)? */
static bool calls_itself(function *fun)
{
  basic_block bb;
  FOR_EACH_BB_FN(bb, fun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi))
      if (gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi))) {
        tree callee = gimple_call_fndecl(call);
        cgraph_node *node = callee ? cgraph_node::get(callee) : NULL;
        if (node && node->ultimate_alias_target()->decl == fun->decl)
          return true;
      }
  return false;
}

void ip_override_gate(void *gcc_data, void *)
{
  bool *gate = (bool *)gcc_data;
  if (is_pass("profile"))
    profile_pass_seen = true;
  if (!*gate)
    return;
  bool keep = !ip_cfg.tail_recursion_loop && !before_profile();
  bool out_of_line = true; /* coroutine bodies at least */
  if (out_of_line && is_pass("inline")) {   /* at link time under LTO */
    cgraph_node *node;
    FOR_EACH_FUNCTION(node)
      keep_out_of_line(node, keep);
  }
  if (!cfun || !cfun->decl)
    return;
  cgraph_node *self = cgraph_node::get(cfun->decl);
  if (out_of_line && is_pass("einline") && self)
    keep_out_of_line(self, keep);
  bool tailr = keep && (is_pass("tailr") || (is_pass("tailc") && !(ip_cfg.tail_jump && !calls_itself(cfun))));
  bool split = !ip_cfg.partial_inlining && (is_pass("fnsplit") || is_pass("feedback_fnsplit"));
  if ((tailr || split) && ip_may_instrument(cfun->decl))
    *gate = false;
}
