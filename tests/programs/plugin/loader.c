/* loader.c - dlopen an instrumented library, call into it, dlclose it. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
  if (argc < 2)
    return 2;
  void *h = dlopen(argv[1], RTLD_NOW);
  if (!h) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  int (*entry)(int) = (int (*)(int))dlsym(h, "dso_entry");
  int r = entry ? entry(20) : -1;
  dlclose(h);
  return r == 41 ? 0 : 1;
}
