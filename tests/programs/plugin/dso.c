/* dso.c - an instrumented shared library with a constructor and destructor. */
__attribute__((noinline)) int dso_work(int x) { return x * 2; }
__attribute__((constructor)) static void dso_init(void) { dso_work(1); }
__attribute__((destructor)) static void dso_fini(void) { dso_work(2); }
int dso_entry(int x) { return dso_work(x) + 1; }
