/* LD_PRELOAD helper of bench/cpu_vs_wall.sh: when the process exits (from its main thread),
 * append to $THREAD_CPU_OUT (default stderr) the CPU seconds (user + sys) of the main thread and
 * of all the other threads, ended ones included (e.g. BLAS workers): getrusage of the process
 * less that of the calling thread. */
#define _GNU_SOURCE  /* RUSAGE_THREAD */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static double cpu_s(int who) {
    struct rusage u;
    if (getrusage(who, &u)) return 0;
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

static void report(void) {
    const double main_s = cpu_s(RUSAGE_THREAD), all_s = cpu_s(RUSAGE_SELF);
    const char* out = getenv("THREAD_CPU_OUT");
    FILE* f = out ? fopen(out, "a") : stderr;
    if (!f) return;
    fprintf(f, "%.3f %.3f\n", main_s, all_s - main_s);
    if (out) fclose(f);
}

__attribute__((constructor)) static void thread_cpu_init(void) { atexit(report); }
