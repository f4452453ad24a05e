/* clock.h - the runtime's tick source, inlined into the probes: rdtsc on
 * x86-64, the virtual counter on AArch64, CLOCK_MONOTONIC (ns) elsewhere.
 * ip_tick is ordered after the code before it; ip_tick_unfenced is the bare
 * read (INCLPROF_CLOCK=fast), cheaper where the fence costs; ip_tick_rdtscp
 * is ordered by the read itself (INCLPROF_CLOCK=rdtscp: rdtscp on x86-64,
 * ip_tick elsewhere). */
#ifndef INCLPROF_CLOCK_H
#define INCLPROF_CLOCK_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__)
#define IP_CLOCK_SOURCE INCLPROF__CLOCK_SOURCE__CLOCK_TSC
/* lfence: the tick is read after every earlier instruction has completed, so
 * an interval ends where the code before the probe ends, not up to a hundred
 * cycles earlier when an out-of-order core runs rdtsc ahead of a long chain. */
static inline uint64_t ip_tick(void) {
  uint32_t lo, hi;
  __asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi));
  return (uint64_t)hi << 32 | lo;
}
static inline uint64_t ip_tick_unfenced(void) {
  uint32_t lo, hi;
  __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
  return (uint64_t)hi << 32 | lo;
}
/* rdtscp waits until every earlier instruction has executed (not for the
 * later ones, as lfence; rdtsc); it also writes the CPU's number to ecx.
 * Not every CPU (or hypervisor) has it: ip_have_rdtscp says. */
static inline uint64_t ip_tick_rdtscp(void) {
  uint32_t lo, hi, cpu;
  __asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(cpu));
  return (uint64_t)hi << 32 | lo;
}
static inline int ip_have_rdtscp(void) {
  uint32_t leaf = 0x80000001u, ebx, ecx = 0, edx;
  __asm__ __volatile__("cpuid" : "+a"(leaf), "=b"(ebx), "+c"(ecx), "=d"(edx));
  return (edx >> 27) & 1;
}
#elif defined(__aarch64__)
#define IP_CLOCK_SOURCE INCLPROF__CLOCK_SOURCE__CLOCK_CNTVCT
static inline uint64_t ip_tick(void) {
  uint64_t v;
  __asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v));
  return v;
}
static inline uint64_t ip_tick_unfenced(void) {
  uint64_t v;
  __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
  return v;
}
static inline uint64_t ip_tick_rdtscp(void) { return ip_tick(); }
static inline int ip_have_rdtscp(void) { return 1; }
#else
#define IP_CLOCK_SOURCE INCLPROF__CLOCK_SOURCE__CLOCK_MONOTONIC
static inline uint64_t ip_tick(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static inline uint64_t ip_tick_unfenced(void) { return ip_tick(); }
static inline uint64_t ip_tick_rdtscp(void) { return ip_tick(); }
static inline int ip_have_rdtscp(void) { return 1; }
#endif

/* How the probes read the clock (INCLPROF_CLOCK): every probe after a fence
 * (fenced), none (fast), every probe by rdtscp (rdtscp), or only the probes
 * that end a call - exit and return - after a fence, the others bare
 * (exits). */
enum { IP_CLOCK_FENCED, IP_CLOCK_FAST, IP_CLOCK_RDTSCP, IP_CLOCK_EXITS, IP_CLOCK_READS };

#endif
