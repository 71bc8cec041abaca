/* Rank-revealing sparse QR of Phi_q^T (kedyn/smech_qr.h, theory.md sec. 11.4). */
#include <SuiteSparseQR_C.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/smech_qr.h"

struct kd_smech_qr {
    int n, nc, nc_mech, nnz;
    double rank_tol;
    int* perm;                    /* (nc) column c of A = Phi_q^T is row perm[c] of Phi_q */
    int* map;                     /* (nnz) CSR entry of Phi_q -> entry of A */
    cholmod_sparse* A;            /* n x nc, CSC, row indices ascending */
    cholmod_sparse* R;            /* rank x nc, from the last factorisation */
    SuiteSparse_long* E;          /* its column permutation (NULL: none) */
    int rank;
    int* live;                    /* (nc) column of A of R's row i */
    int* rcol;                    /* (nc) column of R of R's row i */
    int* dead;                    /* (nc) rows of Phi_q found dependent, in the pass order */
    int ndead;
    SuiteSparse_long* diag;       /* (nc) entry R(i, rcol[i]) */
    double *y, *z, *res;          /* (nc), (nc), (n + nc) */
    cholmod_common cc;
};

void kd_smech_qr_free(kd_smech_qr** pqr) {
    kd_smech_qr* qr = *pqr;
    if (!qr) return;
    if (qr->R) cholmod_l_free_sparse(&qr->R, &qr->cc);
    if (qr->E) cholmod_l_free((size_t)qr->nc, sizeof(SuiteSparse_long), qr->E, &qr->cc);
    if (qr->A) cholmod_l_free_sparse(&qr->A, &qr->cc);
    cholmod_l_finish(&qr->cc);
    free(qr->perm), free(qr->map), free(qr->live), free(qr->rcol), free(qr->dead), free(qr->diag);
    free(qr->y), free(qr->z), free(qr->res);
    free(qr);
    *pqr = NULL;
}

kd_status kd_smech_qr_new(const kd_smech* m, double rank_tol, kd_smech_qr** out, kd_error* err) {
    *out = NULL;
    kd_smech_qr* qr = calloc(1, sizeof(*qr));
    if (!qr) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    const int n = m->n, nc = m->nc, nnz = m->jac_nnz;
    qr->n = n, qr->nc = nc, qr->nc_mech = m->nc_mech, qr->nnz = nnz, qr->rank_tol = rank_tol;
    cholmod_l_start(&qr->cc);
    qr->perm = malloc(sizeof(int) * ((size_t)nc + 1));
    qr->map = malloc(sizeof(int) * ((size_t)nnz + 1));
    qr->live = malloc(sizeof(int) * ((size_t)nc + 1));
    qr->dead = malloc(sizeof(int) * ((size_t)nc + 1));
    qr->rcol = malloc(sizeof(int) * ((size_t)nc + 1));
    qr->diag = malloc(sizeof(SuiteSparse_long) * ((size_t)nc + 1));
    qr->y = malloc(sizeof(double) * ((size_t)nc + 1));
    qr->z = malloc(sizeof(double) * ((size_t)nc + 1));
    qr->res = malloc(sizeof(double) * ((size_t)n + nc + 1));
    qr->A = cholmod_l_allocate_sparse((size_t)n, (size_t)nc, (size_t)nnz + 1, 1, 1, 0, CHOLMOD_REAL, &qr->cc);
    if (!qr->perm || !qr->map || !qr->live || !qr->dead || !qr->rcol || !qr->diag || !qr->y || !qr->z || !qr->res ||
        !qr->A) {
        kd_smech_qr_free(&qr);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    /* the dense route's pass order: normalisation rows, joint rows, driver rows */
    for (int c = 0; c < nc; c++)
        qr->perm[c] = c < m->nbody ? m->nc_joint + c : c < m->nc_mech ? c - m->nbody : c;
    SuiteSparse_long* Ap = qr->A->p;
    SuiteSparse_long* Ai = qr->A->i;
    Ap[0] = 0;
    for (int c = 0; c < nc; c++) {
        const int r = qr->perm[c], k0 = m->jac_rowptr[r], k1 = m->jac_rowptr[r + 1];
        const SuiteSparse_long p0 = Ap[c];
        /* the row's columns, sorted by insertion (at most 14) */
        for (int k = k0; k < k1; k++) {
            SuiteSparse_long p = p0 + (k - k0);
            while (p > p0 && Ai[p - 1] > m->jac_col[k]) {
                Ai[p] = Ai[p - 1];
                for (int kk = k0; kk < k; kk++)
                    if (qr->map[kk] == p - 1) {
                        qr->map[kk] = (int)p;
                        break;
                    }
                p--;
            }
            Ai[p] = m->jac_col[k], qr->map[k] = (int)p;
        }
        Ap[c + 1] = p0 + (k1 - k0);
    }
    *out = qr;
    return KD_OK;
}

int kd_smech_qr_factor(kd_smech_qr* qr, const double* jac) {
    double* Ax = qr->A->x;
    for (int k = 0; k < qr->nnz; k++) Ax[qr->map[k]] = jac[k];
    const SuiteSparse_long* Ap = qr->A->p;
    double scale = 0;
    for (int c = 0; c < qr->nc; c++) {
        double s = 0;
        for (SuiteSparse_long p = Ap[c]; p < Ap[c + 1]; p++) s += Ax[p] * Ax[p];
        scale = fmax(scale, s);
    }
    scale = sqrt(scale);
    if (qr->R) cholmod_l_free_sparse(&qr->R, &qr->cc);
    if (qr->E) cholmod_l_free((size_t)qr->nc, sizeof(SuiteSparse_long), qr->E, &qr->cc);
    qr->E = NULL, qr->rank = 0;
    /* R only (no Householder vectors): Heath's rank detection drops a column whose remaining
     * norm is <= tol, i.e. a row of Phi_q within tol of the span of the rows before it */
    const SuiteSparse_long rank = SuiteSparseQR_C(SPQR_ORDERING_FIXED, qr->rank_tol * fmax(scale, 1e-300), 0, 0,
                                                  qr->A, NULL, NULL, NULL, NULL, &qr->R, &qr->E, NULL, NULL, NULL,
                                                  &qr->cc);
    if (rank < 0 || !qr->R) return 1;
    /* R's row i leads at its live column; R restricted to the live columns is upper triangular */
    const SuiteSparse_long *Rp = qr->R->p, *Ri = qr->R->i;
    int r = 0;
    for (int j = 0; j < qr->nc && r < (int)qr->R->nrow; j++)
        for (SuiteSparse_long p = Rp[j]; p < Rp[j + 1]; p++)
            if (Ri[p] == r) {
                qr->live[r] = qr->E ? (int)qr->E[j] : j, qr->rcol[r] = j, qr->diag[r] = p;
                r++;
                break;
            }
    qr->rank = r;
    /* the dead columns, in column (pass) order: marks in dead[] first */
    memset(qr->dead, 0, sizeof(int) * (size_t)qr->nc);
    for (int i = 0; i < r; i++) qr->dead[qr->live[i]] = 1;
    int nd = 0;
    for (int c = 0; c < qr->nc; c++)
        if (!qr->dead[c]) qr->dead[nd++] = qr->perm[c];
    qr->ndead = nd;
    return 0;
}

void kd_smech_qr_rank(const kd_smech_qr* qr, int* rank_mech, int* rank, int* dead, int maxdead, int* ndead) {
    int rm = 0;
    for (int i = 0; i < qr->rank; i++) rm += qr->live[i] < qr->nc_mech;
    if (rank_mech) *rank_mech = rm;
    if (rank) *rank = qr->rank;
    for (int k = 0; k < qr->ndead && k < maxdead && dead; k++) dead[k] = qr->dead[k];
    if (ndead) *ndead = qr->ndead;
}

/* R11^T z = z and R11 y = y in place (R11: R on its live columns, upper triangular in R's row
 * order; column rcol[i] of R holds row i's diagonal). */
static void rt_solve(const kd_smech_qr* qr, double* z) {
    const SuiteSparse_long *Rp = qr->R->p, *Ri = qr->R->i;
    const double* Rx = qr->R->x;
    for (int i = 0; i < qr->rank; i++) {
        const int j = qr->rcol[i];
        double a = z[i];
        for (SuiteSparse_long p = Rp[j]; p < Rp[j + 1]; p++)
            if (Ri[p] != i) a -= Rx[p] * z[Ri[p]];
        z[i] = a / Rx[qr->diag[i]];
    }
}

static void r_solve(const kd_smech_qr* qr, double* y) {
    const SuiteSparse_long *Rp = qr->R->p, *Ri = qr->R->i;
    const double* Rx = qr->R->x;
    for (int i = qr->rank - 1; i >= 0; i--) {
        const int j = qr->rcol[i];
        const double v = y[i] / Rx[qr->diag[i]];
        y[i] = v;
        for (SuiteSparse_long p = Rp[j]; p < Rp[j + 1]; p++)
            if (Ri[p] != i) y[Ri[p]] -= Rx[p] * v;
    }
}

/* x = A_live y, the live columns of A = Phi_q^T (x: n). */
static void a_live(const kd_smech_qr* qr, const double* y, double* x) {
    const SuiteSparse_long *Ap = qr->A->p, *Ai = qr->A->i;
    const double* Ax = qr->A->x;
    memset(x, 0, sizeof(double) * (size_t)qr->n);
    for (int i = 0; i < qr->rank; i++) {
        const int c = qr->live[i];
        for (SuiteSparse_long p = Ap[c]; p < Ap[c + 1]; p++) x[Ai[p]] += Ax[p] * y[i];
    }
}

/* y = A_live^T x (y: rank). */
static void at_live(const kd_smech_qr* qr, const double* x, double* y) {
    const SuiteSparse_long *Ap = qr->A->p, *Ai = qr->A->i;
    const double* Ax = qr->A->x;
    for (int i = 0; i < qr->rank; i++) {
        const int c = qr->live[i];
        double a = 0;
        for (SuiteSparse_long p = Ap[c]; p < Ap[c + 1]; p++) a += Ax[p] * x[Ai[p]];
        y[i] = a;
    }
}

/* Minimum norm: x = A_live (R11^T R11)^-1 b_live = Phi_live^T (Phi_live Phi_live^T)^-1 b_live
 * (A_live = Q1 R11), then one correction with the residual of the live rows (corrected
 * semi-normal equations, theory.md sec. 11.4). */
void kd_smech_qr_solve(kd_smech_qr* qr, const double* b, double* x) {
    double *y = qr->y, *res = qr->res;
    for (int i = 0; i < qr->rank; i++) y[i] = b[qr->perm[qr->live[i]]];
    rt_solve(qr, y), r_solve(qr, y);
    a_live(qr, y, x);
    at_live(qr, x, y);
    for (int i = 0; i < qr->rank; i++) y[i] = b[qr->perm[qr->live[i]]] - y[i];
    rt_solve(qr, y), r_solve(qr, y);
    a_live(qr, y, res);
    for (int k = 0; k < qr->n; k++) x[k] += res[k];
}

/* Least squares A_live lambda_live = r: lambda_live = R11^-1 R11^-T A_live^T r, corrected once
 * with the residual r - A_live lambda_live. */
void kd_smech_qr_tsolve(kd_smech_qr* qr, const double* r, double* lambda) {
    double *y = qr->y, *z = qr->z, *res = qr->res;
    at_live(qr, r, y);
    rt_solve(qr, y), r_solve(qr, y);
    a_live(qr, y, res);
    for (int k = 0; k < qr->n; k++) res[k] = r[k] - res[k];
    at_live(qr, res, z);
    rt_solve(qr, z), r_solve(qr, z);
    memset(lambda, 0, sizeof(double) * (size_t)qr->nc);
    for (int i = 0; i < qr->rank; i++) lambda[qr->perm[qr->live[i]]] = y[i] + z[i];
}

/* sigma_max and sigma_min of R11 (those of Phi_live) by power iteration on A_live^T A_live and
 * inverse iteration on (R11^T R11)^-1, 8 steps each from a fixed start: a lower bound of the
 * 2-norm condition number of the independent rows, usually within a few per cent of it. */
double kd_smech_qr_cond(kd_smech_qr* qr) {
    const int r = qr->rank;
    if (r < 1) return 1.0;
    double *y = qr->y, *z = qr->z, *x = qr->res;
    double smax = 0, smin_inv = 0;
    for (int i = 0; i < r; i++) y[i] = z[i] = 1.0 + 0.1 * sin(1.0 + i);
    for (int it = 0; it < 8; it++) {
        double ny = 0, nz = 0;
        for (int i = 0; i < r; i++) ny += y[i] * y[i], nz += z[i] * z[i];
        ny = sqrt(ny), nz = sqrt(nz);
        for (int i = 0; i < r; i++) y[i] /= ny, z[i] /= nz;
        a_live(qr, y, x), at_live(qr, x, y);  /* y = A^T A y: |y| -> sigma_max^2 */
        rt_solve(qr, z), r_solve(qr, z);      /* z = (R^T R)^-1 z: |z| -> sigma_min^-2 */
        double a = 0, b = 0;
        for (int i = 0; i < r; i++) a += y[i] * y[i], b += z[i] * z[i];
        smax = sqrt(sqrt(a)), smin_inv = sqrt(sqrt(b));
    }
    return smax * smin_inv;
}
