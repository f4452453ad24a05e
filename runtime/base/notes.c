/* notes.c - the runtime's lines for the user (a setting it does not
 * understand, a trace it cannot write, recording stopped at a size limit):
 * under `inclprof record` in record's notes file (INCLPROF_RECORD_NOTES)
 * only, which record's summary gives, never on the program's stderr, which
 * is often a pipe its parent parses; without record on the program's
 * stderr, unless the trace itself records it (a failure while an exec ends
 * the trace).  The notes file is kept open once the trace is, so that a
 * process that chroots or changes its user can still write its line there. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

static int kept = -1; /* the notes file, kept open by ip_notes_keep */

static int open_notes(void) {
  const char *notes = ip_set.record_notes;
  return notes && *notes ? open(notes, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW) : -1;
}

void ip_notes_keep(void) {
  if (kept >= 0)
    return;
  int fd = open_notes();
  kept = fd >= 0 ? ip_fd_own(fd) : -1;
}

int ip_under_record(void) {
  const char *notes = ip_set.record_notes;
  return notes && *notes;
}

void ip_notes_line(const char *line, int on_stderr) {
  size_t n = strlen(line);
  if (!ip_under_record()) {
    if (on_stderr)
      ip_write_all(2, line, n);
    return;
  }
  int fd = kept >= 0 ? kept : open_notes();
  if (fd >= 0) {
    ip_write_all(fd, line, n);
    if (fd != kept)
      ip_close(fd);
  }
}
