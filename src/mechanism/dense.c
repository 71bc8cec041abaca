/* Dense linear algebra of the mechanism solvers (LAPACK): the workspace,
 * minimum-norm least squares by the SVD, condition numbers. Mechanisms of
 * tens of bodies are small enough for dense factorisations of Phi_q; the
 * workspace is sized once so that no time step allocates. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>

#include "mechanism_internal.h"

static int imax(int a, int b) { return a > b ? a : b; }

/* The LAPACK workspace that dgelss and dgesvd ask for on the largest shapes used. */
static int query_lwork(int n, int nc, int ncj) {
    double q = 0.0;
    int best = 1;
    int rank;
    const int N = n + nc;
    const int shapes[3][2] = {{N, N}, {imax(nc, 1), imax(n, 1)}, {imax(n, 1), imax(ncj, 1)}};
    for (int k = 0; k < 3; k++) {
        const int r = shapes[k][0], c = shapes[k][1], ld = imax(r, c);
        if (LAPACKE_dgelss_work(LAPACK_COL_MAJOR, r, c, 1, NULL, ld, NULL, ld, NULL, 1e-12, &rank, &q, -1) == 0)
            best = imax(best, (int)q + 1);
    }
    if (LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'A', imax(ncj, 1), imax(n, 1), NULL, imax(ncj, 1), NULL, NULL, 1,
                            NULL, imax(n, 1), &q, -1) == 0)
        best = imax(best, (int)q + 1);
    return best;
}

kd_mech_work* kd_mech_work_new(const kd_mech* m) {
    kd_mech_work* w = calloc(1, sizeof(*w));
    if (!w) return NULL;
    const int n = m->n, nc = m->nc, N = n + nc, big = imax(imax(n, nc), 1);
    w->n = n, w->nc = nc, w->nc_joint = m->nc_joint, w->ndriver = m->ndriver;
    w->ld_A = big;
    w->jac = malloc(sizeof(double) * (size_t)imax(m->jac_nnz, 1));
    w->A = malloc(sizeof(double) * (size_t)big * big);
    w->rhs = malloc(sizeof(double) * (size_t)(big + N + 1));
    w->phi = malloc(sizeof(double) * (size_t)imax(nc, 1));
    w->s = malloc(sizeof(double) * (size_t)(N + 1));
    w->K = malloc(sizeof(double) * (size_t)imax(N * N, 1));
    w->x = malloc(sizeof(double) * (size_t)(N + 1));
    w->VT = malloc(sizeof(double) * (size_t)imax(n * n, 1));
    w->P = malloc(sizeof(double) * (size_t)imax(n * imax(m->ndriver, 1), 1));
    w->C = malloc(sizeof(double) * (size_t)imax(m->ndriver * m->ndriver, 1));
    w->R = malloc(sizeof(double) * (size_t)imax(n, 1));
    w->Q = malloc(sizeof(double) * (size_t)imax(n, 1));
    w->jl = malloc(sizeof(double) * (size_t)imax(JOINT_SLOTS * nc, 1));
    w->ipiv = malloc(sizeof(int) * (size_t)(N + 1));
    w->iwork = malloc(sizeof(int) * (size_t)(N + 1));
    w->rs = malloc(sizeof(double) * (size_t)(nc + 1));
    w->cs = malloc(sizeof(double) * (size_t)(n + 1));
    w->lwork = imax(query_lwork(n, nc, m->nc_joint), 4 * N + 4);  /* dgecon: 4 n */
    w->work = malloc(sizeof(double) * (size_t)w->lwork);
    if (!w->jac || !w->A || !w->rhs || !w->phi || !w->s || !w->K || !w->x || !w->VT || !w->P || !w->C || !w->R ||
        !w->Q || !w->jl || !w->ipiv || !w->iwork || !w->rs || !w->cs || !w->work)
        kd_mech_work_free(&w);
    return w;
}

void kd_mech_work_free(kd_mech_work** pw) {
    if (!pw || !*pw) return;
    kd_mech_work* w = *pw;
    free(w->jac), free(w->A), free(w->rhs), free(w->phi), free(w->s), free(w->K), free(w->x), free(w->VT);
    free(w->P), free(w->C), free(w->R), free(w->Q), free(w->jl), free(w->ipiv), free(w->iwork), free(w->rs), free(w->cs), free(w->work);
    free(w);
    *pw = NULL;
}

int mech_lsq(kd_mech_work* w, int rows, int cols, double* A, int lda, double* b, double rcond, double* s, int* rank) {
    lapack_int r = 0;
    const int ldb = imax(imax(rows, cols), 1);
    const lapack_int info =
        LAPACKE_dgelss_work(LAPACK_COL_MAJOR, rows, cols, 1, A, lda, b, ldb, s, rcond, &r, w->work, w->lwork);
    *rank = (int)r;
    return (int)info;
}

double mech_cond(const double* s, int ns, int rank) {
    if (rank < 1) return 1.0;
    if (rank > ns || !(s[rank - 1] > 0)) return INFINITY;
    return s[0] / s[rank - 1];
}
