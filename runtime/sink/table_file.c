/* table_file.c - a shared function table file in the trace directory
 * (docs/trace-format.md, "Function tables"): written whole under a
 * temporary name of this process (.NAME.PID.tmp), then renamed to NAME, so
 * that a reader or another process never sees it half written; processes
 * writing the same table at once each rename a complete copy of the same
 * bytes.  A table that would pass the process's file-size limit is not
 * begun (so no SIGXFSZ), and any failure (full disk, unwritable directory)
 * removes the temporary file: the caller then writes the records into the
 * trace itself.  The descriptor is the runtime's own while open (fd_own.c:
 * above the program's numbers, which the program's close calls pass over,
 * so bytes never go into a file the program opened in its place).  One
 * table at a time (the caller holds reg_lock); no allocation, so it also
 * runs in a fatal-signal handler's flush. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sink/sink.h"
#include "trace_frame.h"

#define BUF_BYTES 65536u /* frames are gathered here and written in large writes */

static uint8_t buf[BUF_BYTES];
static size_t buf_len;
static int fd = -1;
static uint64_t written, limit;
static char tmp_path[sizeof ip_st.path + 64], final_path[sizeof ip_st.path + 64];

int ip_table_file_exists(const char *name) {
  char path[sizeof final_path];
  snprintf(path, sizeof path, "%s/%s", ip_st.dir, name);
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int put(const uint8_t *p, size_t n) {
  if (written + n > limit)
    return EFBIG;
  int e = ip_write_all(fd, (const char *)p, n);
  if (!e)
    written += n;
  return e;
}

static int drain(void) {
  int err = put(buf, buf_len);
  buf_len = 0;
  return err;
}

int ip_table_file_begin(const char *name) {
  if (fd >= 0)
    ip_table_file_abort();
  snprintf(final_path, sizeof final_path, "%s/%s", ip_st.dir, name);
  snprintf(tmp_path, sizeof tmp_path, "%s/.%s.%d.tmp", ip_st.dir, name, (int)getpid());
  struct rlimit rl;
  limit =
      getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? rl.rlim_cur : UINT64_MAX;
  unlink(tmp_path); /* left by a process of this pid that died while writing it */
  fd = ip_fd_own(open(tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (fd < 0)
    return errno;
  written = 0;
  buf_len = 0;
  uint8_t pre[IP_TRACE_PREAMBLE_LEN];
  ip_frame_preamble(pre);
  memcpy(buf, pre, sizeof pre);
  buf_len = sizeof pre;
  return 0;
}

int ip_table_file_add(const Inclprof__Record *rec) {
  if (fd < 0)
    return EBADF;
  size_t max = ip_frame_max_size(rec);
  if (max > BUF_BYTES)
    return E2BIG; /* a record never is: its strings are cut to 1000 bytes */
  if (buf_len + max > BUF_BYTES) {
    int err = drain();
    if (err)
      return err;
  }
  buf_len += ip_frame_encode(rec, buf + buf_len);
  return 0;
}

int ip_table_file_add_function(const Inclprof__Function *f, ip_function_lens *lens) {
  if (fd < 0)
    return EBADF;
  size_t max = ip_function_frame_sized(f, lens);
  if (max > BUF_BYTES)
    return E2BIG;
  if (buf_len + max > BUF_BYTES) {
    int err = drain();
    if (err)
      return err;
  }
  buf_len += ip_function_frame_put(f, lens, buf + buf_len);
  return 0;
}

/* Closes the descriptor: 0, or an errno. */
static int close_fd(void) {
  ip_fd_forget(fd); /* the program's close() would pass over it */
  int err = ip_close(fd) != 0 ? errno : 0;
  fd = -1;
  return err;
}

void ip_table_file_abort(void) {
  if (fd < 0)
    return;
  close_fd();
  unlink(tmp_path);
}

int ip_table_file_commit(void) {
  if (fd < 0)
    return EBADF;
  int err = drain();
  int close_err = close_fd();
  if (!err)
    err = close_err;
  if (!err && rename(tmp_path, final_path) != 0)
    err = errno;
  if (err)
    unlink(tmp_path);
  return err;
}
