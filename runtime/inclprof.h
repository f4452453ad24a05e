/* inclprof.h - control a program's recording from inside it (installed).
 *
 *   inclprof_stop()            pause recording (a PAUSE event; probes become
 *                              skipped for every unit until inclprof_start)
 *   inclprof_start()           resume recording (a RESUME event)
 *   inclprof_mark("phase 2")   a named instant in this thread's timeline
 *   inclprof_thread_name("io") name this thread in the trace (and for the OS)
 *
 * The functions are declared weak: a program that calls them through the
 * INCLPROF_* macros below links and runs without the runtime (the calls then
 * do nothing).  Calling the functions directly requires -linclprof. */
#ifndef INCLPROF_H
#define INCLPROF_H

#ifdef __cplusplus
extern "C" {
#endif

void inclprof_start(void) __attribute__((weak));
void inclprof_stop(void) __attribute__((weak));
void inclprof_mark(const char *name) __attribute__((weak));
void inclprof_thread_name(const char *name) __attribute__((weak));

#define INCLPROF_START()           (inclprof_start ? inclprof_start() : (void)0)
#define INCLPROF_STOP()            (inclprof_stop ? inclprof_stop() : (void)0)
#define INCLPROF_MARK(name)        (inclprof_mark ? inclprof_mark(name) : (void)0)
#define INCLPROF_THREAD_NAME(name) (inclprof_thread_name ? inclprof_thread_name(name) : (void)0)

#ifdef __cplusplus
}
#endif

#endif
