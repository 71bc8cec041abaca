/* What replacing a result file costs on a file system (docs/performance.md, "Replacing a file:
 * the wait is the discard of the old blocks"): N times, a 1.2 MB file (the size of the bar run's
 * dynamics.csv) is written under a temporary name and put in place of the previous one, with the
 * wall and CPU time of that last step alone:
 *   mode 0  rename over the old file (what kedyn does: atomic replacement);
 *   mode 1  unlink the old file, then rename (not atomic);
 *   mode 2  renameat2(RENAME_EXCHANGE), then unlink the old file under the temporary name.
 * With "written", the old file's blocks are allocated first (fsync), as they are for a file that
 * was written back before the next run replaces it; without, a file replaced within the kernel's
 * writeback delay (30 s) may still have none, and deleting it frees nothing on the disk.
 *   rename_replace DIR N MODE [written]                                                       */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define FILE_BYTES 1200000

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static double cpu_ms(void) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return 1e3 * (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + 1e-3 * (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

static int write_file(const char* path, const char* buf) {
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) return -1;
    for (size_t at = 0; at < FILE_BYTES;) {
        const size_t n = FILE_BYTES - at < 65536 ? FILE_BYTES - at : 65536;
        const ssize_t w = write(fd, buf + at, n);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        at += (size_t)w;
    }
    return close(fd);
}

int main(int argc, char** argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: rename_replace DIR N MODE [written]\n");
        return 2;
    }
    const int n = atoi(argv[2]), mode = atoi(argv[3]), written = argc > 4;
    char final[4096], temp[4096];
    snprintf(final, sizeof final, "%s/replaced.csv", argv[1]);
    snprintf(temp, sizeof temp, "%s/replaced.csv.tmp", argv[1]);
    static char buf[FILE_BYTES];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (char)('0' + i % 10);
    if (write_file(final, buf)) {
        perror(final);
        return 1;
    }
    double wall = 0, cpu = 0;
    for (int k = 0; k < n; k++) {
        if (written) {  /* the old file's blocks allocated, as after the kernel's writeback */
            const int fd = open(final, O_RDONLY);
            if (fd >= 0) fsync(fd), close(fd);
        }
        if (write_file(temp, buf)) {
            perror(temp);
            return 1;
        }
        const double w0 = now_ms(), c0 = cpu_ms();
        int rc;
        if (mode == 0)
            rc = rename(temp, final);
        else if (mode == 1)
            rc = unlink(final) || rename(temp, final);
        else
            rc = renameat2(AT_FDCWD, temp, AT_FDCWD, final, RENAME_EXCHANGE) || unlink(temp);
        wall += now_ms() - w0, cpu += cpu_ms() - c0;
        if (rc) {
            perror("replace");
            return 1;
        }
        usleep(20000);
    }
    unlink(final);
    printf("mode %d%s: wall %.3f ms, cpu %.3f ms per replacement (n=%d)\n", mode, written ? " written" : "", wall / n,
           cpu / n, n);
    return 0;
}
