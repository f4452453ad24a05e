/* fd_program.c - a program that looks at and closes its descriptors.
 *   fd_program lowest: whether descriptor 1 is open (fcntl(1, F_GETFD)) and
 *     the number its first open() gets, on stderr (stdout may be closed).
 *   fd_program closefrom|close_range|syscall|raw: a thread that ran work()
 *     waits; the main thread closes every descriptor from 3 up (closefrom(),
 *     close_range(), close_range through syscall(), or a close_range system
 *     call of its own that no library sees), then takes numbers again: 40
 *     open() calls, and with raw also dup2() onto every free number from 3
 *     to 959.  The thread then calls work() again and ends; the program
 *     counts how many of the descriptors it took are still open, writes to
 *     the last one it opened, and calls work() 100000 times.
 * Output: "took N, still open M, write ok, work W". */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long work_calls;
static sem_t ready, go;

__attribute__((noinline)) void work(void) { __atomic_add_fetch(&work_calls, 1, __ATOMIC_RELAXED); }

static void *thread_main(void *arg) {
  work();
  sem_post(&ready);
  sem_wait(&go);
  work();
  return arg;
}

/* close_range(3, ~0U, 0) by the program's own system call instruction. */
static long raw_close_range(void) {
#if defined(__x86_64__)
  long r;
  __asm__ volatile("syscall"
                   : "=a"(r)
                   : "a"((long)SYS_close_range), "D"(3L), "S"((long)~0U), "d"(0L)
                   : "rcx", "r11", "memory");
  return r;
#else
  return syscall(SYS_close_range, 3, ~0U, 0);
#endif
}

static int took[1024], n_took;

int main(int argc, char **argv) {
  const char *how = argc > 1 ? argv[1] : "lowest";
  if (!strcmp(how, "lowest")) {
    int open1 = fcntl(1, F_GETFD) >= 0;
    int fd = open("/dev/null", O_RDONLY);
    fprintf(stderr, "descriptor 1 %s, first open %d\n", open1 ? "open" : "closed", fd);
    return 0;
  }
  sem_init(&ready, 0, 0);
  sem_init(&go, 0, 0);
  pthread_t th;
  pthread_create(&th, NULL, thread_main, NULL);
  sem_wait(&ready);
  if (!strcmp(how, "closefrom"))
    closefrom(3);
  else if (!strcmp(how, "close_range"))
    close_range(3, ~0U, 0);
  else if (!strcmp(how, "syscall"))
    syscall(SYS_close_range, 3, ~0U, 0);
  else
    raw_close_range();
  for (int i = 0; i < 40; i++) {
    int fd = open("/dev/null", O_RDONLY);
    if (fd >= 0)
      took[n_took++] = fd;
  }
  if (!strcmp(how, "raw")) {
    int src = open("/dev/null", O_WRONLY);
    for (int fd = 3; fd < 960 && src >= 0; fd++)
      if (fcntl(fd, F_GETFD) < 0 && dup2(src, fd) == fd)
        took[n_took++] = fd;
  }
  sem_post(&go);
  pthread_join(th, NULL);
  int still = 0;
  for (int i = 0; i < n_took; i++)
    still += fcntl(took[i], F_GETFD) >= 0;
  int wfd = open("/dev/null", O_WRONLY);
  int wrote = write(wfd, "x", 1) == 1;
  for (int i = 0; i < 100000; i++)
    work();
  printf("took %d, still open %d, write %s, work %ld\n", n_took, still, wrote ? "ok" : "failed",
         work_calls);
  return 0;
}
