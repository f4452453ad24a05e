/* test_convert_names.c - names the converter gives: code addresses named
 * from the module file (this test binary's own static function, its
 * MODULE+0xOFFSET when the file counts as changed, said once), command lines
 * without a title's padding, and process labels for fork children and images
 * after exec. */
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/profile.h"
#include "model/symbolize.h"
#include "check_main.h"

__attribute__((noinline)) static int static_target(int x) { return x * 3; }
static int (*volatile keep)(int) = static_target;

/* This binary as a module: path, load base and its file's stat. */
static ip_sym_module self(char *path, size_t n) {
  Dl_info di;
  ck_assert(dladdr((void *)keep, &di));
  ssize_t k = readlink("/proc/self/exe", path, n - 1);
  ck_assert_int_gt(k, 0);
  path[k] = 0;
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  ip_sym_module m = {path, (uint64_t)(uintptr_t)di.dli_fbase, 1,
                     (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec,
                     (uint64_t)st.st_size};
  return m;
}

START_TEST(symbol_from_symtab) {
  char path[4096], note[512];
  ip_sym_module m = self(path, sizeof path);
  ip_symbolizer *z = ip_symbolizer_new();
  ip_sym s;
  uint64_t addr = (uint64_t)(uintptr_t)keep;
  ck_assert(ip_symbolize_contains(z, &m, addr));
  ip_symbolize(z, &m, addr, &s, note, sizeof note);
  ck_assert_str_eq(s.name, "static_target");
  ck_assert_str_eq(s.pretty, "static_target");
  ck_assert_str_eq(note, "");
  ck_assert_int_eq(keep(2), 6);
  ip_symbolize(z, &m, addr + 1, &s, note, sizeof note);
  ck_assert_str_eq(s.name, "static_target+0x1");
  ip_symbolizer_free(z);
}
END_TEST

START_TEST(changed_file_gives_offsets_once) {
  char path[4096], note[512], want[4200];
  ip_sym_module m = self(path, sizeof path);
  m.mtime_ns += 1;
  ip_symbolizer *z = ip_symbolizer_new();
  ip_sym s;
  uint64_t addr = (uint64_t)(uintptr_t)keep;
  ip_symbolize(z, &m, addr, &s, note, sizeof note);
  snprintf(want, sizeof want, "%s+0x%llx", strrchr(path, '/') + 1,
           (unsigned long long)(addr - m.load_address));
  ck_assert_str_eq(s.name, want);
  ck_assert_ptr_nonnull(strstr(note, "changed since it was recorded"));
  ip_symbolize(z, &m, addr, &s, note, sizeof note);
  ck_assert_str_eq(s.name, want);
  ck_assert_str_eq(note, "");
  ip_symbolizer_free(z);
}
END_TEST

START_TEST(missing_file_gives_offsets) {
  char note[512];
  ip_sym_module m = {"/nonexistent/libgone.so", 0x7f0000000000ull, 0, 0, 0};
  ip_symbolizer *z = ip_symbolizer_new();
  ip_sym s;
  ip_symbolize(z, &m, 0x7f0000001234ull, &s, note, sizeof note);
  ck_assert_str_eq(s.name, "libgone.so+0x1234");
  ck_assert_ptr_nonnull(strstr(note, "/nonexistent/libgone.so is gone"));
  ck_assert(!ip_symbolize_contains(z, &m, 0x7f0000001234ull));
  ip_symbolizer_free(z);
}
END_TEST

START_TEST(cmdline_padding) {
  char *padded[] = {"redis-server *:6379", "", "", ""};
  char *blanks[] = {"postgres: checkpointer   "};
  char *plain[] = {"./prog", "-x", "file"};
  char *s = ip_cmdline_join(padded, 4);
  ck_assert_str_eq(s, "redis-server *:6379");
  free(s);
  s = ip_cmdline_join(blanks, 1);
  ck_assert_str_eq(s, "postgres: checkpointer");
  free(s);
  s = ip_cmdline_join(plain, 3);
  ck_assert_str_eq(s, "./prog -x file");
  free(s);
  s = ip_cmdline_join(plain, 0);
  ck_assert_str_eq(s, "");
  free(s);
}
END_TEST

START_TEST(process_labels) {
  ip_process p[4] = {
      {.pid = 100, .executable = "/bin/old", .exit_reason = "exit", .start_unix_ns = 1},
      {.pid = 100, .executable = "/bin/sh", .exit_reason = "exec", .start_unix_ns = 5},
      {.pid = 101, .executable = "/bin/sh", .forked_from = 100, .start_unix_ns = 6},
      {.pid = 100, .executable = "/bin/x", .exit_reason = "exit", .start_unix_ns = 7},
  };
  ip_session s = {.processes = p, .n_processes = 4};
  ip_processes_link(&s);
  char buf[256];
  ck_assert_str_eq(ip_process_label(&s, 0, buf, sizeof buf), "100 /bin/old");
  ck_assert_str_eq(ip_process_label(&s, 1, buf, sizeof buf), "100 /bin/sh");
  ck_assert_str_eq(ip_process_label(&s, 2, buf, sizeof buf), "101 /bin/sh (fork of 100)");
  ck_assert_str_eq(ip_process_label(&s, 3, buf, sizeof buf),
                   "100 /bin/x (after exec from /bin/sh)");
  char small[12];
  ck_assert_str_eq(ip_process_label(&s, 3, small, sizeof small), "100 /bin/x ");
}
END_TEST

int main(void) {
  Suite *s = suite_create("convert_names");
  TCase *tc = tcase_create("names");
  tcase_add_test(tc, symbol_from_symtab);
  tcase_add_test(tc, changed_file_gives_offsets_once);
  tcase_add_test(tc, missing_file_gives_offsets);
  tcase_add_test(tc, cmdline_padding);
  tcase_add_test(tc, process_labels);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
