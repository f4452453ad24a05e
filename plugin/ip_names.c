/* ip_names.c - name normalisation and stable ids for inclprof descriptors. */
#include "ip_names.h"

#include <ctype.h>
#include <string.h>

/* Suffixes GCC appends to clones (ipa-cp, ipa-sra, ipa-split) and to
 * promoted statics under LTO; each is followed by ".N". */
static const char *const clone_suffixes[] = { ".constprop", ".isra", ".part", ".lto_priv" };

/* If NAME[0..LEN) ends in one of clone_suffixes plus ".digits", return the
 * length without it, else LEN. */
static size_t strip_one_suffix(const char *name, size_t len)
{
  size_t end = len;
  while (end > 0 && isdigit((unsigned char)name[end - 1]))
    end--;
  if (end == len || end == 0 || name[end - 1] != '.')
    return len;
  end--;
  for (size_t i = 0; i < sizeof clone_suffixes / sizeof clone_suffixes[0]; i++) {
    size_t n = strlen(clone_suffixes[i]);
    if (end > n && memcmp(name + end - n, clone_suffixes[i], n) == 0)
      return end - n;
  }
  return len;
}

size_t ip_normalized_len(const char *name)
{
  size_t len = strlen(name);
  for (;;) {
    size_t shorter = strip_one_suffix(name, len);
    if (shorter == len)
      return len;
    len = shorter;
  }
}

uint64_t ip_function_id(const char *asm_name, const char *file)
{
  uint64_t h = ip_fnv1a64(IP_FNV1A64_BASIS, asm_name, ip_normalized_len(asm_name));
  h = ip_fnv1a64(h, "", 1);
  return ip_fnv1a64(h, file, strlen(file));
}

uint64_t ip_callee_id(const char *asm_name)
{
  return ip_fnv1a64(IP_FNV1A64_BASIS, asm_name, ip_normalized_len(asm_name));
}
