/* The lowest modes from square-root factors of K and M (theory.md sec. "Modes of fine meshes"):
 * with A^T A = K (stacked element factors D^1/2 B_e, never forming K) and C^T C = M, the sparse
 * QR factorisation (SuiteSparseQR) of
 *     [ A ; sqrt(-sigma) C ] = Q R,    R^T R = K - sigma M   (sigma <= 0),
 * feeds ARPACK's shift-invert Lanczos (OP = R^-1 R^-T M). Householder QR is backward stable
 * column by column on the stacked factor, so the lowest eigenvalue is perturbed by about
 * eps kappa(A) = eps sqrt(lambda_max / lambda_1) relative instead of the eps lambda_max / lambda_1
 * of a Cholesky factorisation of the assembled K (condition (L/h)^2 instead of (L/h)^4 for a
 * bending beam). The triangular solves with R are sparse (R has the band profile of the
 * Cholesky factor: the natural order of the beam's equations is kept). */
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

kd_status kd_eigen_sqrt(const kd_triplet* A, const kd_triplet* C, const kd_band* M, int count, double sigma,
                        kd_modes* out, kd_error* err) {
    const int n = M->n;
    if (sigma > 0) return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "square-root eigensolver: shift %g > 0", sigma);
    cholmod_common cc;
    cholmod_l_start(&cc);
    kd_status st = KD_OK;
    const int with_mass = sigma < 0;
    const size_t nnz = A->nnz + (with_mass ? C->nnz : 0);
    const int nrow = A->nrow + (with_mass ? C->nrow : 0);
    cholmod_triplet* T = cholmod_l_allocate_triplet((size_t)nrow, (size_t)n, nnz, 0, CHOLMOD_REAL, &cc);
    cholmod_sparse *S = NULL, *R = NULL;
    SuiteSparse_long* E = NULL;
    sqrt_factor f = {0};
    if (!T) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the square-root factors");
        goto done;
    }
    {
        SuiteSparse_long *ti = T->i, *tj = T->j;
        double* tx = T->x;
        size_t k = 0;
        for (size_t e = 0; e < A->nnz; e++, k++) ti[k] = A->i[e], tj[k] = A->j[e], tx[k] = A->x[e];
        const double s = sqrt(-sigma);
        if (with_mass)
            for (size_t e = 0; e < C->nnz; e++, k++) ti[k] = A->nrow + C->i[e], tj[k] = C->j[e], tx[k] = s * C->x[e];
        T->nnz = k;
    }
    S = cholmod_l_triplet_to_sparse(T, nnz, &cc);
    cholmod_l_free_triplet(&T, &cc);
    if (!S) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the square-root factors");
        goto done;
    }
    /* R only (no Householder vectors kept), the equations' own (banded) order */
    const SuiteSparse_long rank = SuiteSparseQR_C(SPQR_ORDERING_FIXED, SPQR_NO_TOL, n, 0, S, NULL, NULL, NULL, NULL,
                                                  &R, &E, NULL, NULL, NULL, &cc);
    cholmod_l_free_sparse(&S, &cc);
    if (rank < 0 || !R || (int)R->nrow < n) {
        st = kd_error_set(err, cc.status == CHOLMOD_OUT_OF_MEMORY ? KD_ERR_NOMEM : KD_ERR_NUMERIC, "", KD_LOC_NONE,
                          "the sparse QR factorisation of the square-root factors failed (status %d)", cc.status);
        goto done;
    }
    f.n = n, f.p = R->p, f.i = R->i, f.x = R->x, f.E = E;
    f.diag = malloc(sizeof(SuiteSparse_long) * (size_t)n);
    f.w = malloc(sizeof(double) * (size_t)n);
    if (!f.diag || !f.w) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the square-root factors");
        goto done;
    }
    double rmax = 0;
    for (int j = 0; j < n; j++) {
        f.diag[j] = -1;
        for (SuiteSparse_long k = f.p[j]; k < f.p[j + 1]; k++)
            if (f.i[k] == j) f.diag[j] = k;
        if (f.diag[j] >= 0) rmax = fmax(rmax, fabs(f.x[f.diag[j]]));
    }
    for (int j = 0; j < n; j++)
        if (f.diag[j] < 0 || !(fabs(f.x[f.diag[j]]) > 1e-15 * rmax)) {
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                              "K - sigma M is singular at sigma = %g (equation %d): is the mass matrix singular?", sigma,
                              j + 1);
            goto done;
        }
    st = eigen_arpack_shift_invert(n, count, sigma, M, solve_sqrt, &f, out, err);
done:
    free(f.diag);
    free(f.w);
    cholmod_l_free_sparse(&R, &cc);
    if (E) cholmod_l_free(n, sizeof(SuiteSparse_long), E, &cc);
    cholmod_l_finish(&cc);
    return st;
}
