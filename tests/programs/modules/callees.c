/* callees.c - library calls whose module the trace must name: libc's puts,
 * functions the runtime interposes (sigaction, signal, syscall, posix_spawn,
 * execv), one of an uninstrumented library linked in (helper_twice, from
 * helper.c), and, through a library opened RTLD_LOCAL, a call that library
 * makes to a function of its own.  Each is called as many times as the
 * first argument says; the program prints the object each function is in
 * (dladdr on its own address: the program's own truth), then ends as the
 * second argument says: "exit", or "abort" (a fatal signal).
 *   usage: callees N exit|abort [PLUGIN.so] */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int helper_twice(int x);
extern char **environ;

static void where(const char *name, const void *fn) {
  Dl_info di;
  if (dladdr(fn, &di) && di.dli_fname)
    printf("object %s %s\n", name, di.dli_fname);
}

static void on_usr1(int sig) { (void)sig; }

__attribute__((noinline)) static int calls(int n, const char *plugin) {
  int sum = 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  char *argv[] = {"true", NULL};
  int (*plugin_entry)(int) = NULL;
  if (plugin) {
    void *h = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
    plugin_entry = h ? (int (*)(int))dlsym(h, "plugin_entry") : NULL;
  }
  for (int i = 0; i < n; i++) {
    puts("line");
    sigaction(SIGUSR1, &sa, NULL);
    signal(SIGUSR2, SIG_IGN);
    sum += (int)syscall(SYS_getppid) > 0;
    pid_t pid;
    if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ) == 0)
      waitpid(pid, NULL, 0);
    execv("/nonexistent/program", argv); /* fails: returns */
    sum += helper_twice(i);
    if (plugin_entry)
      sum += plugin_entry(i);
  }
  return sum;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3;
  int sum = calls(n, argc > 3 ? argv[3] : NULL);
  where("puts", (const void *)puts);
  where("sigaction", (const void *)sigaction);
  where("helper_twice", (const void *)helper_twice);
  printf("sum %d\n", sum);
  fflush(stdout);
  if (argc > 2 && !strcmp(argv[2], "abort"))
    abort();
  return 0;
}
