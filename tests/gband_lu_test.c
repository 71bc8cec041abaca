/* The banded LU of the time step (src/numerics/gband.c, kd_gband_lu_factor*)
 * against LAPACK dgbtrf/dgbtrs on the same non-symmetric band matrices:
 * the same pivots, the same factor to round-off, the same solution; the
 * factor formed column block by column block (as the fused assembly does)
 * equal to the one-pass factor; a singular matrix reported by its column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <lapacke.h>
#include <math.h>

#include "kedyn/integrate.h"

/* A random non-symmetric band matrix in LU band storage (ld = 2 kl + ku + 1)
 * with small diagonals, so that partial pivoting swaps rows. */
static void fill(double* ab, int n, int kl, int ku, unsigned seed) {
    const int ld = 2 * kl + ku + 1, kv = kl + ku;
    srand(seed);
    memset(ab, 0, sizeof(double) * (size_t)ld * (size_t)n);
    for (int j = 0; j < n; j++)
        for (int i = j - ku > 0 ? j - ku : 0; i <= j + kl && i < n; i++)
            ab[kv + i - j + j * ld] = (i == j ? 0.1 : 1.0) * ((double)rand() / RAND_MAX - 0.5);
}

static void test_against_lapack(void** state) {
    (void)state;
    const int n = 200, kl = 5, ku = 5, ld = 2 * kl + ku + 1;
    double *a = malloc(sizeof(double) * ld * n), *ref = malloc(sizeof(double) * ld * n);
    double *b = malloc(sizeof(double) * n), *bref = malloc(sizeof(double) * n), *c = malloc(sizeof(double) * n);
    int* piv = malloc(sizeof(int) * n);
    lapack_int* pref = malloc(sizeof(lapack_int) * n);
    fill(a, n, kl, ku, 7);
    memcpy(ref, a, sizeof(double) * ld * n);
    for (int i = 0; i < n; i++) b[i] = bref[i] = sin(0.1 * i) + 1.0;
    assert_int_equal(LAPACKE_dgbtrf(LAPACK_COL_MAJOR, n, n, kl, ku, ref, ld, pref), 0);
    assert_int_equal(LAPACKE_dgbtrs(LAPACK_COL_MAJOR, 'N', n, kl, ku, 1, ref, ld, pref, bref, n), 0);
    assert_int_equal(kd_gband_lu_factor(a, n, kl, ku, piv, b), 0);
    kd_gband_lu_back(a, n, kl, ku, b);
    int swaps = 0;
    double dmax = 0, xmax = 0;
    for (int j = 0; j < n; j++) {
        assert_int_equal(piv[j] + 1, pref[j]);  /* LAPACK's pivots are 1-based */
        swaps += piv[j] != j;
    }
    for (int i = 0; i < ld * n; i++) dmax = fmax(dmax, fabs(a[i] - ref[i]));
    for (int i = 0; i < n; i++) xmax = fmax(xmax, fabs(b[i] - bref[i]) / fmax(1.0, fabs(bref[i])));
    assert_true(swaps > n / 10);  /* the test exercises pivoting */
    assert_true(dmax < 1e-12);
    assert_true(xmax < 1e-10);
    /* the separate forward + back substitution with the stored factor */
    for (int i = 0; i < n; i++) c[i] = sin(0.1 * i) + 1.0;
    kd_gband_lu_forward(a, n, kl, ku, piv, c);
    kd_gband_lu_back(a, n, kl, ku, c);
    for (int i = 0; i < n; i++) assert_true(fabs(c[i] - b[i]) <= 1e-13 * fmax(1.0, fabs(b[i])));
    /* in column blocks (3, then 7, ...) as the fused assembly calls it: bit for bit the same */
    fill(ref, n, kl, ku, 7);
    for (int i = 0; i < n; i++) c[i] = sin(0.1 * i) + 1.0;
    int ju = 0, j0 = 0;
    for (int step = 3; j0 < n; step = step == 3 ? 7 : 3) {
        const int j1 = j0 + step < n ? j0 + step : n;
        assert_int_equal(kd_gband_lu_factor_columns(ref, n, kl, ku, piv, c, j0, j1, &ju), 0);
        j0 = j1;
    }
    kd_gband_lu_back(ref, n, kl, ku, c);
    assert_memory_equal(ref, a, sizeof(double) * ld * n);
    assert_memory_equal(c, b, sizeof(double) * n);
    free(a), free(ref), free(b), free(bref), free(c), free(piv), free(pref);
}

static void test_singular(void** state) {
    (void)state;
    const int n = 30, kl = 2, ku = 2, ld = 2 * kl + ku + 1;
    double* a = malloc(sizeof(double) * ld * n);
    int* piv = malloc(sizeof(int) * n);
    fill(a, n, kl, ku, 3);
    for (int i = 0; i < ld; i++) a[i + 12 * ld] = 0.0;  /* column 12 zero */
    assert_int_equal(kd_gband_lu_factor(a, n, kl, ku, piv, NULL), 13);
    free(a), free(piv);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_lapack),
        cmocka_unit_test(test_singular),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
