/* Whole-process timer: runs a command N times (fork + exec + wait, its stdout and stderr sent
 * to /dev/null) and prints the best, the median and the mean wall time of one run in ms, with
 * the CPU time (user + system) of the children. Used by bench/startup.sh (docs/performance.md,
 * "Start-up and the cost of a small run").
 *   startup_timer N COMMAND [ARGS...]
 * An argument ending in "{}" gets the run's number instead of the braces (a fresh output
 * directory for every run: ... -o /tmp/x/{}).
 * Exit 1 if any run exits non-zero (its status is printed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double tv_ms(struct timeval tv) { return 1e3 * (double)tv.tv_sec + 1e-3 * (double)tv.tv_usec; }

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: startup_timer N COMMAND [ARGS...]\n");
        return 2;
    }
    int n = atoi(argv[1]);
    if (n < 1) n = 1;
    double* t = malloc((size_t)n * sizeof *t);
    if (!t) return 1;
    int devnull = open("/dev/null", O_WRONLY);
    struct rusage r0;
    getrusage(RUSAGE_CHILDREN, &r0);
    for (int i = 0; i < n; i++) {
        double t0 = now_ms();
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0) {
            for (int a = 3; a < argc; a++) {
                const size_t len = strlen(argv[a]);
                if (len >= 2 && !strcmp(argv[a] + len - 2, "{}")) {
                    char* s = malloc(len + 16);
                    if (!s) _exit(127);
                    snprintf(s, len + 16, "%.*s%d", (int)(len - 2), argv[a], i);
                    argv[a] = s;
                }
            }
            dup2(devnull, 1);
            dup2(devnull, 2);
            execvp(argv[2], argv + 2);
            _exit(127);
        }
        int status = 0;
        if (waitpid(pid, &status, 0) < 0) {
            perror("waitpid");
            return 1;
        }
        t[i] = now_ms() - t0;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "startup_timer: %s exited with status %d\n", argv[2], status);
            return 1;
        }
    }
    struct rusage r1;
    getrusage(RUSAGE_CHILDREN, &r1);
    double cpu = (tv_ms(r1.ru_utime) - tv_ms(r0.ru_utime) + tv_ms(r1.ru_stime) - tv_ms(r0.ru_stime)) / n;
    double mean = 0;
    for (int i = 0; i < n; i++) mean += t[i] / n;
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    double median = (n % 2) ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    printf("best %.3f ms  median %.3f ms  mean %.3f ms  cpu %.3f ms  (n=%d)\n", t[0], median, mean, cpu, n);
    free(t);
    return 0;
}
