/* gmon_fork.c - preloaded into the -pg runs of a program that forks workers
 * (nginx): a child process starts its gmon counts from zero, so that the
 * file each process writes at exit() holds the calls that process made.
 * glibc's gmon keeps its counts in ordinary memory, which fork() copies: a
 * child's file also holds every call its parent made before the fork, and
 * the sum of the files (what gprof reads) counts those calls once more per
 * child (`gmon_fork_demo` in field.sh shows it).  At a fork, the child
 * drops the counts it inherited (_mcleanup() writes them to a scratch file,
 * removed at once, and frees them: monstartup() does nothing while they
 * exist) and calls monstartup() again with the range gcrt1 gave it
 * (__executable_start to etext, read from the executable's symbol table):
 * zeroed counters and the same histogram header, so gprof sums the files as
 * before. */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/gmon.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned long low_pc, high_pc;

static int main_bias(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  *(ElfW(Addr) *)data = info->dlpi_addr; /* the first object is the executable */
  return 1;
}

/* __executable_start and etext of /proc/self/exe, with the load bias. */
static void find_range(void) {
  int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    if (fd >= 0)
      close(fd);
    return;
  }
  const unsigned char *image = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (image == MAP_FAILED)
    return;
  const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)image;
  const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(image + eh->e_shoff);
  unsigned long start = 0, end = 0;
  int found = 0;
  for (int i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_SYMTAB)
      continue;
    const ElfW(Sym) *sym = (const ElfW(Sym) *)(image + sh[i].sh_offset);
    const char *names = (const char *)(image + sh[sh[i].sh_link].sh_offset);
    for (size_t k = 0; k < sh[i].sh_size / sizeof(*sym); k++) {
      const char *name = names + sym[k].st_name;
      if (strcmp(name, "__executable_start") == 0)
        start = sym[k].st_value, found |= 1;
      else if (strcmp(name, "etext") == 0)
        end = sym[k].st_value, found |= 2;
    }
  }
  munmap((void *)image, (size_t)st.st_size);
  ElfW(Addr) bias = 0;
  dl_iterate_phdr(main_bias, &bias);
  if (found == 3) {
    low_pc = start + bias;
    high_pc = end + bias;
  }
}

extern void _mcleanup(void);

static void child_starts_afresh(void) {
  char prefix[4096] = "", scratch[64], file[96];
  const char *env = getenv("GMON_OUT_PREFIX");
  if (env)
    snprintf(prefix, sizeof prefix, "%s", env);
  snprintf(scratch, sizeof scratch, "/tmp/gmon-fork-scratch");
  snprintf(file, sizeof file, "%s.%ld", scratch, (long)getpid());
  setenv("GMON_OUT_PREFIX", scratch, 1);
  _mcleanup();
  unlink(file);
  if (env)
    setenv("GMON_OUT_PREFIX", prefix, 1);
  else
    unsetenv("GMON_OUT_PREFIX");
  monstartup(low_pc, high_pc);
}

__attribute__((constructor)) static void gmon_fork_init(void) {
  find_range();
  if (high_pc)
    pthread_atfork(NULL, NULL, child_starts_afresh);
}
