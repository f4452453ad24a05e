// ip_plugin.cc - entry point of the inclprof GCC plugin: version check,
// -fplugin-arg-inclprof-KEY=VALUE parsing, pass registration and the per-unit
// callbacks.
#include "ip_gcc.h"
#include "plugin-version.h"
#include "inclprof/version.h" /* not GCC's version.h, which the plugin headers hold */

int plugin_is_GPL_compatible;

struct ip_config ip_cfg;

static struct plugin_info ip_info = { INCLPROF_VERSION, NULL };

bool ip_in_lto1(void)
{
  return strcmp(lang_hooks.name, "GNU GIMPLE") == 0;
}

/* With -flto and slim objects cc1 never runs our pass: only lto1 does. */
static bool instruments_nothing_here(void)
{
  return flag_lto && !flag_fat_lto_objects && !ip_in_lto1();
}

static void on_start_unit(void *, void *)
{
  ip_abi_check();
  ip_report_open();
  /* Not a warning: this is how LTO is meant to be used, and a warning (which
     has no -W option to turn it off) would fail -Werror builds. */
  if (instruments_nothing_here())
    ip_report("# %s: -flto: instrumented when linking; give -fplugin=inclprof.so (and the "
              "same -fplugin-arg-inclprof-... keys) on the link command too",
              main_input_filename ? main_input_filename : "?");
}

static void on_finish_unit(void *, void *)
{
  if (!instruments_nothing_here()) {
    ip_emit_unit();
    ip_asm_emit_trampoline();
    ip_report_vanished();
    ip_inlined_emit();
    ip_skipped_emit();
    ip_known_write();
  }
  ip_report_close();
}

static void on_finish(void *, void *)
{
  ip_config_free(&ip_cfg);
}

static int parse_arguments(const struct plugin_name_args *info)
{
  char err[1024];
  ip_config_init(&ip_cfg);
  for (int i = 0; i < info->argc; i++)
    if (ip_config_set(&ip_cfg, info->argv[i].key, info->argv[i].value, "argument", err, sizeof err)) {
      error("inclprof: %s", err);
      return 1;
    }
  return 0;
}

int plugin_init(struct plugin_name_args *info, struct plugin_gcc_version *version)
{
  if (!plugin_default_version_check(version, &gcc_version)) {
    error("inclprof: this plugin was built for GCC %s (%s) but is loaded by GCC %s (%s); "
          "rebuild it with the compiler you use",
          gcc_version.basever, gcc_version.datestamp, version->basever, version->datestamp);
    return 1;
  }
  if (parse_arguments(info) || ip_known_read())
    return 1;
  /* The descriptor table and the unit's inclprof_tu are emitted when the unit
     ends, after GCC has written its section anchors' object blocks (AArch64
     uses anchors from -O1 on): no anchors in an instrumented unit. */
  flag_section_anchors = 0;

  struct register_pass_info pass;
  pass.pass = ip_make_pass(g);
  pass.reference_pass_name = "sanopt";
  pass.ref_pass_instance_number = 1;
  pass.pos_op = PASS_POS_INSERT_BEFORE;

  struct register_pass_info libcalls;
  libcalls.pass = ip_make_libcall_pass(g);
  libcalls.reference_pass_name = "expand";
  libcalls.ref_pass_instance_number = 1;
  libcalls.pos_op = PASS_POS_INSERT_AFTER;

  const char *name = info->base_name;
  ip_info.help = ip_config_help();
  register_callback(name, PLUGIN_INFO, NULL, &ip_info);
  register_callback(name, PLUGIN_PASS_MANAGER_SETUP, NULL, &pass);
  register_callback(name, PLUGIN_PASS_MANAGER_SETUP, NULL, &libcalls);
  register_callback(name, PLUGIN_REGISTER_GGC_ROOTS, NULL, (void *)ip_ggc_roots);
  register_callback(name, PLUGIN_START_UNIT, on_start_unit, NULL);
  register_callback(name, PLUGIN_ALL_IPA_PASSES_START, ip_note_functions, NULL);
  register_callback(name, PLUGIN_PRE_GENERICIZE, ip_note_parsed, NULL);
  register_callback(name, PLUGIN_FINISH_UNIT, on_finish_unit, NULL);
  register_callback(name, PLUGIN_OVERRIDE_GATE, ip_override_gate, NULL);
  register_callback(name, PLUGIN_FINISH, on_finish, NULL);
  return 0;
}
