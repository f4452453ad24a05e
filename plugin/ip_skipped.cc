// ip_skipped.cc - the unit's own functions that got no probes, and why:
// inlined into their callers (or removed as unused), excluded by a rule or
// an attribute, or smaller than min-size; and those inlined at some call
// site of the unit.  They are written into the object file as the
// non-loaded section .inclprof.skipped, one line each
//   KIND \t PRETTY NAME \t FILE \t LINE \t DETAIL \n
// (KIND: inlined, unused, excluded, small, inlined-at; DETAIL: the callers
// it was inlined into, the reason, or "g at 1 site, h at 2 sites").  The
// linker concatenates the units' sections, and the converter reads them
// from the program's files to say which functions have no rows, or rows
// without their inlined calls.
#include "ip_gcc.h"

static vec<char *> lines;

/* A field with its tabs and newlines, which would split the line, as spaces. */
static char *field(const char *s)
{
  char *f = xstrdup(s ? s : "");
  for (char *p = f; *p; p++)
    if (*p == '\t' || *p == '\n')
      *p = ' ';
  return f;
}

void ip_skipped_note(const char *kind, const char *pretty, const char *file, int line,
                     const char *detail)
{
  char *n = field(pretty), *f = field(file), *d = field(detail);
  lines.safe_push(xasprintf("%s\t%s\t%s\t%d\t%s", kind, n, f, line, d));
  free(n);
  free(f);
  free(d);
}

void ip_skipped_emit(void)
{
  if (lines.is_empty())
    return;
  fputs("\t.pushsection\t.inclprof.skipped,\"\",%progbits\n", asm_out_file);
  for (char *l : lines) {
    fputs("\t.ascii\t\"", asm_out_file);
    for (const unsigned char *p = (const unsigned char *)l; *p; p++)
      if (*p == '"' || *p == '\\')
        fprintf(asm_out_file, "\\%c", *p);
      else if (*p < 0x20 || *p >= 0x7f)
        fprintf(asm_out_file, "\\%03o", *p);
      else
        fputc(*p, asm_out_file);
    fputs("\\n\"\n", asm_out_file);
    free(l);
  }
  fputs("\t.popsection\n", asm_out_file);
  lines.release();
}
