// ip_libcalls.cc - which library calls get call-site probes.  GCC folds
// calls into other library calls before the pass runs (printf("x\n") is a
// call of puts, fputs("abc", f) of fwrite, a constant-size memcpy may become
// an aggregate copy), and expands some of what remains inline only when it
// turns GIMPLE into RTL (a memcpy of 16 bytes is a few moves, of 4 KiB a call
// of memcpy; at -O0 every builtin the source called by its library name is a
// call).  So a builtin that may still be expanded inline, and an aggregate
// copy or clear that may become a call of memcpy or memset, is wrapped like
// any call with its probes between two markers (empty asm statements), and a
// pass right after "expand" looks at what came out between the markers: with
// no direct call there, it deletes the probes; then it deletes the markers.
#include "ip_gcc.h"
#include "rtl.h"
#include "memmodel.h"
#include "emit-rtl.h"
#include "cfgrtl.h"
#include "rtl-iter.h"

/* The call sites waiting for the RTL check, by number (the markers carry it). */
struct pending_site {
  const char *callee, *file; /* GC-stable (identifiers) or static */
  int line;
};
static vec<pending_site> sites;
static hash_set<tree> *functions_with_sites;

/* Library functions that GCC never expands inline: wrapped as any call. */
static bool always_a_call(enum built_in_function code)
{
  switch (code) {
  case BUILT_IN_PRINTF: case BUILT_IN_PRINTF_UNLOCKED: case BUILT_IN_PRINTF_CHK:
  case BUILT_IN_FPRINTF: case BUILT_IN_FPRINTF_UNLOCKED: case BUILT_IN_FPRINTF_CHK:
  case BUILT_IN_VPRINTF: case BUILT_IN_VPRINTF_CHK: case BUILT_IN_VFPRINTF: case BUILT_IN_VFPRINTF_CHK:
  case BUILT_IN_SPRINTF: case BUILT_IN_SPRINTF_CHK: case BUILT_IN_SNPRINTF: case BUILT_IN_SNPRINTF_CHK:
  case BUILT_IN_VSPRINTF: case BUILT_IN_VSPRINTF_CHK: case BUILT_IN_VSNPRINTF: case BUILT_IN_VSNPRINTF_CHK:
  case BUILT_IN_PUTS: case BUILT_IN_PUTS_UNLOCKED: case BUILT_IN_PUTCHAR: case BUILT_IN_PUTCHAR_UNLOCKED:
  case BUILT_IN_FPUTS: case BUILT_IN_FPUTS_UNLOCKED: case BUILT_IN_FPUTC: case BUILT_IN_FPUTC_UNLOCKED:
  case BUILT_IN_PUTC: case BUILT_IN_PUTC_UNLOCKED: case BUILT_IN_FWRITE: case BUILT_IN_FWRITE_UNLOCKED:
  case BUILT_IN_MALLOC: case BUILT_IN_CALLOC: case BUILT_IN_REALLOC: case BUILT_IN_FREE:
    return true;
  default:
    return false;
  }
}

/* Where a marker region cannot be checked (a function compiled with
 * -fnon-call-exceptions: deleting a probe's call would leave its hook's load,
 * which may throw there, for the RTL passes to delete), a guess from the
 * call: without optimisation a builtin called by its library name is a call;
 * a memory builtin of constant size is taken as expanded inline. */
static enum ip_libcall guess(tree callee, gcall *call)
{
  if (!optimize && !ip_startswith(IDENTIFIER_POINTER(DECL_NAME(callee)), "__builtin_"))
    return IP_LIBCALL_CALL;
  switch (DECL_FUNCTION_CODE(callee)) {
  case BUILT_IN_MEMCPY: case BUILT_IN_MEMPCPY: case BUILT_IN_MEMMOVE: case BUILT_IN_MEMSET:
  case BUILT_IN_MEMCMP: case BUILT_IN_BCMP:
    return gimple_call_num_args(call) == 3 && TREE_CODE(gimple_call_arg(call, 2)) == INTEGER_CST
               ? IP_LIBCALL_NONE
               : IP_LIBCALL_CALL;
  default:
    return IP_LIBCALL_CALL;
  }
}

/* The library function a builtin of GCC's own (no library name) calls when
 * it is not expanded inline, or NULL. */
static const char *library_name(enum built_in_function code)
{
  switch (code) {
  case BUILT_IN_CEXPI: /* sin and cos of one argument, computed together */
    return targetm.libc_has_function(function_sincos, NULL_TREE) ? "sincos" : "cexp";
  case BUILT_IN_MEMCMP_EQ: /* memcmp whose result is only compared with 0 */
    return "memcmp";
  case BUILT_IN_STRCMP_EQ:
    return "strcmp";
  case BUILT_IN_STRNCMP_EQ:
    return "strncmp";
  default:
    return NULL;
  }
}

/* The library function GCC calls in place of the builtin CALLEE at CALL
 * when it turns the call into RTL, or NULL: mempcpy whose result is unused,
 * or where the C library has no fast mempcpy, becomes a call of memcpy
 * (expand_builtin_mempcpy).  Without optimisation a builtin called by its
 * library name stays a call of that name. */
static const char *replaced_at_expand(tree callee, gcall *call)
{
  if (!optimize && !ip_startswith(IDENTIFIER_POINTER(DECL_NAME(callee)), "__builtin_"))
    return NULL;
  enum built_in_function code = DECL_FUNCTION_CODE(callee);
  if (code == BUILT_IN_MEMPCPY && (!gimple_call_lhs(call) || !targetm.libc_has_fast_function(BUILT_IN_MEMPCPY)) &&
      builtin_decl_implicit_p(BUILT_IN_MEMCPY))
    return "memcpy";
  return NULL;
}

enum ip_libcall ip_libcall_kind(tree callee, gcall *call, const char **name)
{
  *name = NULL;
  if (!fndecl_built_in_p(callee))
    return IP_LIBCALL_NOT_BUILTIN;
  /* Target and front-end builtins, the "inexpensive" ones (abs, bswap,
     popcount, expect...), atomics: instructions, not calls. */
  if (!fndecl_built_in_p(callee, BUILT_IN_NORMAL) || is_inexpensive_builtin(callee))
    return IP_LIBCALL_NONE;
  const char *decl = IDENTIFIER_POINTER(DECL_NAME(callee));
  if (ip_startswith(decl, "__atomic_") || ip_startswith(decl, "__sync_"))
    return IP_LIBCALL_NONE;
  enum built_in_function code = DECL_FUNCTION_CODE(callee);
  if (!cfun->can_throw_non_call_exceptions && (*name = library_name(code)))
    return IP_LIBCALL_MAYBE;
  /* No library function of its own (__builtin_alloca_with_align,
     __builtin_stack_save, __builtin_trap...). */
  if (ip_startswith(IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(callee)), "__builtin_"))
    return IP_LIBCALL_NONE;
  /* A noreturn call (abort, exit) or one that ends its block (it may throw)
     is a call. */
  if (always_a_call(code) || gimple_call_noreturn_p(call) || stmt_ends_bb_p(call))
    return IP_LIBCALL_CALL;
  *name = replaced_at_expand(callee, call);
  if (cfun->can_throw_non_call_exceptions)
    return guess(callee, call);
  return IP_LIBCALL_MAYBE;
}

tree ip_aggregate_libcall(gimple *stmt)
{
  if (!gimple_assign_single_p(stmt) || gimple_clobber_p(stmt) || stmt_ends_bb_p(stmt) ||
      cfun->can_throw_non_call_exceptions)
    return NULL_TREE;
  tree lhs = gimple_assign_lhs(stmt), rhs = gimple_assign_rhs1(stmt);
  if (!AGGREGATE_TYPE_P(TREE_TYPE(lhs)) || TYPE_MODE(TREE_TYPE(lhs)) != BLKmode)
    return NULL_TREE;
  if (TREE_CODE(rhs) == CONSTRUCTOR)
    return CONSTRUCTOR_NELTS(rhs) == 0 ? builtin_decl_explicit(BUILT_IN_MEMSET) : NULL_TREE;
  return REFERENCE_CLASS_P(rhs) || DECL_P(rhs) ? builtin_decl_explicit(BUILT_IN_MEMCPY) : NULL_TREE;
}

/* The marker text, an assembler comment in case it ever reached the output. */
static char *marker_text(unsigned site, bool begin)
{
  return xasprintf("%s inclprof call site %u %s", ASM_COMMENT_START, site, begin ? "begin" : "end");
}

static gimple *marker(unsigned site, bool begin)
{
  char *text = marker_text(site, begin);
  gasm *as = gimple_build_asm_vec(text, NULL, NULL, NULL, NULL);
  free(text);
  gimple_asm_set_volatile(as, true);
  return as;
}

unsigned ip_libcall_site(const char *callee, gimple *stmt, gimple **begin, gimple **end)
{
  expanded_location at = expand_location(gimple_location(stmt));
  pending_site s = { callee, at.file ? IDENTIFIER_POINTER(get_identifier(at.file)) : "", at.line };
  unsigned site = sites.length();
  sites.safe_push(s);
  if (!functions_with_sites)
    functions_with_sites = new hash_set<tree>;
  functions_with_sites->add(current_function_decl);
  *begin = marker(site, true);
  *end = marker(site, false);
  return site;
}

/* The template of an asm insn (NULL if INSN is none). */
static const char *asm_template(rtx_insn *insn)
{
  if (!NONJUMP_INSN_P(insn))
    return NULL;
  rtx pat = PATTERN(insn);
  if (GET_CODE(pat) == ASM_INPUT)
    return XSTR(pat, 0);
  rtx ops = extract_asm_operands(pat);
  return ops ? ASM_OPERANDS_TEMPLATE(ops) : NULL;
}

/* Is INSN a marker?  Its site in *SITE and whether it begins one. */
static bool is_marker(rtx_insn *insn, unsigned *site, bool *begin)
{
  const char *text = asm_template(insn);
  const char *at = text ? strstr(text, "inclprof call site ") : NULL;
  if (!at)
    return false;
  char which[8] = "";
  if (sscanf(at, "inclprof call site %u %7s", site, which) != 2)
    return false;
  *begin = strcmp(which, "begin") == 0;
  return true;
}

/* A call of a named function (the library call: its address is a symbol,
 * or loaded from the symbol's GOT entry), not a call through a register that
 * holds a hook (the call form of a probe). */
static bool direct_call(rtx_insn *insn)
{
  rtx call = CALL_P(insn) ? get_call_rtx_from(insn) : NULL_RTX;
  if (!call)
    return false;
  subrtx_iterator::array_type array;
  FOR_EACH_SUBRTX(iter, array, XEXP(call, 0), ALL)
    if (GET_CODE(*iter) == SYMBOL_REF && strcmp(XSTR(*iter, 0), "__inclprof_tu") != 0)
      return true;
  return false;
}

/* The probes between FIRST and LAST (exclusive) when nothing there calls a
 * function: the asm statements of x86-64 probes, the calls of the call form. */
static void drop_probes_unless_called(rtx_insn *first, rtx_insn *last, unsigned site)
{
  auto_vec<rtx_insn *> probes;
  for (rtx_insn *insn = NEXT_INSN(first); insn && insn != last; insn = NEXT_INSN(insn)) {
    if (direct_call(insn))
      return;
    if (asm_template(insn) || CALL_P(insn))
      probes.safe_push(insn);
  }
  for (rtx_insn *insn : probes)
    delete_insn(insn);
  if (site < sites.length()) {
    char *caller = ip_decl_pretty(current_function_decl);
    ip_report("expanded\t%s\t%s:%d\tin %s: GCC expanded the call inline (no call-site probes)",
              sites[site].callee, *sites[site].file ? sites[site].file : "?", sites[site].line, caller);
    free(caller);
  }
}

static unsigned check_sites(function *fun)
{
  if (!functions_with_sites || !functions_with_sites->contains(fun->decl))
    return 0;
  auto_vec<rtx_insn *> markers;
  rtx_insn *open = NULL;
  unsigned open_site = 0;
  for (rtx_insn *insn = get_insns(); insn; insn = NEXT_INSN(insn)) {
    unsigned site;
    bool begin;
    if (!is_marker(insn, &site, &begin))
      continue;
    markers.safe_push(insn);
    if (begin) {
      open = insn;
      open_site = site;
    } else if (open && site == open_site) {
      drop_probes_unless_called(open, insn, site);
      open = NULL;
    }
  }
  for (rtx_insn *insn : markers)
    delete_insn(insn);
  return 0;
}

static const pass_data ip_libcall_pass_data = {
  RTL_PASS, "inclprof_libcalls", OPTGROUP_NONE, TV_NONE, 0, 0, 0, 0, 0,
};

namespace {
struct ip_libcall_pass : rtl_opt_pass {
  explicit ip_libcall_pass(gcc::context *ctxt) : rtl_opt_pass(ip_libcall_pass_data, ctxt) {}
  unsigned int execute(function *fun) final override { return check_sites(fun); }
};
}

opt_pass *ip_make_libcall_pass(gcc::context *ctxt)
{
  return new ip_libcall_pass(ctxt);
}
