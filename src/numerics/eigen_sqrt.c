/* The lowest modes from square-root factors of K and M (theory.md sec. 3.6): with A^T A = K
 * (stacked element factors, never forming K) and C^T C = M, the sparse QR factorisation
 * (SuiteSparseQR) of
 *     [ A ; sqrt(-sigma) C ] = Q R,    R^T R = K - sigma M   (sigma <= 0; sigma = 0: A alone),
 * feeds ARPACK's shift-invert Lanczos (OP = R^-1 R^-T M). Householder QR is backward stable
 * column by column on the stacked factor, so the lowest eigenvalue is perturbed by about
 * eps kappa(A) = eps sqrt(lambda_max / lambda_1) relative instead of the eps lambda_max / lambda_1
 * of a Cholesky factorisation of the assembled K (condition (L/h)^2 instead of (L/h)^4 for a
 * bending beam). R keeps the equations' own order, so it has the band profile of the Cholesky
 * factor; the triangular solves are sparse. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <SuiteSparseQR_C.h>

#include "numerics/eigen_internal.h"

kd_status kd_triplet_add(kd_triplet* t, int i, int j, double x) {
    if (t->nnz == t->cap) {
        const size_t cap = t->cap ? 2 * t->cap : 1024;
        int* ni = realloc(t->i, sizeof(int) * cap);
        if (ni) t->i = ni;
        int* nj = realloc(t->j, sizeof(int) * cap);
        if (nj) t->j = nj;
        double* nx = realloc(t->x, sizeof(double) * cap);
        if (nx) t->x = nx;
        if (!ni || !nj || !nx) return KD_ERR_NOMEM;
        t->cap = cap;
    }
    t->i[t->nnz] = i, t->j[t->nnz] = j, t->x[t->nnz] = x;
    t->nnz++;
    if (i >= t->nrow) t->nrow = i + 1;
    return KD_OK;
}

void kd_triplet_free(kd_triplet* t) {
    free(t->i);
    free(t->j);
    free(t->x);
    memset(t, 0, sizeof(*t));
}

/* The upper triangular R (compressed columns) and its column permutation. */
typedef struct sqrt_factor {
    int n;
    const SuiteSparse_long *p, *i;
    const double* x;
    SuiteSparse_long* diag;     /* (n) position of R(j, j) in column j */
    const SuiteSparse_long* E;  /* column permutation, NULL: identity */
    double* w;                  /* (n) scratch */
} sqrt_factor;

/* y = (R^T R)^-1 x in the permuted order: (A E)^T (A E) = R^T R, so
 * (K - sigma M)^-1 x = E R^-1 R^-T E^T x. */
static void solve_sqrt(void* ctx, const double* x, double* y) {
    const sqrt_factor* f = ctx;
    const int n = f->n;
    double* w = f->w;
    for (int j = 0; j < n; j++) w[j] = x[f->E ? f->E[j] : j];
    /* R^T z = w, forward: column j of R holds row j of R^T */
    for (int j = 0; j < n; j++) {
        double s = w[j];
        for (SuiteSparse_long k = f->p[j]; k < f->p[j + 1]; k++)
            if (f->i[k] < j) s -= f->x[k] * w[f->i[k]];
        w[j] = s / f->x[f->diag[j]];
    }
    /* R v = z, backward by columns */
    for (int j = n - 1; j >= 0; j--) {
        const double v = w[j] / f->x[f->diag[j]];
        w[j] = v;
        for (SuiteSparse_long k = f->p[j]; k < f->p[j + 1]; k++)
            if (f->i[k] < j) w[f->i[k]] -= f->x[k] * v;
    }
    for (int j = 0; j < n; j++) y[f->E ? f->E[j] : j] = w[j];
}

/* [A; s C] in compressed columns, s = sqrt(-sigma) (C NULL: A alone); A and C are freed as they
 * are copied. Rows within a column stay ascending (the triplets come row by row). */
static cholmod_sparse* stack_columns(kd_triplet* A, kd_triplet* C, double s, int n, cholmod_common* cc) {
    const size_t nnz = A->nnz + (C ? C->nnz : 0);
    const size_t nrow = (size_t)A->nrow + (C ? (size_t)C->nrow : 0);
    cholmod_sparse* S = cholmod_l_allocate_sparse(nrow, (size_t)n, nnz ? nnz : 1, 1, 1, 0, CHOLMOD_REAL, cc);
    if (!S) return NULL;
    SuiteSparse_long *p = S->p, *ri = S->i;
    double* x = S->x;
    memset(p, 0, sizeof(SuiteSparse_long) * (size_t)(n + 1));
    for (size_t e = 0; e < A->nnz; e++) p[A->j[e] + 1]++;
    for (size_t e = 0; C && e < C->nnz; e++) p[C->j[e] + 1]++;
    for (int j = 0; j < n; j++) p[j + 1] += p[j];
    SuiteSparse_long* next = malloc(sizeof(SuiteSparse_long) * (size_t)n);
    if (!next) {
        cholmod_l_free_sparse(&S, cc);
        return NULL;
    }
    memcpy(next, p, sizeof(SuiteSparse_long) * (size_t)n);
    for (size_t e = 0; e < A->nnz; e++) {
        const SuiteSparse_long k = next[A->j[e]]++;
        ri[k] = A->i[e], x[k] = A->x[e];
    }
    const int row0 = A->nrow;
    kd_triplet_free(A);
    for (size_t e = 0; C && e < C->nnz; e++) {
        const SuiteSparse_long k = next[C->j[e]]++;
        ri[k] = row0 + C->i[e], x[k] = s * C->x[e];
    }
    if (C) kd_triplet_free(C);
    free(next);
    return S;
}

kd_status kd_eigen_sqrt(kd_triplet* A, kd_triplet* C, const kd_band* M, int count, double sigma, kd_modes* out,
                        int* singular, kd_error* err) {
    const int n = M->n;
    *singular = 0;
    if (sigma > 0 || (sigma < 0 && !C)) {
        kd_triplet_free(A);
        if (C) kd_triplet_free(C);
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "square-root eigensolver: shift %g without C", sigma);
    }
    if (sigma == 0 && A->nrow < n) {  /* fewer rows than unknowns: K is singular */
        const int rows = A->nrow;
        *singular = 1;
        kd_triplet_free(A);
        if (C) kd_triplet_free(C);
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "K is singular (%d rows of its square root, %d equations)",
                            rows, n);
    }
    cholmod_common cc;
    cholmod_l_start(&cc);
    kd_status st = KD_OK;
    cholmod_sparse *S = stack_columns(A, sigma < 0 ? C : NULL, sqrt(-sigma), n, &cc), *R = NULL;
    if (sigma == 0 && C) kd_triplet_free(C);
    SuiteSparse_long* E = NULL;
    sqrt_factor f = {0};
    if (!S) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the square-root factors");
        goto done;
    }
    /* column norms, for the singularity test below */
    f.w = malloc(sizeof(double) * (size_t)n);
    f.diag = malloc(sizeof(SuiteSparse_long) * (size_t)n);
    if (!f.w || !f.diag) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the square-root factors");
        goto done;
    }
    for (int j = 0; j < n; j++) {
        double c = 0;
        for (SuiteSparse_long k = ((SuiteSparse_long*)S->p)[j]; k < ((SuiteSparse_long*)S->p)[j + 1]; k++)
            c += ((double*)S->x)[k] * ((double*)S->x)[k];
        f.w[j] = sqrt(c);
    }
    /* R only (no Householder vectors kept), in the equations' own (banded) order */
    const SuiteSparse_long rank = SuiteSparseQR_C(SPQR_ORDERING_FIXED, SPQR_NO_TOL, n, 0, S, NULL, NULL, NULL, NULL,
                                                  &R, &E, NULL, NULL, NULL, &cc);
    cholmod_l_free_sparse(&S, &cc);
    if (sigma == 0 && rank >= 0 && R && (int)R->nrow < n) {  /* rank-deficient A: K is singular */
        *singular = 1;
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "K is singular (rank %ld of %d)", (long)rank, n);
        goto done;
    }
    if (rank < 0 || !R || (int)R->nrow < n) {
        st = kd_error_set(err, cc.status == CHOLMOD_OUT_OF_MEMORY ? KD_ERR_NOMEM : KD_ERR_NUMERIC, "", KD_LOC_NONE,
                          "the sparse QR factorisation of the square-root factors failed (status %d)", cc.status);
        goto done;
    }
    f.n = n, f.p = R->p, f.i = R->i, f.x = R->x, f.E = E;
    /* |R(j, j)| is the distance of column j from the span of the columns before it: ~eps |A_j|
     * for a rigid-body motion (singular K at sigma = 0), >= (h/L)^3/2 |A_j| for a supported beam
     * (the condensed stiffness of its tip, 3 EI / L^3, against EI / h^3) */
    for (int j = 0; j < n; j++) {
        f.diag[j] = -1;
        for (SuiteSparse_long k = f.p[j]; k < f.p[j + 1]; k++)
            if (f.i[k] == j) f.diag[j] = k;
    }
    for (int j = 0; j < n; j++) {
        const int col = E ? (int)E[j] : j;
        if (f.diag[j] < 0 || !(fabs(f.x[f.diag[j]]) > 1e-11 * f.w[col])) {
            *singular = 1;
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                              "K - sigma M is singular at sigma = %g (equation %d)%s", sigma, col + 1,
                              sigma < 0 ? ": is the mass matrix singular?" : "");
            goto done;
        }
    }
    st = eigen_arpack_shift_invert(n, count, sigma, eigen_band_matvec, M, solve_sqrt, &f, out, err);
done:
    free(f.diag);
    free(f.w);
    cholmod_l_free_sparse(&R, &cc);
    if (E) cholmod_l_free(n, sizeof(SuiteSparse_long), E, &cc);
    cholmod_l_finish(&cc);
    return st;
}
