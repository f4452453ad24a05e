/* test_runtime_objects.c - the loaded objects as the registry sees them,
 * checked against the dynamic linker's own answers (dladdr, dlsym): the
 * object holding an address, the object a name binds to (libc's puts,
 * from the loader's objects and from the copy a signal handler reads),
 * the caller's own object for a name nothing exports, the name of an
 * address as dladdr gives it (and none inside a function), and the
 * program's allocator told apart from libc's (a sanitizer brings its
 * own). */
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "check_main.h"

static int local_function(int x) { return x + 1; }

START_TEST(the_holder_of_an_address) {
  struct ip_object o;
  ck_assert_int_eq(ip_object_of((uintptr_t)local_function, &o, 0), 1);
  ck_assert_int_eq(o.is_main, 1);
  Dl_info di;
  ck_assert(dladdr((void *)local_function, &di));
  ck_assert_uint_eq(o.base, (uintptr_t)di.dli_fbase);
  ck_assert(o.lo <= (uintptr_t)local_function && (uintptr_t)local_function < o.hi);
  ck_assert_int_eq(ip_object_of(0x10, &o, 0), 0);
}
END_TEST

START_TEST(a_name_binds_to_its_definition) {
  void *puts_at = dlsym(RTLD_DEFAULT, "puts");
  Dl_info di;
  ck_assert(dladdr(puts_at, &di));
  for (int in_signal = 0; in_signal < 2; in_signal++) {
    struct ip_object o;
    uintptr_t at;
    ck_assert_int_eq(ip_object_binding("puts", (uintptr_t)local_function, &o, &at, in_signal), 1);
    ck_assert_uint_eq(at, (uintptr_t)puts_at);
    ck_assert_uint_eq(o.base, (uintptr_t)di.dli_fbase);
    ck_assert_str_eq(o.name, di.dli_fname);
    ck_assert_int_eq(o.is_main, 0);
  }
}
END_TEST

START_TEST(a_name_nothing_exports_stays_with_the_caller) {
  struct ip_object o;
  uintptr_t at;
  ck_assert_int_eq(
      ip_object_binding("no_object_defines_this_name", (uintptr_t)local_function, &o, &at, 0), 1);
  ck_assert_uint_eq(at, 0);
  ck_assert_int_eq(o.is_main, 1);
  ck_assert_int_eq(ip_object_binding("no_object_defines_this_name", 0x10, &o, &at, 0), 0);
  ck_assert_int_eq(local_function(1), 2);
}
END_TEST

START_TEST(an_address_is_named_as_dladdr_names_it) {
  static const char *const names[] = {"puts", "malloc", "getpid", "qsort", "fopen", "strtol"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    void *at = dlsym(RTLD_DEFAULT, names[i]);
    Dl_info di;
    ck_assert(at && dladdr(at, &di));
    struct ip_object o;
    char name[IP_OBJECT_NAME];
    uintptr_t real;
    ck_assert_int_eq(ip_object_named((uintptr_t)at, &o, name, sizeof name, &real, 0), 1);
    ck_assert_uint_eq(real, (uintptr_t)at);
    ck_assert_uint_eq(o.base, (uintptr_t)di.dli_fbase);
    if (di.dli_sname && di.dli_saddr == at)
      ck_assert_str_eq(name, di.dli_sname);
    /* the table made above serves a signal handler too */
    ck_assert_int_eq(ip_object_named((uintptr_t)at, &o, name, sizeof name, &real, 1), 1);
    if (di.dli_sname && di.dli_saddr == at)
      ck_assert_str_eq(name, di.dli_sname);
  }
  struct ip_object o;
  char name[IP_OBJECT_NAME];
  uintptr_t real;
  void *puts_at = dlsym(RTLD_DEFAULT, "puts");
  ck_assert_int_eq(ip_object_named((uintptr_t)puts_at + 1, &o, name, sizeof name, &real, 0), 1);
  ck_assert_str_eq(name, ""); /* inside a function: no name */
}
END_TEST

/* Whether calloc is libc's, as dladdr sees it (a sanitizer's runtime
 * brings its own). */
START_TEST(the_allocator_is_told_apart) {
  Dl_info mine, libc;
  ck_assert(dladdr(dlsym(RTLD_DEFAULT, "calloc"), &mine));
  ck_assert(dladdr(dlsym(RTLD_DEFAULT, "__libc_calloc"), &libc));
  ck_assert_int_eq(ip_objects_program_allocator(), mine.dli_fbase != libc.dli_fbase);
}
END_TEST

int main(void) {
  Suite *s = suite_create("runtime_objects");
  TCase *tc = tcase_create("objects");
  tcase_add_test(tc, the_holder_of_an_address);
  tcase_add_test(tc, a_name_binds_to_its_definition);
  tcase_add_test(tc, a_name_nothing_exports_stays_with_the_caller);
  tcase_add_test(tc, an_address_is_named_as_dladdr_names_it);
  tcase_add_test(tc, the_allocator_is_told_apart);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
