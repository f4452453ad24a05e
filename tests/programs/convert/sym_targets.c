/* sym_targets.c - built without the plugin: a static function and an
 * assembly routine (sym_asm.S) handed out as pointers, so neither is
 * instrumented nor in the dynamic symbol table. */
static int hidden_square(int x) { return x * x; }
int (*get_static(void))(int) { return hidden_square; }
int asm_add3(int x);
int (*get_asm(void))(int) { return asm_add3; }
