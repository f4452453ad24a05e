// ip_select.cc - which functions get probes (attributes, compiler-generated
// code, ipa-split parts, system headers, include/exclude rules, min-size), the
// names they are known by, and the report of every decision.
#include "ip_gcc.h"
#include "ip_names.h"

extern "C" char *cplus_demangle(const char *mangled, int options);
#define IP_DMGL_PARAMS (1 << 0)
#define IP_DMGL_ANSI (1 << 1)

static hash_map<tree, ip_decision> *decisions;
static FILE *report_file;

/* Functions with a body when IPA started, for reporting those that never
 * reach the pass; and the DECL_UIDs of those that did. */
struct ip_known_fn {
  unsigned uid;
  char *pretty, *file;
  int line;
  char *callers; /* its callers when IPA started, or NULL */
};
static vec<ip_known_fn> known_fns;
static hash_set<int_hash<unsigned, 0>> *considered;

/* The function a clone was made from (the function itself otherwise). */
static tree origin_decl(tree fndecl)
{
  for (cgraph_node *node = cgraph_node::get(fndecl); node && node->former_clone_of;
       node = cgraph_node::get(fndecl))
    fndecl = node->former_clone_of;
  return fndecl;
}

const char *ip_function_name(tree fndecl)
{
  fndecl = origin_decl(fndecl);
  /* A name redirected by an asm label (glibc's lseek -> lseek64 under
     _FILE_OFFSET_BITS=64) starts with '*', "use as written". */
  const char *full = targetm.strip_name_encoding(IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fndecl)));
  size_t len = ip_normalized_len(full);
  return IDENTIFIER_POINTER(get_identifier_with_length(full, len));
}

char *ip_pretty_name(const char *name)
{
  /* NAME is already normalised (clone suffixes cut).  Mangled C++ names are
     demangled with their parameters; anything else (C, extern "C") is its
     own pretty name. */
  char *pretty = cplus_demangle(name, IP_DMGL_PARAMS | IP_DMGL_ANSI);
  return pretty ? pretty : xstrdup(name);
}

/* Sum of estimate_num_insns over FN's statements; *LOOPS when its CFG has a
 * back edge. */
static unsigned estimate_size(function *fn, bool *loops)
{
  unsigned size = 0;
  push_cfun(fn);
  basic_block bb;
  FOR_EACH_BB_FN(bb, fn)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi))
      size += estimate_num_insns(gsi_stmt(gsi), &eni_size_weights);
  *loops = ip_mark_dfs_back_edges(fn);
  pop_cfun();
  return size;
}

/* KIND: how .inclprof.skipped lists the function (ip_skipped.cc), or NULL
 * when it is not one of the program's own (compiler-generated code, system
 * headers, parts of another function). */
static ip_decision skip(const char *kind, const char *reason)
{
  ip_decision d = { false, false, 0, reason, kind };
  return d;
}

static const char *stable(const char *fmt, const char *a, unsigned b)
{
  char buf[600];
  snprintf(buf, sizeof buf, fmt, a, b);
  return IDENTIFIER_POINTER(get_identifier(buf));
}

/* Why FNDECL is code the compiler made up rather than code the source wrote
 * (NULL when it is not).  Implicitly defined C++ constructors, destructors and
 * assignment operators are DECL_ARTIFICIAL too, but they run the members'
 * user-written destructors, constructors and assignments: they count as
 * written. */
static const char *generated_reason(tree fndecl, cgraph_node *node)
{
  if (node && node->thunk)
    return "thunk (adjusts 'this' and jumps to the function it stands for)";
  if (!DECL_ARTIFICIAL(fndecl))
    return NULL;
  if (DECL_STATIC_CONSTRUCTOR(fndecl) || DECL_STATIC_DESTRUCTOR(fndecl))
    return "compiler-generated static constructor or destructor";
  if (DECL_CXX_CONSTRUCTOR_P(fndecl) || DECL_CXX_DESTRUCTOR_P(fndecl) ||
      (DECL_NAME(fndecl) && strcmp(IDENTIFIER_POINTER(DECL_NAME(fndecl)), "operator=") == 0))
    return NULL;
  return "compiler-generated helper";
}

/* The checks that need only the declaration: attributes, generated code,
 * ipa-split parts, system headers and the rules.  SELF is the function as
 * the pass sees it, FNDECL the function it was cloned from. */
static ip_decision judge_declaration(tree self, tree fndecl, enum ip_selection *sel)
{
  if (lookup_attribute("no_instrument_function", DECL_ATTRIBUTES(fndecl)))
    return skip("excluded", "no_instrument_function attribute");
  cgraph_node *node = cgraph_node::get(self);
  if (node && node->split_part)
    return skip(NULL, "ipa-split part of a larger function (partial-inlining=yes)");
  if (const char *why = generated_reason(fndecl, node))
    return skip(NULL, why);
  if (!ip_cfg.system_headers && DECL_IN_SYSTEM_HEADER(fndecl))
    return skip(NULL, "declared in a system header");

  const char *name = ip_function_name(fndecl);
  char *pretty = ip_pretty_name(name);
  char *short_pretty = cplus_demangle(name, IP_DMGL_ANSI);
  const char *names[] = { name, pretty, short_pretty };
  const struct ip_rule *why = NULL;
  *sel = ip_config_select(&ip_cfg, names, 3, DECL_SOURCE_FILE(fndecl), &why);
  free(pretty);
  free(short_pretty);
  if (*sel == IP_SEL_EXCLUDED)
    return skip("excluded", stable("excluded by %s", why->origin, 0));
  if (*sel == IP_SEL_NOT_INCLUDED)
    return skip("excluded", stable("%snot matched by any include rule", "", 0));
  ip_decision d = { true, false, 0, NULL, NULL };
  return d;
}

static ip_decision decide(tree fndecl, function *fn)
{
  tree origin = origin_decl(fndecl);
  if (!considered)
    considered = new hash_set<int_hash<unsigned, 0>>;
  considered->add(DECL_UID(origin) + 1);
  enum ip_selection sel = IP_SEL_DEFAULT;
  ip_decision d = judge_declaration(fndecl, origin, &sel);
  if (!d.instrument)
    return d;
  if (fn && fn->cfg)
    d.size = estimate_size(fn, &d.has_loops);
  if (sel != IP_SEL_INCLUDED && ip_cfg.min_size && d.size < ip_cfg.min_size && !d.has_loops)
    return skip("small", stable("smaller than min-size (%ssize %u, no loops)", "", d.size));
  return d;
}

bool ip_may_instrument(tree fndecl)
{
  static hash_map<tree, bool> *known;
  if (!known)
    known = new hash_map<tree, bool>;
  if (bool *cached = known->get(fndecl))
    return *cached;
  enum ip_selection sel;
  bool yes = judge_declaration(fndecl, origin_decl(fndecl), &sel).instrument;
  known->put(fndecl, yes);
  return yes;
}

ip_decision ip_decide(tree fndecl, function *fn)
{
  if (!decisions)
    decisions = new hash_map<tree, ip_decision>;
  if (ip_decision *cached = decisions->get(fndecl))
    return *cached;
  ip_decision d = decide(fndecl, fn);
  decisions->put(fndecl, d);
  return d;
}

void ip_report_open(void)
{
  if (!ip_cfg.report_path)
    return;
  report_file = fopen(ip_cfg.report_path, "a");
  if (!report_file) {
    error("inclprof: cannot open report file %qs: %m", ip_cfg.report_path);
    return;
  }
  fprintf(report_file, "# inclprof report for %s\n", main_input_filename ? main_input_filename : "?");
}

void ip_report_close(void)
{
  if (report_file && fclose(report_file) != 0)
    error("inclprof: cannot write report file %qs: %m", ip_cfg.report_path);
  report_file = NULL;
}

void ip_report(const char *fmt, ...)
{
  va_list ap;
  if (report_file) {
    va_start(ap, fmt);
    vfprintf(report_file, fmt, ap);
    va_end(ap);
    fputc('\n', report_file);
  }
  if (ip_cfg.verbose) {
    fputs("inclprof: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
  }
}

/* The distinct callers of NODE, by name, at most four and "..." after them;
 * NULL when it has none. */
static char *caller_names(cgraph_node *node)
{
  auto_vec<const char *> seen;
  char *out = NULL;
  for (cgraph_edge *e = node->callers; e; e = e->next_caller) {
    cgraph_node *caller = e->caller->inlined_to ? e->caller->inlined_to : e->caller;
    const char *name = ip_function_name(caller->decl);
    bool dup = false;
    for (const char *s : seen)
      dup |= s == name;
    if (dup)
      continue;
    seen.safe_push(name);
    char *pretty = seen.length() <= 4 ? ip_pretty_name(name) : xstrdup("...");
    char *more = out ? concat(out, ", ", pretty, NULL) : xstrdup(pretty);
    free(out);
    free(pretty);
    out = more;
    if (seen.length() > 4)
      break;
  }
  return out;
}

/* A function of the source, the first time it is seen (after parsing, or
 * when IPA starts); its callers as IPA starts them. */
static void note(tree fndecl, cgraph_node *node)
{
  if (generated_reason(fndecl, node) || (!ip_cfg.system_headers && DECL_IN_SYSTEM_HEADER(fndecl)))
    return;
  for (ip_known_fn &k : known_fns)
    if (k.uid == DECL_UID(fndecl)) {
      if (node && !k.callers)
        k.callers = caller_names(node);
      return;
    }
  ip_known_fn k = { DECL_UID(fndecl), ip_pretty_name(ip_function_name(fndecl)),
                    xstrdup(DECL_SOURCE_FILE(fndecl)), DECL_SOURCE_LINE(fndecl),
                    node ? caller_names(node) : NULL };
  known_fns.safe_push(k);
}

void ip_note_parsed(void *gcc_data, void *)
{
  tree fndecl = (tree)gcc_data;
  if (fndecl && TREE_CODE(fndecl) == FUNCTION_DECL && DECL_SAVED_TREE(fndecl))
    note(fndecl, NULL);
}

void ip_note_functions(void *, void *)
{
  cgraph_node *node;
  FOR_EACH_DEFINED_FUNCTION(node)
  {
    if (node->has_gimple_body_p())
      note(node->decl, node);
  }
}

void ip_report_vanished(void)
{
  for (ip_known_fn &k : known_fns) {
    if (!considered || !considered->contains(k.uid + 1)) {
      ip_report("skipped\t%s\t%s:%d\tno out-of-line copy (inlined into %s)", k.pretty, k.file,
                k.line, k.callers ? k.callers : "every caller, or unused");
      ip_skipped_note(k.callers ? "inlined" : "unused", k.pretty, k.file, k.line, k.callers);
    }
    free(k.pretty);
    free(k.file);
    free(k.callers);
  }
  known_fns.release();
}
