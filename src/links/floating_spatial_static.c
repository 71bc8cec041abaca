/* The quasi-static start of a spatial floating-frame system (kedyn/ffr3d.h, kd_ffr3d_static_start;
 * theory.md sec. 17, F10): the elastic coordinates at rest relative to their frames, bent by the
 * loads of the motion at t (gravity, the frames' accelerations, the joints), with the reference
 * coordinates re-assembled on the deformed links. Newton's method on q_f for q_f'' = 0, the
 * Jacobian by forward differences; each residual re-assembles the reference coordinates (Phi = 0,
 * Phi_q q' = -Phi_t with q_f' = 0, least squares of minimum norm) and evaluates the accelerations
 * (kd_mbs_evaluate). Set-up work, allocated once. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/ffr3d.h"
#include "kedyn/mbs.h"

typedef struct st_work {
    const kd_ffr3d_system* s;
    const kd_cms* c;
    int n, nc, nr, nf;
    int* rcol;                    /* (nr) reference coordinates */
    int* fcol;                    /* (nf) elastic coordinates */
    double *jac, *A, *b, *phi, *qdd, *lam;
    kd_mbs_evaluator* ev;
} st_work;

/* A (nc x nr, column-major) = the reference columns of Phi_q at q */
static void ref_jacobian(st_work* w, double t, const double* q) {
    const kd_cms* c = w->c;
    c->jacobian(c->ctx, t, q, w->jac);
    memset(w->A, 0, sizeof(double) * (size_t)w->nc * w->nr);
    for (int r = 0; r < w->nc; r++)
        for (int k = c->jac_rowptr[r]; k < c->jac_rowptr[r + 1]; k++) {
            const int col = c->jac_col[k];
            for (int j = 0; j < w->nr; j++)
                if (w->rcol[j] == col) {
                    w->A[r + (size_t)w->nc * j] = w->jac[k];
                    break;
                }
        }
}

/* The minimum-norm least-squares solution of A x = b (b of max(nc, nr), overwritten by x). */
static int lsq(st_work* w) {
    lapack_int rank;
    lapack_int* jp = calloc((size_t)w->nr + 1, sizeof(lapack_int));
    if (!jp) return 1;
    const int ld = w->nc > w->nr ? w->nc : w->nr;
    const lapack_int info = LAPACKE_dgelsy(LAPACK_COL_MAJOR, w->nc, w->nr, 1, w->A, w->nc, w->b, ld, jp, 1e-12, &rank);
    free(jp);
    return info != 0;
}

/* Re-assemble the reference coordinates of q (q_f kept) and their velocities (q_f' = 0). */
static int assemble(st_work* w, double t, double* q, double* qd) {
    const kd_cms* c = w->c;
    for (int it = 0; it < 30; it++) {
        c->phi(c->ctx, t, q, w->phi);
        double e = 0;
        for (int r = 0; r < w->nc; r++) e = fmax(e, fabs(w->phi[r]));
        if (e < 1e-13) break;
        if (it == 29) return 1;
        ref_jacobian(w, t, q);
        for (int r = 0; r < w->nc; r++) w->b[r] = -w->phi[r];
        if (lsq(w)) return 1;
        for (int j = 0; j < w->nr; j++) q[w->rcol[j]] += w->b[j];
    }
    for (int j = 0; j < w->nf; j++) qd[w->fcol[j]] = 0.0;
    /* Phi_q q' = -Phi_t: the correction of least norm */
    ref_jacobian(w, t, q);
    c->phi_t(c->ctx, t, q, w->phi);
    for (int r = 0; r < w->nc; r++) {
        double v = w->phi[r];
        for (int j = 0; j < w->nr; j++) v += w->A[r + (size_t)w->nc * j] * qd[w->rcol[j]];
        w->b[r] = -v;
    }
    if (lsq(w)) return 1;
    for (int j = 0; j < w->nr; j++) qd[w->rcol[j]] += w->b[j];
    return 0;
}

/* F(q_f) = q_f'' at the re-assembled state (q, qd updated) */
static int residual(st_work* w, double t, double* q, double* qd, double* F, kd_error* err) {
    if (assemble(w, t, q, qd)) return 1;
    if (kd_mbs_evaluate(w->ev, t, q, qd, w->qdd, w->lam, err)) return 1;
    for (int j = 0; j < w->nf; j++) F[j] = w->qdd[w->fcol[j]];
    return 0;
}

kd_status kd_ffr3d_static_start(const kd_ffr3d_system* s, double t, double* q, double* qd, kd_error* err) {
    st_work w;
    memset(&w, 0, sizeof(w));
    w.s = s, w.c = kd_ffr3d_cms(s), w.n = kd_ffr3d_size(s), w.nc = w.c->nc;
    for (int b = 0; b < kd_ffr3d_body_count(s); b++) w.nf += kd_ffr3d_body_size(s, b) - KD_FFR3D_POSE;
    w.nr = w.n - w.nf;
    if (w.nf == 0) return KD_OK;
    const int nf = w.nf, mx = (w.nc > w.nr ? w.nc : w.nr) + 1;
    w.rcol = malloc(sizeof(int) * (size_t)w.nr), w.fcol = malloc(sizeof(int) * (size_t)nf);
    w.jac = malloc(sizeof(double) * ((size_t)w.c->jac_nnz + 1));
    w.A = malloc(sizeof(double) * ((size_t)w.nc * w.nr + 1)), w.b = malloc(sizeof(double) * (size_t)mx);
    w.phi = malloc(sizeof(double) * ((size_t)w.nc + 1));
    w.qdd = malloc(sizeof(double) * (size_t)w.n), w.lam = malloc(sizeof(double) * ((size_t)w.nc + 1));
    double* F0 = malloc(sizeof(double) * (size_t)nf);
    double* F1 = malloc(sizeof(double) * (size_t)nf);
    double* Jf = malloc(sizeof(double) * (size_t)nf * nf);
    double* qx = malloc(sizeof(double) * (size_t)w.n);
    double* qdx = malloc(sizeof(double) * (size_t)w.n);
    lapack_int* ip = malloc(sizeof(lapack_int) * (size_t)nf);
    kd_status st = KD_OK;
    if (!w.rcol || !w.fcol || !w.jac || !w.A || !w.b || !w.phi || !w.qdd || !w.lam || !F0 || !F1 || !Jf || !qx ||
        !qdx || !ip)
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    for (int b = 0, ir = 0, jf = 0; !st && b < kd_ffr3d_body_count(s); b++) {
        const int o = kd_ffr3d_body_offset(s, b), sz = kd_ffr3d_body_size(s, b);
        for (int k = 0; k < sz; k++)
            if (k < KD_FFR3D_POSE) w.rcol[ir++] = o + k;
            else w.fcol[jf++] = o + k;
    }
    kd_mbs_opts o;
    kd_mbs_opts_default(&o);
    o.formulation = KD_MBS_AUGMENTED;
    if (!st) st = kd_mbs_evaluator_new(w.c, &o, t, q, NULL, &w.ev, err);
    const double h = 1e-8;
    int done = 0, fail = 0;
    double dx_prev = HUGE_VAL;
    for (int it = 0; !st && it < 12 && !done && !fail; it++) {
        if (residual(&w, t, q, qd, F0, err)) break;
        for (int j = 0; j < nf && !fail; j++) {
            memcpy(qx, q, sizeof(double) * (size_t)w.n), memcpy(qdx, qd, sizeof(double) * (size_t)w.n);
            qx[w.fcol[j]] += h;
            fail = residual(&w, t, qx, qdx, F1, err);
            for (int i = 0; i < nf; i++) Jf[i + (size_t)nf * j] = (F1[i] - F0[i]) / h;
        }
        for (int i = 0; i < nf; i++) F1[i] = -F0[i];
        if (fail || LAPACKE_dgesv(LAPACK_COL_MAJOR, nf, 1, Jf, nf, ip, F1, nf)) break;
        double dx = 0, x = 0;
        for (int j = 0; j < nf; j++) {
            q[w.fcol[j]] += F1[j];
            dx = fmax(dx, fabs(F1[j])), x = fmax(x, fabs(q[w.fcol[j]]));
        }
        /* converged; or at the round-off floor of the difference quotients (a nonlinear elastic
         * force, e.g. SL8's: the steps stop falling at ~1e-9 of q_f) */
        if (dx <= 1e-10 * x + 1e-15 || (dx <= 1e-8 * x && dx >= 0.5 * dx_prev)) done = 1;
        dx_prev = dx;
    }
    if (!st && done && residual(&w, t, q, qd, F0, err)) done = 0;
    if (!st && !done)
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                          "the quasi-static start of the elastic links did not converge at t = %g s", t);
    kd_mbs_evaluator_free(&w.ev);
    free(w.rcol), free(w.fcol), free(w.jac), free(w.A), free(w.b), free(w.phi), free(w.qdd), free(w.lam);
    free(F0), free(F1), free(Jf), free(qx), free(qdx), free(ip);
    return st;
}
