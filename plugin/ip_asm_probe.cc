// ip_asm_probe.cc - x86-64 probes as one GIMPLE asm: `cmpq $0, HOOK(%rip)` and
// a `jne` to a stub in .text.unlikely.inclprof that steps over the red zone
// and calls a trampoline (__inclprof_probe_tramp1 or __inclprof_probe_tramp,
// one hidden COMDAT copy each per executable or shared library, text in
// include/inclprof/probe_x86.h), which saves the general
// registers, aligns the stack and calls the hook with the descriptor the
// stub's data names.  Since the probe is not a call, GCC keeps values in any
// general register across it: a small leaf function stays a leaf without a
// frame.  Adjacent probes (a call's "after" probe and the next call's
// "before" probe, an "after" probe and the exit probe...) share one test and
// one stub.  A call-site probe's stub first looks at its callee descriptor:
// once the runtime has marked the callee instrumented (its own probes make
// the frame), the stub goes straight back, without the trampoline.
#include "ip_gcc.h"
#include "hard-reg-set.h"
#include "inclprof_abi.h"
#include "probe_x86.h"

static_assert(offsetof(struct inclprof_fn, runtime_flags) == 44 && INCLPROF_RT_CALLEE_INSTRUMENTED == 1,
              "probe_x86.h: INCLPROF_X86_RUNTIME_FLAGS and INCLPROF_X86_CALLEE_INSTRUMENTED");

static bool any_asm_probe;

bool ip_asm_probes_usable(function *fun)
{
#if defined(TARGET_X32) && defined(TARGET_64BIT)
  /* Unless probe-form=call: the stub names the hook and the descriptor
     %rip-relative and is written in AT&T syntax; a function that may throw
     from any instruction keeps calls (a volatile asm could throw there). */
  return !ip_cfg.probe_calls && TARGET_64BIT && !TARGET_X32 && (ix86_cmodel == CM_SMALL || ix86_cmodel == CM_SMALL_PIC) &&
         ix86_asm_dialect == ASM_ATT && !fun->can_throw_non_call_exceptions;
#else
  (void)fun;
  return false;
#endif
}

/* The registers a C hook may change besides the general ones the stub and
 * the trampoline save: flags and every vector, mask and x87/MMX register
 * this function can use.  Declared as clobbers, so GCC keeps no value there
 * across the probe (a live double is stored and reloaded, as around a call). */
static vec<tree, va_gc> *clobbers(void)
{
  static const char *const fixed[] = { "cc", "memory" };
  static const struct { const char *prefix; int count; } banks[] = { { "xmm", 32 }, { "k", 8 }, { "mm", 8 } };
  static const char *const x87[] = { "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)" };
  vec<tree, va_gc> *list = NULL;
  auto add = [&list](const char *name) {
    int regno = decode_reg_name(name);
    if (regno >= 0 && !TEST_HARD_REG_BIT(accessible_reg_set, regno))
      return;
    vec_safe_push(list, build_tree_list(NULL_TREE, build_string(strlen(name), name)));
  };
  for (const char *name : fixed)
    add(name);
  for (const auto &bank : banks)
    for (int i = 0; i < bank.count; i++) {
      char name[16];
      snprintf(name, sizeof name, "%s%d", bank.prefix, i);
      add(name);
    }
  for (const char *name : x87)
    add(name);
  return list;
}

static tree operand(const char *constraint, tree value)
{
  return build_tree_list(build_tree_list(NULL_TREE, build_string(strlen(constraint), constraint)),
                         value);
}

/* The constraint of the value an exit probe takes as an input.  "X" lets
 * GCC leave it wherever it is, but not in an x87 register: an asm input in
 * an x87 register the asm clobbers is one the asm pops, so GCC would take
 * the stack as popped (and refuses outright a long double _Complex in
 * st(0) and st(1): "implicitly popped registers must be grouped at top of
 * stack").  A value of a mode the x87 stack can hold goes in a general
 * register or memory instead. */
static const char *return_value_constraint(tree value)
{
#ifdef FIRST_STACK_REG
  if (targetm.hard_regno_mode_ok(FIRST_STACK_REG, TYPE_MODE(TREE_TYPE(value))))
    return "rm";
#else
  (void)value;
#endif
  return "X";
}

/* A probe [p = tu.hooks.K; p(arg)] as ip_build_probe made it. */
struct probe {
  gcall *call;
  gimple *load;
  tree slot;  /* tu.hooks.K */
  tree arg;
  bool by_addr; /* arg is &descriptor (else a value, an indirect call's target) */
  bool callee;  /* a call-site probe (hooks.call or hooks.ret) of a named callee */
};

static probe probe_of(gcall *call)
{
  probe p;
  p.call = call;
  p.load = SSA_NAME_DEF_STMT(gimple_call_fn(call));
  p.slot = gimple_assign_rhs1(p.load);
  p.arg = gimple_call_arg(call, 0);
  p.by_addr = TREE_CODE(p.arg) == ADDR_EXPR && VAR_P(TREE_OPERAND(p.arg, 0));
  tree field = TREE_CODE(p.slot) == COMPONENT_REF ? TREE_OPERAND(p.slot, 1) : NULL_TREE;
  const char *hook = field && DECL_NAME(field) ? IDENTIFIER_POINTER(DECL_NAME(field)) : "";
  p.callee = p.by_addr && (!strcmp(hook, "call") || !strcmp(hook, "ret"));
  return p;
}

/* Does NEXT's load follow PREV's call, with nothing but debug statements in
 * between?  Then both can share one test and one stub (a stub passes at most
 * one value: see the runs below). */
static bool adjacent(const probe &prev, const probe &next)
{
  gimple_stmt_iterator gsi = gsi_for_stmt(prev.call);
  gsi_next_nondebug(&gsi);
  return !gsi_end_p(gsi) && gsi_stmt(gsi) == next.load;
}

/* The asm template (malloc'd) for probes 0..N-1, laid out as probe_x86.h
 * says: operand 2i is the hook slot's address and 2i+1 the descriptor's ("i",
 * printed %rip-relative or as a difference), or a value ("r": an indirect
 * call's target, at most one per run), which the stub pushes. */
static char *stub_text(const probe *ps, unsigned n)
{
  obstack ob;
  gcc_obstack_init(&ob);
  auto put = [&ob](const char *s) { obstack_grow(&ob, s, strlen(s)); };
  put("cmpq\t$0, %c0(%%rip)\n\t"
      "jne\t.Lipp%=\n"
      ".Lipb%=:\n\t"
      ".pushsection\t.text.unlikely.inclprof,\"ax?\",@progbits\n"
      ".Lipp%=:\n\t");
  char line[64];
  if (n == 1 && ps[0].callee) { /* inclprof_fn.runtime_flags: nothing to record */
    put("testb\t$" INCLPROF_X86_CALLEE_INSTRUMENTED ", %c1+" INCLPROF_X86_RUNTIME_FLAGS "(%%rip)\n\t"
        "jnz\t.Lipb%=\n\t");
  }
  put("leaq\t-128(%%rsp), %%rsp\n\t");
  if (n == 1 && ps[0].by_addr) {
    put("call\t__inclprof_probe_tramp1\n\t" INCLPROF_X86_STUB1_RETURN ".long\t.Lipb%= - . - 4\n\t"
        ".long\t%c0 - ., %c1 - .\n\t"
        ".popsection");
  } else {
    unsigned value = n; /* the probe passing a value, if any */
    for (unsigned i = 0; i < n; i++)
      if (!ps[i].by_addr)
        value = i;
    if (value < n)
      snprintf(line, sizeof line, "pushq\t%%%u\n\t", 2 * value + 1);
    else
      snprintf(line, sizeof line, "pushq\t%%%%rax\n\t");
    put(line);
    put("call\t__inclprof_probe_tramp\n\t" INCLPROF_X86_STUB_RETURN ".long\t.Lipb%= - . - 4\n\t");
    for (unsigned i = 0; i < n; i++) {
      if (ps[i].by_addr)
        snprintf(line, sizeof line, ".long\t%%c%u - ., %%c%u - .\n\t", 2 * i, 2 * i + 1);
      else
        snprintf(line, sizeof line, ".long\t%%c%u - ., 0\n\t", 2 * i);
      put(line);
    }
    put(".long\t0\n\t"
        ".popsection");
  }
  obstack_1grow(&ob, 0);
  char *text = xstrdup((char *)obstack_finish(&ob));
  obstack_free(&ob, NULL);
  return text;
}

/* Replaces the N adjacent probes PS by one asm. */
static void replace(const probe *ps, unsigned n)
{
  vec<tree, va_gc> *inputs = NULL;
  for (unsigned i = 0; i < n; i++) {
    vec_safe_push(inputs, operand("i", build_fold_addr_expr(unshare_expr(ps[i].slot))));
    vec_safe_push(inputs, operand(ps[i].by_addr ? "i" : "r", ps[i].arg));
  }
  /* An exit probe comes after the value returned is computed: it is an input
     (never read), so GCC cannot compute it after the probe. */
  gimple_stmt_iterator next = gsi_for_stmt(ps[n - 1].call);
  gsi_next_nondebug(&next);
  if (!gsi_end_p(next))
    if (greturn *ret = dyn_cast<greturn *>(gsi_stmt(next)))
      if (gimple_return_retval(ret) && TREE_CODE(gimple_return_retval(ret)) == SSA_NAME)
        vec_safe_push(inputs, operand(return_value_constraint(gimple_return_retval(ret)),
                                      gimple_return_retval(ret)));
  char *text = stub_text(ps, n);
  gasm *as = gimple_build_asm_vec(text, inputs, NULL, clobbers(), NULL); /* copies TEXT */
  free(text);
  gimple_asm_set_volatile(as, true);
  gimple_set_location(as, gimple_location(ps[0].call));
  gimple_stmt_iterator at = gsi_for_stmt(ps[n - 1].call);
  gsi_insert_after(&at, as, GSI_SAME_STMT);
  for (unsigned i = 0; i < n; i++) {
    tree fnptr = gimple_call_fn(ps[i].call);
    gimple_stmt_iterator gsi = gsi_for_stmt(ps[i].call);
    gsi_remove(&gsi, true);
    gsi = gsi_for_stmt(ps[i].load);
    gsi_remove(&gsi, true);
    release_ssa_name(fnptr);
  }
  any_asm_probe = true;
}

void ip_asm_probes_build(const vec<gcall *> &calls)
{
  auto_vec<probe> ps;
  hash_map<gimple *, unsigned> by_load, by_call;
  for (gcall *call : calls) {
    by_load.put(SSA_NAME_DEF_STMT(gimple_call_fn(call)), ps.length());
    by_call.put(call, ps.length());
    ps.safe_push(probe_of(call));
  }
  /* Probes were noted in insertion order, not code order: each chain of
     adjacent probes is found from its first one, all before any is
     replaced, and cut into runs of at most one value probe each (the one
     value a stub pushes). */
  auto_vec<probe> ordered;       /* the runs one after the other */
  auto_vec<unsigned> run_length;
  for (unsigned i = 0; i < ps.length(); i++) {
    gimple_stmt_iterator before = gsi_for_stmt(ps[i].load);
    gsi_prev_nondebug(&before);
    unsigned *prev = gsi_end_p(before) ? NULL : by_call.get(gsi_stmt(before));
    if (prev && adjacent(ps[*prev], ps[i]))
      continue; /* not the first of its chain */
    unsigned length = 1, values = !ps[i].by_addr;
    ordered.safe_push(ps[i]);
    for (;;) {
      gimple_stmt_iterator after = gsi_for_stmt(ordered.last().call);
      gsi_next_nondebug(&after);
      unsigned *next = gsi_end_p(after) ? NULL : by_load.get(gsi_stmt(after));
      if (!next || !adjacent(ordered.last(), ps[*next]))
        break;
      if (!ps[*next].by_addr && values) { /* a second value: a new run */
        run_length.safe_push(length);
        length = values = 0;
      }
      ordered.safe_push(ps[*next]);
      length++;
      values += !ps[*next].by_addr;
    }
    run_length.safe_push(length);
  }
  unsigned start = 0;
  for (unsigned length : run_length) {
    replace(&ordered[start], length);
    start += length;
  }
}

/* A trampoline NAME with BODY, one hidden COMDAT copy per binary. */
static void emit_trampoline(const char *name, const char *body)
{
  fprintf(asm_out_file,
          "\t.pushsection\t.text.unlikely.%s,\"axG\",@progbits,%s,comdat\n"
          "\t.weak\t%s\n\t.hidden\t%s\n\t.type\t%s, @function\n%s:\n",
          name, name, name, name, name, name);
  fputs(body, asm_out_file);
  fprintf(asm_out_file, "\t.size\t%s, .-%s\n\t.popsection\n", name, name);
}

void ip_asm_emit_trampoline(void)
{
  if (!any_asm_probe)
    return;
  emit_trampoline("__inclprof_probe_tramp1", INCLPROF_X86_TRAMP1_BODY);
  emit_trampoline("__inclprof_probe_tramp", INCLPROF_X86_TRAMP_BODY);
}
