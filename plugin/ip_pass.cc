// ip_pass.cc - the inclprof GIMPLE pass (runs after IPA inlining, before
// "sanopt", at every -O level): entry probe, an exit probe before every return
// and in a cleanup landing pad for exceptions leaving the function, call-site
// probes, and no tail calls.
#include "ip_gcc.h"
#include "tree-dfa.h"
#include "ip_names.h"
#include "inclprof_abi.h"

/* A coroutine body's frame pointer (its first parameter) and the frame's
 * resume index field (GCC 12: _Coro_resume_index, GCC 11: __resume_at), or
 * NULL_TREE when FUN is no coroutine body or they are not found. */
static tree coroutine_resume_index(function *fun, tree *frame)
{
  const char *ramp;
  size_t len;
  if (ip_coroutine_part(ip_function_name(fun->decl), &ramp, &len) != IP_CORO_BODY)
    return NULL_TREE;
  tree parm = DECL_ARGUMENTS(fun->decl);
  if (!parm || !POINTER_TYPE_P(TREE_TYPE(parm)) ||
      TREE_CODE(TREE_TYPE(TREE_TYPE(parm))) != RECORD_TYPE)
    return NULL_TREE;
  for (tree f = TYPE_FIELDS(TREE_TYPE(TREE_TYPE(parm))); f; f = DECL_CHAIN(f))
    if (TREE_CODE(f) == FIELD_DECL && DECL_NAME(f) && INTEGRAL_TYPE_P(TREE_TYPE(f)) &&
        (!strcmp(IDENTIFIER_POINTER(DECL_NAME(f)), "_Coro_resume_index") ||
         !strcmp(IDENTIFIER_POINTER(DECL_NAME(f)), "__resume_at"))) {
      *frame = parm;
      return f;
    }
  return NULL_TREE;
}

/* At a coroutine body's entry: the frame's address with INCLPROF_CORO_START
 * when the resume index is 0 (the ramp's first call) and
 * INCLPROF_CORO_DESTROY when it is odd (the destroy function's call), into
 * *VALUE: the statements that compute it. */
static gimple_seq coroutine_frame_value(function *fun, tree parm, tree field, tree *value)
{
  gimple_seq seq = NULL;
  tree frame;
  if (is_gimple_reg(parm)) {
    frame = get_or_create_ssa_default_def(fun, parm);
  } else {
    frame = make_ssa_name(TREE_TYPE(parm));
    gimple_seq_add_stmt(&seq, gimple_build_assign(frame, parm));
  }
  tree rtype = TREE_TYPE(TREE_TYPE(parm));
  tree ref = build3(COMPONENT_REF, TREE_TYPE(field),
                    build2(MEM_REF, rtype, frame, build_int_cst(TREE_TYPE(parm), 0)), field, NULL_TREE);
  tree index = make_ssa_name(TREE_TYPE(field));
  gimple_seq_add_stmt(&seq, gimple_build_assign(index, ref));
  tree uptr = pointer_sized_int_node;
  tree wide = make_ssa_name(uptr);
  gimple_seq_add_stmt(&seq, gimple_build_assign(wide, NOP_EXPR, index));
  /* destroying = index & 1, shifted to INCLPROF_CORO_DESTROY */
  tree odd = make_ssa_name(uptr);
  gimple_seq_add_stmt(&seq, gimple_build_assign(odd, BIT_AND_EXPR, wide, build_int_cst(uptr, 1)));
  tree destroy = make_ssa_name(uptr);
  gimple_seq_add_stmt(&seq, gimple_build_assign(destroy, LSHIFT_EXPR, odd, build_int_cst(uptr, 1)));
  tree zero = make_ssa_name(boolean_type_node);
  gimple_seq_add_stmt(&seq, gimple_build_assign(zero, EQ_EXPR, wide, build_int_cst(uptr, 0)));
  tree start = make_ssa_name(uptr);
  gimple_seq_add_stmt(&seq, gimple_build_assign(start, NOP_EXPR, zero));
  tree addr = make_ssa_name(uptr);
  gimple_seq_add_stmt(&seq, gimple_build_assign(addr, NOP_EXPR, frame));
  tree bits = make_ssa_name(uptr);
  gimple_seq_add_stmt(&seq, gimple_build_assign(bits, BIT_IOR_EXPR, destroy, start));
  tree with = make_ssa_name(uptr);
  gimple_seq_add_stmt(&seq, gimple_build_assign(with, BIT_IOR_EXPR, addr, bits));
  *value = make_ssa_name(const_ptr_type_node);
  gimple_seq_add_stmt(&seq, gimple_build_assign(*value, NOP_EXPR, with));
  return seq;
}

static void insert_entry_probe(function *fun, tree desc)
{
  basic_block bb = split_edge(single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fun)));
  gimple_stmt_iterator gsi = gsi_after_labels(bb);
  tree parm = NULL_TREE, field = coroutine_resume_index(fun, &parm);
  if (field) {
    tree value;
    gsi_insert_seq_before(&gsi, coroutine_frame_value(fun, parm, field, &value), GSI_SAME_STMT);
    gsi_insert_seq_before(&gsi, ip_build_probe(IP_HOOK_COROUTINE_FRAME, value), GSI_SAME_STMT);
  }
  gsi_insert_seq_before(&gsi, ip_build_probe(IP_HOOK_ENTER, build_fold_addr_expr(desc)), GSI_SAME_STMT);
}

/* Is RET reached only as it follows a tail call that stays a jump (whose
 * exit probe is before it)?  When some of the paths into its block come from
 * such calls, the exit probe goes on the others. */
static bool after_tail_jump(gimple *ret, tree desc)
{
  basic_block bb = gimple_bb(ret);
  if (gsi_stmt(gsi_start_nondebug_after_labels_bb(bb)) != ret) {
    gimple_stmt_iterator gsi = gsi_for_stmt(ret);
    gsi_prev_nondebug(&gsi);
    gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi));
    return call && gimple_call_tail_p(call);
  }
  edge e;
  edge_iterator ei;
  bool from_jump = false;
  FOR_EACH_EDGE(e, ei, bb->preds)
    from_jump |= ip_tail_call_ends(e->src);
  if (!from_jump)
    return false;
  FOR_EACH_EDGE(e, ei, bb->preds)
    if (!ip_tail_call_ends(e->src))
      gsi_insert_seq_on_edge(e, ip_build_probe(IP_HOOK_EXIT, build_fold_addr_expr(desc)));
  return true;
}

static void insert_return_probes(function *fun, tree desc)
{
  edge e;
  edge_iterator ei;
  FOR_EACH_EDGE(e, ei, EXIT_BLOCK_PTR_FOR_FN(fun)->preds)
  {
    gimple *last = ip_last_stmt(e->src);
    if (!last || gimple_code(last) != GIMPLE_RETURN || after_tail_jump(last, desc))
      continue;
    gimple_stmt_iterator gsi = gsi_for_stmt(last);
    gsi_insert_seq_before(&gsi, ip_build_probe(IP_HOOK_EXIT, build_fold_addr_expr(desc)), GSI_SAME_STMT);
  }
  gsi_commit_edge_inserts();
}

/* Statements through which an exception can leave the function. */
static void collect_external_throwers(function *fun, auto_vec<gimple *> *out)
{
  basic_block bb;
  FOR_EACH_BB_FN(bb, fun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
      gimple *stmt = gsi_stmt(gsi);
      if (stmt_could_throw_p(fun, stmt) && lookup_stmt_eh_lp_fn(fun, stmt) == 0)
        out->safe_push(stmt);
    }
}

/* Route exceptions leaving FUN through a new cleanup landing pad
 * [exit probe; resx] (the GCC 14 -fhardcfr-check-exceptions technique). */
static void insert_exception_exit(function *fun, tree desc)
{
  auto_vec<gimple *> throwers;
  collect_external_throwers(fun, &throwers);
  if (throwers.is_empty())
    return;
  basic_block pad = create_empty_bb(EXIT_BLOCK_PTR_FOR_FN(fun)->prev_bb);
  if (current_loops)
    add_bb_to_loop(pad, current_loops->tree_root);
  eh_region region = gen_eh_region_cleanup(NULL);
  eh_landing_pad lp = gen_eh_landing_pad(region);
  tree label = gimple_block_label(pad);
  lp->post_landing_pad = label;
  EH_LANDING_PAD_NR(label) = lp->index;
  gimple_seq body = ip_build_probe(IP_HOOK_EXIT, build_fold_addr_expr(desc));
  gimple_seq_add_stmt(&body, gimple_build_resx(region->index));
  gimple_stmt_iterator gsi = gsi_after_labels(pad);
  gsi_insert_seq_before(&gsi, body, GSI_SAME_STMT);

  for (gimple *stmt : throwers) {
    basic_block bb = gimple_bb(stmt);
    if (stmt != gsi_stmt(gsi_last_bb(bb)))   /* not ip_last_stmt: debug binds count */
      split_block(bb, stmt);
    add_stmt_to_eh_lp(stmt, lp->index);
    ip_make_eh_edge(stmt);
  }
  /* Making EH edges keeps no dominator tree up to date. */
  free_dominance_info(fun, CDI_DOMINATORS);
}

static unsigned function_flags(function *fun, const ip_decision &d)
{
  tree parm;
  return INCLPROF_FN_INSTRUMENTED | (coroutine_resume_index(fun, &parm) ? INCLPROF_FN_COROUTINE_BODY : 0) | (TREE_PUBLIC(fun->decl) ? 0 : INCLPROF_FN_LOCAL) |
         (d.has_loops && ip_cfg.min_size && d.size < ip_cfg.min_size ? INCLPROF_FN_HAS_LOOPS : 0) |
         (ip_asm_probes_usable(fun) ? INCLPROF_FN_STUB_PROBES : 0);
}

static unsigned instrument(function *fun)
{
  tree fndecl = fun->decl;
  if (ip_emitting_unit())
    return 0;
  ip_note_inlined(fun);
  ip_decision d = ip_decide(fndecl, fun);
  const char *name = ip_function_name(fndecl);
  const char *file = DECL_SOURCE_FILE(fndecl);
  int line = DECL_SOURCE_LINE(fndecl);
  char *pretty = ip_decl_pretty(fndecl);
  if (!d.instrument) {
    ip_report("skipped\t%s\t%s:%d\t%s", pretty, file, line, d.reason);
    if (d.kind)
      ip_skipped_note(d.kind, pretty, file, line, d.reason);
    /* Its address, so that an indirect call to it records nothing either. */
    if (ip_calls_excluded(fndecl))
      ip_build_descriptor(ip_function_id(name, file), name, pretty, file, line, d.size,
                          INCLPROF_FN_CALLS_EXCLUDED | (TREE_PUBLIC(fndecl) ? 0 : INCLPROF_FN_LOCAL),
                          fndecl);
    free(pretty);
    return 0;
  }
  tree desc = ip_build_descriptor(ip_function_id(name, file), name, pretty, file, line, d.size,
                                  function_flags(fun, d), fndecl);

  unsigned jumps = ip_settle_tail_calls(fun);
  unsigned sites = ip_instrument_callsites(fun);
  ip_tail_exit_probes(fun, desc);
  insert_return_probes(fun, desc);
  if (flag_exceptions)
    insert_exception_exit(fun, desc);
  insert_entry_probe(fun, desc);
  ip_insert_landing_probes(fun, desc);
  ip_guard_probes();
  ip_known_list(fndecl);
  char jumps_note[32] = "";
  if (jumps)
    snprintf(jumps_note, sizeof jumps_note, " tail-jumps=%u", jumps);
  ip_report("instrumented\t%s\t%s:%d\tsize=%u%s\tcallsites=%u%s%s%s", pretty, file, line, d.size,
            d.has_loops ? " loops" : "", sites, jumps_note, d.note ? "\t" : "", d.note ? d.note : "");
  free(pretty);
  return TODO_update_ssa | TODO_cleanup_cfg;
}

static const pass_data ip_pass_data = {
  GIMPLE_PASS, "inclprof", OPTGROUP_NONE, TV_NONE,
  PROP_cfg | PROP_ssa, 0, 0, 0, 0,
};

namespace {
struct ip_gimple_pass : gimple_opt_pass {
  explicit ip_gimple_pass(gcc::context *ctxt) : gimple_opt_pass(ip_pass_data, ctxt) {}
  unsigned int execute(function *fun) final override { return instrument(fun); }
};
}

opt_pass *ip_make_pass(gcc::context *ctxt)
{
  return new ip_gimple_pass(ctxt);
}
