/* young_child.c - `inclprof ctl PARENT stop --children` run while a fork
 * child's runtime has not yet bound its control socket (argv[1]: the
 * inclprof command).  The parent forks a child that _exits at once (left a
 * zombie until the end), one that execs /bin/sleep (no instrumented code:
 * it never binds a socket), and a worker that stops itself (SIGSTOP) as
 * soon as fork returns in it, then calls work() 2000 times, 0.1 ms apart:
 * stopped, its control thread cannot bind the socket.  Once the worker has
 * stopped, the parent runs the ctl command (stdout to ctl.out, stderr to
 * ctl.err, an empty environment: without the runtime preloaded it starts
 * sooner) and continues the worker when ctl has ended or 25 ms after it
 * started, whichever is first.  At the end it writes "pids": "EXITER
 * SLEEPER WORKER CTL_STATUS CTL_MS". */
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void work(unsigned long i) { sink += i; }

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  work(0); /* the runtime starts before the forks */
  pid_t exiter = fork();
  if (exiter == 0)
    _exit(0);
  siginfo_t info;
  waitid(P_PID, (id_t)exiter, &info, WEXITED | WNOWAIT); /* a zombie from now on */
  pid_t sleeper = fork();
  if (sleeper == 0) {
    execl("/bin/sleep", "sleep", "30", (char *)NULL);
    _exit(127);
  }
  pid_t worker = fork();
  if (worker == 0) {
    raise(SIGSTOP);
    for (unsigned long i = 0; i < 2000; i++) {
      work(i);
      usleep(100);
    }
    _exit(0);
  }
  int status;
  waitpid(worker, &status, WUNTRACED);
  double t0 = now_ms();
  char pid[16];
  snprintf(pid, sizeof pid, "%d", (int)getpid());
  char *ctl[] = {argv[1], "ctl", pid, "stop", "--children", NULL}, *no_env[] = {NULL};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "ctl.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, "ctl.err", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t c;
  int ctl_status = -1, ctl_ended = 0;
  if (posix_spawn(&c, argv[1], &fa, NULL, ctl, no_env) != 0)
    ctl_ended = 1;
  while (!ctl_ended && now_ms() - t0 < 25) {
    ctl_ended = waitpid(c, &ctl_status, WNOHANG) == c;
    usleep(500);
  }
  kill(worker, SIGCONT);
  if (!ctl_ended)
    waitpid(c, &ctl_status, 0);
  double took = now_ms() - t0;
  kill(sleeper, SIGTERM);
  int rc = 0;
  for (pid_t p; (p = wait(&status)) > 0;)
    if (p == worker && (!WIFEXITED(status) || WEXITSTATUS(status) != 0))
      rc = 1;
  FILE *f = fopen("pids", "w");
  if (!f)
    return 1;
  fprintf(f, "%d %d %d %d %.0f\n", (int)exiter, (int)sleeper, (int)worker,
          WIFEXITED(ctl_status) ? WEXITSTATUS(ctl_status) : -1, took);
  return fclose(f) == 0 ? rc : 1;
}
