/* Benchmark: lowest 10 modes of a planar steel cantilever with N
 * Euler-Bernoulli cubic elements, built in code (no parser), timed from
 * description to eigenpairs. Prints one line:
 *   elements dof solver compile_s solve_s total_s omega1 rel_err1 peak_rss_kib
 * Run one size per process so that the peak memory is that size's own.
 * usage: bench_modes N [repeats] [cholesky]  (best of `repeats` runs, default 5; cholesky: the
 * assembled banded Cholesky factorisation without the Rayleigh quotients, the solver before the
 * square-root QR, kedyn/modes.h) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "kedyn/kedyn.h"
#include "blas_threads.h"
#include "core/util.h"

static kd_desc* cantilever(int nelem) {
    kd_desc* d = kd_desc_new();
    kd_material_desc* mat = kd_desc_add_material(d);
    snprintf(mat->name, sizeof(mat->name), "steel");
    mat->E = 210e9, mat->rho = 7800;
    kd_section_desc* s = kd_desc_add_section(d);
    snprintf(s->name, sizeof(s->name), "rod");
    s->shape = KD_SHAPE_CIRCLE, s->d = 0.01;
    kd_body_desc* b = kd_desc_add_body(d);
    snprintf(b->name, sizeof(b->name), "rod");
    b->type = KD_BODY_BEAM, b->material = 0, b->section = 0, b->length = 1.0, b->elements = nelem;
    kd_support_desc* sup = kd_desc_add_support(d);
    sup->body = 0, sup->node = 1, sup->fix = KD_FIX_ALL;
    return d;
}

int main(int argc, char** argv) {
    app_blas_threads_default();  /* one BLAS thread unless OPENBLAS_NUM_THREADS is set */
    const int nelem = argc > 1 ? atoi(argv[1]) : 1000;
    const int repeats = argc > 2 ? atoi(argv[2]) : 5;
    const kd_eigen_factor factor = argc > 3 && strcmp(argv[3], "cholesky") == 0
                                       ? (kd_eigen_factor)(KD_FACTOR_CHOLESKY | KD_FACTOR_NO_RAYLEIGH)
                                       : KD_FACTOR_AUTO;
    if (nelem < 1 || repeats < 1) {
        fprintf(stderr, "usage: bench_modes N [repeats]\n");
        return 2;
    }
    double best_compile = INFINITY, best_solve = INFINITY, best_total = INFINITY, omega1 = 0;
    int dof = 0;
    kd_eigen_solver used = KD_EIGEN_AUTO;
    for (int r = 0; r < repeats; r++) {
        kd_error err;
        kd_desc* d = cantilever(nelem);
        const double t0 = util_now_s();
        kd_model* m = NULL;
        if (kd_model_compile(d, &m, &err)) return 1;
        const double t1 = util_now_s();
        kd_modes res;
        if (kd_modes_solve_factor(m, 10, KD_EIGEN_AUTO, factor, &res, &err)) {
            fprintf(stderr, "bench_modes: %s\n", err.msg);
            return 3;
        }
        const double t2 = util_now_s();
        best_compile = fmin(best_compile, t1 - t0);
        best_solve = fmin(best_solve, t2 - t1);
        best_total = fmin(best_total, t2 - t0);
        omega1 = res.omega[0];
        dof = m->neq;
        used = res.solver;
        kd_modes_free(&res);
        kd_model_free(&m);
        kd_desc_free(&d);
    }
    /* Closed form: omega_1 = (1.8751041/L)^2 sqrt(EI / (rho A)), I/A = d^2/16. */
    const double exact = 1.8751040687 * 1.8751040687 * sqrt(210e9 * 0.01 * 0.01 / 16.0 / 7800.0);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%d %d %s %.6f %.6f %.6f %.6f %.2e %ld\n", nelem, dof, used == KD_EIGEN_LANCZOS ? (factor == KD_FACTOR_AUTO ? "lanczos-qr" : "lanczos-cholesky") : "dense",
           best_compile, best_solve, best_total, omega1, fabs(omega1 - exact) / exact, ru.ru_maxrss);
    return 0;
}
