/* The narrow-band definiteness test of the stability bisection (src/numerics/band.c,
 * kd_band_cholesky_definite) against LAPACK's dpbtrf on the same symmetric band matrices:
 * the same factor U to round-off and the same verdict, for positive definite matrices, for
 * matrices shifted just past their lowest eigenvalue (from LAPACK's dsbev), and at the edges
 * (bandwidth 0, bandwidth n - 1, order 1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <lapacke.h>
#include <math.h>

#include "kedyn/band.h"

/* A random symmetric band matrix (upper band storage) made diagonally dominant by `dom`,
 * then shifted by -shift on the diagonal. */
static void fill(kd_band* a, unsigned seed, double dom, double shift) {
    const int n = a->n, kd = a->kd, ld = kd + 1;
    srand(seed);
    for (int j = 0; j < n; j++)
        for (int i = j - kd > 0 ? j - kd : 0; i <= j; i++)
            a->ab[kd + i - j + (size_t)j * ld] = i == j ? dom - shift : (double)rand() / RAND_MAX - 0.5;
}

/* dpbtrf's verdict and factor on a copy; our verdict and factor; the largest difference. */
static double compare(kd_band* a, int* ours, int* lapack) {
    const size_t len = (size_t)(a->kd + 1) * (size_t)a->n;
    double* ref = malloc(sizeof(double) * len);
    memcpy(ref, a->ab, sizeof(double) * len);
    *lapack = LAPACKE_dpbtrf(LAPACK_COL_MAJOR, 'U', a->n, a->kd, ref, a->kd + 1) == 0;
    *ours = kd_band_cholesky_definite(a);
    double diff = 0;
    if (*ours && *lapack)
        for (size_t k = 0; k < len; k++) diff = fmax(diff, fabs(a->ab[k] - ref[k]) / fmax(1.0, fabs(ref[k])));
    free(ref);
    return diff;
}

/* The lowest eigenvalue of the band matrix (dsbev on a copy). */
static double lowest(const kd_band* a) {
    const size_t len = (size_t)(a->kd + 1) * (size_t)a->n;
    double *c = malloc(sizeof(double) * len), *w = malloc(sizeof(double) * (size_t)a->n);
    memcpy(c, a->ab, sizeof(double) * len);
    assert_int_equal(LAPACKE_dsbev(LAPACK_COL_MAJOR, 'N', 'U', a->n, a->kd, c, a->kd + 1, w, NULL, 1), 0);
    const double l = w[0];
    free(c), free(w);
    return l;
}

static void test_definite_against_lapack(void** state) {
    (void)state;
    const int shapes[][2] = {{200, 11}, {60, 17}, {50, 0}, {7, 6}, {1, 0}, {300, 1}};
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        kd_band a;
        assert_int_equal(kd_band_init(&a, shapes[s][0], shapes[s][1]), KD_OK);
        fill(&a, 11 + (unsigned)s, 2.0 + 0.6 * shapes[s][1], 0);
        int ours, lapack;
        const double diff = compare(&a, &ours, &lapack);
        assert_int_equal(lapack, 1);
        assert_int_equal(ours, 1);
        assert_true(diff < 1e-13);
        kd_band_free(&a);
    }
}

/* Shifted to lambda_min -+ 1e-6 |lambda_min|: definite just before, not just after, as LAPACK says. */
static void test_verdict_at_the_lowest_eigenvalue(void** state) {
    (void)state;
    const int shapes[][2] = {{120, 9}, {40, 3}, {25, 24}};
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        for (int side = -1; side <= 1; side += 2) {
            kd_band a;
            assert_int_equal(kd_band_init(&a, shapes[s][0], shapes[s][1]), KD_OK);
            fill(&a, 5 + (unsigned)s, 1.0, 0);
            const double lmin = lowest(&a);
            fill(&a, 5 + (unsigned)s, 1.0, lmin + side * 1e-6 * fabs(lmin));
            int ours, lapack;
            compare(&a, &ours, &lapack);
            assert_int_equal(ours, lapack);
            assert_int_equal(ours, side < 0);
            kd_band_free(&a);
        }
    }
}

static void test_nan_is_not_definite(void** state) {
    (void)state;
    kd_band a;
    assert_int_equal(kd_band_init(&a, 10, 2), KD_OK);
    fill(&a, 3, 4.0, 0);
    a.ab[2 + 4 * 3] = NAN;  /* a diagonal entry */
    assert_int_equal(kd_band_cholesky_definite(&a), 0);
    kd_band_free(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_definite_against_lapack),
        cmocka_unit_test(test_verdict_at_the_lowest_eigenvalue),
        cmocka_unit_test(test_nan_is_not_definite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
