/* The cost of the MPI scheduler per case (docs/performance.md, "Parallel studies"): cases that
 * compute nothing and return PAYLOAD bytes, handed out by rank 0 through kedyn_mpi.so exactly as
 * `kedyn run` does (kd_case_backend), so the time per case is the overhead of the protocol: the
 * messages handing out the cases and the results' transfer. Such cases are cheap, so several go
 * in one message (KEDYN_MPI_BATCH=1: one per message, as for cases of more than 0.5 ms).
 * usage: mpirun -n P bench_mpi_overhead KEDYN_MPI_SO [CASES] [PAYLOAD_BYTES...] */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kedyn/run.h"

typedef int (*open_fn)(int* argc, char*** argv, kd_case_backend* b, char* msg, size_t n);
typedef void (*close_fn)(kd_case_backend* b);

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct counter {
    pthread_mutex_t mu;
    int next, n, delivered;
    size_t bytes;
} counter;

static int next_case(void* arg) {
    counter* c = arg;
    pthread_mutex_lock(&c->mu);
    const int i = c->next < c->n ? c->next++ : -1;
    pthread_mutex_unlock(&c->mu);
    return i;
}

static void deliver(void* arg, int i, const unsigned char* data, size_t size) {
    (void)i, (void)data;
    counter* c = arg;
    pthread_mutex_lock(&c->mu);
    c->delivered++, c->bytes += size;
    pthread_mutex_unlock(&c->mu);
}

static size_t payload;
static int compute(void* ctx, int i, unsigned char** data, size_t* size) {
    (void)ctx, (void)i;
    *data = calloc(payload ? payload : 1, 1);
    *size = *data ? payload : 0;
    return 0;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: mpirun -n P bench_mpi_overhead KEDYN_MPI_SO [CASES] [PAYLOAD_BYTES...]\n");
        return 2;
    }
    void* h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    open_fn op = h ? (open_fn)(size_t)dlsym(h, "kedyn_mpi_open") : NULL;
    close_fn cl = h ? (close_fn)(size_t)dlsym(h, "kedyn_mpi_close") : NULL;
    if (!op || !cl) {
        fprintf(stderr, "bench_mpi_overhead: cannot load %s: %s\n", argv[1], dlerror());
        return 1;
    }
    kd_case_backend b;
    char msg[256];
    int ac = 0;
    char** av = NULL;
    if (op(&ac, &av, &b, msg, sizeof(msg))) {
        fprintf(stderr, "bench_mpi_overhead: %s\n", msg);
        return 1;
    }
    const int n = argc > 2 ? atoi(argv[2]) : 20000;
    const char* sizes_default[] = {"16", "1024", "102400"};
    const int nsizes = argc > 3 ? argc - 3 : 3;
    if (b.rank == 0)
        printf("# ranks cases payload_B total_s per_case_us  (rank 0 serves, ranks 1.. compute nothing; "
               "sizeof(kd_analysis_report) = %zu B)\n", sizeof(kd_analysis_report));
    for (int k = 0; k < nsizes; k++) {
        payload = (size_t)atol(argc > 3 ? argv[3 + k] : sizes_default[k]);
        const int cases = payload > 65536 ? n / 10 : n;
        if (b.rank == 0) {
            counter c = {PTHREAD_MUTEX_INITIALIZER, 0, cases, 0, 0};
            const double t0 = now_s();
            const int rc = b.serve(b.impl, k, &c, next_case, deliver);
            const double t = now_s() - t0;
            printf("%d %d %zu %.4f %.2f%s\n", b.size, cases, payload, t, 1e6 * t / cases,
                   rc || c.delivered != cases ? "  (FAILED)" : "");
        } else {
            b.work(b.impl, k, NULL, compute);
        }
    }
    if (b.rank == 0) b.finish(b.impl);
    cl(&b);
    return 0;
}
