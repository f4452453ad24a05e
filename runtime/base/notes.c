/* notes.c - the runtime's lines for the user: one on the program's stderr,
 * and under `inclprof record` the same line in record's notes file
 * (INCLPROF_RECORD_NOTES), so that record's summary gives the runtime's
 * reason rather than guessing one.  A line the trace itself records (a
 * failure while an exec ends the trace) goes to the notes file only: the
 * program's stderr is often a pipe its parent parses. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

void ip_notes_line(const char *line, int on_stderr) {
  size_t n = strlen(line);
  if (on_stderr)
    ip_write_all(2, line, n);
  const char *notes = ip_set.record_notes;
  int fd = notes && *notes ? open(notes, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW) : -1;
  if (fd >= 0) {
    ip_write_all(fd, line, n);
    ip_close(fd);
  }
}
