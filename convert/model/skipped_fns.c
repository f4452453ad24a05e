/* model/skipped_fns.c - reads the .inclprof.skipped section that the plugin
 * writes into every object (one line per function it gave no probes, or
 * inlined at some call site: KIND \t NAME \t FILE \t LINE \t DETAIL) from the
 * session's module files with libelf, and keeps the functions that have no
 * row in the session, and those with a row that were also inlined. */
#include "model/skipped_fns.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fnv1a.h"
#include "util/util.h"

static const char *const kind_names[IP_SKIP_KINDS] = {"inlined", "unused", "excluded", "small",
                                                      "inlined-at"};

const char *ip_skip_kind_name(ip_skip_kind k) { return k < IP_SKIP_KINDS ? kind_names[k] : "?"; }

static int kind_of(const char *s, size_t n, ip_skip_kind *k) {
  for (int i = 0; i < IP_SKIP_KINDS; i++)
    if (strlen(kind_names[i]) == n && !memcmp(kind_names[i], s, n)) {
      *k = (ip_skip_kind)i;
      return 0;
    }
  return -1;
}

static char *copy(const char *p, size_t n) {
  char *c = ip_must_realloc(NULL, n + 1, 1);
  memcpy(c, p, n);
  c[n] = 0;
  return c;
}

static uint64_t key_of(const char *pretty, const char *file, unsigned line) {
  uint64_t h = ip_fnv1a64_str(ip_fnv1a64_str(IP_FNV1A64_BASIS, pretty), file);
  return ip_fnv1a64(h, &line, sizeof line);
}

/* What the reading keeps besides the list: the session's functions by name
 * and file (those have a row), and the functions listed so far. */
typedef struct seen {
  ip_u64map rows, listed;
} seen;

/* Whether the list of places has [p, p + len) in it already (a header's
 * function inlined alike in several units or executables). */
static int contains(const char *list, const char *p, size_t len) {
  return memmem(list, strlen(list), p, len) != NULL;
}

/* One line of the section, [p, end). */
static void take_line(seen *z, ip_skipped *out, const char *p, const char *end) {
  const char *f[5];
  size_t len[5];
  int n = 0;
  for (const char *at = p; n < 5 && at <= end; n++) {
    const char *tab = memchr(at, '\t', (size_t)(end - at));
    const char *stop = n < 4 && tab ? tab : end;
    f[n] = at;
    len[n] = (size_t)(stop - at);
    at = stop + 1;
  }
  ip_skip_kind kind;
  if (n < 5 || kind_of(f[0], len[0], &kind))
    return; /* a line of a newer plugin's kind, or damage: not ours to guess */
  char *pretty = copy(f[1], len[1]), *file = copy(f[2], len[2]);
  unsigned line = (unsigned)strtoul(f[3], NULL, 10);
  int has_row = ip_u64map_get(&z->rows, key_of(pretty, file, 0)) != UINT32_MAX;
  /* "inlined-at" lines count for functions that have a row (the others are
     listed as inlined); every unit that inlined one adds its places, once. */
  uint64_t key =
      kind == IP_SKIP_PARTLY ? key_of(pretty, file, 1u << 31) : key_of(pretty, file, line);
  uint32_t known = ip_u64map_get(&z->listed, key);
  if (kind == IP_SKIP_PARTLY && has_row && known != UINT32_MAX &&
      !contains(out->v[known].detail, f[4], len[4])) {
    ip_skipped_fn *fn = &out->v[known];
    char *more = copy(f[4], len[4]);
    char *both = ip_must_realloc(NULL, strlen(fn->detail) + strlen(more) + 3, 1);
    sprintf(both, "%s, %s", fn->detail, more);
    free(fn->detail);
    free(more);
    fn->detail = both;
  }
  if (known != UINT32_MAX || (kind == IP_SKIP_PARTLY) != has_row) {
    free(pretty);
    free(file);
    return;
  }
  ip_u64map_put(&z->listed, key, (uint32_t)out->n);
  out->v = ip_must_realloc(out->v, out->n + 1, sizeof *out->v);
  out->v[out->n++] = (ip_skipped_fn){kind, pretty, file, line, copy(f[4], len[4])};
  out->count[kind]++;
}

static void read_module(seen *z, const char *path, ip_skipped *out) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  Elf *e = elf_begin(fd, ELF_C_READ, NULL);
  size_t shstrndx;
  if (e && elf_getshdrstrndx(e, &shstrndx) == 0) {
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
      GElf_Shdr sh;
      const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
      if (!name || strcmp(name, ".inclprof.skipped") || sh.sh_type != SHT_PROGBITS)
        continue;
      const Elf_Data *d = elf_getdata(scn, NULL);
      const char *p = d ? d->d_buf : NULL;
      const char *end = p ? p + d->d_size : NULL;
      while (p && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl : end;
        take_line(z, out, p, stop);
        p = stop + 1;
      }
    }
  }
  if (e)
    elf_end(e);
  close(fd);
}

void ip_skipped_load(const ip_session *s, ip_skipped *out) {
  memset(out, 0, sizeof *out);
  if (elf_version(EV_CURRENT) == EV_NONE)
    return;
  seen z = {{0}, {0}};
  for (size_t i = 0; i < s->n_funcs; i++)
    ip_u64map_put(&z.rows, key_of(s->funcs[i].pretty, s->funcs[i].file, 0), 1);
  for (size_t i = 0; i < s->n_modules; i++)
    if (s->modules[i].path && s->modules[i].path[0] == '/')
      read_module(&z, s->modules[i].path, out);
  ip_u64map_free(&z.rows);
  ip_u64map_free(&z.listed);
}

const ip_skipped_fn *ip_skipped_partly(const ip_skipped *k, const char *pretty, const char *file) {
  for (size_t i = 0; k && i < k->n; i++)
    if (k->v[i].kind == IP_SKIP_PARTLY && !strcmp(k->v[i].pretty, pretty) &&
        !strcmp(k->v[i].file, file))
      return &k->v[i];
  return NULL;
}

void ip_skipped_free(ip_skipped *k) {
  for (size_t i = 0; i < k->n; i++) {
    free(k->v[i].pretty);
    free(k->v[i].file);
    free(k->v[i].detail);
  }
  free(k->v);
  memset(k, 0, sizeof *k);
}
