/* stack_rules.c - a thread's open frames as the event codes of a
 * ThreadState (see include/inclprof/stack_rules.h). */
#include "stack_rules.h"

size_t ip_stack_open_codes(const ip_stack *s, uint32_t *codes) {
  size_t n = 0;
  for (size_t i = 0; i < s->depth; i++) {
    const ip_open_frame *fr = ip_stack_at(s, i);
    uint32_t enter = fr->key << 3; /* EV_ENTER is 0 */
    uint32_t call = fr->key << 3 | (uint32_t)INCLPROF__EVENT_KIND__EV_CALL;
    codes[n++] = fr->from_call ? call : enter;
    if (fr->merged)
      codes[n++] = enter;
  }
  return n;
}
