/* The sparse Newton matrix of the GGL DAE (ida.c) for SUNDIALS IDA: J = dF/dy + cj dF/dy' with
 * y = (q, v, lambda, mu, W), in compressed sparse columns for KLU.
 *
 *              q                         v                 lambda    mu       W
 *   r_q   [ cj M                       -M                  0         Phi_q^T  0  ]
 *   r_v   [ (Phi_q^T l)_q - Q_q        cj M - Q_v          Phi_q^T   0        0  ]
 *         [   + (M(q) v')_q                                                      ]
 *   Phi   [ Phi_q                      0                   0         0        0  ]
 *   vel   [ (Phi_q v + Phi_t)_q        Phi_q               0         0        0  ]
 *   W     [ 0                          -Q^T                0         0        cj ]
 *
 * The second-derivative blocks (geometric stiffness, force and mass derivatives, the velocity
 * constraint's q-derivative) are difference quotients of the callbacks, one evaluation per colour
 * of a distance-2 colouring of their pattern P: coordinates that share no row of P are perturbed
 * together (Curtis-Powell-Reid), so that the cost per matrix is a fixed number of callback
 * evaluations, however long the chain. P is the union of Phi_q^T Phi_q, the mass blocks and the
 * force's dependence on (q, v) found at t0 by perturbing one coordinate at a time (setup only).
 * Left out, as in a modified Newton method: (Phi_q^T mu)_q and (M(q)(q' - v))_q in r_q (mu and
 * q' - v vanish on the solution), the power's derivatives in the W row, and force terms outside
 * the pattern found at t0. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include "constrained_internal.h"

struct ida_jac {
    int n, nc, m, nnz;
    /* P (n x n, symmetric pattern, sorted rows per column) */
    int *pp, *pi;
    int* pmass;                   /* (nnz P) position in w->Mb of M_ij, or -1 (diagonal M: -2 on the diagonal) */
    /* Phi_q by columns: for each column j the rows k and the position in the CSR values */
    int *cp, *ck, *cv;
    /* colouring of P's columns */
    int ncol;
    int *colour_start, *colour_cols;
    /* the matrix pattern and, for each stored entry, where its value comes from */
    sunindextype *Ap, *Ai;
    /* positions in the matrix of the blocks, per P entry / Phi_q entry */
    int *a_qq, *a_vq, *a_qv, *a_vv;   /* (nnz P) r_q-q, r_v-q, r_q-v, r_v-v */
    int *a_phq, *a_velq, *a_velv;     /* (nnz Phi_q, in column order) */
    int *a_lam, *a_mu;                /* (nnz Phi_q, CSR order): r_v-lambda, r_q-mu */
    int *a_wv, a_ww;                  /* (n) W row in column v_j; W-W */
    /* scratch */
    double *jacp, *phitp, *Qp, *Q0, *g0, *g, *h0, *h, *qp, *vp, *Mb0, *delta;
    int nMb;
};

/* g = Phi_q^T lambda - Q + M(q) v' (with the values in jac, Q, w->Mb); h = Phi_q v + Phi_t */
static void rows_of(const mbs_ws* w, const double* jac, const double* Q, const double* phit, const double* v,
                    const double* lam, const double* vd, double* g, double* h) {
    const kd_cms* s = w->sys;
    mbs_mass_apply(w, vd, g);
    for (int i = 0; i < w->n; i++) g[i] -= Q[i];
    for (int k = 0; k < w->nc; k++) {
        double a = phit[k];
        for (int p = s->jac_rowptr[k]; p < s->jac_rowptr[k + 1]; p++) {
            g[s->jac_col[p]] += jac[p] * lam[k];
            a += jac[p] * v[s->jac_col[p]];
        }
        h[k] = a;
    }
}

void mbs_ida_jac_free(ida_jac** jp) {
    ida_jac* j = *jp;
    if (!j) return;
    free(j->pp), free(j->pi), free(j->pmass), free(j->cp), free(j->ck), free(j->cv);
    free(j->colour_start), free(j->colour_cols), free(j->Ap), free(j->Ai);
    free(j->a_qq), free(j->a_vq), free(j->a_qv), free(j->a_vv), free(j->a_phq), free(j->a_velq), free(j->a_velv);
    free(j->a_lam), free(j->a_mu), free(j->a_wv);
    free(j->jacp), free(j->phitp), free(j->Qp), free(j->Q0), free(j->g0), free(j->g), free(j->h0), free(j->h);
    free(j->qp), free(j->vp), free(j->Mb0), free(j->delta);
    free(j);
    *jp = NULL;
}

static double step_of(double x) { return 1.4901161193847656e-08 * fmax(fabs(x), 1.0); }

kd_status mbs_ida_jac_new(mbs_ws* w, double t0, const double* q0, const double* v0, ida_jac** out, kd_error* err) {
    const kd_cms* s = w->sys;
    const int n = w->n, nc = w->nc, nnzJ = s->jac_nnz;
    ida_jac* J = calloc(1, sizeof(ida_jac));
    int* mark = NULL;
    int* blk = NULL;
    *out = NULL;
    if (!J) goto oom;
    J->n = n, J->nc = nc, J->m = 2 * (n + nc) + 1;
    J->nMb = w->blocked ? (int)w->boff[s->nblocks] : 0;
    J->jacp = malloc(sizeof(double) * (nnzJ + 1)), J->phitp = malloc(sizeof(double) * (nc + 1));
    J->Qp = malloc(sizeof(double) * n), J->Q0 = malloc(sizeof(double) * n), J->g0 = malloc(sizeof(double) * n);
    J->g = malloc(sizeof(double) * n), J->h0 = malloc(sizeof(double) * (nc + 1)), J->h = malloc(sizeof(double) * (nc + 1));
    J->qp = malloc(sizeof(double) * n), J->vp = malloc(sizeof(double) * n), J->delta = malloc(sizeof(double) * n);
    J->Mb0 = malloc(sizeof(double) * (J->nMb + 1));
    mark = malloc(sizeof(int) * n);
    if (!J->jacp || !J->phitp || !J->Qp || !J->Q0 || !J->g0 || !J->g || !J->h0 || !J->h || !J->qp || !J->vp ||
        !J->delta || !J->Mb0 || !mark)
        goto oom;

    /* Phi_q by columns */
    J->cp = calloc(n + 1, sizeof(int)), J->ck = malloc(sizeof(int) * (nnzJ + 1)), J->cv = malloc(sizeof(int) * (nnzJ + 1));
    if (!J->cp || !J->ck || !J->cv) goto oom;
    for (int p = 0; p < nnzJ; p++) J->cp[s->jac_col[p] + 1]++;
    for (int j = 0; j < n; j++) J->cp[j + 1] += J->cp[j];
    {
        int* fill = mark;
        memcpy(fill, J->cp, sizeof(int) * n);
        for (int k = 0; k < nc; k++)
            for (int p = s->jac_rowptr[k]; p < s->jac_rowptr[k + 1]; p++) {
                const int c = s->jac_col[p];
                J->ck[fill[c]] = k, J->cv[fill[c]] = p, fill[c]++;
            }
    }

    /* the force's dependence on q and v at t0, one coordinate at a time (setup only) */
    int cap = 16 * n + 16, cnt = 0;
    int* pairs = malloc(sizeof(int) * 2 * cap);
    if (!pairs) goto oom;
#define ADD_PAIR(a, b)                                                          \
    do {                                                                        \
        if (cnt == cap) {                                                       \
            int* np_ = realloc(pairs, sizeof(int) * 4 * cap);                   \
            if (!np_) { free(pairs); goto oom; }                                \
            pairs = np_, cap *= 2;                                              \
        }                                                                       \
        pairs[2 * cnt] = (a), pairs[2 * cnt + 1] = (b), cnt++;                  \
    } while (0)
    for (int i = 0; i < n; i++) ADD_PAIR(i, i);
    for (int k = 0; k < nc; k++)
        for (int p = s->jac_rowptr[k]; p < s->jac_rowptr[k + 1]; p++)
            for (int r = s->jac_rowptr[k]; r < s->jac_rowptr[k + 1]; r++) ADD_PAIR(s->jac_col[r], s->jac_col[p]);
    if (w->blocked)
        for (int b = 0; b < s->nblocks; b++)
            for (int i = s->block_start[b]; i < s->block_start[b + 1]; i++)
                for (int j = s->block_start[b]; j < s->block_start[b + 1]; j++) ADD_PAIR(i, j);
    if (s->force(s->ctx, t0, q0, v0, J->Q0)) {
        free(pairs);
        goto cbfail;
    }
    memcpy(J->qp, q0, sizeof(double) * n), memcpy(J->vp, v0, sizeof(double) * n);
    for (int j = 0; j < n; j++) {
        for (int pass = 0; pass < 2; pass++) {
            double* x = pass ? J->vp : J->qp;
            const double x0 = x[j], d = step_of(x0);
            x[j] = x0 + d;
            const int bad = s->force(s->ctx, t0, J->qp, J->vp, J->Qp);
            x[j] = x0;
            if (bad) {
                free(pairs);
                goto cbfail;
            }
            for (int i = 0; i < n; i++)
                if (J->Qp[i] != J->Q0[i]) {
                    ADD_PAIR(i, j);
                    ADD_PAIR(j, i);
                }
        }
    }
#undef ADD_PAIR
    /* P in compressed columns, duplicates removed, rows sorted (counting sort by row, then by column) */
    {
        int* cc = calloc(n + 1, sizeof(int));
        int* rows = malloc(sizeof(int) * (cnt + 1));
        if (!cc || !rows) { free(cc), free(rows), free(pairs); goto oom; }
        /* bucket by row first, then stable bucket by column: rows ascend within each column */
        int* rc = calloc(n + 1, sizeof(int));
        int* byrow = malloc(sizeof(int) * (cnt + 1));
        if (!rc || !byrow) { free(cc), free(rows), free(rc), free(byrow), free(pairs); goto oom; }
        for (int e = 0; e < cnt; e++) rc[pairs[2 * e] + 1]++;
        for (int i = 0; i < n; i++) rc[i + 1] += rc[i];
        for (int e = 0; e < cnt; e++) byrow[rc[pairs[2 * e]]++] = e;
        for (int e = 0; e < cnt; e++) cc[pairs[2 * e + 1] + 1]++;
        for (int j = 0; j < n; j++) cc[j + 1] += cc[j];
        int* fill = mark;
        memcpy(fill, cc, sizeof(int) * n);
        for (int r = 0; r < cnt; r++) {
            const int e = byrow[r];
            rows[fill[pairs[2 * e + 1]]++] = pairs[2 * e];
        }
        free(rc), free(byrow), free(pairs);
        J->pp = malloc(sizeof(int) * (n + 1)), J->pi = malloc(sizeof(int) * (cnt + 1));
        if (!J->pp || !J->pi) { free(cc), free(rows); goto oom; }
        int np = 0;
        J->pp[0] = 0;
        for (int j = 0; j < n; j++) {
            for (int p = cc[j]; p < cc[j + 1]; p++)
                if (np == J->pp[j] || J->pi[np - 1] != rows[p]) J->pi[np++] = rows[p];
            J->pp[j + 1] = np;
        }
        free(cc), free(rows);
    }
    const int nP = J->pp[n];
    /* mass positions of the P entries */
    J->pmass = malloc(sizeof(int) * (nP + 1)), blk = malloc(sizeof(int) * n);
    if (!J->pmass || !blk) goto oom;
    if (w->blocked)
        for (int b = 0; b < s->nblocks; b++)
            for (int i = s->block_start[b]; i < s->block_start[b + 1]; i++) blk[i] = b;
    for (int j = 0; j < n; j++)
        for (int p = J->pp[j]; p < J->pp[j + 1]; p++) {
            const int i = J->pi[p];
            J->pmass[p] = -1;
            if (!w->blocked) {
                if (i == j) J->pmass[p] = -2;
            } else if (blk[i] == blk[j]) {
                const int b = blk[j], o = s->block_start[b], d = s->block_start[b + 1] - o;
                J->pmass[p] = (int)w->boff[b] + (i - o) + d * (j - o);
            }
        }
    /* distance-2 colouring of P (columns sharing a row get different colours), greedy */
    {
        int* colour = malloc(sizeof(int) * n);
        int* used = malloc(sizeof(int) * (n + 1));
        if (!colour || !used) { free(colour), free(used); goto oom; }
        for (int c = 0; c <= n; c++) used[c] = -1;
        J->ncol = 0;
        for (int j = 0; j < n; j++) {
            /* P is symmetric: the columns sharing a row with j are the neighbours of its rows */
            for (int p = J->pp[j]; p < J->pp[j + 1]; p++) {
                const int i = J->pi[p];
                for (int r = J->pp[i]; r < J->pp[i + 1]; r++) {
                    const int j2 = J->pi[r];
                    if (j2 < j) used[colour[j2]] = j;
                }
            }
            int c = 0;
            while (used[c] == j) c++;
            colour[j] = c;
            if (c + 1 > J->ncol) J->ncol = c + 1;
        }
        J->colour_start = calloc(J->ncol + 1, sizeof(int)), J->colour_cols = malloc(sizeof(int) * n);
        if (!J->colour_start || !J->colour_cols) { free(colour), free(used); goto oom; }
        for (int j = 0; j < n; j++) J->colour_start[colour[j] + 1]++;
        for (int c = 0; c < J->ncol; c++) J->colour_start[c + 1] += J->colour_start[c];
        memcpy(used, J->colour_start, sizeof(int) * J->ncol);
        for (int j = 0; j < n; j++) J->colour_cols[used[colour[j]]++] = j;
        free(colour), free(used);
    }
    /* the matrix pattern, column by column, rows ascending */
    J->nnz = 4 * nP + 5 * nnzJ + n + 1;
    J->Ap = malloc(sizeof(sunindextype) * (J->m + 1)), J->Ai = malloc(sizeof(sunindextype) * J->nnz);
    J->a_qq = malloc(sizeof(int) * nP), J->a_vq = malloc(sizeof(int) * nP), J->a_qv = malloc(sizeof(int) * nP);
    J->a_vv = malloc(sizeof(int) * nP), J->a_phq = malloc(sizeof(int) * (nnzJ + 1));
    J->a_velq = malloc(sizeof(int) * (nnzJ + 1)), J->a_velv = malloc(sizeof(int) * (nnzJ + 1));
    J->a_lam = malloc(sizeof(int) * (nnzJ + 1)), J->a_mu = malloc(sizeof(int) * (nnzJ + 1)), J->a_wv = malloc(sizeof(int) * n);
    if (!J->Ap || !J->Ai || !J->a_qq || !J->a_vq || !J->a_qv || !J->a_vv || !J->a_phq || !J->a_velq || !J->a_velv ||
        !J->a_lam || !J->a_mu || !J->a_wv)
        goto oom;
    int e = 0, col = 0;
    for (int j = 0; j < n; j++, col++) {      /* columns q_j */
        J->Ap[col] = e;
        for (int p = J->pp[j]; p < J->pp[j + 1]; p++) J->a_qq[p] = e, J->Ai[e++] = J->pi[p];
        for (int p = J->pp[j]; p < J->pp[j + 1]; p++) J->a_vq[p] = e, J->Ai[e++] = n + J->pi[p];
        for (int p = J->cp[j]; p < J->cp[j + 1]; p++) J->a_phq[p] = e, J->Ai[e++] = 2 * n + J->ck[p];
        for (int p = J->cp[j]; p < J->cp[j + 1]; p++) J->a_velq[p] = e, J->Ai[e++] = 2 * n + nc + J->ck[p];
    }
    for (int j = 0; j < n; j++, col++) {      /* columns v_j */
        J->Ap[col] = e;
        for (int p = J->pp[j]; p < J->pp[j + 1]; p++) J->a_qv[p] = e, J->Ai[e++] = J->pi[p];
        for (int p = J->pp[j]; p < J->pp[j + 1]; p++) J->a_vv[p] = e, J->Ai[e++] = n + J->pi[p];
        for (int p = J->cp[j]; p < J->cp[j + 1]; p++) J->a_velv[p] = e, J->Ai[e++] = 2 * n + nc + J->ck[p];
        J->a_wv[j] = e, J->Ai[e++] = J->m - 1;
    }
    for (int k = 0; k < nc; k++, col++) {     /* columns lambda_k: rows r_v */
        J->Ap[col] = e;
        for (int p = s->jac_rowptr[k]; p < s->jac_rowptr[k + 1]; p++) J->a_lam[p] = e, J->Ai[e++] = n + s->jac_col[p];
    }
    for (int k = 0; k < nc; k++, col++) {     /* columns mu_k: rows r_q */
        J->Ap[col] = e;
        for (int p = s->jac_rowptr[k]; p < s->jac_rowptr[k + 1]; p++) J->a_mu[p] = e, J->Ai[e++] = s->jac_col[p];
    }
    J->Ap[col] = e;
    J->a_ww = e, J->Ai[e++] = J->m - 1;
    J->Ap[J->m] = e;
    free(mark), free(blk);
    *out = J;
    return KD_OK;
oom:
    free(mark), free(blk);
    mbs_ida_jac_free(&J);
    return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the IDA Newton matrix");
cbfail:
    free(mark), free(blk);
    mbs_ida_jac_free(&J);
    return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: a system callback failed", t0);
}

int mbs_ida_jac_nnz(const ida_jac* J) { return J->nnz; }
int mbs_ida_jac_colours(const ida_jac* J) { return J->ncol; }

static double mass_at(const mbs_ws* w, const double* Mb, int pos, int i) {
    return pos >= 0 ? Mb[pos] : pos == -2 ? w->sys->mass[i] : 0.0;
}

int mbs_ida_jac_eval(mbs_ws* w, ida_jac* J, double t, double cj, const double* y, const double* yp, SUNMatrix A) {
    const kd_cms* s = w->sys;
    const int n = w->n;
    const double *q = y, *v = y + n, *lam = y + 2 * n, *vd = yp + n;
    memcpy(SUNSparseMatrix_IndexPointers(A), J->Ap, sizeof(sunindextype) * (J->m + 1));
    memcpy(SUNSparseMatrix_IndexValues(A), J->Ai, sizeof(sunindextype) * J->nnz);
    double* a = SUNSparseMatrix_Data(A);
    /* the base point */
    if (s->jacobian(s->ctx, t, q, w->jac) || s->phi_t(s->ctx, t, q, w->phit) || s->force(s->ctx, t, q, v, J->Q0))
        return mbs_fail(w, t, "a system callback failed");
    if (mbs_mass_values(w, t, q)) return -1;
    if (J->nMb) memcpy(J->Mb0, w->Mb, sizeof(double) * J->nMb);
    rows_of(w, w->jac, J->Q0, w->phit, v, lam, vd, J->g0, J->h0);
    w->stats->evaluations++;
    for (int j = 0; j < n; j++)
        for (int p = J->pp[j]; p < J->pp[j + 1]; p++) {
            const double M = mass_at(w, J->Mb0, J->pmass[p], j);
            a[J->a_qq[p]] = cj * M, a[J->a_qv[p]] = -M, a[J->a_vv[p]] = cj * M, a[J->a_vq[p]] = 0;
        }
    for (int j = 0; j < n; j++)
        for (int p = J->cp[j]; p < J->cp[j + 1]; p++) {
            const double d = w->jac[J->cv[p]];
            a[J->a_phq[p]] = d, a[J->a_velv[p]] = d, a[J->a_velq[p]] = 0;
        }
    for (int p = 0; p < s->jac_nnz; p++) a[J->a_lam[p]] = a[J->a_mu[p]] = w->jac[p];
    for (int j = 0; j < n; j++) a[J->a_wv[j]] = -J->Q0[j];
    a[J->a_ww] = cj;
    /* difference quotients, one colour at a time: q, then v */
    memcpy(J->qp, q, sizeof(double) * n), memcpy(J->vp, v, sizeof(double) * n);
    for (int pass = 0; pass < 2; pass++)
        for (int c = 0; c < J->ncol; c++) {
            double* x = pass ? J->vp : J->qp;
            const double* x0 = pass ? v : q;
            for (int r = J->colour_start[c]; r < J->colour_start[c + 1]; r++) {
                const int j = J->colour_cols[r];
                J->delta[j] = step_of(x0[j]);
                x[j] = x0[j] + J->delta[j];
            }
            int bad;
            if (pass == 0) {
                bad = s->jacobian(s->ctx, t, J->qp, J->jacp) || s->phi_t(s->ctx, t, J->qp, J->phitp) ||
                      s->force(s->ctx, t, J->qp, v, J->Qp);
                if (!bad && mbs_mass_values(w, t, J->qp)) return -1;
                if (!bad) rows_of(w, J->jacp, J->Qp, J->phitp, v, lam, vd, J->g, J->h);
            } else {
                bad = s->force(s->ctx, t, q, J->vp, J->Qp);
            }
            w->stats->evaluations++;
            for (int r = J->colour_start[c]; r < J->colour_start[c + 1]; r++) {
                const int j = J->colour_cols[r];
                x[j] = x0[j];
            }
            if (bad) return mbs_fail(w, t, "a system callback failed");
            for (int r = J->colour_start[c]; r < J->colour_start[c + 1]; r++) {
                const int j = J->colour_cols[r];
                const double inv = 1.0 / J->delta[j];
                if (pass == 0) {
                    for (int p = J->pp[j]; p < J->pp[j + 1]; p++) {
                        const int i = J->pi[p];
                        a[J->a_vq[p]] = (J->g[i] - J->g0[i]) * inv;
                    }
                    for (int p = J->cp[j]; p < J->cp[j + 1]; p++) {
                        const int k = J->ck[p];
                        a[J->a_velq[p]] = (J->h[k] - J->h0[k]) * inv;
                    }
                } else {
                    /* r_v = ... - Q: d/dv = cj M - Q_v */
                    for (int p = J->pp[j]; p < J->pp[j + 1]; p++) {
                        const int i = J->pi[p];
                        a[J->a_vv[p]] -= (J->Qp[i] - J->Q0[i]) * inv;
                    }
                }
            }
        }
    if (J->nMb) memcpy(w->Mb, J->Mb0, sizeof(double) * J->nMb);
    return 0;
}
