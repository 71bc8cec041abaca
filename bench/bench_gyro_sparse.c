/* Benchmark: gyroscopic modes of the thesis plate (a = 0.2 m, b = 0.16 m, t = 1 mm, steel) on an
 * nx x ny mesh of 4-node elements, the edge x = 0 held, spinning about its normal z through the
 * middle of that edge at 14 000 rad/s (the Coriolis coupling of u and v): the lowest 15 modes of
 * the moving system from the compiled model, best of `repeats`. Prints one line:
 *   nx ny theory dof route solve_s omega1 growth1 unstable peak_rss_kib
 * usage: bench_gyro_sparse NX NY [membrane|shell] [repeats] [sparse|dense]
 *   sparse (default) kd_modes_state_space_sparse: K, M, C in compressed columns, ARPACK's
 *          Arnoldi in shift-invert on one CHOLMOD factor (theory.md sec. 14.5)
 *   dense  kd_modes_state_space on kd_system's band matrices, LAPACK dgeev on the 2n x 2n scaled
 *          pencil (gyro_pencil.c; up to KD_GYRO_MAX equations)
 * Run one size per process so that the peak memory is that size's own. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "blas_threads.h"
#include "core/util.h"
#include "kedyn/kedyn.h"
#include "kedyn/modes_gyro_sparse.h"

int main(int argc, char** argv) {
    app_blas_threads_default();
    if (argc < 3) {
        fprintf(stderr, "usage: %s NX NY [membrane|shell] [repeats] [sparse|dense]\n", argv[0]);
        return 2;
    }
    const int nx = atoi(argv[1]), ny = atoi(argv[2]);
    const char* theory = argc > 3 ? argv[3] : "membrane";
    const int repeats = argc > 4 ? atoi(argv[4]) : 1;
    const int dense = argc > 5 && strcmp(argv[5], "dense") == 0;
    const int shell = strcmp(theory, "shell") == 0;
    char text[1024];
    snprintf(text, sizeof text,
             "kedyn: 1\n"
             "materials: {steel: {E: 210e9, rho: 7800, nu: 0.3}}\n"
             "bodies:\n"
             "  - {name: plate, type: plate, theory: %s, interpolation: %s, material: steel, thickness: 0.001,\n"
             "     mesh: {rectangle: [0.2, 0.16], divisions: [%d, %d], origin: [0, -0.08, 0]},\n"
             "     node_sets: {root: {x: 0}}}\n"
             "supports:\n"
             "  - {body: plate, nodes: root, fix: %s}\n"
             "motion:\n"
             "  - {body: plate, rotation: {axis: z, law: {speed: 14000}}}\n",
             shell ? "shell" : "membrane", shell ? "mitc4" : "q4", nx, ny, shell ? "all" : "[u, v]");
    kd_desc* d = NULL;
    kd_model* m = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "bench.yaml", &d, &err) || kd_model_compile(d, &m, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    double best = HUGE_VAL, omega1 = 0, growth1 = 0;
    int unstable = 0;
    for (int r = 0; r < repeats; r++) {
        kd_modes res;
        const double t0 = util_now_s();
        kd_status st;
        if (dense) {
            setenv("KEDYN_GYRO_SPARSE_MIN_DOF", "1000000", 1);
            kd_system s;
            st = kd_system_init(&s, m, &err);
            if (!st) st = kd_modes_state_space(&s, 0.0, 15, &res, &err);
            kd_system_free(&s);
        } else {
            st = kd_modes_state_space_sparse(m, NULL, 0.0, 15, &res, &err);
        }
        const double t1 = util_now_s();
        if (st) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        best = fmin(best, t1 - t0);
        omega1 = res.omega[0], growth1 = res.growth[0], unstable = res.unstable;
        kd_modes_free(&res);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%d %d %s %d %s %.3f %.6f %.3g %d %ld\n", nx, ny, theory, m->neq, dense ? "dense" : "sparse", best, omega1,
           growth1, unstable, ru.ru_maxrss);
    kd_model_free(&m);
    kd_desc_free(&d);
    return 0;
}
