/* export/json.c - JSON string literals with escaping and UTF-8 repair, and
 * the digit pairs of decimal integers. */
#include "export/json.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s, or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s) {
  uint32_t cp;
  size_t n;
  if (s[0] < 0x80)
    return 1;
  if ((s[0] & 0xE0) == 0xC0) {
    n = 2;
    cp = s[0] & 0x1F;
  } else if ((s[0] & 0xF0) == 0xE0) {
    n = 3;
    cp = s[0] & 0x0F;
  } else if ((s[0] & 0xF8) == 0xF0) {
    n = 4;
    cp = s[0] & 0x07;
  } else {
    return 0;
  }
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80)
      return 0;
    cp = cp << 6 | (s[i] & 0x3F);
  }
  static const uint32_t min_cp[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min_cp[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

void ip_json_string(FILE *out, const char *s) {
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  putc('"', out);
  while (*p) {
    size_t n = utf8_len(p);
    if (!n) {
      fputs("\\ufffd", out);
      p++;
    } else if (*p == '"' || *p == '\\') {
      putc('\\', out);
      putc(*p++, out);
    } else if (*p < 0x20) {
      static const char controls[] = "\b\f\n\r\t", letters[] = "bfnrt";
      const char *esc = strchr(controls, *p); /* *p != 0 here */
      if (esc)
        fprintf(out, "\\%c", letters[esc - controls]);
      else
        fprintf(out, "\\u%04x", *p);
      p++;
    } else {
      fwrite(p, 1, n, out);
      p += n;
    }
  }
  putc('"', out);
}

const char ip_json_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536"
    "37383940414243444546474849505152535455565758596061626364656667686970717273"
    "7475767778798081828384858687888990919293949596979899";
