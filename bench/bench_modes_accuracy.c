/* Benchmark: round-off in the lowest 10 modes of a fine planar cantilever (L = 5 m, d = 10 mm,
 * steel, Euler-Bernoulli cubic; the axial modes lie above the 10th bending one), against the
 * exact cos bL cosh bL = -1 roots, with the Lanczos solver on each factorisation of K - sigma M (kedyn/modes.h, kd_eigen_factor).
 * Prints one line per run:
 *   elements dof factor solve_s peak_rss_kib err1 est1 err2 est2 ... err10 est10
 * (err: measured relative error of omega_k, est: the a-priori estimate). Run one size and factor
 * per process so that the peak memory is that run's own.
 * usage: bench_modes_accuracy N cholesky|qr [raw]  (raw: the solver's eigenvalues, without the
 * Rayleigh quotients) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "blas_threads.h"
#include "core/util.h"
#include "kedyn/kedyn.h"

/* k-th root of 1 + cos x cosh x = 0 (as cos x + 1 / cosh x), bisection in long double. */
static long double clamped_free_root(int k) {
    const long double pi = 3.141592653589793238462643383279502884L;
    long double lo = (k - 0.5L) * pi - 0.5L, hi = (k - 0.5L) * pi + 0.5L;
    long double flo = cosl(lo) + 1 / coshl(lo);
    for (int it = 0; it < 200; it++) {
        const long double mid = (lo + hi) / 2, fm = cosl(mid) + 1 / coshl(mid);
        if ((fm < 0) == (flo < 0)) lo = mid, flo = fm;
        else hi = mid;
    }
    return (lo + hi) / 2;
}

int main(int argc, char** argv) {
    app_blas_threads_default();
    const int nelem = argc > 1 ? atoi(argv[1]) : 1000;
    kd_eigen_factor factor = argc > 2 && strcmp(argv[2], "cholesky") == 0 ? KD_FACTOR_CHOLESKY : KD_FACTOR_QR;
    const int raw = argc > 3 && strcmp(argv[3], "raw") == 0;
    if (raw) factor = (kd_eigen_factor)(factor | KD_FACTOR_NO_RAYLEIGH);
    const double L = 5.0, dia = 0.01, E = 210e9, rho = 7800;
    kd_desc* d = kd_desc_new();
    kd_material_desc* mat = kd_desc_add_material(d);
    snprintf(mat->name, sizeof(mat->name), "steel");
    mat->E = E, mat->rho = rho, mat->nu = 0.3;
    kd_section_desc* s = kd_desc_add_section(d);
    snprintf(s->name, sizeof(s->name), "rod");
    s->shape = KD_SHAPE_CIRCLE, s->d = dia;
    kd_body_desc* b = kd_desc_add_body(d);
    snprintf(b->name, sizeof(b->name), "rod");
    b->type = KD_BODY_BEAM, b->material = 0, b->section = 0, b->length = L, b->elements = nelem, b->planar = 1;
    b->theory = KD_THEORY_EULER_BERNOULLI, b->interpolation = KD_INTERP_CUBIC;
    kd_support_desc* sup = kd_desc_add_support(d);
    sup->body = 0, sup->node = 1, sup->fix = KD_FIX_ALL;
    kd_error err;
    kd_model* m = NULL;
    if (kd_model_compile(d, &m, &err)) {
        fprintf(stderr, "bench_modes_accuracy: %s\n", err.msg);
        return 1;
    }
    const double t0 = util_now_s();
    kd_modes r;
    if (kd_modes_solve_factor(m, 10, KD_EIGEN_LANCZOS, factor, &r, &err)) {
        fprintf(stderr, "bench_modes_accuracy: %s\n", err.msg);
        return 3;
    }
    const double t1 = util_now_s();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%d %d %s%s %.3f %ld", nelem, m->neq, r.factor == KD_FACTOR_QR ? "qr" : "cholesky", r.rayleigh ? "+rq" : "",
           t1 - t0, ru.ru_maxrss);
    const long double c = sqrtl((long double)E / rho) * dia / 4 / ((long double)L * L);
    for (int k = 0; k < r.count; k++) {
        const long double bl = clamped_free_root(k + 1), exact = bl * bl * c;
        printf(" %.2e %.2e", (double)(((long double)r.omega[k] - exact) / exact), r.error_estimate[k]);
    }
    printf("\n");
    kd_modes_free(&r);
    kd_model_free(&m);
    kd_desc_free(&d);
    return 0;
}
