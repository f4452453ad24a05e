/* fork_file.c - a fork child's trace file made ahead by its parent.
 * Creating a file takes this VM's file system 40-400 us in a new child,
 * where linking an unnamed one takes 50-60 us.  After a fork, the parent
 * opens an unnamed file (O_TMPFILE) in the output directory; the next
 * fork's child takes it and links it under its own name (output.c), so a
 * child's start creates no file.  At that fork the parent's copy is set
 * aside, for no other child to take, and closed when the next one is made;
 * an unnamed file no child took disappears with the parent's descriptor
 * (exit, exec), and one the child could not link (no /proc, no name free)
 * is closed there.
 * The forking thread opens it, still inside fork: a runtime thread opening
 * it would hold the lowest free descriptor number for a moment, and the
 * program's open, pipe or dup meanwhile would get another number than the
 * one it counts on.  Only once the program has installed a seccomp filter
 * (which may refuse its threads' opening files, as OpenSSH's sandbox does)
 * does the control thread open it, woken by the child; a fork then waits
 * for it.  Nothing is made before a process's first fork, except when the
 * program installs a seccomp filter: the installing thread makes one then,
 * before the filter is in force.
 * Nothing is made where the file system has no O_TMPFILE, nor under a
 * tight descriptor limit (fd_own.c's ip_fd_spare_room, fd_reserve.c), nor,
 * after a filter, without a control thread: the child creates its file
 * then. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "sink/sink.h"

enum { SPARE_WAIT_MS = 100 };

static pthread_mutex_t spare_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static int spare = -1; /* under spare_lock (fork_prepare takes it) */
static struct ip_fd_id spare_id;
static int given = -1; /* the one the last fork's child took: the parent's copy */
static struct ip_fd_id given_id;
static atomic_int wanted;    /* a fork took or dropped the spare: the next is to be made */
static int by_thread;        /* the last fork's is the control thread's to make (a filter) */
static atomic_int wake = -1; /* the control thread's eventfd */
static struct ip_fd_id wake_id;
static int wake_tried; /* by the control thread: once, where it left the program its room */
/* Under a seccomp filter, a fork waits for the thread's file (made). */
static pthread_cond_t made = PTHREAD_COND_INITIALIZER;
static int cannot_make; /* under spare_lock: the last try failed, or a wait timed out */

/* An unnamed file in the output directory, kept for the next fork's
 * child unless one is kept already. */
static void make_spare(void) {
  if (!ip_fd_spare_room())
    return;
  int fd = ip_fd_own(open(ip_st.dir, O_TMPFILE | O_WRONLY | O_APPEND | O_CLOEXEC, 0644));
  struct ip_fd_id id;
  ip_fd_identify(fd, &id);
  if (!ip_lock(&spare_lock, 0)) {
    ip_fd_release(fd, &id);
    return;
  }
  int old = given;
  struct ip_fd_id old_id = given_id;
  given = -1;
  cannot_make = fd < 0;
  if (fd >= 0 && spare < 0 && atomic_load(&ip_st.init_state) == 1) {
    spare = fd;
    spare_id = id;
    fd = -1;
  }
  pthread_cond_broadcast(&made);
  ip_unlock(&spare_lock);
  ip_fd_release(old, &old_id);
  ip_fd_release(fd, &id);
}

int ip_fork_file_wake_fd(void) {
  int fd = atomic_load(&wake);
  if (fd < 0 && !wake_tried) {
    wake_tried = 1;
    if (!ip_fd_spare_room() || !ip_fd_room_begin(1)) /* a tight limit: no file made ahead */
      return -1;
    fd = ip_fd_own(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    ip_fd_room_end(1);
    ip_fd_identify(fd, &wake_id);
    atomic_store(&wake, fd);
  }
  return fd;
}

void ip_fork_file_woken(void) {
  uint64_t n;
  int fd = atomic_load(&wake);
  if (fd >= 0 && read(fd, &n, sizeof n) < 0)
    return;
}

void ip_fork_file_make(void) {
  if (!atomic_exchange(&wanted, 0))
    return;
  make_spare();
}

void ip_fork_file_after_fork_made(void) {
  if (!by_thread)
    make_spare();
}

void ip_fork_file_before_filter(void) { make_spare(); }

/* Under a seccomp filter, which may refuse the child's creating its own
 * file, a fork waits (up to SPARE_WAIT_MS) for the control thread to make
 * the spare after the previous fork; not once a try failed (a filter on
 * every thread) or a wait timed out (the thread no longer runs). */
void ip_fork_file_fork_wait(void) {
  if (!atomic_load(&ip_st.seccomp) || atomic_load(&wake) < 0 || !ip_lock(&spare_lock, 0))
    return;
  struct timespec end;
  clock_gettime(CLOCK_MONOTONIC, &end);
  end.tv_nsec += SPARE_WAIT_MS * 1000000L;
  end.tv_sec += end.tv_nsec / 1000000000L;
  end.tv_nsec %= 1000000000L;
  while (spare < 0 && !cannot_make && atomic_load(&ip_st.init_state) == 1)
    if (pthread_cond_clockwait(&made, &spare_lock, CLOCK_MONOTONIC, &end) == ETIMEDOUT)
      cannot_make = 1;
  ip_unlock(&spare_lock);
}

/* Who makes the next file is decided before the child exists (wanted:
 * the child's wake-up finds it). */
void ip_fork_file_fork_prepare(void) {
  ip_lock(&spare_lock, 0);
  by_thread = atomic_load(&ip_st.seccomp) != 0;
  if (by_thread)
    atomic_store(&wanted, 1);
}

/* In the parent: no system call (ip_fork_file_after_fork_made, or the
 * control thread that the child wakes, makes the next file). */
void ip_fork_file_after_fork_parent(void) {
  if (spare >= 0) {
    ip_fd_release(given, &given_id); /* a fork before the thread ran: rare */
    given = spare;
    given_id = spare_id;
  }
  spare = -1;
  if (by_thread)
    atomic_store(&wanted, 1);
  ip_unlock(&spare_lock);
}

/* The child's lock, made anew (held by the parent's forking thread). */
void ip_fork_file_fork_child_lock(void) {
  ip_mutex_init(&spare_lock);
  pthread_cond_init(&made, NULL);
  cannot_make = 0;
}

int ip_fork_file_take(void) {
  int fd = spare;
  spare = -1;
  if (given >= 0)
    ip_fd_release(given, &given_id);
  given = -1;
  atomic_store(&wanted, 0);
  int w = atomic_exchange(&wake, -1); /* the parent's: its thread makes the next file */
  if (w >= 0 && by_thread) {
    ssize_t n = write(w, &(uint64_t){1}, sizeof(uint64_t));
    (void)n;
  }
  ip_fd_release(w, &wake_id); /* the child's own thread makes its own */
  wake_tried = 0;
  return fd;
}

int ip_fork_file_link(int fd, int dir, const char *name) {
  char proc[40];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  return linkat(AT_FDCWD, proc, dir, name, AT_SYMLINK_FOLLOW);
}
