// ip_abi.cc - builds what include/inclprof/inclprof_abi.h describes, as GCC trees: the
// struct types (fields found by name, their layout checked against the
// header's offsetof/sizeof), the per-function descriptors, the unit's
// inclprof_tu with its null hooks, the descriptor table and the
// register/unregister constructor and destructor.
#include "ip_gcc.h"
#include "inclprof_abi.h"

enum ip_root { R_FN_TYPE, R_HOOKS_TYPE, R_TU_TYPE, R_TU_DECL, R_DESCS, R_COUNT };
static tree roots[R_COUNT];
static unsigned n_descs;   /* descriptors built in this unit */
static unsigned n_listed;  /* of them, those in the unit's table */
static bool emitting_unit;

bool ip_emitting_unit(void)
{
  return emitting_unit;
}

extern const struct ggc_root_tab ip_ggc_roots[] = {
  { roots, R_COUNT, sizeof roots[0], &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
  LAST_GGC_ROOT_TAB
};

static tree const_char_ptr_type(void)
{
  return build_pointer_type(build_qualified_type(char_type_node, TYPE_QUAL_CONST));
}

/* One field of an ABI record: its name, the GCC type the plugin gives it, and
 * where inclprof_abi.h puts it (offsetof/sizeof as this plugin was compiled). */
struct abi_field {
  const char *name;
  tree type;
  size_t offset, size;
};
#define ABI_FIELD(rec, field, type) \
  { #field, type, offsetof(struct rec, field), sizeof(((struct rec *)0)->field) }

/* The field of record TYPE named NAME. */
static tree field_named(tree type, const char *name)
{
  for (tree f = TYPE_FIELDS(type); f; f = DECL_CHAIN(f))
    if (DECL_NAME(f) && strcmp(IDENTIFIER_POINTER(DECL_NAME(f)), name) == 0)
      return f;
  fatal_error(UNKNOWN_LOCATION, "inclprof: a record the plugin builds has no field %qs", name);
  return NULL_TREE;
}

/* Stops the compilation when the record GCC laid out differs from
 * inclprof_abi.h: a field at another offset or of another size, or another
 * total size (a field the plugin does not build). */
static void check_layout(tree type, const char *name, const struct abi_field *fields, int n,
                         size_t size)
{
  for (int i = 0; i < n; i++) {
    tree f = field_named(type, fields[i].name);
    unsigned off = (unsigned)int_byte_position(f);
    unsigned sz = (unsigned)tree_to_uhwi(DECL_SIZE_UNIT(f));
    if (off != fields[i].offset || sz != fields[i].size)
      fatal_error(UNKNOWN_LOCATION,
                  "inclprof: the plugin lays out %<struct %s%> field %qs as %u bytes at offset %u, "
                  "but %<inclprof_abi.h%> has %u bytes at offset %u: rebuild the plugin from the same "
                  "sources as the runtime", name, fields[i].name, sz, off,
                  (unsigned)fields[i].size, (unsigned)fields[i].offset);
  }
  unsigned total = (unsigned)tree_to_uhwi(TYPE_SIZE_UNIT(type));
  if (total != size)
    fatal_error(UNKNOWN_LOCATION,
                "inclprof: the plugin lays out %<struct %s%> in %u bytes, but %<inclprof_abi.h%> in %u: "
                "rebuild the plugin from the same sources as the runtime", name, total,
                (unsigned)size);
}

/* A RECORD_TYPE named NAME with the N FIELDS in order (finish_builtin_struct
 * wants the chain reversed), checked against the ABI header's SIZE. */
static tree build_record(const char *name, const struct abi_field *fields, int n, size_t size)
{
  tree type = make_node(RECORD_TYPE), chain = NULL_TREE;
  for (int i = 0; i < n; i++) {
    tree f = build_decl(BUILTINS_LOCATION, FIELD_DECL, get_identifier(fields[i].name),
                        fields[i].type);
    DECL_CHAIN(f) = chain;
    chain = f;
  }
  finish_builtin_struct(type, name, chain, NULL_TREE);
  check_layout(type, name, fields, n, size);
  return type;
}

static tree nth_field(tree type, int n)
{
  tree f = TYPE_FIELDS(type);
  while (n-- > 0)
    f = DECL_CHAIN(f);
  return f;
}

static void build_types(void)
{
  if (roots[R_TU_TYPE])
    return;
  tree str = const_char_ptr_type();
  const struct abi_field fn_fields[] = {
    ABI_FIELD(inclprof_fn, id, uint64_type_node),
    ABI_FIELD(inclprof_fn, name, str),
    ABI_FIELD(inclprof_fn, pretty, str),
    ABI_FIELD(inclprof_fn, file, str),
    ABI_FIELD(inclprof_fn, line, uint32_type_node),
    ABI_FIELD(inclprof_fn, size, uint32_type_node),
    ABI_FIELD(inclprof_fn, flags, uint32_type_node),
    ABI_FIELD(inclprof_fn, runtime_flags, uint32_type_node),
    ABI_FIELD(inclprof_fn, addr, const_ptr_type_node),
  };
  roots[R_FN_TYPE] = build_record("inclprof_fn", fn_fields, ARRAY_SIZE(fn_fields),
                                  sizeof(struct inclprof_fn));

  tree fn_ptr = build_pointer_type(build_qualified_type(roots[R_FN_TYPE], TYPE_QUAL_CONST));
  tree by_fn = build_pointer_type(build_function_type_list(void_type_node, fn_ptr, NULL_TREE));
  tree by_addr = build_pointer_type(build_function_type_list(void_type_node, const_ptr_type_node,
                                                             NULL_TREE));
  /* In enum ip_hook order: ip_build_probe finds a hook by its position. */
  const struct abi_field hook_fields[] = {
    ABI_FIELD(inclprof_hooks, enter, by_fn),
    ABI_FIELD(inclprof_hooks, exit, by_fn),
    ABI_FIELD(inclprof_hooks, call, by_fn),
    ABI_FIELD(inclprof_hooks, ret, by_fn),
    ABI_FIELD(inclprof_hooks, call_indirect, by_addr),
    ABI_FIELD(inclprof_hooks, ret_indirect, by_addr),
    ABI_FIELD(inclprof_hooks, coroutine_frame, by_addr),
    ABI_FIELD(inclprof_hooks, landing, by_fn),
  };
  static_assert(ARRAY_SIZE(hook_fields) == IP_HOOK_COUNT, "one hook per enum ip_hook");
  roots[R_HOOKS_TYPE] = build_record("inclprof_hooks", hook_fields, IP_HOOK_COUNT,
                                     sizeof(struct inclprof_hooks));

  const struct abi_field tu_fields[] = {
    ABI_FIELD(inclprof_tu, abi_version, uint32_type_node),
    ABI_FIELD(inclprof_tu, n_fns, uint32_type_node),
    ABI_FIELD(inclprof_tu, fns, build_pointer_type(build_qualified_type(fn_ptr, TYPE_QUAL_CONST))),
    ABI_FIELD(inclprof_tu, path, str),
    ABI_FIELD(inclprof_tu, hooks, roots[R_HOOKS_TYPE]),
  };
  roots[R_TU_TYPE] = build_record("inclprof_tu", tu_fields, ARRAY_SIZE(tu_fields),
                                  sizeof(struct inclprof_tu));
}

void ip_abi_check(void)
{
  build_types();
}

/* A file-scope static, compiler-generated variable. */
static tree build_static_var(const char *name, tree type)
{
  tree decl = build_decl(BUILTINS_LOCATION, VAR_DECL, get_identifier(name), type);
  SET_DECL_ASSEMBLER_NAME(decl, DECL_NAME(decl));
  TREE_STATIC(decl) = 1;
  TREE_PUBLIC(decl) = 0;
  DECL_EXTERNAL(decl) = 0;
  DECL_ARTIFICIAL(decl) = 1;
  DECL_IGNORED_P(decl) = 1;
  TREE_USED(decl) = 1;
  TREE_ADDRESSABLE(decl) = 1;
  DECL_PRESERVE_P(decl) = 1;
  DECL_CONTEXT(decl) = NULL_TREE;
  SET_DECL_ALIGN(decl, MAX(DECL_ALIGN(decl), 64));
  DECL_USER_ALIGN(decl) = 1;
  return decl;
}

/* The unit's inclprof_tu; its initializer is set at the end of the unit. */
static tree unit_decl(void)
{
  build_types();
  if (!roots[R_TU_DECL])
    roots[R_TU_DECL] = build_static_var("__inclprof_tu", roots[R_TU_TYPE]);
  return roots[R_TU_DECL];
}

gimple_seq ip_build_probe(enum ip_hook hook, tree arg)
{
  tree tu = unit_decl();
  tree hooks_field = field_named(roots[R_TU_TYPE], "hooks");
  tree field = nth_field(roots[R_HOOKS_TYPE], hook);
  tree hooks = build3(COMPONENT_REF, roots[R_HOOKS_TYPE], tu, hooks_field, NULL_TREE);
  tree ref = build3(COMPONENT_REF, TREE_TYPE(field), hooks, field, NULL_TREE);
  tree fnptr = make_ssa_name(TREE_TYPE(field));
  gimple_seq seq = NULL;
  gimple_seq_add_stmt(&seq, gimple_build_assign(fnptr, ref));
  gcall *call = gimple_build_call(fnptr, 1, arg);
  gimple_call_set_nothrow(call, true);
  gimple_call_set_tail(call, false);
  gimple_seq_add_stmt(&seq, call);
  ip_guard_note(call);
  return seq;
}

static tree string_value(const char *s, tree type)
{
  return fold_convert(type, build_string_literal(strlen(s) + 1, s));
}

/* The COMDAT group of FNDECL when it is a local symbol in one: a clone GCC
 * made of a template or inline function and placed in its caller's group.
 * When the linker keeps another unit's copy of that group, it drops this
 * unit's copy with every local symbol in it, so nothing outside the group may
 * refer to the clone. */
static tree local_comdat_group(tree fndecl)
{
  if (!fndecl || TREE_PUBLIC(fndecl))
    return NULL_TREE;
  symtab_node *node = symtab_node::get(fndecl);
  return node ? node->get_comdat_group() : NULL_TREE;
}

tree ip_build_descriptor(uint64_t id, const char *name, const char *pretty, const char *file,
                         unsigned line, unsigned size, unsigned flags, tree fndecl)
{
  build_types();
  char vname[32];
  snprintf(vname, sizeof vname, "__inclprof_fn.%u", n_descs);
  tree decl = build_static_var(vname, roots[R_FN_TYPE]);
  /* Callee descriptors stay writable: the runtime marks those whose callee
     turns out to be instrumented (inclprof_fn.runtime_flags). */
  TREE_READONLY(decl) = !(flags & INCLPROF_FN_CALLEE);
  tree t = roots[R_FN_TYPE];
  vec<constructor_elt, va_gc> *v = NULL;
  CONSTRUCTOR_APPEND_ELT(v, field_named(t, "id"), build_int_cst(uint64_type_node, id));
  CONSTRUCTOR_APPEND_ELT(v, field_named(t, "name"), string_value(name, TREE_TYPE(field_named(t, "name"))));
  CONSTRUCTOR_APPEND_ELT(v, field_named(t, "pretty"),
                         string_value(pretty, TREE_TYPE(field_named(t, "pretty"))));
  CONSTRUCTOR_APPEND_ELT(v, field_named(t, "file"), string_value(file, TREE_TYPE(field_named(t, "file"))));
  CONSTRUCTOR_APPEND_ELT(v, field_named(t, "line"), build_int_cst(uint32_type_node, line));
  CONSTRUCTOR_APPEND_ELT(v, field_named(t, "size"), build_int_cst(uint32_type_node, size));
  CONSTRUCTOR_APPEND_ELT(v, field_named(t, "flags"), build_int_cst(uint32_type_node, flags));
  CONSTRUCTOR_APPEND_ELT(v, field_named(t, "runtime_flags"), build_int_cst(uint32_type_node, 0));
  CONSTRUCTOR_APPEND_ELT(v, field_named(t, "addr"),
                         fndecl ? fold_convert(const_ptr_type_node, build_fold_addr_expr(fndecl))
                                : null_pointer_node);
  DECL_INITIAL(decl) = build_constructor(t, v);
  TREE_CONSTANT(DECL_INITIAL(decl)) = 1;
  TREE_STATIC(DECL_INITIAL(decl)) = 1;
  /* A descriptor holding the address of a local function of a COMDAT group
     lives and dies with that group: it goes into a section of the group and
     stays out of the unit's table (which would refer to it from outside).
     The runtime registers it when its probes first pass it. */
  tree group = local_comdat_group(fndecl);
  if (group)
    varpool_node::get_create(decl)->set_comdat_group(group);
  varpool_node::finalize_decl(decl);
  if (!group) {
    roots[R_DESCS] = tree_cons(NULL_TREE, decl, roots[R_DESCS]);
    n_listed++;
  }
  n_descs++;
  return decl;
}

/* extern void NAME(struct inclprof_tu *) __attribute__((weak)); */
static tree weak_runtime_function(const char *name)
{
  tree tu_ptr = build_pointer_type(roots[R_TU_TYPE]);
  tree decl = build_fn_decl(name, build_function_type_list(void_type_node, tu_ptr, NULL_TREE));
  SET_DECL_ASSEMBLER_NAME(decl, DECL_NAME(decl));
  TREE_PUBLIC(decl) = 1;
  DECL_EXTERNAL(decl) = 1;
  DECL_ARTIFICIAL(decl) = 1;
  TREE_NOTHROW(decl) = 1;
  declare_weak(decl);
  return decl;
}

/* A constructor or destructor body: if (&FN) FN(&tu); */
static tree call_if_present(const char *name)
{
  tree fn = weak_runtime_function(name);
  tree present = build2(NE_EXPR, boolean_type_node, build_fold_addr_expr(fn),
                        build_int_cst(TREE_TYPE(build_fold_addr_expr(fn)), 0));
  tree call = build_call_expr(fn, 1, build_fold_addr_expr(roots[R_TU_DECL]));
  return build3(COND_EXPR, void_type_node, present, call, NULL_TREE);
}

static tree build_table(void)
{
  tree fn_ptr = build_pointer_type(build_qualified_type(roots[R_FN_TYPE], TYPE_QUAL_CONST));
  tree elt = build_qualified_type(fn_ptr, TYPE_QUAL_CONST);
  tree type = build_array_type_nelts(elt, n_listed);
  tree table = build_static_var("__inclprof_fns", type);
  TREE_READONLY(table) = 1;
  vec<constructor_elt, va_gc> *v = NULL;
  vec_alloc(v, n_listed);
  auto_vec<tree> in_order;
  for (tree l = roots[R_DESCS]; l; l = TREE_CHAIN(l))
    in_order.safe_push(TREE_VALUE(l));
  for (unsigned i = 0; i < n_listed; i++)
    CONSTRUCTOR_APPEND_ELT(v, build_int_cst(size_type_node, i),
                           fold_convert(elt, build_fold_addr_expr(in_order[n_listed - 1 - i])));
  DECL_INITIAL(table) = build_constructor(type, v);
  TREE_CONSTANT(DECL_INITIAL(table)) = 1;
  TREE_STATIC(DECL_INITIAL(table)) = 1;
  varpool_node::finalize_decl(table);
  return table;
}

void ip_emit_unit(void)
{
  if (n_descs == 0)
    return;
  emitting_unit = true;
  tree tu = unit_decl();
  tree table = build_table();
  tree t = roots[R_TU_TYPE];
  vec<constructor_elt, va_gc> *v = NULL;
  CONSTRUCTOR_APPEND_ELT(v, field_named(t, "abi_version"),
                         build_int_cst(uint32_type_node, INCLPROF_ABI_VERSION));
  CONSTRUCTOR_APPEND_ELT(v, field_named(t, "n_fns"), build_int_cst(uint32_type_node, n_listed));
  CONSTRUCTOR_APPEND_ELT(v, field_named(t, "fns"),
                         fold_convert(TREE_TYPE(field_named(t, "fns")), build_fold_addr_expr(table)));
  CONSTRUCTOR_APPEND_ELT(v, field_named(t, "path"),
                         string_value(main_input_filename ? main_input_filename : "",
                                      TREE_TYPE(field_named(t, "path"))));
  /* hooks: left null; a runtime sets them when it registers the unit. */
  DECL_INITIAL(tu) = build_constructor(t, v);
  TREE_CONSTANT(DECL_INITIAL(tu)) = 1;
  TREE_STATIC(DECL_INITIAL(tu)) = 1;
  varpool_node::finalize_decl(tu);

  cgraph_build_static_cdtor('I', call_if_present("__inclprof_register_tu"), 101);
  cgraph_build_static_cdtor('D', call_if_present("__inclprof_unregister_tu"), 101);
  /* GCC's weak_finish() has already run when PLUGIN_FINISH_UNIT fires, so the
     .weak directives for these two references must be written here, or the
     program would not link without the runtime. */
  fputs("\t.weak\t__inclprof_register_tu\n\t.weak\t__inclprof_unregister_tu\n", asm_out_file);
  emitting_unit = false;
}
