/* cli/record_dir.c - the trace directory of one `inclprof record` run:
 * traces of an earlier run (and the function table files they name) are
 * moved aside to DIR.old before the program
 * starts (as perf and uftrace keep their previous data), so that what the
 * directory holds afterwards is exactly this run's; then its trace files are
 * counted, with the processes of the run that are still running (a daemon,
 * a background child) and so still writing theirs. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/record_dir.h"

static int has_suffix(const char *name, const char *suffix) {
  size_t len = strlen(name), n = strlen(suffix);
  return len > n && !strcmp(name + len - n, suffix);
}

static int is_trace_name(const char *name) { return has_suffix(name, ".ipb"); }

/* A file of a run: a trace, or a function table file its traces name. */
static int is_run_file(const char *name) { return is_trace_name(name) || has_suffix(name, ".ipt"); }

/* Removes dir/snapshots: one directory per snapshot, its trace files in it. */
static void remove_snapshots(const char *dir) {
  char top[4200];
  snprintf(top, sizeof top, "%s/snapshots", dir);
  DIR *d = opendir(top);
  const struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
      continue;
    char sub[4500];
    snprintf(sub, sizeof sub, "%s/%s", top, e->d_name);
    DIR *s = opendir(sub);
    const struct dirent *f;
    while (s && (f = readdir(s)) != NULL)
      if (f->d_name[0] != '.')
        unlinkat(dirfd(s), f->d_name, 0);
    if (s)
      closedir(s);
    rmdir(sub);
  }
  if (d)
    closedir(d);
  rmdir(top);
}

/* An earlier run's snapshots (record --snapshot-if) go to dir.old/snapshots. */
static int set_aside_snapshots(const char *dir, const char *old) {
  char from[4200], to[4200];
  snprintf(from, sizeof from, "%s/snapshots", dir);
  struct stat st;
  if (stat(from, &st) != 0)
    return 0;
  if (mkdir(old, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr,
            "inclprof record: %s/ holds an earlier run's snapshots and %s/ cannot be made to "
            "keep them: %s; remove them or record with -o ANOTHER_DIR\n",
            from, old, strerror(errno));
    return -1;
  }
  remove_snapshots(old);
  snprintf(to, sizeof to, "%s/snapshots", old);
  if (rename(from, to) != 0) {
    fprintf(stderr,
            "inclprof record: cannot move the earlier snapshots %s/ to %s/: %s; remove them or "
            "record with -o ANOTHER_DIR\n",
            from, old, strerror(errno));
    return -1;
  }
  return 0;
}

int record_dir_set_aside(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return 0; /* output_dir_usable has said why, if it matters */
  char old[4096];
  snprintf(old, sizeof old, "%s.old", dir);
  int moved = 0, prepared = 0, rc = 0;
  const struct dirent *e;
  while (rc == 0 && (e = readdir(d)) != NULL) {
    if (!is_run_file(e->d_name))
      continue;
    if (!prepared++) {
      if (mkdir(old, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr,
                "inclprof record: %s/ holds traces of an earlier run and %s/ cannot be made to "
                "keep them: %s; remove them or record with -o ANOTHER_DIR\n",
                dir, old, strerror(errno));
        rc = -1;
        break;
      }
      /* DIR.old keeps one earlier run: the one before it goes. */
      DIR *o = opendir(old);
      const struct dirent *oe;
      while (o && (oe = readdir(o)) != NULL)
        if (is_run_file(oe->d_name))
          unlinkat(dirfd(o), oe->d_name, 0);
      if (o)
        closedir(o);
    }
    char from[4096], to[4096 + 256];
    snprintf(from, sizeof from, "%s/%s", dir, e->d_name);
    snprintf(to, sizeof to, "%s/%s", old, e->d_name);
    if (rename(from, to) != 0) {
      fprintf(stderr,
              "inclprof record: cannot move the earlier trace %s to %s/: %s; remove it or "
              "record with -o ANOTHER_DIR\n",
              from, old, strerror(errno));
      rc = -1;
    } else {
      moved += is_trace_name(e->d_name);
    }
  }
  closedir(d);
  if (rc == 0)
    rc = set_aside_snapshots(dir, old);
  if (moved && rc == 0)
    fprintf(stderr, "inclprof record: moved %d trace file%s of an earlier run to %s/\n", moved,
            moved > 1 ? "s" : "", old);
  return rc;
}

/* The processes of the run still running: this process's children (it is
 * their subreaper, so a daemon's detached child is among them). */
static void survivors(struct record_tally *t) {
  while (waitpid(-1, NULL, WNOHANG) > 0)
    ; /* those that have ended since */
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)getpid());
  FILE *f = fopen(path, "r");
  long pid;
  while (f && fscanf(f, "%ld", &pid) == 1) {
    if (t->running < RECORD_TALLY_PIDS)
      t->running_pids[t->running] = pid;
    t->running++;
  }
  if (f)
    fclose(f);
}

struct record_tally record_dir_tally(const char *dir,
                                     void (*each)(const char *dir, const char *name)) {
  struct record_tally t = {0};
  DIR *d = opendir(dir);
  if (!d) {
    survivors(&t);
    return t;
  }
  const struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!is_trace_name(e->d_name))
      continue;
    t.files++;
    if (each)
      each(dir, e->d_name);
  }
  closedir(d);
  survivors(&t);
  return t;
}

int record_dir_snapshots(const char *dir) {
  char top[4200];
  snprintf(top, sizeof top, "%s/snapshots", dir);
  DIR *d = opendir(top);
  int n = 0;
  const struct dirent *e;
  while (d && (e = readdir(d)) != NULL)
    n += e->d_name[0] != '.';
  if (d)
    closedir(d);
  return n;
}
