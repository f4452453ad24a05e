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

/* NAME[0..LEN) demangled with its parameters and LABEL appended. */
static char *labelled(const char *name, size_t len, const char *label)
{
  char *copy = xstrndup(name, len);
  char *pretty = ip_pretty_name(copy);
  char *out = concat(pretty, label, NULL);
  free(copy);
  free(pretty);
  return out;
}

char *ip_decl_pretty(tree fndecl)
{
  const char *name = ip_function_name(fndecl);
  const char *ramp;
  size_t len;
  switch (ip_coroutine_part(name, &ramp, &len)) {
  case IP_CORO_BODY:
    return labelled(ramp, len, " [coroutine body]");
  case IP_CORO_DESTROY:
    return labelled(ramp, len, " [coroutine destroy]");
  default:
    break;
  }
  /* The deleting destructor (destroy, then operator delete) has the same
     demangled name as the destructor it calls. */
  if (DECL_CXX_DESTRUCTOR_P(fndecl) && strstr(name, "D0E"))
    return labelled(name, strlen(name), " [deleting destructor]");
  return ip_pretty_name(name);
}

/* The demangled name without parameters (a coroutine part: its ramp's). */
static char *short_pretty_of(tree fndecl)
{
  const char *name = ip_function_name(fndecl);
  const char *ramp;
  size_t len;
  char *copy = ip_coroutine_part(name, &ramp, &len) != IP_CORO_NONE ? xstrndup(ramp, len) : xstrdup(name);
  char *plain = cplus_demangle(copy, IP_DMGL_ANSI);
  if (!plain)
    return copy;
  free(copy);
  return plain;
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
  ip_decision d = { false, false, 0, reason, kind, NULL };
  return d;
}

static const char *stable(const char *fmt, const char *a, unsigned b)
{
  char buf[600];
  snprintf(buf, sizeof buf, fmt, a, b);
  return IDENTIFIER_POINTER(get_identifier(buf));
}

static const char *decl_name(tree fndecl)
{
  return DECL_NAME(fndecl) ? IDENTIFIER_POINTER(DECL_NAME(fndecl)) : "";
}

/* Is FNDECL a member of a lambda's closure type (its demangled name has a
 * "{lambda" component)? */
static bool in_lambda(tree fndecl)
{
  char *plain = cplus_demangle(ip_function_name(fndecl), IP_DMGL_ANSI);
  bool yes = plain && strstr(plain, "{lambda");
  free(plain);
  return yes;
}

/* Does NODE still call (not inline) a function that WANTED accepts?  The
 * function being compiled has its final body (inlined calls are gone, and so
 * are its call graph edges this late); for the others, the edges of calls
 * that IPA decided to inline have no inline_failed. */
static bool calls_out_of_line(cgraph_node *node, bool (*wanted)(tree callee, tree caller))
{
  if (!node)
    return false;
  function *fn = DECL_STRUCT_FUNCTION(node->decl);
  if (fn && fn == cfun && fn->cfg) {
    basic_block bb;
    FOR_EACH_BB_FN(bb, fn)
      for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi))
        if (gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi)))
          if (tree callee = gimple_call_fndecl(call))
            if (wanted(callee, node->decl))
              return true;
    return false;
  }
  for (cgraph_edge *e = node->callees; e; e = e->next_callee)
    if (e->inline_failed && e->callee && wanted(e->callee->ultimate_alias_target()->decl, node->decl))
      return true;
  return false;
}

/* A lambda's static invoker, _FUN: what its conversion to a function pointer
 * points to. */
static bool is_lambda_invoker(tree fndecl)
{
  return DECL_ARTIFICIAL(fndecl) && strcmp(decl_name(fndecl), "_FUN") == 0 && in_lambda(fndecl);
}

static bool is_call_operator_of_same_lambda(tree callee, tree caller)
{
  return strcmp(decl_name(callee), "operator()") == 0 && DECL_CONTEXT(callee) == DECL_CONTEXT(caller);
}

/* Why FNDECL is code the compiler made up rather than code the source wrote
 * (NULL when it is not).  Artificial functions that run the source's code
 * count as written: implicitly defined C++ constructors, destructors,
 * assignment and comparison operators (they run the members' own), a
 * lambda's operator() (the lambda's body), its static invoker (_FUN, which a
 * conversion to a function pointer returns) once the operator() is inlined
 * into it, and a coroutine's body (GCC's "actor", run at every resumption)
 * and its destroy function (which runs the body's destroying path, or calls
 * the body to run it). */
static const char *generated_reason(tree fndecl, cgraph_node *node)
{
  if (node && node->thunk)
    return "compiler-generated thunk (adjusts 'this' and jumps to the function it stands for)";
  if (!DECL_ARTIFICIAL(fndecl))
    return NULL;
  if (DECL_STATIC_CONSTRUCTOR(fndecl) || DECL_STATIC_DESTRUCTOR(fndecl))
    return "compiler-generated static constructor or destructor";
  const char *name = decl_name(fndecl);
  if (DECL_CXX_CONSTRUCTOR_P(fndecl) || DECL_CXX_DESTRUCTOR_P(fndecl) || strcmp(name, "operator=") == 0 ||
      strcmp(name, "operator==") == 0 || strcmp(name, "operator<=>") == 0)
    return NULL;
  const char *ramp;
  size_t len;
  if (ip_coroutine_part(ip_function_name(fndecl), &ramp, &len) != IP_CORO_NONE)
    return NULL;
  if (strcmp(name, "operator()") == 0 && in_lambda(fndecl))
    return NULL;
  if (is_lambda_invoker(fndecl))
    return calls_out_of_line(node, is_call_operator_of_same_lambda)
               ? "compiler-generated lambda invoker (only calls the lambda's operator())"
               : NULL;
  return "compiler-generated helper";
}

/* The rule of the plugin's own that skips FNDECL before any include or
 * exclude rule is asked (NULL when none): ipa-split parts, code the compiler
 * made up, functions from system headers.  *BY_FILE: a file include rule can
 * override it (it names the file). */
static const char *plugin_skip_reason(tree self, tree fndecl, bool *by_file)
{
  *by_file = false;
  cgraph_node *node = cgraph_node::get(self);
  if (node && node->split_part)
    return "ipa-split part of a larger function (partial-inlining=yes)";
  if (const char *why = generated_reason(fndecl, node))
    return why;
  *by_file = true;
  if (!ip_cfg.system_headers && DECL_IN_SYSTEM_HEADER(fndecl))
    return "declared in a system header";
  return NULL;
}

/* The checks that need only the declaration: the attribute, the plugin's
 * own skip rules, and the include/exclude rules, where an include rule that
 * selects the function overrides the plugin's rules (a file rule only the
 * system-header one).  SELF is the function as the pass sees it, FNDECL the
 * function it was cloned from. */
static ip_decision judge_declaration(tree self, tree fndecl, enum ip_selection *sel)
{
  if (lookup_attribute("no_instrument_function", DECL_ATTRIBUTES(fndecl)))
    return skip("excluded", "no_instrument_function attribute");
  bool file_may_override;
  const char *plugin_skip = plugin_skip_reason(self, fndecl, &file_may_override);
  *sel = IP_SEL_DEFAULT;
  const struct ip_rule *why = NULL;
  if (ip_cfg.n_rules) {
    const char *name = ip_function_name(fndecl);
    char *pretty = ip_decl_pretty(self);
    char *short_pretty = short_pretty_of(fndecl);
    const char *names[] = { name, pretty, short_pretty };
    *sel = ip_config_select(&ip_cfg, names, 3, DECL_SOURCE_FILE(fndecl), &why);
    free(pretty);
    free(short_pretty);
  }
  bool included = *sel == IP_SEL_INCLUDED ||
                  (*sel == IP_SEL_DEFAULT && why && why->include && file_may_override);
  if (plugin_skip && !included)
    return skip(NULL, plugin_skip);
  if (*sel == IP_SEL_EXCLUDED)
    return skip("excluded", stable("excluded by %s", why->origin, 0));
  if (*sel == IP_SEL_NOT_INCLUDED)
    return skip("excluded", stable("%snot matched by any include rule", "", 0));
  ip_decision d = { true, false, 0, NULL, NULL, NULL };
  if (plugin_skip) {
    char *over = concat("included by ", why->origin, " over: ", plugin_skip, NULL);
    d.note = stable("%s", over, 0);
    free(over);
  }
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

bool ip_cfg_has_noinline(void)
{
  for (size_t i = 0; i < ip_cfg.n_rules; i++)
    if (ip_cfg.rules[i].target == IP_RULE_NOINLINE)
      return true;
  return false;
}

bool ip_noinline(tree fndecl)
{
  static hash_map<tree, bool> *known;
  if (!ip_cfg_has_noinline())
    return false;
  if (!known)
    known = new hash_map<tree, bool>;
  if (bool *cached = known->get(fndecl))
    return *cached;
  tree origin = origin_decl(fndecl);
  char *pretty = ip_decl_pretty(origin);
  char *short_pretty = short_pretty_of(origin);
  const char *names[] = { ip_function_name(origin), pretty, short_pretty };
  bool yes = ip_config_noinline(&ip_cfg, names, 3);
  free(pretty);
  free(short_pretty);
  known->put(fndecl, yes);
  return yes;
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
    char *pretty = seen.length() <= 4 ? ip_decl_pretty(caller->decl) : xstrdup("...");
    char *more = out ? concat(out, ", ", pretty, NULL) : xstrdup(pretty);
    free(out);
    free(pretty);
    out = more;
    if (seen.length() > 4)
      break;
  }
  return out;
}

bool ip_program_function(tree fndecl)
{
  return !generated_reason(fndecl, cgraph_node::get(fndecl)) && !is_lambda_invoker(fndecl) &&
         (ip_cfg.system_headers || !DECL_IN_SYSTEM_HEADER(fndecl));
}

/* A function of the source, the first time it is seen (after parsing, or
 * when IPA starts); its callers as IPA starts them. */
static void note(tree fndecl, cgraph_node *node)
{
  if (!ip_program_function(fndecl))
    return;
  for (ip_known_fn &k : known_fns)
    if (k.uid == DECL_UID(fndecl)) {
      if (node && !k.callers)
        k.callers = caller_names(node);
      return;
    }
  ip_known_fn k = { DECL_UID(fndecl), ip_decl_pretty(fndecl),
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

/* K's name, file and line, as one key. */
static tree known_key(const ip_known_fn &k)
{
  char *text = xasprintf("%s\n%s\n%d", k.pretty, k.file, k.line);
  tree key = get_identifier(text);
  free(text);
  return key;
}

void ip_report_vanished(void)
{
  /* A C++ constructor or destructor is several functions of one name (the
     complete- and base-object variants, the abstract one they are cloned
     from): it vanished when none of them reached the pass. */
  hash_set<tree> reached, reported;
  for (ip_known_fn &k : known_fns)
    if (considered && considered->contains(k.uid + 1))
      reached.add(known_key(k));
  for (ip_known_fn &k : known_fns) {
    tree key = known_key(k);
    if (!reached.contains(key) && !reported.add(key)) {
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
