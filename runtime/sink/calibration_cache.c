/* calibration_cache.c - the processes of one output directory share one
 * calibration.  The first process to start measures the tick rate and the
 * probe's cost (clock.c, probes.c: about 0.2 ms of CPU) and leaves them in
 * DIR/.calibration-<key>; a later process of the same boot, built against
 * the same runtime, with the same clock, transition mode and probe form,
 * reads them instead of measuring again.  A build, a shell script or a test
 * suite starts many short processes: each then starts that much sooner, and
 * all of them remove the same probe cost.  The file is one line,
 *   inclprof-calibration 2 KEY TICKS_PER_SECOND PROBE_COST PROBE_HIDDEN PTR_CALL_COST
 * (the numbers as hexadecimal floats, exact); anything else in it, or a
 * different KEY, is ignored and measured again.  It is written to a
 * temporary name and renamed, so a reader never sees half of it, and not at
 * all under a file-size limit too small for it; failing to write it only
 * means the next process measures too. */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sink/sink.h"

#define CACHE_TAG     "inclprof-calibration"
#define CACHE_VERSION 2

/* The GNU build-id of the object that holds this code (the runtime, shared
 * or linked into the program), as hex; empty when it has none. */
struct build_id_search {
  uintptr_t addr;
  char hex[2 * 32 + 1];
};

static int build_id_of(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct build_id_search *s = arg;
  int holds = 0;
  for (int i = 0; i < info->dlpi_phnum && !holds; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    holds = ph->p_type == PT_LOAD && s->addr >= lo && s->addr - lo < ph->p_memsz;
  }
  if (!holds)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE)
      continue;
    const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
    const unsigned char *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(const void *)p;
      const unsigned char *name = p + sizeof *n;
      const unsigned char *desc = name + ((n->n_namesz + 3) & ~3u);
      if (desc + n->n_descsz > end)
        break;
      if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
          n->n_descsz > 0 && n->n_descsz <= 32) {
        for (unsigned k = 0; k < n->n_descsz; k++)
          snprintf(s->hex + 2 * k, 3, "%02x", desc[k]);
        return 1;
      }
      p = desc + ((n->n_descsz + 3) & ~3u);
    }
  }
  return 1;
}

/* The boot's id (/proc/sys/kernel/random/boot_id) without its dashes. */
static int boot_id(char *out, size_t len) {
  char buf[64];
  ssize_t n = ip_read_small("/proc/sys/kernel/random/boot_id", 0, buf, sizeof buf);
  if (n <= 0)
    return -1;
  size_t k = 0;
  for (ssize_t i = 0; i < n && k + 1 < len; i++)
    if ((buf[i] >= '0' && buf[i] <= '9') || (buf[i] >= 'a' && buf[i] <= 'f'))
      out[k++] = buf[i];
  out[k] = 0;
  return k >= 32 ? 0 : -1;
}

/* What a calibration holds for: this boot, this runtime, the clock, the
 * transition mode and the probe form.  Fails when the boot or the runtime
 * cannot be named: then every process measures. */
static int cache_key(char *key, size_t len) {
  struct build_id_search s = {.addr = (uintptr_t)&cache_key, .hex = ""};
  dl_iterate_phdr(build_id_of, &s);
  char boot[40];
  if (!s.hex[0] || boot_id(boot, sizeof boot) != 0)
    return -1;
  int n = snprintf(key, len, "%s-%.16s-c%d%d-m%d-p%d", boot, s.hex, ip_st.clock, ip_st.clock_read,
                   ip_st.mode, ip_st.probe_calls);
  return n > 0 && (size_t)n < len ? 0 : -1;
}

static int cache_path(char *path, size_t len, const char *key) {
  int n = snprintf(path, len, "%s/.calibration-%s", ip_st.dir, key);
  return n > 0 && (size_t)n < len ? 0 : -1;
}

/* The key and the file's path, found once by ip_calibration_load for
 * ip_calibration_save; shared_key[0] is 0 when this process cannot share. */
static char shared_key[128], shared_path[1300];

/* Whether all of s is one number (as %a writes it), into *v; sscanf's
 * rather than strtod, which a program may define. */
static int whole_number(const char *s, double *v) {
  int used = -1;
  return sscanf(s, "%la%n", v, &used) == 1 && used >= 0 && !s[used];
}

int ip_calibration_load(void) {
  char line[512];
  if (cache_key(shared_key, sizeof shared_key) != 0 ||
      cache_path(shared_path, sizeof shared_path, shared_key) != 0) {
    shared_key[0] = 0;
    return 0;
  }
  if (ip_read_small(shared_path, O_NOFOLLOW, line, sizeof line) <= 0)
    return 0;
  int version;
  char got_key[128], tps[64], cost[64], hidden[64], ptr[64];
  if (sscanf(line, CACHE_TAG " %d %127s %63s %63s %63s %63s", &version, got_key, tps, cost, hidden,
             ptr) != 6 ||
      version != CACHE_VERSION || strcmp(got_key, shared_key))
    return 0;
  double t, c, h, pc;
  if (!whole_number(tps, &t) || !whole_number(cost, &c) || !whole_number(hidden, &h) ||
      !whole_number(ptr, &pc) || !(t > 0) || !(c >= 0) || !(h >= 0) || h > c || t > 1e12 ||
      c > 1e9 || !(pc >= 0) || pc > 1e9)
    return 0;
  ip_st.ticks_per_second = t;
  ip_st.probe_cost_ticks = c;
  ip_st.probe_hidden_ticks = h;
  ip_st.ptr_call_cost_ticks = pc;
  return 1;
}

void ip_calibration_save(void) {
  char tmp[1400], line[512];
  if (!shared_key[0])
    return;
  int n = snprintf(tmp, sizeof tmp, "%s.%d", shared_path, (int)ip_st.pid);
  if (n <= 0 || (size_t)n >= sizeof tmp)
    return;
  int len = snprintf(line, sizeof line, CACHE_TAG " %d %s %a %a %a %a\n", CACHE_VERSION, shared_key,
                     ip_st.ticks_per_second, ip_st.probe_cost_ticks, ip_st.probe_hidden_ticks,
                     ip_st.ptr_call_cost_ticks);
  struct rlimit rl; /* a file-size limit's SIGXFSZ would kill the program */
  if (len <= 0 || (size_t)len >= sizeof line ||
      (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
       rl.rlim_cur < (rlim_t)len))
    return;
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0)
    return;
  int ok = write(fd, line, (size_t)len) == len;
  ok = ip_close(fd) == 0 && ok;
  if (!ok || rename(tmp, shared_path) != 0)
    unlink(tmp);
}
