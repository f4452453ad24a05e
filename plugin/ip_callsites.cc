// ip_callsites.cc - call-site probes: tu.hooks.call(&callee) before and
// tu.hooks.ret(&callee) after calls to functions that are not instrumented
// (or to all functions with callsites=all), call_indirect/ret_indirect with the
// target address around indirect calls.
#include "ip_gcc.h"
#include "ip_names.h"
#include "inclprof_abi.h"

/* One descriptor per distinct callee and call line in the unit, keyed by
 * an identifier made of the callee's DECL_UID, file and line. */
static hash_map<tree, tree> *callee_descs;

void ip_clear_tail_calls(function *fun)
{
  basic_block bb;
  FOR_EACH_BB_FN(bb, fun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi))
      if (gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi)))
        gimple_call_set_tail(call, false);
}

/* Builtins that GCC expands inline (or that are not calls at all): no probes.
 * Library builtins (printf, abort, memcpy of unknown size...) keep theirs. */
static bool expands_inline(tree callee, gcall *call)
{
  if (!fndecl_built_in_p(callee))
    return false;
  if (!fndecl_built_in_p(callee, BUILT_IN_NORMAL) || is_inexpensive_builtin(callee))
    return true;
  const char *name = IDENTIFIER_POINTER(DECL_NAME(callee));
  if (ip_startswith(name, "__builtin_") || ip_startswith(name, "__atomic_") || ip_startswith(name, "__sync_"))
    return true;
  switch (DECL_FUNCTION_CODE(callee)) {
  case BUILT_IN_MEMCPY: case BUILT_IN_MEMPCPY: case BUILT_IN_MEMMOVE: case BUILT_IN_MEMSET:
  case BUILT_IN_MEMCMP: case BUILT_IN_BCMP:
    return gimple_call_num_args(call) == 3 && TREE_CODE(gimple_call_arg(call, 2)) == INTEGER_CST;
  default:
    return false;
  }
}

/* Will CALLEE's body get entry/exit probes in this unit? */
static bool instrumented_here(tree callee)
{
  cgraph_node *node = cgraph_node::get(callee);
  if (node)
    node = node->ultimate_alias_target();
  if (!node || !node->definition || DECL_EXTERNAL(node->decl) || node->thunk)
    return false;
  callee = node->decl;
  function *fn = DECL_STRUCT_FUNCTION(callee);
  return ip_decide(callee, fn && fn->cfg ? fn : NULL).instrument;
}

/* The name under which CALLEE's body is instrumented where it is defined: a
 * C++ complete-object constructor or destructor (C1/D1) is an alias of the
 * base-object one (C2/D2) unless the class has virtual bases, and then both
 * are instrumented, so the C2/D2 name always names an instrumented body. */
static const char *instrumented_name(tree callee)
{
  const char *name = ip_function_name(callee);
  if (!DECL_CXX_CONSTRUCTOR_P(callee) && !DECL_CXX_DESTRUCTOR_P(callee))
    return name;
  const char *which = strstr(name, DECL_CXX_CONSTRUCTOR_P(callee) ? "C1E" : "D1E");
  if (!which)
    return name;
  char *copy = xstrdup(name);
  copy[which - name + 1] = '2';
  name = IDENTIFIER_POINTER(get_identifier(copy));
  free(copy);
  return name;
}

/* The descriptor of CALLEE called at CALL: its file and line are the
 * call's, where the code of the call was written (INCLPROF_FN_CALL_SITE). */
static tree callee_descriptor(tree callee, gcall *call)
{
  if (!callee_descs)
    callee_descs = new hash_map<tree, tree>;
  expanded_location at = expand_location(gimple_location(call));
  const char *file = at.file && at.line > 0 ? at.file : "";
  unsigned line = *file ? (unsigned)at.line : 0;
  char *key_text = xasprintf("%u\n%s\n%u", DECL_UID(callee), file, line);
  tree key = get_identifier(key_text);
  free(key_text);
  if (tree *known = callee_descs->get(key))
    return *known;
  const char *name = instrumented_name(callee);
  char *pretty = ip_pretty_name(name);
  unsigned flags = INCLPROF_FN_CALLEE | (TREE_PUBLIC(callee) ? 0 : INCLPROF_FN_LOCAL) |
                   (*file ? INCLPROF_FN_CALL_SITE : 0);
  tree desc = ip_build_descriptor(ip_callee_id(name), name, pretty, file, line, 0, flags, NULL_TREE);
  free(pretty);
  callee_descs->put(key, desc);
  return desc;
}

/* Does an exclude-calls rule name CALLEE (its assembler names, or the
 * demangled name with parameters)? */
static bool calls_excluded(tree callee)
{
  const char *name = instrumented_name(callee);
  char *pretty = ip_pretty_name(name);
  const char *names[] = { ip_function_name(callee), name, pretty };
  bool excluded = ip_config_calls_excluded(&ip_cfg, names, 3);
  free(pretty);
  return excluded;
}

/* The edge a call's "after" probe goes on when the call ends its block. */
static edge normal_successor(basic_block bb)
{
  edge found = NULL, e;
  edge_iterator ei;
  FOR_EACH_EDGE(e, ei, bb->succs)
  {
    if (e->flags & (EDGE_EH | EDGE_ABNORMAL))
      continue;
    if (found)
      return NULL;
    found = e;
  }
  return found;
}

/* Wrap one call; false when the "after" probe has no place (then nothing is
 * inserted). */
static bool wrap_call(gcall *call, enum ip_hook before, enum ip_hook after, tree arg)
{
  gimple_stmt_iterator gsi = gsi_for_stmt(call);
  bool noreturn = gimple_call_noreturn_p(call);
  edge e = NULL;
  /* A call with a landing pad must stay last in its block even when it is
   * known not to throw (its EH edge is purged later). */
  if (!noreturn && (stmt_ends_bb_p(call) || call == gsi_stmt(gsi_last_bb(gimple_bb(call))))) {
    e = normal_successor(gimple_bb(call));
    if (!e)
      return false;
  }
  gsi_insert_seq_before(&gsi, ip_build_probe(before, arg), GSI_SAME_STMT);
  if (noreturn)
    return true;
  if (e)
    gsi_insert_seq_on_edge(e, ip_build_probe(after, arg));
  else
    gsi_insert_seq_after(&gsi, ip_build_probe(after, arg), GSI_SAME_STMT);
  return true;
}

/* The value an indirect call jumps to. */
static tree indirect_target(gcall *call)
{
  tree fn = gimple_call_fn(call);
  if (TREE_CODE(fn) == OBJ_TYPE_REF)
    fn = OBJ_TYPE_REF_EXPR(fn);
  return fn;
}

unsigned ip_instrument_callsites(function *fun)
{
  if (ip_cfg.callsites == IP_CALLSITES_NONE || fun->calls_setjmp || fun->has_nonlocal_label)
    return 0;
  auto_vec<gcall *> calls;
  basic_block bb;
  FOR_EACH_BB_FN(bb, fun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi))
      if (gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi)))
        if (!gimple_call_internal_p(call))
          calls.safe_push(call);

  unsigned wrapped = 0;
  for (gcall *call : calls) {
    tree callee = gimple_call_fndecl(call);
    if (!callee) {
      wrapped += wrap_call(call, IP_HOOK_CALL_INDIRECT, IP_HOOK_RET_INDIRECT, indirect_target(call));
      continue;
    }
    if (expands_inline(callee, call))
      continue;
    cgraph_node *node = cgraph_node::get(callee);
    if (node && node->split_part)
      continue;
    if (ip_cfg.callsites == IP_CALLSITES_EXTERNAL && instrumented_here(callee))
      continue;
    if (calls_excluded(callee))
      continue;
    wrapped += wrap_call(call, IP_HOOK_CALL, IP_HOOK_RET, build_fold_addr_expr(callee_descriptor(callee, call)));
  }
  gsi_commit_edge_inserts();
  return wrapped;
}
