/* spawn_signals.c - a parent with handlers of its own for SIGUSR1 and SIGTERM
 * starts /bin/true ROUNDS times the ways a runtime like CPython's does: a
 * vfork child that resets every handler (64 sigaction calls) before execve,
 * posix_spawn with POSIX_SPAWN_SETSIGDEF, or a clone(CLONE_VM|CLONE_VFORK)
 * child that does what the vfork child does.  After each start the parent
 * raises both signals and calls work(); it prints how often its handlers
 * ran and how often it called work(), and exits with the number of children
 * that failed.
 * Usage: spawn_signals vfork|spawn|clone ROUNDS */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t usr1, term;
static long work_calls;

static void on_usr1(int s) {
  (void)s;
  usr1++;
}

static void on_term(int s) {
  (void)s;
  term++;
}

__attribute__((noinline)) void work(void) { work_calls++; }

/* The child, between its start and the exec: every handler back to the
 * default, as the child of a spawn must. */
__attribute__((noinline)) void reset_handlers(void) {
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; s++)
    if (s != SIGKILL && s != SIGSTOP)
      sigaction(s, &dfl, NULL);
}

static char *true_argv[] = {"true", NULL};
static char *no_env[] = {NULL};

__attribute__((noinline)) void child_exec(void) {
  reset_handlers();
  execve("/bin/true", true_argv, no_env);
  _exit(127);
}

static int clone_child(void *arg) {
  (void)arg;
  child_exec();
  return 127;
}

__attribute__((noinline)) pid_t start_vfork(void) {
  pid_t pid = vfork();
  if (pid == 0)
    child_exec();
  return pid;
}

__attribute__((noinline)) pid_t start_spawn(void) {
  posix_spawnattr_t a;
  posix_spawnattr_init(&a);
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&a, &all);
  posix_spawnattr_setsigmask(&a, &none);
  posix_spawnattr_setflags(&a, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  pid_t pid;
  int rc = posix_spawn(&pid, "/bin/true", NULL, &a, true_argv, no_env);
  posix_spawnattr_destroy(&a);
  return rc == 0 ? pid : -1;
}

static char clone_stack[64 * 1024] __attribute__((aligned(16)));

__attribute__((noinline)) pid_t start_clone(void) {
  return clone(clone_child, clone_stack + sizeof clone_stack, CLONE_VM | CLONE_VFORK | SIGCHLD,
               NULL);
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  sa.sa_handler = on_term;
  sigaction(SIGTERM, &sa, NULL);
  int rounds = atoi(argv[2]), failed = 0;
  for (int i = 0; i < rounds; i++) {
    pid_t pid = !strcmp(argv[1], "vfork")   ? start_vfork()
                : !strcmp(argv[1], "spawn") ? start_spawn()
                                            : start_clone();
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
      failed++;
    raise(SIGUSR1);
    raise(SIGTERM);
    work();
  }
  printf("children failed %d, handler calls usr1 %d term %d, work %ld\n", failed, (int)usr1,
         (int)term, work_calls);
  return failed;
}
