// ip_callsites.cc - call-site probes: tu.hooks.call(&callee) before and
// tu.hooks.ret(&callee) after calls to functions that are not instrumented
// (or to all functions with callsites=all), call_indirect/ret_indirect with the
// target address around indirect calls; which tail calls stay jumps.
#include "ip_gcc.h"
#include "ip_names.h"
#include "inclprof_abi.h"

static const char *instrumented_name(tree callee);

/* One descriptor per distinct callee and call line in the unit, keyed by
 * an identifier made of the callee's DECL_UID, file and line. */
static hash_map<tree, tree> *callee_descs;


/* Under -flto, does CALLEE's body, compiled in another partition of the
 * program, get entry/exit probes there?  Only what its declaration tells is
 * known here: without min-size, and for a function the source wrote (some
 * compiler-generated ones are judged by their calls), that is the answer. */
static bool instrumented_in_other_partition(cgraph_node *node)
{
  return ip_in_lto1() && node->in_other_partition && !node->thunk && !ip_cfg.min_size &&
         !DECL_ARTIFICIAL(node->decl) && ip_may_instrument(node->decl);
}

/* Will CALLEE's body get entry/exit probes in this unit, or, under -flto,
 * in the program? */
static bool instrumented_here(tree callee)
{
  cgraph_node *node = cgraph_node::get(callee);
  if (node)
    node = node->ultimate_alias_target();
  if (node && instrumented_in_other_partition(node))
    return true;
  if (!node || !node->definition || DECL_EXTERNAL(node->decl) || node->thunk)
    return false;
  callee = node->decl;
  function *fn = DECL_STRUCT_FUNCTION(callee);
  return ip_decide(callee, fn && fn->cfg ? fn : NULL).instrument;
}

/* Does known-instrumented's list name CALLEE, a public function with no
 * body in this unit? */
static bool listed_instrumented(tree callee)
{
  cgraph_node *node = cgraph_node::get(callee);
  if (node)
    node = node->ultimate_alias_target();
  if (node && node->definition && !DECL_EXTERNAL(node->decl))
    return false;
  return TREE_PUBLIC(callee) && ip_known_instrumented(instrumented_name(callee));
}

/* Is CALL followed by nothing but a return: the next statement, or the
 * first of the block its block falls into? */
static bool returns_right_after(gcall *call)
{
  gimple_stmt_iterator gsi = gsi_for_stmt(call);
  gsi_next_nondebug(&gsi);
  if (!gsi_end_p(gsi))
    return gimple_code(gsi_stmt(gsi)) == GIMPLE_RETURN;
  basic_block bb = gimple_bb(call);
  if (!single_succ_p(bb) || (single_succ_edge(bb)->flags & (EDGE_EH | EDGE_ABNORMAL)))
    return false;
  gimple_stmt_iterator next = gsi_start_nondebug_after_labels_bb(single_succ(bb));
  return !gsi_end_p(next) && gimple_code(gsi_stmt(next)) == GIMPLE_RETURN;
}

/* May the tail call CALL stay a jump without losing the callee's row: is it
 * a call of a function with probes of its own, or through a pointer?  (A
 * call of a function without, such as a library's, keeps its call-site
 * probes and so stays a call.) */
static bool jump_keeps_its_row(gcall *call)
{
  tree callee = gimple_call_fndecl(call);
  return !callee || instrumented_here(callee) || listed_instrumented(callee);
}

unsigned ip_settle_tail_calls(function *fun)
{
  /* A function whose exceptions, longjmps or coroutine suspensions leave
     through probes of their own keeps every call a call. */
  bool may_jump = ip_cfg.tail_jump && !flag_exceptions && !fun->calls_setjmp &&
                  !fun->has_nonlocal_label && !fun->coroutine_component;
  unsigned kept = 0;
  basic_block bb;
  FOR_EACH_BB_FN(bb, fun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
      gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi));
      if (!call || !gimple_call_tail_p(call))
        continue;
      if (!may_jump || gimple_call_internal_p(call) || !returns_right_after(call) ||
          !jump_keeps_its_row(call)) {
        gimple_call_set_tail(call, false);
        continue;
      }
      kept++;
    }
  return kept;
}

void ip_tail_exit_probes(function *fun, tree desc)
{
  basic_block bb;
  FOR_EACH_BB_FN(bb, fun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
      gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi));
      if (call && gimple_call_tail_p(call))
        gsi_insert_seq_before(&gsi, ip_build_probe(IP_HOOK_EXIT, build_fold_addr_expr(desc)), GSI_SAME_STMT);
    }
}

bool ip_tail_call_ends(basic_block bb)
{
  gimple *last = ip_last_stmt(bb);
  gcall *call = last ? dyn_cast<gcall *>(last) : NULL;
  return call && gimple_call_tail_p(call);
}

/* Does the class described by BINFO have a virtual base, direct or not? */
static bool has_virtual_base(tree binfo)
{
  for (unsigned i = 0; binfo && i < BINFO_N_BASE_BINFOS(binfo); i++) {
    tree base = BINFO_BASE_BINFO(binfo, i);
    if (BINFO_VIRTUAL_P(base) || has_virtual_base(base))
      return true;
  }
  return false;
}

/* The class of the member function FN: its context, or, under -flto, where
 * the context of a non-virtual member is no longer its class, the class of
 * its method type. */
static tree class_of(tree fn)
{
  tree context = DECL_CONTEXT(fn);
  if (context && RECORD_OR_UNION_TYPE_P(context))
    return TYPE_MAIN_VARIANT(context);
  tree type = TREE_TYPE(fn);
  if (TREE_CODE(type) == METHOD_TYPE && TYPE_METHOD_BASETYPE(type))
    return TYPE_MAIN_VARIANT(TYPE_METHOD_BASETYPE(type));
  return NULL_TREE;
}

/* The name under which CALLEE's body is instrumented where it is defined: a
 * C++ complete-object constructor or destructor (C1/D1) is an alias of the
 * base-object one (C2/D2) unless the class has virtual bases: then the two
 * are different functions (the complete one also builds or destroys the
 * virtual bases), each with its own name and its own count.  (A class with
 * virtual bases has a vtable, so its base information is kept under -flto
 * too.) */
static const char *instrumented_name(tree callee)
{
  const char *name = ip_function_name(callee);
  if (!DECL_CXX_CONSTRUCTOR_P(callee) && !DECL_CXX_DESTRUCTOR_P(callee))
    return name;
  tree type = class_of(callee);
  if (type && RECORD_OR_UNION_TYPE_P(type) && has_virtual_base(TYPE_BINFO(type)))
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
 * call's, where the code of the call was written (INCLPROF_FN_CALL_SITE).
 * NAME, when not NULL, is the function really called. */
static tree callee_descriptor(tree callee, gimple *call, const char *name)
{
  if (!callee_descs)
    callee_descs = new hash_map<tree, tree>;
  expanded_location at = expand_location(gimple_location(call));
  const char *file = at.file && at.line > 0 ? at.file : "";
  unsigned line = *file ? (unsigned)at.line : 0;
  char *key_text = xasprintf("%u\n%s\n%u\n%s", DECL_UID(callee), file, line, name ? name : "");
  tree key = get_identifier(key_text);
  free(key_text);
  if (tree *known = callee_descs->get(key))
    return *known;
  /* Named as the callee's own descriptor names it (a coroutine's parts, a
     deleting destructor), or after the function really called. */
  char *pretty = name ? ip_pretty_name(name) : ip_decl_pretty(callee);
  if (!name)
    name = instrumented_name(callee);
  unsigned flags = INCLPROF_FN_CALLEE | (TREE_PUBLIC(callee) ? 0 : INCLPROF_FN_LOCAL) |
                   (*file ? INCLPROF_FN_CALL_SITE : 0);
  tree desc = ip_build_descriptor(ip_callee_id(name), name, pretty, file, line, 0, flags, NULL_TREE);
  free(pretty);
  callee_descs->put(key, desc);
  return desc;
}

/* Does an exclude-calls rule name CALLEE (its assembler names, or the
 * demangled name with parameters)? */
bool ip_calls_excluded(tree callee)
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

/* Wrap one call (or a statement that may become one); false when the
 * "after" probe has no place (then nothing is inserted).  With MARKERS (a
 * site whose probes the RTL check keeps or deletes), they enclose the two
 * probes. */
static bool wrap_call(gimple *call, enum ip_hook before, enum ip_hook after, tree arg,
                      gimple **markers = NULL)
{
  gimple_stmt_iterator gsi = gsi_for_stmt(call);
  gcall *as_call = dyn_cast<gcall *>(call);
  bool noreturn = as_call && gimple_call_noreturn_p(as_call);
  edge e = NULL;
  /* A call with a landing pad must stay last in its block even when it is
   * known not to throw (its EH edge is purged later). */
  if (!noreturn && (stmt_ends_bb_p(call) || call == gsi_stmt(gsi_last_bb(gimple_bb(call))))) {
    e = normal_successor(gimple_bb(call));
    if (!e)
      return false;
  }
  gimple_seq before_seq = NULL, after_seq = NULL;
  if (markers)
    gimple_seq_add_stmt(&before_seq, markers[0]);
  gimple_seq_add_seq(&before_seq, ip_build_probe(before, arg));
  gsi_insert_seq_before(&gsi, before_seq, GSI_SAME_STMT);
  if (noreturn)
    return true;
  gimple_seq_add_seq(&after_seq, ip_build_probe(after, arg));
  if (markers)
    gimple_seq_add_stmt(&after_seq, markers[1]);
  if (e)
    gsi_insert_seq_on_edge(e, after_seq);
  else
    gsi_insert_seq_after(&gsi, after_seq, GSI_SAME_STMT);
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

/* Wrap a call of CALLEE (or a statement that may become one) at STMT with
 * probes that the RTL check keeps only if a call remains there.  NAME: the
 * function really called, or NULL for CALLEE's own. */
static bool wrap_maybe(gimple *stmt, tree callee, const char *name)
{
  tree desc = callee_descriptor(callee, stmt, name);
  gimple *markers[2];
  ip_libcall_site(name ? name : instrumented_name(callee), stmt, &markers[0], &markers[1]);
  return wrap_call(stmt, IP_HOOK_CALL, IP_HOOK_RET, build_fold_addr_expr(desc), markers);
}

/* Does FUN call a function that returns twice other than setjmp (vfork:
 * its child must not run the runtime)? */
static bool calls_vfork_like(function *fun)
{
  static const char *const setjmps[] = { "setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp" };
  basic_block bb;
  FOR_EACH_BB_FN(bb, fun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
      gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi));
      if (!call || !(gimple_call_flags(call) & ECF_RETURNS_TWICE))
        continue;
      tree callee = gimple_call_fndecl(call);
      const char *name = callee ? IDENTIFIER_POINTER(DECL_NAME(callee)) : "";
      bool setjmp_like = false;
      for (const char *s : setjmps)
        setjmp_like |= !strcmp(name, s);
      if (!setjmp_like)
        return true;
    }
  return false;
}

unsigned ip_instrument_callsites(function *fun)
{
  if (ip_cfg.callsites == IP_CALLSITES_NONE)
    return 0;
  /* In a function that calls setjmp or has non-local labels, a call that
     may come back through them (a longjmp, a non-local goto) would leave its
     frame open while the function goes on: only the calls GCC knows cannot
     (no side effects, or leaf functions such as strlen or memcpy) are
     wrapped; in one that calls vfork, none. */
  bool abnormal = fun->calls_setjmp || fun->has_nonlocal_label;
  if (abnormal && calls_vfork_like(fun))
    return 0;
  auto_vec<gimple *> stmts;
  basic_block bb;
  FOR_EACH_BB_FN(bb, fun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
      gimple *stmt = gsi_stmt(gsi);
      if (is_gimple_call(stmt) ? !gimple_call_internal_p(stmt) : ip_aggregate_libcall(stmt) != NULL_TREE)
        stmts.safe_push(stmt);
    }

  unsigned wrapped = 0;
  for (gimple *stmt : stmts) {
    gcall *call = dyn_cast<gcall *>(stmt);
    if (!call) {
      tree callee = ip_aggregate_libcall(stmt);
      if (!ip_calls_excluded(callee))
        wrapped += wrap_maybe(stmt, callee, NULL);
      continue;
    }
    if ((abnormal && stmt_can_make_abnormal_goto(call)) || gimple_call_tail_p(call))
      continue;
    tree callee = gimple_call_fndecl(call);
    if (!callee) {
      wrapped += wrap_call(call, IP_HOOK_CALL_INDIRECT, IP_HOOK_RET_INDIRECT, indirect_target(call));
      continue;
    }
    const char *name;
    enum ip_libcall kind = ip_libcall_kind(callee, call, &name);
    if (kind == IP_LIBCALL_NONE)
      continue;
    cgraph_node *node = cgraph_node::get(callee);
    if (node && node->split_part)
      continue;
    /* With callsites=all, a call of a public function instrumented here
       keeps its probes (the runtime binds them to the function by name); a
       static one's could not be told from another unit's function of that
       name, and its own probes measure it.  A call GCC makes of another
       function (NAME) is wrapped all the same. */
    if ((ip_cfg.callsites == IP_CALLSITES_EXTERNAL || !TREE_PUBLIC(callee)) && !name &&
        instrumented_here(callee))
      continue;
    if (ip_cfg.callsites == IP_CALLSITES_EXTERNAL && !name && listed_instrumented(callee))
      continue;
    if (ip_calls_excluded(callee))
      continue;
    if (kind == IP_LIBCALL_MAYBE)
      wrapped += wrap_maybe(call, callee, name);
    else
      wrapped += wrap_call(call, IP_HOOK_CALL, IP_HOOK_RET,
                           build_fold_addr_expr(callee_descriptor(callee, call, name)));
  }
  gsi_commit_edge_inserts();
  return wrapped;
}
