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

static int ends_with(const char *s, size_t len, const char *tail)
{
  size_t n = strlen(tail);
  return len >= n && memcmp(s + len - n, tail, n) == 0;
}

enum ip_coro_part ip_coroutine_part(const char *name, const char **ramp, size_t *ramp_len)
{
  size_t len = ip_normalized_len(name);
  enum ip_coro_part part = ends_with(name, len, ".Frame.actor")     ? IP_CORO_BODY
                           : ends_with(name, len, ".Frame.destroy") ? IP_CORO_DESTROY
                                                                     : IP_CORO_NONE;
  if (part == IP_CORO_NONE)
    return IP_CORO_NONE;
  size_t frame_end = len - strlen(part == IP_CORO_BODY ? ".actor" : ".destroy");
  /* The frame type's name is a source name, <length><name>: the leftmost
   * digits whose value reaches exactly to the end of ".Frame". */
  for (size_t at = 1; at < frame_end; at++) {
    if (!isdigit((unsigned char)name[at - 1]) || isdigit((unsigned char)name[at]))
      continue;
    size_t digits = at - 1, value = 0;
    while (digits > 0 && isdigit((unsigned char)name[digits - 1]))
      digits--;
    for (size_t i = digits; i < at && value <= frame_end; i++)
      value = value * 10 + (size_t)(name[i] - '0');
    if (value == frame_end - at && value > strlen(".Frame")) {
      *ramp = name + at;
      *ramp_len = value - strlen(".Frame");
      return part;
    }
  }
  return IP_CORO_NONE;
}
