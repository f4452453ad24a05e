/* runtime_bench.c - the recording runtime's own figures (`make bench-runtime`):
 *   1. cost per instrumented call (entry + exit probe) of inclprof recording
 *      to disk, in each transition mode, vs no instrumentation and vs a bare
 *      "rdtsc + append 16 bytes to a thread-local buffer" hook;
 *   2. bytes per event on disk for that call-heavy loop;
 *   3. kevents: cost of a thread's first probe (opening its perf ring) and the
 *      extra cost of a system call while the ring is open.
 * Drives the runtime ABI directly (hand-written descriptors).  Each
 * measurement runs in a child process (the mode is per process); the parent
 * prints a Markdown table on stdout.  Usage: runtime_bench [OUT_DIR] */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inclprof_abi.h"
#include "read/trace_reader.h"

#define CALLS 20000000L

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ---- the instrumented "program" ---------------------------------------- */
static volatile unsigned long sink;
static const struct inclprof_fn d_f = {1, "f", "f", __FILE__, 1, 5, INCLPROF_FN_INSTRUMENTED,
                                       0, NULL};
static const struct inclprof_fn *const fns[] = {&d_f};
static struct inclprof_tu tu = {INCLPROF_ABI_VERSION, 1, fns, __FILE__, {0}};

__attribute__((noinline)) static void f_plain(void) { sink++; }
__attribute__((noinline)) static void f_probed(void) {
  tu.hooks.enter(&d_f);
  sink++;
  tu.hooks.exit(&d_f);
}

/* ---- the bare hook: rdtsc + 16-byte append to initial-exec TLS ------- */
struct bare_ev {
  unsigned long long tick, arg;
};
#define BARE_N 16384
static __thread struct bare_ev bare_buf[BARE_N] __attribute__((tls_model("initial-exec")));
static __thread unsigned bare_pos __attribute__((tls_model("initial-exec")));
static void bare_hook(const struct inclprof_fn *fn) {
  unsigned p = bare_pos;
  bare_pos = (p + 1) & (BARE_N - 1);
  bare_buf[p].tick = __builtin_ia32_rdtsc();
  bare_buf[p].arg = (unsigned long long)(uintptr_t)fn;
}
static void bare_exit(const struct inclprof_fn *fn) { bare_hook(fn); }

static double loop_ns(void (*fn)(void)) {
  double best = 1e30;
  for (int r = 0; r < 3; r++) {
    double t0 = now_ns();
    for (long i = 0; i < CALLS / 3; i++)
      fn();
    double per = (now_ns() - t0) / (double)(CALLS / 3);
    if (per < best)
      best = per;
  }
  return best;
}

/* ---- children ------------------------------------------------------------- */
static void *one_probe(void *arg) {
  (void)arg;
  f_probed();
  return NULL;
}

static void *syscalls(void *arg) {
  f_probed(); /* opens this thread's counter */
  double t0 = now_ns();
  for (int i = 0; i < 200000; i++)
    syscall(SYS_getppid);
  *(double *)arg = (now_ns() - t0) / 200000;
  return NULL;
}

static int child(const char *what) {
  if (!strcmp(what, "plain")) {
    printf("%.3f\n", loop_ns(f_plain));
    return 0;
  }
  if (!strcmp(what, "bare")) {
    tu.hooks.enter = bare_hook;
    tu.hooks.exit = bare_exit;
    printf("%.3f\n", loop_ns(f_probed));
    return 0;
  }
  __inclprof_register_tu(&tu);
  if (!strcmp(what, "probe")) {
    printf("%.3f\n", loop_ns(f_probed));
  } else if (!strcmp(what, "threads")) {
    double t0 = now_ns();
    for (int i = 0; i < 200; i++) {
      pthread_t th;
      pthread_create(&th, NULL, one_probe, NULL);
      pthread_join(th, NULL);
    }
    printf("%.1f\n", (now_ns() - t0) / 200);
  } else if (!strcmp(what, "syscall")) {
    double per = 0;
    pthread_t th;
    pthread_create(&th, NULL, syscalls, &per);
    pthread_join(th, NULL);
    printf("%.1f\n", per);
  }
  return 0;
}

/* Runs `self child WHAT` with INCLPROF_TRANSITIONS=mode, returns its number. */
static double run(const char *self, const char *what, const char *mode, const char *out) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "INCLPROF_OUTPUT='%s' INCLPROF_TRANSITIONS=%s '%s' child %s", out, mode,
           self, what);
  FILE *p = popen(cmd, "r");
  double v = -1;
  if (!p || fscanf(p, "%lf", &v) != 1)
    v = -1;
  if (p)
    pclose(p);
  return v;
}

/* Bytes per event of the newest trace in dir: file size / events in batches. */
static double bytes_per_event(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return -1;
  struct dirent *e;
  double best = -1;
  while ((e = readdir(d))) {
    char path[8800];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (!strstr(e->d_name, ".ipb") || stat(path, &st) != 0)
      continue;
    char err[512];
    ip_reader *r = ip_reader_open(path, err, sizeof err);
    if (!r)
      continue;
    Inclprof__Record *rec;
    unsigned long long n = 0;
    while (ip_reader_next(r, &rec, err, sizeof err) == 1)
      if (rec->body_case == INCLPROF__RECORD__BODY_EVENTS)
        n += rec->events->n_dt;
    ip_reader_close(r);
    if (n > 1000000)
      best = (double)st.st_size / (double)n;
  }
  closedir(d);
  return best;
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "child"))
    return child(argv[2]);
  const char *out = argc > 1 ? argv[1] : "bench/out/runtime-traces";
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  self[n > 0 ? n : 0] = 0;
  double plain = run(self, "plain", "none", out);
  double bare = run(self, "bare", "none", out) - plain;
  printf("## Runtime (recording to disk; %ld calls, each with an entry and an exit probe)\n\n",
         CALLS);
  printf("| measurement | ns per call | vs bare hook |\n|---|---:|---:|\n");
  printf("| no instrumentation (loop + call) | %.2f | |\n", plain);
  printf("| bare hook (rdtsc + 16-byte TLS append), added cost | %.2f | 1.00x |\n", bare);
  const char *modes[] = {"none", "kevents"};
  double bpe = -1;
  for (int i = 0; i < 2; i++) {
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s", out, modes[i]);
    mkdir(out, 0777);
    double ip = run(self, "probe", modes[i], dir) - plain;
    printf("| inclprof, transitions=%s, added cost | %.2f | %.2fx |\n", modes[i], ip, ip / bare);
    if (bpe < 0)
      bpe = bytes_per_event(dir);
  }
  printf("\nBytes per event on disk (call-heavy loop): **%.2f**\n\n", bpe);
  double th_none = run(self, "threads", "none", out), th_kev = run(self, "threads", "kevents", out);
  double sc_none = run(self, "syscall", "none", out), sc_kev = run(self, "syscall", "kevents", out);
  printf("| kevents cost | none | kevents | difference |\n|---|---:|---:|---:|\n");
  printf("| create + first probe + join of a thread (us) | %.1f | %.1f | %.1f |\n", th_none / 1000,
         th_kev / 1000, (th_kev - th_none) / 1000);
  printf("| one getppid() system call (ns) | %.1f | %.1f | %.1f |\n", sc_none, sc_kev,
         sc_kev - sc_none);
  return 0;
}
