/* cli/cmd_record.c - `inclprof record [-o DIR] [--transitions MODE] [--sample-hz N]
 * -- PROG [ARGS...]`: runs PROG with the runtime preloaded (libinclprof.so
 * found next to this command, or in ../lib), tracing into DIR, and exits
 * with PROG's status (128+N when killed by signal N).  As root it mounts
 * tracefs when it is missing, so that the kevents mode can find its
 * tracepoint. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/commands.h"
#include "read/trace_tail.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: inclprof record [-o DIR] [--transitions MODE] [--sample-hz N] [--] PROG [ARGS...]\n"
          "Runs PROG with the inclprof runtime preloaded and writes one trace per process.\n"
          "  -o, --output DIR     trace directory (default: inclprof.data)\n"
          "  --transitions MODE   auto (default), pmu, kevents or none: how kernel activity\n"
          "                       (system calls, context switches, page faults) is detected\n"
          "  --sample-hz N        also take N CPU-time samples per second per thread\n"
          "  -h, --help           this text\n"
          "The exit status is PROG's (128+N if a signal N ended it).\n");
}

/* The runtime library: next to this executable (build tree) or in ../lib. */
static int find_runtime(char *out, size_t len) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0)
    return -1;
  self[n] = 0;
  char *slash = strrchr(self, '/');
  if (!slash)
    return -1;
  *slash = 0;
  static const char *const suffixes[] = {"/libinclprof.so", "/../lib/libinclprof.so"};
  for (size_t i = 0; i < 2; i++) {
    snprintf(out, len, "%.4000s%s", self, suffixes[i]);
    if (access(out, R_OK) == 0)
      return 0;
  }
  return -1;
}

static void mount_tracefs_if_missing(void) {
  static const char *const ids[] = {"/sys/kernel/tracing/events/raw_syscalls/sys_enter/id",
                                    "/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id"};
  if (access(ids[0], R_OK) == 0 || access(ids[1], R_OK) == 0 || geteuid() != 0)
    return;
  if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0)
    fprintf(stderr, "inclprof: mounted tracefs on /sys/kernel/tracing (kevents needs the "
                    "raw_syscalls:sys_enter tracepoint)\n");
}

static int set_env(const char *name, const char *value) {
  if (setenv(name, value, 1) != 0) {
    fprintf(stderr, "inclprof record: cannot set %s: %s\n", name, strerror(errno));
    return -1;
  }
  return 0;
}

/* A trace this run wrote whose recording stopped early: the runtime's own
 * words, from the file's Trailer. */
static void say_if_stopped_early(const char *dir, const char *name) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%.2000s/%.1000s", dir, name);
  Inclprof__Record *rec = ip_trace_tail_trailer(path);
  if (!rec)
    return;
  const Inclprof__Trailer *t = rec->trailer;
  if (t->write_error && *t->write_error)
    fprintf(stderr,
            "inclprof record: %s: recording stopped early: %s, after %llu events; the trace "
            "before that is complete\n",
            path, t->write_error, (unsigned long long)t->events);
  inclprof__record__free_unpacked(rec, NULL);
}

/* Trace files in dir modified at or after `since`: what this run wrote.
 * Each one whose recording stopped early is named on stderr. */
static int traces_since(const char *dir, time_t since) {
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  int n = 0;
  const struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    struct stat st;
    if (len > 4 && !strcmp(e->d_name + len - 4, ".ipb") &&
        fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_mtime >= since) {
      n++;
      say_if_stopped_early(dir, e->d_name);
    }
  }
  closedir(d);
  return n;
}

/* The trace directory exists (or is made) and this user may create files in
 * it: else there is no point in running the program. */
static int output_dir_usable(const char *dir) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "inclprof record: cannot create the trace directory %s: %s; choose another "
                    "with -o DIR\n", dir, strerror(errno));
    return 0;
  }
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(stderr, "inclprof record: %s is not a directory; choose another with -o DIR\n", dir);
    return 0;
  }
  if (access(dir, W_OK | X_OK) != 0) {
    fprintf(stderr, "inclprof record: cannot write trace files in %s: %s; choose another with "
                    "-o DIR\n", dir, strerror(errno));
    return 0;
  }
  return 1;
}

int cmd_record(int argc, char **argv) {
  const char *dir = "inclprof.data", *mode = NULL, *hz = NULL;
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--")) {
      i++;
      break;
    }
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    }
    const char **slot = !strcmp(a, "-o") || !strcmp(a, "--output") ? &dir
                        : !strcmp(a, "--transitions")               ? &mode
                        : !strcmp(a, "--sample-hz")                 ? &hz
                                                                    : NULL;
    if (slot) {
      if (i + 1 >= argc) {
        fprintf(stderr, "inclprof record: %s needs a value (try --help)\n", a);
        return 2;
      }
      *slot = argv[++i];
      continue;
    }
    if (a[0] == '-') {
      fprintf(stderr, "inclprof record: unknown option '%s' (try --help)\n", a);
      return 2;
    }
    break;
  }
  if (i >= argc) {
    fprintf(stderr, "inclprof record: no program to run (try --help)\n");
    return 2;
  }
  if (mode && strcmp(mode, "auto") && strcmp(mode, "pmu") && strcmp(mode, "kevents") &&
      strcmp(mode, "none")) {
    fprintf(stderr, "inclprof record: --transitions '%s': expected auto, pmu, kevents or none\n",
            mode);
    return 2;
  }
  if (hz) {
    char *end;
    long v = strtol(hz, &end, 10);
    if (*hz == 0 || *end || v < 1 || v > 100000) {
      fprintf(stderr, "inclprof record: --sample-hz '%s': expected a rate in 1..100000\n", hz);
      return 2;
    }
  }
  if (!output_dir_usable(dir))
    return 2;
  char lib[PATH_MAX + 64];
  if (find_runtime(lib, sizeof lib) != 0) {
    fprintf(stderr, "inclprof record: libinclprof.so not found next to this command or in ../lib\n");
    return 2;
  }
  const char *old = getenv("LD_PRELOAD");
  char preload[3 * PATH_MAX];
  snprintf(preload, sizeof preload, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
  if (set_env("LD_PRELOAD", preload) || set_env("INCLPROF_OUTPUT", dir) ||
      (mode && set_env("INCLPROF_TRANSITIONS", mode)) || (hz && set_env("INCLPROF_SAMPLE_HZ", hz)))
    return 2;
  if (!mode || strcmp(mode, "none"))
    mount_tracefs_if_missing();

  /* Like a shell: the terminal's ^C / ^\ are for the program. */
  struct sigaction ign, old_int, old_quit;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ign, &old_int);
  sigaction(SIGQUIT, &ign, &old_quit);
  time_t started = time(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "inclprof record: cannot fork: %s\n", strerror(errno));
    return 2;
  }
  if (pid == 0) {
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    execvp(argv[i], argv + i);
    fprintf(stderr, "inclprof record: cannot run %s: %s\n", argv[i], strerror(errno));
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) {
      fprintf(stderr, "inclprof record: waitpid: %s\n", strerror(errno));
      return 2;
    }
  int status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 2;
  int n = traces_since(dir, started);
  if (n)
    fprintf(stderr, "inclprof: %d trace file%s written to %s/ (status %d)\n", n, n > 1 ? "s" : "",
            dir, status);
  else
    fprintf(stderr,
            "inclprof record: no trace was written to %s/: %s ran no code compiled with the "
            "plugin (status %d)\n",
            dir, argv[i], status);
  return status;
}
