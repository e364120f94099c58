#ifndef CBENCHAFFINITY_H
#define CBENCHAFFINITY_H

/// Pins the thread `tid` (a Linux thread ID, as listed in /proc/self/task; 0 for the calling thread)
/// to CPU `cpu`. Returns 0, or an errno value (ENOSYS where there is no sched_setaffinity).
///
/// A C function because glibc declares sched_setaffinity and the CPU_SET macros only under
/// _GNU_SOURCE, which Swift's Glibc module does not define.
int bench_pin_thread(int tid, int cpu);

/// The number of CPUs the calling thread may run on (its affinity mask), or -1 where unknown.
int bench_allowed_cpus(void);

#endif
