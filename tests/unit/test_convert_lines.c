/* test_convert_lines.c - samples by line and instruction (analysis/line_rows.c)
 * over a hand-made session with a stand-in locator: addresses on one line
 * merge into one row, an inlined function's line is its own row, shares are
 * of each function's samples, rows come most samples first, --function keeps
 * one function; and the disassembler names an x86-64 instruction. */
#include <check.h>
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "analysis/line_rows.h"
#include "check_main.h"

/* Two functions: work (node 1) and other (node 2), one thread. */
static ip_func funcs[] = {{"work", "work", "w.c", 1, 0, 1, 0},
                          {"other", "other", "w.c", 9, 0, 1, 0}};
static ip_node nodes[3] = {
    {UINT32_MAX, IP_NO_NODE, 1, IP_NO_NODE, {0}},
    {0, 0, IP_NO_NODE, 2, {0}},
    {1, 0, IP_NO_NODE, IP_NO_NODE, {0}},
};
/* work: 0x10 and 0x14 on line 5 (6 + 2), 0x20 on line 6 (3), 0x30 inlined
 * mix at line 2 (1); other: 0x40 on line 10 (4). */
static ip_pc_sample pcs[] = {{0x10, 1, 6}, {0x20, 1, 3}, {0x14, 1, 2}, {0x30, 1, 1}, {0x40, 2, 4}};

static void fake_locate(void *ctx, const ip_session *s, uint32_t process, uint64_t pc,
                        ip_src_loc *out) {
  (void)s, (void)process;
  (*(int *)ctx)++;
  memset(out, 0, sizeof *out);
  out->module = 0;
  out->offset = pc;
  out->n_frames = pc == 0x30 ? 2 : 1;
  snprintf(out->frame[0].func, sizeof out->frame[0].func, "%s", pc == 0x30 ? "mix" : "work");
  snprintf(out->frame[0].file, sizeof out->frame[0].file, "%s", "w.c");
  out->frame[0].line = pc == 0x40 ? 10 : pc == 0x30 ? 2 : pc == 0x20 ? 6 : 5;
}

static void session(ip_session *s, ip_thread *th, ip_process *p) {
  memset(s, 0, sizeof *s);
  memset(th, 0, sizeof *th);
  memset(p, 0, sizeof *p);
  th->nodes = nodes;
  th->n_nodes = 3;
  th->pcs = pcs;
  th->n_pcs = sizeof pcs / sizeof pcs[0];
  s->funcs = funcs;
  s->n_funcs = 2;
  s->threads = th;
  s->n_threads = 1;
  s->processes = p;
  s->n_processes = 1;
}

START_TEST(rows_by_line) {
  ip_session s;
  ip_thread th;
  ip_process p;
  session(&s, &th, &p);
  ip_selection sel;
  memset(&sel, 0, sizeof sel);
  int located = 0;
  ip_line_rows r;
  ip_line_rows_build(&s, &sel, NULL, 0, fake_locate, &located, &r);
  ck_assert_int_eq(located, 5); /* each address once */
  ck_assert_uint_eq(r.total, 16);
  ck_assert_uint_eq(r.n, 4);
  ck_assert_uint_eq(r.v[0].samples, 8); /* line 5: 0x10 and 0x14 */
  ck_assert_uint_eq(r.v[0].where.frame[0].line, 5);
  ck_assert_uint_eq(r.v[0].fn_total, 12);
  ck_assert_uint_eq(r.v[1].samples, 4); /* other's line 10 */
  ck_assert_uint_eq(r.v[1].func, 1);
  ck_assert_uint_eq(r.v[1].fn_total, 4);
  ck_assert_uint_eq(r.v[2].samples, 3);
  ck_assert_uint_eq(r.v[3].samples, 1); /* the inlined line, its own row */
  ck_assert_str_eq(r.v[3].where.frame[0].func, "mix");
  ip_line_rows_free(&r);
}
END_TEST

START_TEST(rows_by_address_of_one_function) {
  ip_session s;
  ip_thread th;
  ip_process p;
  session(&s, &th, &p);
  ip_selection sel;
  memset(&sel, 0, sizeof sel);
  int located = 0;
  ip_line_rows r;
  ip_line_rows_build(&s, &sel, "work", 1, fake_locate, &located, &r);
  ck_assert_uint_eq(r.n, 4); /* 0x10, 0x20, 0x14, 0x30: other's left out */
  ck_assert_uint_eq(r.total, 12);
  ck_assert_uint_eq(r.v[0].where.offset, 0x10);
  ck_assert_uint_eq(r.v[1].where.offset, 0x20);
  ck_assert_uint_eq(r.v[2].where.offset, 0x14);
  ck_assert_uint_eq(r.v[2].fn_total, 12);
  ip_line_rows_free(&r);
}
END_TEST

START_TEST(disassembles_x86_64) {
  const uint8_t add[] = {0x48, 0x01, 0xd7}; /* add rdi, rdx */
  char text[96];
  ip_disasm(EM_X86_64, 0x1000, add, sizeof add, text, sizeof text);
#ifdef IP_HAVE_CAPSTONE
  ck_assert_str_eq(text, "add rdi, rdx");
#else
  ck_assert_str_eq(text, "48 01 d7");
#endif
}
END_TEST

int main(void) {
  Suite *su = suite_create("convert_lines");
  TCase *tc = tcase_create("lines");
  tcase_add_test(tc, rows_by_line);
  tcase_add_test(tc, rows_by_address_of_one_function);
  tcase_add_test(tc, disassembles_x86_64);
  suite_add_tcase(su, tc);
  return ip_check_run(su);
}
