/* caps.h - the capability sets of inclprof-perfmon (caps.c). */
#ifndef INCLPROF_CAPS_H
#define INCLPROF_CAPS_H

#include <linux/capability.h>
#include <stdint.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON 38 /* Linux 5.8 */
#endif
#define CAP_BIT(c) (UINT64_C(1) << (c))

/* This process's permitted set, a bit per capability (0 when unreadable). */
uint64_t caps_permitted(void);

/* Sets the permitted and effective sets to exactly these (each within the
 * permitted set before), the inheritable set empty: 0, or -1. */
int caps_set(uint64_t permitted, uint64_t effective);

#endif
