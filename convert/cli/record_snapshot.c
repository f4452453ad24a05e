/* cli/record_snapshot.c - the snapshot options of `inclprof record`: each
 * --snapshot-if condition FUNCTION>DURATION checked before the program runs
 * (a duration with its unit, a function the program's symbol table has,
 * under its assembler or demangled name) and joined into the runtime's
 * INCLPROF_SNAPSHOT_IF. */
#include "cli/record_snapshot.h"

#include <fcntl.h>
#include <gelf.h>
#include <libiberty/demangle.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "duration_syntax.h"

static int check_one(const char *c, size_t len, char *err, size_t errlen) {
  const char *gt = NULL;
  for (size_t i = 0; i < len; i++)
    if (c[i] == '>')
      gt = c + i;
  if (!gt || gt == c || gt + 1 == c + len) {
    snprintf(err, errlen, "'%.*s' is not FUNCTION>DURATION (like handle>5ms)", (int)len, c);
    return -1;
  }
  char dur[64];
  size_t dl = (size_t)(c + len - gt - 1);
  snprintf(dur, sizeof dur, "%.*s", (int)dl, gt + 1);
  uint64_t ns;
  if (ip_duration_parse(dur, &ns) || !ns) {
    snprintf(err, errlen, "'%s' in '%.*s' is not a duration (like 500us, 5ms, 2s)", dur, (int)len,
             c);
    return -1;
  }
  if (dur[strlen(dur) - 1] < 'a' || dur[strlen(dur) - 1] > 'z') {
    snprintf(err, errlen, "the duration '%s' in '%.*s' has no unit (say 5ms or 5s)", dur, (int)len,
             c);
    return -1;
  }
  return 0;
}

int record_snapshot_add(char *conds, size_t len, const char *arg, char *err, size_t errlen) {
  size_t n = 0;
  for (const char *p = arg; *p; p += n + (p[n] == ',')) {
    n = strcspn(p, ",");
    if (!n || check_one(p, n, err, errlen)) {
      if (!n)
        snprintf(err, errlen, "'%s' has an empty condition (FUNCTION>DURATION, comma-separated)",
                 arg);
      return -1;
    }
  }
  if (strlen(conds) + strlen(arg) + 2 > len) {
    snprintf(err, errlen, "too many conditions (at most 8)");
    return -1;
  }
  if (*conds)
    strcat(conds, ",");
  strcat(conds, arg);
  return 0;
}

/* The program's path as execvp finds it, into out. */
static int find_program(const char *prog, char *out, size_t len) {
  if (strchr(prog, '/')) {
    snprintf(out, len, "%s", prog);
    return access(out, X_OK);
  }
  const char *path = getenv("PATH");
  for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
    size_t n = strcspn(p, ":");
    snprintf(out, len, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", prog);
    if (access(out, X_OK) == 0)
      return 0;
    p += n + (p[n] == ':');
  }
  return -1;
}

static int names(const char *want, const char *sym) {
  if (!strcmp(want, sym))
    return 1;
  char *pretty = cplus_demangle(sym, DMGL_PARAMS | DMGL_ANSI);
  size_t wl = strlen(want);
  int same = pretty && (!strcmp(pretty, want) || (!strncmp(pretty, want, wl) && pretty[wl] == '('));
  free(pretty);
  return same;
}

/* 1: the file defines a function want; 0: it does not; -1: it cannot be told. */
static int defines(Elf *e, const char *want) {
  int tables = 0;
  for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
      continue;
    tables++;
    Elf_Data *d = elf_getdata(scn, NULL);
    size_t n = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    for (size_t i = 0; i < n; i++) {
      GElf_Sym s;
      const char *name = gelf_getsym(d, (int)i, &s) ? elf_strptr(e, sh.sh_link, s.st_name) : NULL;
      if (name && *name && GELF_ST_TYPE(s.st_info) == STT_FUNC && s.st_shndx != SHN_UNDEF &&
          names(want, name))
        return 1;
    }
  }
  return tables ? 0 : -1;
}

int record_snapshot_check(const char *conds, const char *prog, char *err, size_t errlen) {
  char path[PATH_MAX];
  if (!*conds || find_program(prog, path, sizeof path) || elf_version(EV_CURRENT) == EV_NONE)
    return 0; /* not run at all: exec says why */
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
  int rc = 0;
  for (const char *p = conds; e && elf_kind(e) == ELF_K_ELF && *p && !rc;) {
    size_t n = strcspn(p, ",");
    const char *gt = p + n;
    while (gt > p && *gt != '>')
      gt--;
    char want[512];
    snprintf(want, sizeof want, "%.*s", (int)(gt - p), p);
    if (defines(e, want) == 0) {
      snprintf(err, errlen,
               "%s defines no function named '%s' (its symbol table has none; a function of a "
               "library it loads can be watched with INCLPROF_SNAPSHOT_IF, unchecked)",
               prog, want);
      rc = -1;
    }
    p += n + (p[n] == ',');
  }
  if (e)
    elf_end(e);
  if (fd >= 0)
    close(fd);
  return rc;
}
