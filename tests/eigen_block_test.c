/* The block shift-invert Lanczos (src/numerics/eigen_block.c), the iteration of the sparse modal
 * path for large plate models, against ARPACK's single-vector implicitly restarted Lanczos
 * (dsaupd, an independent implementation of a different iteration) on the same compressed-column
 * K and M factored by CHOLMOD: the same eigenvalues to 1e-10 relative, the same eigenvectors
 * (|x^T M y| > 1 - 1e-12, angle below 1.5e-6) for simple eigenvalues, M-orthonormal to 1e-10.
 * (The residual K x - lambda M x is no test here: K's transverse-shear modes, near 1e7 times
 * the lowest eigenvalue, amplify round-off-size components of either solver's vectors.) Cases: a supported
 * MITC4 plate (15 modes, the benchmark's count), a free DKT plate (three rigid-body modes at
 * lambda ~ 0: a triple eigenvalue inside one block) and 40 modes of the supported plate (more
 * than the basis holds: the explicit restart). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/kedyn.h"
#include "model_text.h"
#include "numerics/eigen_internal.h"

static void alloc(kd_modes* r, int n, int count) {
    memset(r, 0, sizeof(*r));
    r->lambda = malloc(sizeof(double) * (size_t)count);
    r->shape = malloc(sizeof(double) * (size_t)count * (size_t)n);
}

static void compare(const char* theory, const char* interp, int nx, int ny, int supported, int count, int rigid) {
    kd_model* m = plate_model(theory, interp, nx, ny, supported);
    const int n = m->neq;
    kd_csc K, M;
    kd_error err;
    assert_int_equal(kd_assemble_stiffness_mass_csc(m, &K, &M, &err), KD_OK);
    const double sigma = -0.1 * m->body[0].lambda_hint;
    kd_modes ref, blk;
    alloc(&ref, n, count);
    alloc(&blk, n, count);
    if (eigen_cholmod_method(&K, &M, count, sigma, 0, &ref, &err)) fail_msg("ARPACK: %s", err.msg);
    if (eigen_cholmod_method(&K, &M, count, sigma, 1, &blk, &err)) fail_msg("block: %s", err.msg);
    const double top = ref.lambda[count - 1];
    int zeros = 0;
    double wl = 0, wc = 0;
    for (int k = 0; k < count; k++) {
        const int zero = fabs(ref.lambda[k]) < 1e-6 * top;
        zeros += zero;
        const double d = fabs(blk.lambda[k] - ref.lambda[k]);
        if (!zero) wl = fmax(wl, d / fabs(ref.lambda[k]));
        if (zero ? !(fabs(blk.lambda[k]) <= 1e-12 * top) : !(d <= 1e-10 * fabs(ref.lambda[k])))
            fail_msg("%s mode %d: ARPACK %.16e block %.16e", interp, k + 1, ref.lambda[k], blk.lambda[k]);
    }
    assert_int_equal(zeros, rigid);
    /* eigenvectors: residual and M-orthonormality */
    double* kx = malloc(sizeof(double) * (size_t)n * 2);
    for (int k = 0; k < count; k++) {
        const double* x = blk.shape + (size_t)k * n;
        kd_csc_matvec(&M, x, kx + n);
        /* the angle with ARPACK's eigenvector (M inner product; simple eigenvalues: not the rigid
         * triple): |cos| = 1 - 3e-14 at worst measured */
        double cross = 0;
        for (int i = 0; i < n; i++) cross += ref.shape[(size_t)k * n + i] * kx[n + i];
        if (k >= rigid) wc = fmax(wc, 1 - fabs(cross));
        if (k >= rigid && !(fabs(cross) > 1 - 1e-12)) fail_msg("%s mode %d: |cos| = %.17f", interp, k + 1, fabs(cross));
        for (int l = 0; l <= k; l++) {
            const double* y = blk.shape + (size_t)l * n;
            double xmy = 0;
            for (int i = 0; i < n; i++) xmy += y[i] * kx[n + i];
            if (!(fabs(xmy - (k == l)) < 1e-10)) fail_msg("%s modes %d, %d: x^T M y = %.3e", interp, k + 1, l + 1, xmy);
        }
    }
    printf("%s %d modes: eigenvalues %.1e, 1 - |cos| %.1e\n", interp, count, wl, wc);
    free(kx);
    free(ref.lambda), free(ref.shape), free(blk.lambda), free(blk.shape);
    kd_csc_free(&K);
    kd_csc_free(&M);
    kd_model_free(&m);
}

static void test_mitc4_supported(void** state) {
    (void)state;
    compare("mindlin", "mitc4", 40, 32, 1, 15, 0);
}

static void test_dkt_free(void** state) {
    (void)state;
    compare("kirchhoff", "dkt", 30, 24, 0, 15, 3);
}

static void test_restart(void** state) {
    (void)state;
    compare("mindlin", "mitc4", 40, 32, 1, 40, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mitc4_supported),
        cmocka_unit_test(test_dkt_free),
        cmocka_unit_test(test_restart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
