// ip_inlined.cc - where the program's functions were inlined.  After IPA
// inlining, every function body the pass sees tells, through the lexical
// blocks of its statements, which functions were inlined into it and at how
// many call sites (each inlined call leaves one block whose origin is the
// inlined function).  A function inlined somewhere keeps a row only for the
// calls of its out-of-line copy, if it has one: the unit's list of functions
// without probes (.inclprof.skipped) gets one "inlined-at" line per function
// inlined in the unit, naming the functions its calls went to, and the
// converter puts it beside the function's row (report, --missing).
#include "ip_gcc.h"

/* One inlined function: where its code was inlined in this unit. */
struct inlined_fn {
  unsigned uid; /* DECL_UID of the function as written */
  char *pretty, *file;
  int line;
  auto_vec<const char *> callers; /* identifiers of their display names, in order seen */
  auto_vec<unsigned> sites;       /* inlined call sites, per caller */
};
static vec<inlined_fn *> inlined;

/* The function whose inlined body BLOCK is the outermost block of, or NULL. */
static tree inlined_origin(tree block)
{
  if (TREE_CODE(block) != BLOCK || !BLOCK_ABSTRACT_ORIGIN(block) || !inlined_function_outer_scope_p(block))
    return NULL_TREE;
  tree origin = block_ultimate_origin(block);
  return origin && TREE_CODE(origin) == FUNCTION_DECL ? origin : NULL_TREE;
}

static inlined_fn *entry_for(tree fndecl)
{
  for (inlined_fn *f : inlined)
    if (f->uid == DECL_UID(fndecl))
      return f;
  inlined_fn *f = new inlined_fn;
  f->uid = DECL_UID(fndecl);
  f->pretty = ip_decl_pretty(fndecl);
  f->file = xstrdup(DECL_SOURCE_FILE(fndecl));
  f->line = DECL_SOURCE_LINE(fndecl);
  inlined.safe_push(f);
  return f;
}

void ip_note_inlined(function *fun)
{
  /* The inlined call sites, once each, with their functions. */
  hash_set<tree> seen;
  auto_vec<tree> origins;
  basic_block bb;
  FOR_EACH_BB_FN(bb, fun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
      if (is_gimple_debug(gsi_stmt(gsi)))
        continue;
      for (tree b = gimple_block(gsi_stmt(gsi)); b && TREE_CODE(b) == BLOCK; b = BLOCK_SUPERCONTEXT(b)) {
        tree origin = inlined_origin(b);
        if (origin && !seen.add(b))
          origins.safe_push(origin);
      }
    }
  if (origins.is_empty())
    return;
  const char *caller = NULL;
  for (tree origin : origins) {
    if (!ip_program_function(origin))
      continue;
    if (!caller) {
      char *pretty = ip_decl_pretty(fun->decl);
      caller = IDENTIFIER_POINTER(get_identifier(pretty));
      free(pretty);
    }
    inlined_fn *f = entry_for(origin);
    unsigned i;
    for (i = 0; i < f->callers.length() && f->callers[i] != caller; i++)
      ;
    if (i == f->callers.length()) {
      f->callers.safe_push(caller);
      f->sites.safe_push(0);
    }
    f->sites[i]++;
  }
}

/* Each function inlined in the unit: a report line and an "inlined-at" line
 * of .inclprof.skipped whose detail is "g at 1 site, h at 2 sites" (at most
 * four callers, then "..."). */
void ip_inlined_emit(void)
{
  for (inlined_fn *f : inlined) {
    char *list = xstrdup("");
    for (unsigned i = 0; i < f->callers.length() && i < 5; i++) {
      char *more = i < 4 ? xasprintf("%s%s%s at %u site%s", list, i ? ", " : "", f->callers[i], f->sites[i],
                                     f->sites[i] == 1 ? "" : "s")
                         : xasprintf("%s, ...", list);
      free(list);
      list = more;
    }
    ip_report("inlined\t%s\t%s:%d\tinto %s: those calls are counted there", f->pretty, f->file,
              f->line, list);
    ip_skipped_note("inlined-at", f->pretty, f->file, f->line, list);
    free(list);
    free(f->pretty);
    free(f->file);
    delete f;
  }
  inlined.release();
}
