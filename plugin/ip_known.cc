// ip_known.cc - the program's instrumented functions as one build lists them
// (list-instrumented=FILE: the public functions each unit gives probes) and
// the next reads them (known-instrumented=FILE): a call of a function of
// another unit named there needs no call-site probes, its own probes measure
// it.
#include "ip_gcc.h"

/* The names read from known-instrumented (copies that live as long as the
 * compiler). */
static hash_set<const char *, false, nofree_string_hash> *known;
/* This unit's lines for list-instrumented, written at once when it ends. */
static struct obstack listed;
static bool listed_init;

int ip_known_read(void)
{
  if (!ip_cfg.known_path)
    return 0;
  FILE *f = fopen(ip_cfg.known_path, "r");
  if (!f) {
    error("inclprof: cannot open the known-instrumented list %qs: %m; write it with %qs in a "
          "build of the same sources",
          ip_cfg.known_path, "-fplugin-arg-inclprof-list-instrumented=FILE");
    return -1;
  }
  known = new hash_set<const char *, false, nofree_string_hash>;
  char line[4096];
  unsigned lineno = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    size_t n = strlen(line);
    if (n && line[n - 1] == '\n')
      line[--n] = '\0';
    else if (!feof(f)) {
      error("inclprof: %s:%u: line too long (a function name of at most %u characters)",
            ip_cfg.known_path, lineno, (unsigned)(sizeof line - 2));
      fclose(f);
      return -1;
    }
    if (n == 0 || line[0] == '#')
      continue;
    if (strpbrk(line, " \t")) {
      error("inclprof: %s:%u: expected one function name a line, got %qs; write the list with %qs",
            ip_cfg.known_path, lineno, line, "-fplugin-arg-inclprof-list-instrumented=FILE");
      fclose(f);
      return -1;
    }
    known->add(xstrdup(line));
  }
  bool failed = ferror(f);
  fclose(f);
  if (failed) {
    error("inclprof: cannot read the known-instrumented list %qs", ip_cfg.known_path);
    return -1;
  }
  return 0;
}

bool ip_known_instrumented(const char *name)
{
  return known && known->contains(name);
}

void ip_known_list(tree fndecl)
{
  if (!ip_cfg.list_path || !TREE_PUBLIC(fndecl))
    return;
  if (!listed_init) {
    gcc_obstack_init(&listed);
    listed_init = true;
  }
  const char *name = ip_function_name(fndecl);
  obstack_grow(&listed, name, strlen(name));
  obstack_1grow(&listed, '\n');
}

/* One write in append mode, so that the units of a parallel build do not
 * interleave their lines. */
void ip_known_write(void)
{
  if (!ip_cfg.list_path || !listed_init)
    return;
  size_t len = obstack_object_size(&listed);
  int fd = open(ip_cfg.list_path, O_WRONLY | O_APPEND | O_CREAT, 0666);
  const char *text = (const char *)obstack_finish(&listed);
  bool failed = fd < 0 || write(fd, text, len) != (ssize_t)len;
  if ((fd >= 0 && close(fd) != 0) || failed)
    error("inclprof: cannot write the list-instrumented file %qs: %m", ip_cfg.list_path);
  obstack_free(&listed, NULL);
  listed_init = false;
}
