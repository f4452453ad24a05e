/* cli/record_notes.c - the runtime's lines for the user in a `record` run:
 * the runtime writes them to a file of record's (INCLPROF_RECORD_NOTES)
 * rather than to the program's stderr, which is often a pipe its parent
 * parses, and record gives them in its summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/record_notes.h"
#include "settings_names.h"

#define MAX_SAID 32 /* distinct lines given; more are counted */

void record_notes_make(struct record_notes *n) {
  n->unrecorded[0] = 0;
  const char *tmp = getenv("TMPDIR");
  snprintf(n->path, sizeof n->path, "%s/inclprof-record-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemp(n->path);
  if (fd < 0 || setenv(IP_ENV_RECORD_NOTES, n->path, 1) != 0) {
    if (fd >= 0) {
      close(fd);
      unlink(n->path);
    }
    n->path[0] = 0;
    return;
  }
  close(fd);
}

/* line ("inclprof: CAUSE; the program continues unprofiled") as CAUSE */
static void take_cause(struct record_notes *n, const char *line, size_t cut) {
  const char *cause = !strncmp(line, "inclprof: ", 10) ? line + 10 : line;
  size_t len = cut - (size_t)(cause - line);
  snprintf(n->unrecorded, sizeof n->unrecorded, "%.*s", (int)len, cause);
}

void record_notes_take(struct record_notes *n) {
  n->unrecorded[0] = 0;
  n->n_unrecorded = 0;
  if (!n->path[0])
    return;
  FILE *f = fopen(n->path, "r");
  if (f) {
    char line[1100];
    char *said[MAX_SAID];
    int nsaid = 0, more = 0;
    while (fgets(line, sizeof line, f)) {
      line[strcspn(line, "\n")] = 0;
      if (!strncmp(line, "inclprof: recording stopped", 27) || !line[0])
        continue;
      const char *tail = strstr(line, "; the program continues unprofiled");
      if (tail) {
        if (!n->n_unrecorded++)
          take_cause(n, line, (size_t)(tail - line));
        continue;
      }
      int seen = 0;
      for (int i = 0; i < nsaid && !seen; i++)
        seen = !strcmp(said[i], line);
      if (seen)
        continue;
      char *copy = nsaid < MAX_SAID ? strdup(line) : NULL;
      if (!copy) {
        more++;
        continue;
      }
      said[nsaid++] = copy;
      fprintf(stderr, "%s\n", line);
    }
    if (more)
      fprintf(stderr, "inclprof record: and %d more line%s from the runtime\n", more,
              more > 1 ? "s" : "");
    for (int i = 0; i < nsaid; i++)
      free(said[i]);
    fclose(f);
  }
  unlink(n->path);
}
