/* sym_main.c - built with the plugin: calls the static function and the
 * assembly routine of sym_targets.c through pointers, 10 times each
 * (prints 360). */
#include <stdio.h>
int (*get_static(void))(int);
int (*get_asm(void))(int);
__attribute__((noinline)) static int through(int (*f)(int), int x) { return f(x); }
int main(void) {
  int s = 0;
  for (int i = 0; i < 10; i++)
    s += through(get_static(), i) + through(get_asm(), i);
  printf("%d\n", s);
  return 0;
}
