/* env_carry.c - the runtime's environment carried into the processes the
 * program starts with an environment of its own choosing (execve, execvpe,
 * fexecve, posix_spawn ... with an envp): every runtime setting the process
 * started with (the INCLPROF_* names settings.c reads, no other), and the
 * runtime's entry in LD_PRELOAD, are added to that environment where it
 * lacks them.  A value the program put there itself is kept.  An empty
 * environment (envp = {NULL}) is passed on as it is: the program asked for
 * a process that sees no variable at all, so that one is not followed.  INCLPROF_CARRY_ENV=0 turns this off (children that
 * inherit the program's environment are recorded all the same).  The
 * settings are read when the library is loaded, whether or not the process
 * runs instrumented code itself (a launcher that is not built with the
 * plugin carries them too).  The run's id (INCLPROF_RUN) is carried the
 * same way, so that every process of one run says it belongs to it.
 * Building the new environment allocates nothing: the caller holds the
 * arrays on its stack (an exec may run in the child of a threaded fork).
 * An environment that cannot be read whole (an address not mapped, a list
 * with no NULL before unmapped memory) is passed on as it is, for the
 * kernel to refuse with EFAULT. */
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "settings_names.h"

#define MAX_CARRIED 32
static char *carried[MAX_CARRIED]; /* "INCLPROF_X=value", as at start */
static unsigned n_carried;
static char *preload; /* the LD_PRELOAD entry naming this library, or NULL */
static int carry_off; /* INCLPROF_CARRY_ENV=0 */

/* The LD_PRELOAD entry (':' or ' ' separated) that is this library. */
static char *own_preload_entry(const char *list) {
  struct ip_object self;
  if (!list || !ip_object_of((uintptr_t)own_preload_entry, &self, 0) || !self.name[0])
    return NULL;
  const char *base = strrchr(self.name, '/');
  base = base ? base + 1 : self.name;
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ": ");
    const char *slash = memrchr(p, '/', len);
    const char *name = slash ? slash + 1 : p;
    if (len && (size_t)(p + len - name) == strlen(base) && !memcmp(name, base, strlen(base)))
      return ip_strndup(p, len);
    p += len;
    p += *p != 0;
  }
  return NULL;
}

/* At load, before the program can change its environment. */
__attribute__((constructor)) static void env_carry_init(void) {
  extern char **environ;
  ip_settings_load();
  const char *off = ip_set.carry_env;
  if (off && !strcmp(off, "0")) {
    carry_off = 1;
    return;
  }
  for (char **e = environ; e && *e && n_carried < MAX_CARRIED; e++)
    if (ip_setting_named(*e))
      carried[n_carried] = ip_strdup(*e), n_carried += carried[n_carried] != NULL;
  preload = own_preload_entry(getenv("LD_PRELOAD"));
}

/* The value of NAME (with its '=', length len) in envp, or NULL. */
static const char *lookup(char *const envp[], const char *name, size_t len) {
  for (char *const *e = envp; e && *e; e++)
    if (!strncmp(*e, name, len))
      return *e + len;
  return NULL;
}

/* Does the colon/space list hold exactly the entry `want`? */
static int list_has(const char *list, const char *want) {
  size_t wl = strlen(want);
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ": ");
    if (len == wl && !memcmp(p, want, wl))
      return 1;
    p += len;
    p += *p != 0;
  }
  return 0;
}

static char run_entry[96]; /* "INCLPROF_RUN=ID" */

void ip_run_begin(uint64_t start_unix_ns) {
  const char *given = ip_set.run;
  if (given && *given)
    snprintf(run_entry, sizeof run_entry, IP_ENV_RUN "=%.80s", given);
  else
    snprintf(run_entry, sizeof run_entry, IP_ENV_RUN "=%ld-%llx", (long)getpid(),
             (unsigned long long)start_unix_ns);
  for (unsigned i = 0; i < n_carried; i++)
    if (!strncmp(carried[i], IP_ENV_RUN "=", sizeof IP_ENV_RUN))
      return;
  if (n_carried < MAX_CARRIED && !carry_off)
    carried[n_carried++] = run_entry;
}

const char *ip_run_id(void) { return run_entry + 13; }

int ip_env_carry_size(char *const envp[], size_t *n_ptrs, size_t *n_chars) {
  if (envp && !ip_mem_strings_readable(envp)) {
    *n_ptrs = *n_chars = 1;
    return 0;
  }
  size_t n = 0;
  for (char *const *e = envp; e && *e; e++)
    n++;
  *n_ptrs = n + n_carried + 2;
  const char *old = preload ? lookup(envp, "LD_PRELOAD=", 11) : NULL;
  *n_chars = preload ? strlen("LD_PRELOAD=") + strlen(preload) + 2 + (old ? strlen(old) : 0) : 1;
  return 1;
}

char *const *ip_env_carry(char *const envp[], char **ptrs, char *chars) {
  if ((!n_carried && !preload) || !envp || !envp[0])
    return envp;
  size_t n = 0;
  for (char *const *e = envp; e && *e; e++)
    if (!preload || strncmp(*e, "LD_PRELOAD=", 11))
      ptrs[n++] = *e;
  for (unsigned i = 0; i < n_carried; i++) {
    size_t name_len = (size_t)(strchr(carried[i], '=') - carried[i]) + 1;
    if (!lookup(envp, carried[i], name_len))
      ptrs[n++] = carried[i];
  }
  if (preload) {
    const char *old = lookup(envp, "LD_PRELOAD=", 11);
    strcpy(chars, "LD_PRELOAD=");
    if (old && list_has(old, preload)) {
      strcat(chars, old);
    } else {
      strcat(chars, preload);
      if (old && *old) {
        strcat(chars, ":");
        strcat(chars, old);
      }
    }
    ptrs[n++] = chars;
  }
  ptrs[n] = NULL;
  return ptrs;
}
