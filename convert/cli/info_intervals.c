/* cli/info_intervals.c - the DIR/<pid>.intervals/ directories of a trace
 * directory (record --aggregate --interval: one profile per interval,
 * NNNNNN.ipb): counted for record's summary, listed by `inclprof info`. */
#include "cli/info_intervals.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/util.h"

static const char suffix[] = ".intervals";

/* Whether name is <pid>.intervals and a directory in dir. */
static int is_interval_dir(const char *dir, const char *name) {
  size_t n = strlen(name), s = sizeof suffix - 1;
  if (n <= s || name[0] == '.' || strcmp(name + n - s, suffix) != 0)
    return 0;
  char path[4600];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The profiles (NAME.ipb, not hidden) in dir/name. */
static int count_profiles(const char *dir, const char *name) {
  char path[4600];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  DIR *d = opendir(path);
  int n = 0;
  const struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    n += e->d_name[0] != '.' && len > 4 && strcmp(e->d_name + len - 4, ".ipb") == 0;
  }
  if (d)
    closedir(d);
  return n;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* dir's interval directories' names, sorted: *n of them, to free with free_names. */
static char **names_of(const char *dir, size_t *n) {
  *n = 0;
  DIR *d = opendir(dir);
  if (!d)
    return NULL;
  char **names = NULL;
  const struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (is_interval_dir(dir, e->d_name)) {
      names = ip_must_realloc(names, *n + 1, sizeof *names);
      names[(*n)++] = ip_must_strdup(e->d_name);
    }
  closedir(d);
  if (*n)
    qsort(names, *n, sizeof *names, by_name);
  return names;
}

static void free_names(char **names, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(names[i]);
  free(names);
}

int interval_dirs(const char *dir, int *files, char *first, size_t len) {
  size_t n;
  char **names = names_of(dir, &n);
  *files = 0;
  for (size_t i = 0; i < n; i++)
    *files += count_profiles(dir, names[i]);
  snprintf(first, len, "%s%s%s", n ? dir : "", n ? "/" : "", n ? names[0] : "");
  free_names(names, n);
  return (int)n;
}

void info_intervals(const char *dir) {
  size_t n;
  char **names = names_of(dir, &n);
  for (size_t i = 0; i < n; i++) {
    int files = count_profiles(dir, names[i]);
    printf("intervals:    %d profile%s in %s/%s/ (one per interval: 'inclprof report "
           "%s/%s/NNNNNN.ipb' reads one)\n",
           files, files == 1 ? "" : "s", dir, names[i], dir, names[i]);
  }
  if (n)
    printf("\n");
  free_names(names, n);
}
