/* abi_driver.c - a stand-in for plugin-instrumented code: hand-written
 * descriptors and a translation unit registered with the runtime through the
 * ABI of include/inclprof/inclprof_abi.h, then probes called through tu.hooks.
 * Usage: abi_driver SCENARIO [ARG]; each scenario ends the process a
 * different way or exercises one runtime duty (see main). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inclprof_abi.h"

void __inclprof_register_tu(struct inclprof_tu *tu) __attribute__((weak));
void __inclprof_unregister_tu(struct inclprof_tu *tu) __attribute__((weak));

/* A probe as the plugin emits it: the hook is called only when it is set. */
#define PROBE(hook, arg)                                                                           \
  do {                                                                                             \
    if (tu.hooks.hook)                                                                             \
      tu.hooks.hook(arg);                                                                          \
  } while (0)

static void work(void);
static void leaf(void);
static const struct inclprof_fn d_main = {
    11, "main", "main", __FILE__, 1, 10, INCLPROF_FN_INSTRUMENTED, 0, NULL};
static const struct inclprof_fn d_work = {12,
                                          "work",
                                          "work",
                                          __FILE__,
                                          2,
                                          10,
                                          INCLPROF_FN_INSTRUMENTED | INCLPROF_FN_LOCAL,
                                          0,
                                          (const void *)work};
static const struct inclprof_fn d_leaf = {13,
                                          "leaf",
                                          "leaf",
                                          __FILE__,
                                          3,
                                          10,
                                          INCLPROF_FN_INSTRUMENTED | INCLPROF_FN_LOCAL,
                                          0,
                                          (const void *)leaf};
static const struct inclprof_fn d_write = {14, "write", "write", "", 0, 0, INCLPROF_FN_CALLEE,
                                           0,  NULL};
static const struct inclprof_fn *const fns[] = {&d_main, &d_work, &d_leaf, &d_write};
static struct inclprof_tu tu = {INCLPROF_ABI_VERSION, 4, fns, __FILE__, {0}};

__attribute__((constructor(101))) static void reg(void) {
  if (__inclprof_register_tu)
    __inclprof_register_tu(&tu);
}

static volatile unsigned long sink;

static void leaf(void) {
  PROBE(enter, &d_leaf);
  for (int i = 0; i < 50; i++)
    sink += (unsigned long)i;
  PROBE(exit, &d_leaf);
}

static void work(void) {
  PROBE(enter, &d_work);
  leaf();
  PROBE(exit, &d_work);
}

/* Pure computation between two probes, then a write() between the next two:
 * the kevents test expects T=0 on the first interval and T=1 on the second. */
static void compute_then_syscall(void) {
  PROBE(enter, &d_work);
  for (int i = 0; i < 100000; i++)
    sink += (unsigned long)i;
  PROBE(call, &d_write);
  if (write(1, "", 0) < 0)
    sink++;
  PROBE(ret, &d_write);
  PROBE(exit, &d_work);
}

static void *thread_main(void *arg) {
  (void)arg;
  for (int i = 0; i < 1000; i++)
    work();
  return NULL;
}

/* One of the threads that outnumber the CPUs: ARG times 5 calls of work. */
static void *crowd_main(void *arg) {
  int calls = *(const int *)arg * 5;
  for (int i = 0; i < calls; i++)
    work();
  return NULL;
}

static volatile sig_atomic_t handled;
static void on_usr1(int sig) {
  (void)sig;
  work(); /* probes inside a signal handler */
  handled++;
}

static void indirect(void (*fp)(void)) {
  PROBE(call_indirect, (const void *)fp);
  fp();
  PROBE(ret_indirect, (const void *)fp);
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "return";
  PROBE(enter, &d_main);
  int n = argc > 2 ? atoi(argv[2]) : 100;
  for (int i = 0; i < n; i++)
    work();
  if (!strcmp(what, "return")) {
    /* falls through to the return below */
  } else if (!strcmp(what, "exit")) {
    exit(3);
  } else if (!strcmp(what, "_exit")) {
    _exit(4);
  } else if (!strcmp(what, "exec")) {
    execl("/bin/true", "true", (char *)NULL);
    return 99;
  } else if (!strcmp(what, "exec-fail")) {
    execl("/nonexistent/prog", "prog", (char *)NULL);
    work();
  } else if (!strcmp(what, "abort")) {
    abort();
  } else if (!strcmp(what, "segv")) {
    int *volatile nowhere = NULL;
    *nowhere = 1; /* cppcheck-suppress nullPointer ; the point of the scenario */
  } else if (!strcmp(what, "term")) {
    kill(getpid(), SIGTERM);
  } else if (!strcmp(what, "pipe")) { /* a write to a pipe whose reader is gone */
    int fds[2];
    if (pipe(fds) != 0)
      return 7;
    close(fds[0]);
    if (write(fds[1], "x", 1) < 0)
      return 8;
  } else if (!strcmp(what, "alarm")) { /* an alarm nobody handles: a watchdog */
    alarm(1);
    pause();
  } else if (!strcmp(what, "rtmin1")) { /* a real-time signal left at its default */
    kill(getpid(), SIGRTMIN + 1);
  } else if (!strcmp(what, "kill")) {
    kill(getpid(), SIGKILL);
  } else if (!strcmp(what, "fork")) {
    pid_t pid = fork();
    if (pid == 0) {
      for (int i = 0; i < 7; i++)
        work();
      PROBE(exit, &d_main);
      exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
  } else if (!strcmp(what, "fork-busy")) { /* the child records n calls too */
    pid_t pid = fork();
    if (pid == 0) {
      for (int i = 0; i < n; i++)
        work();
      tu.hooks.exit(&d_main);
      exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
  } else if (!strcmp(what, "vfork")) {
    pid_t pid = vfork();
    if (pid == 0) {
      execl("/bin/true", "true", (char *)NULL);
      _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
      return 5;
  } else if (!strcmp(what, "thread")) {
    pthread_t th;
    pthread_create(&th, NULL, thread_main, NULL);
    pthread_join(th, NULL);
  } else if (!strcmp(what, "crowd")) { /* one thread more than the CPUs, all busy */
    cpu_set_t set;
    int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    pthread_t th[65];
    int threads = cpus < 64 ? cpus + 1 : 65;
    for (int i = 0; i < threads; i++)
      pthread_create(&th[i], NULL, crowd_main, &n);
    for (int i = 0; i < threads; i++)
      pthread_join(th[i], NULL);
  } else if (!strcmp(what, "syscall")) {
    compute_then_syscall();
  } else if (!strcmp(what, "signal")) {
    signal(SIGUSR1, on_usr1);
    for (int i = 0; i < 2000; i++) {
      work();
      if (i % 10 == 0)
        raise(SIGUSR1);
    }
    if (handled != 200)
      return 6;
  } else if (!strcmp(what, "indirect")) {
    indirect(leaf);
    pid_t (*volatile gp)(void) = getpid; /* not instrumented: named by dladdr */
    PROBE(call_indirect, (const void *)gp);
    sink += (unsigned long)gp();
    PROBE(ret_indirect, (const void *)gp);
  } else if (!strcmp(what, "busy")) {
    for (long i = 0; i < 20000000L; i++)
      sink += (unsigned long)i;
  } else {
    fprintf(stderr, "abi_driver: unknown scenario %s\n", what);
    return 2;
  }
  PROBE(exit, &d_main);
  return 0;
}
