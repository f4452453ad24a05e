/* entry.h - what the program, the plugin's code and libc call
 * (docs/runtime.md, "Layers"): probes (the hot path), units
 * (registration), interpose (the libc interposers), signals, control
 * (inclprof.h), lifecycle (start-up, exit, exec, fork), children, the
 * control channel, windows, snapshots.  The top layer: it may call every
 * layer below.  The declarations are grouped by file. */
#ifndef INCLPROF_RT_ENTRY_H
#define INCLPROF_RT_ENTRY_H

#include "produce/produce.h"

/* probes.c */
IP_HIDDEN const struct inclprof_hooks *ip_hooks_for_mode(int mode);
IP_HIDDEN void ip_append_private(uint64_t arg); /* control events */
/* A probe's cost in ticks; *hidden: how much of it a probe hides behind
 * the code around it; *ptr_call: the two hooks of a call through a pointer
 * that record nothing. */
IP_HIDDEN double ip_probe_calibrate(double *hidden, double *ptr_call);

/* windows.c: recording on and off (every unit's hooks), each switch a
 * Window record; the timed window and the periodic flush's deadlines. */
/* 1 when it switched, 0 when it already was so, -1 when the lock was refused */
IP_HIDDEN int ip_recording_set(int on, const char *reason);
IP_HIDDEN int ip_recording_on(void);
IP_HIDDEN void
ip_windows_start(void); /* INCLPROF_PAUSED, _DELAY, _DURATION, _FLUSH_EVERY, _INTERVAL */
IP_HIDDEN int ip_windows_wanted(void); /* a deadline to wait for, or recording off */
IP_HIDDEN void ip_windows_after_fork_child(void);
/* Switches what is due; *flush: the periodic work due (IP_DUE_*).
 * Milliseconds to the next deadline, -1 when there is none. */
enum { IP_DUE_FLUSH = 1, IP_DUE_INTERVAL = 2 }; /* INCLPROF_FLUSH_EVERY, INCLPROF_INTERVAL */
IP_HIDDEN int64_t ip_windows_due(int *flush);

/* children.c: processes started without fork's handlers */
IP_HIDDEN void ip_vfork_prepare(void);
IP_HIDDEN long ip_vfork_resume(long rc);
IP_HIDDEN int ip_clone(int (*fn)(void *), void *stack, int flags, void *arg, pid_t *ptid, void *tls,
                       pid_t *ctid);
IP_HIDDEN pid_t ip_fork_bare(void); /* _Fork */
/* 1 when syscall(n, a...) starts a process with a copy of the caller's
 * memory and stack (clone, clone3 without CLONE_VM or a stack; fork); then
 * ip_syscall_forked(its result, how) after it, in the child and the parent. */
IP_HIDDEN int ip_syscall_forks(long n, const long a[6], const char **how);
IP_HIDDEN void ip_syscall_forked(long rc, const char *how);

/* tsc_off.c: before the calling thread disables its TSC (PR_SET_TSC,
 * PR_TSC_SIGSEGV): it stops recording; after it enabled it again
 * (PR_TSC_ENABLE): the runtime's ticks read it again. */
IP_HIDDEN void ip_tsc_disabling(void);
IP_HIDDEN void ip_tsc_enabled(void);

/* strict_mode.c: before the calling thread enters seccomp's strict mode
 * it stops recording and is marked strict; after the call (its result rc,
 * returned), a refused one leaves it unmarked and stopped. */
IP_HIDDEN void ip_strict_entering(void);
IP_HIDDEN long ip_strict_entered(long rc);

/* ctl_channel.c: the control thread and its socket INCLPROF_OUTPUT/<pid>.ctl */
/* At start-up, after the Header; watch: what the control thread calls every
 * IP_WATCH_MS (which may end it). */
IP_HIDDEN void ip_ctl_start(void (*watch)(void));
/* Ends the control thread, waiting until the tick deadline at most: 1 when
 * it ended, 0 when none runs, -1 when it did not end in time. */
IP_HIDDEN int ip_ctl_stop(uint64_t deadline);
/* After ip_ctl_stop gave 1 or -1: the thread carries on, or another
 * starts. */
IP_HIDDEN void ip_ctl_restart(void);
IP_HIDDEN void ip_ctl_fork_prepare(void); /* waits for a socket being bound */
IP_HIDDEN void ip_ctl_after_fork_child(void);
IP_HIDDEN void ip_ctl_close(void); /* removes the socket (async-signal-safe) */

/* units.c: dlclose (interpose.c) is unmapping what its destructors unregister */
IP_HIDDEN void ip_unloading_begin(void);
IP_HIDDEN void ip_unloading_end(void);

/* lifecycle.c */
IP_HIDDEN int ip_init_once(void);
/* The runtime records this process (started, and not a child running on
 * the state of the process it records: getpid() is ip_st.pid). */
IP_HIDDEN int ip_process_is_ours(void);
/* A child of the recorded process running on its state or a copy of it
 * without fork's handlers (vfork, clone, _Fork). */
IP_HIDDEN int ip_process_is_child(void);
/* Flushes every thread and writes the Trailer, once; keep_going: the process
 * may continue (a failed exec) and recording goes on. */
IP_HIDDEN void ip_finish(const char *reason, int clean, int keep_going);
/* The runtime's threads call it while they wait, every IP_WATCH_MS: once
 * no program thread is left, it ends the trace and the process, or the
 * calling thread (then it does not return). */
IP_HIDDEN void ip_last_thread_watch(void);
IP_HIDDEN void ip_finish_from_signal(int sig);
/* exit() has begun (or the runtime is being unloaded): the trace ends now
 * unless units are still registered, then at the last one's unregistering. */
IP_HIDDEN void ip_exit_begun(void);

/* signals.c */
IP_HIDDEN void ip_signals_install(void);
/* The runtime's threads call it while they wait, every IP_WATCH_MS: a
 * fatal signal a thread in seccomp's strict mode handed over ends the
 * process. */
IP_HIDDEN void ip_signals_watch(void);
/* The program's sigaction(), as its interposer passes it on. */
IP_HIDDEN int ip_signals_program_sigaction(int sig, const struct sigaction *act,
                                           struct sigaction *old);
/* snapshots.c: writes the snapshots whose windows have ended (all:
 * every window still wanted, at the end of the trace). */
IP_HIDDEN void ip_snapshots_save(int all);
IP_HIDDEN void ip_snapshots_fork_child(void);

#endif
