/* test_runtime_units.c - the runtime registers units of every ABI it knows:
 * a unit of ABI 2, whose inclprof_hooks ends before the coroutine_frame hook,
 * gets its six hooks and nothing written past them, one of ABI 3 (no landing
 * hook) its seven; a unit of this ABI gets all eight; a unit of an unknown
 * ABI none. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "entry/entry.h"
#include "check_main.h"

static struct inclprof_fn d = {1, "f", "f", __FILE__, 1, 5, INCLPROF_FN_INSTRUMENTED, 0, NULL};
static const struct inclprof_fn *fns[] = {&d};
static char dir[] = "/tmp/ip_units_XXXXXX";

/* A unit of ABI 2 as its plugin laid it out: six hooks, then whatever the
 * object holds next (here a guard the runtime must not touch); of ABI 3:
 * seven. */
struct old_unit {
  /* cppcheck-suppress unusedStructMember ; read by the runtime */
  uint32_t abi_version, n_fns;
  /* cppcheck-suppress unusedStructMember ; read by the runtime */
  const struct inclprof_fn *const *fns;
  /* cppcheck-suppress unusedStructMember ; read by the runtime */
  const char *path;
  void (*hooks[6])(const void *);
  uintptr_t guard;
};
struct abi3_unit {
  /* cppcheck-suppress unusedStructMember ; read by the runtime */
  uint32_t abi_version, n_fns;
  /* cppcheck-suppress unusedStructMember ; read by the runtime */
  const struct inclprof_fn *const *fns;
  /* cppcheck-suppress unusedStructMember ; read by the runtime */
  const char *path;
  void (*hooks[7])(const void *);
  uintptr_t guard;
};

START_TEST(every_known_abi_registers) {
  ck_assert_ptr_nonnull(mkdtemp(dir));
  setenv("INCLPROF_OUTPUT", dir, 1);
  setenv("INCLPROF_TRANSITIONS", "none", 1);
  ip_settings_reread();
  _Static_assert(offsetof(struct old_unit, hooks) == offsetof(struct inclprof_tu, hooks) &&
                     offsetof(struct old_unit, guard) ==
                         offsetof(struct inclprof_tu, hooks) +
                             offsetof(struct inclprof_hooks, coroutine_frame),
                 "an ABI 2 unit's hooks end where coroutine_frame begins");
  static struct old_unit old = {2, 1, fns, "old.c", {0}, 0x5a5a5a5a};
  __inclprof_register_tu((struct inclprof_tu *)&old);
  ck_assert_int_eq(atomic_load(&ip_st.init_state), 1);
  for (int i = 0; i < 6; i++)
    ck_assert_msg(old.hooks[i] != NULL, "hook %d of the ABI 2 unit not set", i);
  ck_assert_uint_eq(old.guard, 0x5a5a5a5a);

  _Static_assert(offsetof(struct abi3_unit, guard) ==
                     offsetof(struct inclprof_tu, hooks) + offsetof(struct inclprof_hooks, landing),
                 "an ABI 3 unit's hooks end where landing begins");
  static struct abi3_unit abi3 = {3, 1, fns, "abi3.c", {0}, 0x5a5a5a5a};
  __inclprof_register_tu((struct inclprof_tu *)&abi3);
  for (int i = 0; i < 7; i++)
    ck_assert_msg(abi3.hooks[i] != NULL, "hook %d of the ABI 3 unit not set", i);
  ck_assert_uint_eq(abi3.guard, 0x5a5a5a5a);

  static struct inclprof_tu now = {INCLPROF_ABI_VERSION, 1, fns, "now.c", {0}};
  __inclprof_register_tu(&now);
  ck_assert_ptr_nonnull(now.hooks.enter);
  ck_assert_ptr_nonnull(now.hooks.coroutine_frame);
  ck_assert_ptr_nonnull(now.hooks.landing);

  static struct inclprof_tu future = {INCLPROF_ABI_VERSION + 1, 1, fns, "future.c", {0}};
  __inclprof_register_tu(&future);
  ck_assert_ptr_null(future.hooks.enter);
  ck_assert_ptr_null(future.hooks.coroutine_frame);
  ck_assert_ptr_null(future.hooks.landing);

  DIR *dd = opendir(dir); /* the trace (its open descriptor keeps it for the exit) */
  ck_assert_ptr_nonnull(dd);
  char path[512];
  for (const struct dirent *e; (e = readdir(dd));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      unlink(path);
    }
  closedir(dd);
  rmdir(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("runtime_units");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, every_known_abi_registers);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
