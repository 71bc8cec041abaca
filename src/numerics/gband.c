/* General band matrices (kedyn/integrate.h). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "kedyn/integrate.h"

kd_status kd_gband_init(kd_gband* a, int n, int kl, int ku) {
    a->n = n, a->kl = kl, a->ku = ku;
    a->ab = calloc((size_t)(kl + ku + 1) * (size_t)n, sizeof(double));
    return a->ab ? KD_OK : KD_ERR_NOMEM;
}

void kd_gband_free(kd_gband* a) {
    free(a->ab);
    a->ab = NULL;
}

void kd_gband_zero(kd_gband* a) { memset(a->ab, 0, sizeof(double) * (size_t)(a->kl + a->ku + 1) * (size_t)a->n); }

/* Band products below: by diagonals on bands that fit in cache, by columns otherwise. Both add,
 * for each row i, the terms of the columns j in ascending order to y_i = 0 (or subtract them
 * from r_i), so both give the same bits (for finite matrices); by diagonals the inner loops run
 * over n - |d| rows rather than the kl + ku + 1 of a column, which the seed 001 bar's tridiagonal
 * matrices make 4x cheaper (docs/performance.md, "Start-up and the cost of a small run"). By
 * columns is one pass over the band storage, the better on bands larger than the cache. */
#define GBAND_DIAG_MAX 32768  /* band entries (256 KiB) */

/* y = A x. A plain loop rather than BLAS dgbmv: the bands here are at most 33 wide, and
 * OpenBLAS's threading of dgbmv cost more than the product itself on them (measured: 30 % of a
 * time step of a small model). */
void kd_gband_matvec(const kd_gband* a, const double* x, double* y) {
    const int n = a->n, kl = a->kl, ku = a->ku, ld = kl + ku + 1;
    if (kl == 1 && ku == 1 && n >= 2) {  /* tridiagonal (axial bars): the same sums, row by row */
        const double* ab = a->ab;     /* A(i, i-1) = ab[3 i - 1], A(i, i) = ab[3 i + 1], A(i, i+1) = ab[3 i + 3] */
        double s = 0.0;
        s += ab[1] * x[0];
        s += ab[3] * x[1];
        y[0] = s;
        for (int i = 1; i < n - 1; i++) {
            s = 0.0;
            s += ab[3 * i - 1] * x[i - 1];
            s += ab[3 * i + 1] * x[i];
            s += ab[3 * i + 3] * x[i + 1];
            y[i] = s;
        }
        s = 0.0;
        s += ab[3 * (n - 1) - 1] * x[n - 2];
        s += ab[3 * (n - 1) + 1] * x[n - 1];
        y[n - 1] = s;
        return;
    }
    memset(y, 0, sizeof(double) * (size_t)n);
    if ((size_t)n * (size_t)ld <= GBAND_DIAG_MAX) {
        for (int d = -kl; d <= ku; d++) {  /* A(i, i + d) = p[i ld] */
            const int i0 = d < 0 ? -d : 0, i1 = d > 0 ? n - d : n;
            const double* p = a->ab + (ku - d) + (ptrdiff_t)d * ld;
            for (int i = i0; i < i1; i++) y[i] += p[(ptrdiff_t)i * ld] * x[i + d];
        }
        return;
    }
    for (int j = 0; j < n; j++) {
        const double xj = x[j];
        if (xj == 0.0) continue;
        const int i0 = j - ku > 0 ? j - ku : 0, i1 = j + kl < n - 1 ? j + kl : n - 1;
        const double* col = a->ab + (size_t)j * (size_t)ld + ku - j;
        for (int i = i0; i <= i1; i++) y[i] += col[i] * xj;
    }
}

void kd_gband_residual3(const kd_gband* A, double a, const double* x, const kd_gband* B, const double* y,
                        const kd_gband* C, const double* z, double* r) {
    const int n = A->n, kl = A->kl, ku = A->ku, ld = kl + ku + 1;
    if (kl == 1 && ku == 1 && n >= 2) {  /* tridiagonal (axial bars): the same terms, row by row */
        const double *pa = A->ab, *pb = B ? B->ab : NULL, *pc = C->ab;  /* A(i, j) = pa[1 + i + 2 j] */
#define KD_T(k, j) (pb ? pa[k] * (a * x[j]) + pb[k] * y[j] + pc[k] * z[j] : pa[k] * (a * x[j]) + pc[k] * z[j])
#define KD_T2(k, j) (pa[k] * (a * x[j]) + pc[k] * z[j])
        r[0] -= KD_T(1, 0);
        r[0] -= KD_T(3, 1);
        if (!pb) {  /* C = 0 (a bar): the loop without a branch, so that it vectorises */
            for (int i = 1; i < n - 1; i++) {
                double ri = r[i];
                ri -= KD_T2(3 * i - 1, i - 1);
                ri -= KD_T2(3 * i + 1, i);
                ri -= KD_T2(3 * i + 3, i + 1);
                r[i] = ri;
            }
        } else {
            for (int i = 1; i < n - 1; i++) {
                double ri = r[i];
                ri -= KD_T(3 * i - 1, i - 1);
                ri -= KD_T(3 * i + 1, i);
                ri -= KD_T(3 * i + 3, i + 1);
                r[i] = ri;
            }
        }
        r[n - 1] -= KD_T(3 * n - 4, n - 2);
        r[n - 1] -= KD_T(3 * n - 2, n - 1);
#undef KD_T
#undef KD_T2
        return;
    }
    if ((size_t)n * (size_t)ld <= GBAND_DIAG_MAX) {
        for (int d = -kl; d <= ku; d++) {  /* A(i, i + d) = pa[i ld] */
            const int i0 = d < 0 ? -d : 0, i1 = d > 0 ? n - d : n;
            const ptrdiff_t off = (ku - d) + (ptrdiff_t)d * ld;
            const double *pa = A->ab + off, *pc = C->ab + off;
            if (B) {
                const double* pb = B->ab + off;
                for (int i = i0; i < i1; i++)
                    r[i] -= pa[(ptrdiff_t)i * ld] * (a * x[i + d]) + pb[(ptrdiff_t)i * ld] * y[i + d] +
                            pc[(ptrdiff_t)i * ld] * z[i + d];
            } else {
                for (int i = i0; i < i1; i++)
                    r[i] -= pa[(ptrdiff_t)i * ld] * (a * x[i + d]) + pc[(ptrdiff_t)i * ld] * z[i + d];
            }
        }
        return;
    }
    for (int j = 0; j < n; j++) {
        const double xj = a * x[j], yj = B ? y[j] : 0.0, zj = z[j];
        const int i0 = j - ku > 0 ? j - ku : 0, i1 = j + kl < n - 1 ? j + kl : n - 1;
        const ptrdiff_t off = (ptrdiff_t)j * (ld - 1) + ku;  /* A(i, j) = A->ab[off + i] */
        const double *ca = A->ab + off, *cc = C->ab + off;
        if (B) {
            const double* cb = B->ab + off;
            for (int i = i0; i <= i1; i++) r[i] -= ca[i] * xj + cb[i] * yj + cc[i] * zj;
        } else {
            for (int i = i0; i <= i1; i++) r[i] -= ca[i] * xj + cc[i] * zj;
        }
    }
}

void kd_gband_combine_lu_residual(kd_gband* S, double cm, const kd_gband* M, double cc, const kd_gband* C, double ck,
                                  const kd_gband* K, double a, const double* x, const double* y, const double* z,
                                  double* r, int* c_zero) {
    const int n = M->n, kl = M->kl, ku = M->ku, ld = kl + ku + 1, lds = 2 * kl + ku + 1;
    int cz = 1;
    for (int j = 0; j < n; j++) {
        double* sj = S->ab + (size_t)j * lds;
        for (int q = 0; q < kl; q++) sj[q] = 0.0;  /* fill rows of dgbtrf */
        sj += kl;
        const double xj = a * x[j], yj = y[j], zj = z[j];
        const double *mj = M->ab + (size_t)j * ld, *cj = C->ab + (size_t)j * ld, *kj = K->ab + (size_t)j * ld;
        /* row r of the band column is A(j - ku + r, j) */
        const int r0 = ku - j > 0 ? ku - j : 0, r1 = n - 1 - j + ku < ld - 1 ? n - 1 - j + ku : ld - 1;
        for (int q = 0; q < r0; q++) sj[q] = 0.0;
        for (int q = r1 + 1; q < ld; q++) sj[q] = 0.0;
        for (int q = r0; q <= r1; q++) {
            sj[q] = cm * mj[q] + cc * cj[q] + ck * kj[q];
            r[j - ku + q] -= mj[q] * xj + cj[q] * yj + kj[q] * zj;
            cz &= cj[q] == 0.0;
        }
    }
    *c_zero = cz;
}

void kd_gband_combine_lu(kd_gband* S, double cm, const kd_gband* M, double cc, const kd_gband* C, double ck,
                         const kd_gband* K) {
    const int n = M->n, kl = M->kl, ku = M->ku, ld = kl + ku + 1, lds = 2 * kl + ku + 1;
    for (int j = 0; j < n; j++) {
        memset(S->ab + (size_t)j * lds, 0, sizeof(double) * (size_t)kl);  /* fill rows of dgbtrf */
        for (int r = 0; r < ld; r++) {
            const size_t c = (size_t)r + (size_t)j * ld;
            S->ab[(size_t)(kl + r) + (size_t)j * lds] = cm * M->ab[c] + cc * C->ab[c] + ck * K->ab[c];
        }
    }
}

kd_status kd_ode2_static(const kd_ode2* sys, double t, double* q, kd_error* err) {
    const int n = sys->n, kl = sys->kl, ku = sys->ku, lds = 2 * kl + ku + 1;
    kd_gband C = {0}, K = {0};
    double* lu = calloc((size_t)lds * (size_t)n, sizeof(double));
    lapack_int* piv = malloc(sizeof(lapack_int) * (size_t)n);
    kd_status st = kd_gband_init(&C, n, kl, ku);
    if (!st) st = kd_gband_init(&K, n, kl, ku);
    if (st || !lu || !piv) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    int changed;
    if (!st && (sys->matrices(sys->ctx, t, &C, &K, &changed) || sys->force(sys->ctx, t, q)))
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: the system could not be evaluated", t);
    if (!st) {
        kd_gband S = {n, 2 * kl, ku, lu};
        kd_gband_combine_lu(&S, 0.0, sys->M, 0.0, &C, 1.0, &K);
        if (LAPACKE_dgbtrf(LAPACK_COL_MAJOR, n, n, kl, ku, lu, lds, piv) != 0 ||
            LAPACKE_dgbtrs(LAPACK_COL_MAJOR, 'N', n, kl, ku, 1, lu, lds, piv, q, n) != 0)
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                              "at t = %g s: the effective stiffness K(t) is singular, no quasi-static state", t);
    }
    kd_gband_free(&C);
    kd_gband_free(&K);
    free(lu);
    free(piv);
    return st;
}

/* Banded LU with partial pivoting, the algorithm of LAPACK dgbtf2 (same
 * pivots, same operations) written out, with the forward substitution of one
 * right-hand side done column by column as the factor is formed. On the
 * narrow bands of these models (kl = ku = 5 for planar beams) dgbtf2 spends
 * most of its time in the calls of idamax, dscal and dger, and the separate
 * dgbtrs reads the whole factor twice more; here each column of the band is
 * read once for factor and forward step (docs/performance.md, "Banded LU
 * fused with the forward substitution"). A(i, j) at ab[kl + ku + i - j + j ld],
 * ld = 2 kl + ku + 1 (LAPACK's LU band storage). */
int kd_gband_lu_factor(double* ab, int n, int kl, int ku, int* piv, double* b) {
    int ju = 0;
    return kd_gband_lu_factor_columns(ab, n, kl, ku, piv, b, 0, n, &ju);
}

int kd_gband_lu_factor_columns(double* ab, int n, int kl, int ku, int* piv, double* b, int j0, int j1, int* ju_io) {
    const int ld = 2 * kl + ku + 1, kv = kl + ku;
    if (j0 == 0)
        for (int j = ku + 1; j < kv && j < n; j++)  /* fill-in rows of the first columns */
            for (int i = kv - j; i < kl; i++) ab[(size_t)i + (size_t)j * ld] = 0.0;
    int ju = *ju_io;  /* last column reached by U so far */
    for (int j = j0; j < j1; j++) {
        if (j + kv < n)
            for (int i = 0; i < kl; i++) ab[(size_t)i + (size_t)(j + kv) * ld] = 0.0;
        double* cj = ab + (size_t)j * ld + kv;  /* cj[p] = A(j + p, j) */
        const int km = kl < n - 1 - j ? kl : n - 1 - j;
        int p = 0;
        double amax = fabs(cj[0]);
        for (int q = 1; q <= km; q++)
            if (fabs(cj[q]) > amax) amax = fabs(cj[q]), p = q;
        piv[j] = j + p;
        if (cj[p] == 0.0) return j + 1;  /* (*ju_io is not needed any more) */
        const int top = j + ku + p < n - 1 ? j + ku + p : n - 1;
        ju = top > ju ? top : ju;
        if (p) {  /* swap rows j and j + p over columns j..ju (stride ld - 1 in the band) */
            double* rj = cj;
            for (int k = j; k <= ju; k++, rj += ld - 1) {
                const double t = rj[0];
                rj[0] = rj[p], rj[p] = t;
            }
            if (b) {
                const double t = b[j];
                b[j] = b[j + p], b[j + p] = t;
            }
        }
        const double rp = 1.0 / cj[0];
        for (int q = 1; q <= km; q++) cj[q] *= rp;
        for (int k = j + 1; k <= ju; k++) {  /* A(j + q, k) -= l(q) u(j, k) */
            double* ck = ab + (size_t)k * ld + kv + j - k;  /* ck[q] = A(j + q, k) */
            const double u = ck[0];
            if (u != 0.0)
                for (int q = 1; q <= km; q++) ck[q] -= cj[q] * u;
        }
        if (b) {
            const double bj = b[j];
            for (int q = 1; q <= km; q++) b[j + q] -= cj[q] * bj;
        }
    }
    *ju_io = ju;
    return 0;
}

/* L y = P b with the factor of kd_gband_lu_factor (dgbtrs' forward part). */
void kd_gband_lu_forward(const double* ab, int n, int kl, int ku, const int* piv, double* b) {
    const int ld = 2 * kl + ku + 1, kv = kl + ku;
    for (int j = 0; j < n; j++) {
        const double* cj = ab + (size_t)j * ld + kv;
        const int km = kl < n - 1 - j ? kl : n - 1 - j;
        if (piv[j] != j) {
            const double t = b[j];
            b[j] = b[piv[j]], b[piv[j]] = t;
        }
        const double bj = b[j];
        for (int q = 1; q <= km; q++) b[j + q] -= cj[q] * bj;
    }
}

/* Columns fetched ahead by the back substitution (a factor larger than the
 * caches is read from the end, which the hardware prefetchers follow poorly). */
#define KD_BACK_PREFETCH 16

/* U x = y (U with kl + ku superdiagonals), by columns from the last. */
void kd_gband_lu_back(const double* ab, int n, int kl, int ku, double* b) {
    const int ld = 2 * kl + ku + 1, kv = kl + ku;
    for (int j = n - 1; j >= 0; j--) {
        const double* col = ab + (size_t)j * ld + kv - j;  /* col[i] = U(i, j) */
        if (j >= KD_BACK_PREFETCH) {  /* a descending stream: fetch ahead of the hardware */
            const double* ahead = ab + (size_t)(j - KD_BACK_PREFETCH) * ld;
            __builtin_prefetch(ahead);
            __builtin_prefetch(ahead + kv);
        }
        const double xj = b[j] / col[j];
        b[j] = xj;
        for (int i = j - kv > 0 ? j - kv : 0; i < j; i++) b[i] -= col[i] * xj;
    }
}
