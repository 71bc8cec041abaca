/* The skew-symmetric reference of the gyroscopic tests: the frequencies of (s^2 M + s G + K) x = 0,
 * K and M symmetric positive definite (banded), G skew, as the singular values of
 * S = L^-1 B L^-T: with K = L_K L_K^T, M = L_M L_M^T and X = L_M^-1 L_K the blocks are
 * S = [[0, X^T], [-X, -L_M^-1 G L_M^-T]] (S real skew, its singular values the frequencies in
 * pairs; no solve with the ill-conditioned L_K). Returns the n frequencies ascending (malloc).
 * Include <cmocka.h> first. */
#ifndef KEDYN_TESTS_GYRO_SVD_REFERENCE_H
#define KEDYN_TESTS_GYRO_SVD_REFERENCE_H

#include <lapacke.h>
#include <stdlib.h>

#include "kedyn/integrate.h"

static inline double* gyro_svd_reference(const kd_gband* M, const kd_gband* C, const kd_gband* K, int n) {
    const int n2 = 2 * n;
    double* LK = calloc((size_t)n * n, sizeof(double));
    double* LM = calloc((size_t)n * n, sizeof(double));
    double* G = calloc((size_t)n * n, sizeof(double));
    double* S = calloc((size_t)n2 * n2, sizeof(double));
    double* sv = malloc(sizeof(double) * (size_t)n2);
    double* sup = malloc(sizeof(double) * (size_t)n2);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            const int in = !(i - j > K->kl || j - i > K->ku);
            LK[i + (size_t)j * n] = in ? K->ab[K->ku + i - j + (size_t)j * (K->kl + K->ku + 1)] : 0;
            LM[i + (size_t)j * n] = in ? M->ab[M->ku + i - j + (size_t)j * (M->kl + M->ku + 1)] : 0;
            G[i + (size_t)j * n] = in ? C->ab[C->ku + i - j + (size_t)j * (C->kl + C->ku + 1)] : 0;
        }
    assert_int_equal(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, LK, n), 0);
    assert_int_equal(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, LM, n), 0);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < j; i++) LK[i + (size_t)j * n] = LM[i + (size_t)j * n] = 0.0;
    /* X = L_M^-1 L_K in LK; G <- L_M^-1 G L_M^-T */
    assert_int_equal(LAPACKE_dtrtrs(LAPACK_COL_MAJOR, 'L', 'N', 'N', n, n, LM, n, LK, n), 0);
    assert_int_equal(LAPACKE_dtrtrs(LAPACK_COL_MAJOR, 'L', 'N', 'N', n, n, LM, n, G, n), 0);
    for (int j = 0; j < n; j++)
        for (int i = j + 1; i < n; i++) {
            const double t = G[i + (size_t)j * n];
            G[i + (size_t)j * n] = G[j + (size_t)i * n], G[j + (size_t)i * n] = t;
        }
    assert_int_equal(LAPACKE_dtrtrs(LAPACK_COL_MAJOR, 'L', 'N', 'N', n, n, LM, n, G, n), 0);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            S[i + (size_t)(n + j) * n2] = LK[j + (size_t)i * n];   /* X^T */
            S[n + i + (size_t)j * n2] = -LK[i + (size_t)j * n];    /* -X */
            S[n + i + (size_t)(n + j) * n2] = -G[j + (size_t)i * n]; /* -(L_M^-1 G L_M^-T), transposed back */
        }
    assert_int_equal(LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'N', n2, n2, S, n2, sv, NULL, 1, NULL, 1, sup), 0);
    /* descending, in equal pairs: ascending distinct frequencies */
    double* w = malloc(sizeof(double) * (size_t)n);
    for (int k = 0; k < n; k++) w[k] = sv[n2 - 1 - 2 * k];
    free(LK), free(LM), free(G), free(S), free(sv), free(sup);
    return w;
}

#endif
