/* caps.c - the capability sets of inclprof-perfmon, by capget and capset
 * (the kernel's interface, 64 bits in two words).  The helper's file
 * capabilities are permitted only, never effective: it raises each one for
 * what needs it and drops them for good when done (perfmon.c). */
#include "caps.h"

#include <linux/capability.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

uint64_t caps_permitted(void) {
  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct d[2];
  memset(d, 0, sizeof d);
  if (syscall(SYS_capget, &h, d) != 0)
    return 0;
  return (uint64_t)d[1].permitted << 32 | d[0].permitted;
}

int caps_set(uint64_t permitted, uint64_t effective) {
  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct d[2];
  memset(d, 0, sizeof d);
  d[0].permitted = (uint32_t)permitted;
  d[1].permitted = (uint32_t)(permitted >> 32);
  d[0].effective = (uint32_t)effective;
  d[1].effective = (uint32_t)(effective >> 32);
  return syscall(SYS_capset, &h, d) == 0 ? 0 : -1;
}
