#define _GNU_SOURCE
#include "CBenchAffinity.h"
#include <errno.h>

#if defined(__linux__)
#include <sched.h>
#include <sys/types.h>

int bench_pin_thread(int tid, int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity((pid_t)tid, sizeof set, &set) == 0 ? 0 : errno;
}

int bench_allowed_cpus(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    return CPU_COUNT(&set);
}
#else
int bench_pin_thread(int tid, int cpu) {
    (void)tid;
    (void)cpu;
    return ENOSYS;
}

int bench_allowed_cpus(void) { return -1; }
#endif
