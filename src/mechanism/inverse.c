/* Inverse dynamics of a mechanism: joint reactions and driving forces for a
 * prescribed motion, by two independent routes (theory.md sec. 6):
 *
 *  - multipliers (seed 003): the augmented system
 *        [M  Phi_q^T] [q''] = [Q    ]
 *        [Phi_q   0 ] [lam]   [gamma]
 *    solved whole (its q'' doubles as a check of the kinematics);
 *  - projection (seed 004, A43-A46): premultiplying M q'' = Q + Q_liaison by
 *    the transposed partial velocities A of the driven coordinates
 *    eliminates the liaison forces (A^T Q_liaison = 0 for ideal joints), so
 *    the driving forces are A^T (M q'' - Q); the reactions then follow from
 *    the joint rows alone.
 *
 * Reactions: the constraint force on the coordinates is -Phi_q^T lambda; the
 * rows of joint k (and of its driver) give the force and moment it applies on
 * each of its bodies. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mechanism_internal.h"

#define LSQ_RCOND 1e-12

kd_status kd_mech_reactions_alloc(const kd_mech* m, kd_mech_reactions* r) {
    r->F = calloc((size_t)(3 * m->njoint + 1), sizeof(double));
    r->drive = calloc((size_t)(m->ndriver + 1), sizeof(double));
    r->lambda = calloc((size_t)(m->nc + 1), sizeof(double));
    if (!r->F || !r->drive || !r->lambda) {
        kd_mech_reactions_free(r);
        return KD_ERR_NOMEM;
    }
    return KD_OK;
}

void kd_mech_reactions_free(kd_mech_reactions* r) {
    free(r->F), free(r->drive), free(r->lambda);
    r->F = r->drive = r->lambda = NULL;
}

/* Joint forces from the multipliers: for joint k, the generalised force of
 * its rows on its second body (or minus that on its first, when the second
 * is ground), as a force and a moment about the joint point of the second
 * body; and the driving forces -lambda of the driver rows. */
static void reactions_from_lambda(const kd_mech* m, kd_mech_work* w, double t, const double* q, kd_mech_reactions* r) {
    mech_jacobian_local(m, t, q, w->jl);
    for (int k = 0; k < m->njoint; k++) {
        const kd_mjoint* j = &m->joint[k];
        const int on_second = j->body[1] >= 0;
        const int side = on_second ? 1 : 0;
        double g[3] = {0, 0, 0};
        for (int row = j->row; row < j->row + j->nrow; row++)
            for (int c = 0; c < 3; c++) g[c] -= w->jl[JOINT_SLOTS * row + KD_POINT_SLOTS * side + c] * r->lambda[row];
        if (j->driver >= 0) {
            const int row = m->driver[j->driver].row;
            for (int c = 0; c < 3; c++) g[c] -= w->jl[JOINT_SLOTS * row + KD_POINT_SLOTS * side + c] * r->lambda[row];
        }
        /* moment about P_j: M_G - (P_j - r_G) x F, on the body the rows act on */
        const int b = j->body[side];
        double Pj[2], v[2];
        kd_mech_point(m, j->body[1], j->s[1], q, NULL, Pj, v);
        const double lx = Pj[0] - q[3 * b], ly = Pj[1] - q[3 * b + 1];
        double M = g[2] - (lx * g[1] - ly * g[0]);
        const double sign = on_second ? 1.0 : -1.0;  /* action on the second body = - reaction on the first */
        r->F[3 * k] = sign * g[0];
        r->F[3 * k + 1] = sign * g[1];
        r->F[3 * k + 2] = sign * M;
    }
    for (int d = 0; d < m->ndriver; d++) r->drive[d] = -r->lambda[m->driver[d].row];
}

/* The augmented matrix into w->K and its right-hand side [Q; gamma] into w->x. */
static void fill_augmented(const kd_mech* m, kd_mech_work* w, double t, const double* q, const double* qd) {
    const int n = m->n, nc = m->nc, N = n + nc;
    double* K = w->K;
    memset(K, 0, sizeof(double) * (size_t)N * N);
    kd_mech_jacobian(m, t, q, w->jac);
    for (int i = 0; i < n; i++) K[(size_t)i * N + i] = m->mass[i];
    for (int row = 0; row < nc; row++)
        for (int e = m->jac_rowptr[row]; e < m->jac_rowptr[row + 1]; e++) {
            const int c = m->jac_col[e];
            K[(size_t)c * N + n + row] = w->jac[e];    /* Phi_q below M */
            K[(size_t)(n + row) * N + c] = w->jac[e];  /* Phi_q^T beside it */
        }
    kd_mech_force(m, t, q, qd, w->x);
    kd_mech_gamma(m, t, q, qd, w->x + n);
}

kd_status kd_mech_inverse_multipliers(const kd_mech* m, kd_mech_work* w, double t, const double* q, const double* qd,
                                      double* qdd_out, kd_mech_reactions* r, kd_error* err) {
    const int n = m->n, nc = m->nc, N = n + nc;
    w->lu_valid = 0;
    fill_augmented(m, w, t, q, qd);
    /* LU when the augmented matrix is regular; with redundant constraints it
     * is singular, and the minimum-norm multipliers are taken (SVD) */
    if (LAPACKE_dgesv_work(LAPACK_COL_MAJOR, N, 1, w->K, N, w->ipiv, w->x, N) != 0) {
        int rank = 0;
        fill_augmented(m, w, t, q, qd);
        if (mech_lsq(w, N, N, w->K, N, w->x, LSQ_RCOND, w->s, &rank))
            return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: LAPACK failure", t);
    }
    if (qdd_out) memcpy(qdd_out, w->x, sizeof(double) * (size_t)n);
    memcpy(r->lambda, w->x + n, sizeof(double) * (size_t)nc);
    reactions_from_lambda(m, w, t, q, r);
    return KD_OK;
}

/* Joint multipliers from Phi_joint^T lambda_joint = -(R + Phi_driver^T lambda_driver) (least
 * squares), R = M q'' - Q in w->R and the driver multipliers already in r->lambda; then the
 * reactions. */
static kd_status joint_multipliers(const kd_mech* m, kd_mech_work* w, double t, const double* q, kd_mech_reactions* r,
                                   kd_error* err) {
    const int n = m->n, ncj = m->nc_joint, nd = m->ndriver;
    kd_mech_jac_dense(m, w->jac, ncj, nd, w->A, w->ld_A);
    for (int i = 0; i < n; i++) w->x[i] = -w->R[i];
    for (int dr = 0; dr < nd; dr++)
        for (int i = 0; i < n; i++) w->x[i] -= w->A[(size_t)i * w->ld_A + dr] * r->lambda[m->driver[dr].row];
    for (int i = n; i < n + m->nc; i++) w->x[i] = 0.0;
    if (ncj > 0) {
        kd_mech_jac_dense(m, w->jac, 0, ncj, w->A, w->ld_A);
        for (int row = 0; row < ncj; row++)
            for (int c = 0; c < n; c++) w->K[(size_t)row * n + c] = w->A[(size_t)c * w->ld_A + row];
        int rk = 0;
        if (mech_lsq(w, n, ncj, w->K, n, w->x, LSQ_RCOND, w->s, &rk))
            return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: LAPACK failure", t);
        memcpy(r->lambda, w->x, sizeof(double) * (size_t)ncj);
    }
    reactions_from_lambda(m, w, t, q, r);
    return KD_OK;
}

/* A state of forward dynamics: degrees of freedom left free by the drivers. Over the null space N
 * of the joints' Phi_q (f columns) the liaison forces vanish and N^T (M q'' - Q) =
 * -(Phi_driver N)^T lambda_driver: f equations for the nd driver multipliers, solved by least
 * squares; a true motion satisfies all f (the free directions carry no driving force). */
static kd_status projection_free(const kd_mech* m, kd_mech_work* w, double t, const double* q, const double* qd,
                                 const double* qdd, kd_mech_reactions* r, int rank, int f, kd_error* err) {
    const int n = m->n, ncj = m->nc_joint, nd = m->ndriver;
    kd_mech_force(m, t, q, qd, w->Q);
    for (int i = 0; i < n; i++) w->R[i] = m->mass[i] * qdd[i] - w->Q[i];
    if (nd > 0) {
        /* (Phi_driver N)^T (f x nd) into K, -N^T R into x */
        kd_mech_jac_dense(m, w->jac, ncj, nd, w->A, w->ld_A);
        for (int c = 0; c < f; c++) {
            const double* Nc = w->VT;   /* column c of N is row rank + c of VT */
            double y = 0.0;
            for (int i = 0; i < n; i++) y -= Nc[(size_t)i * n + rank + c] * w->R[i];
            w->x[c] = y;
            for (int dr = 0; dr < nd; dr++) {
                double s = 0.0;
                for (int i = 0; i < n; i++) s += w->A[(size_t)i * w->ld_A + dr] * Nc[(size_t)i * n + rank + c];
                w->K[(size_t)dr * f + c] = s;
            }
        }
        int rk = 0;
        if (mech_lsq(w, f, nd, w->K, f, w->x, LSQ_RCOND, w->s, &rk))
            return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: LAPACK failure", t);
        for (int dr = 0; dr < nd; dr++) r->lambda[m->driver[dr].row] = w->x[dr];
    }
    kd_status st = joint_multipliers(m, w, t, q, r, err);
    for (int dr = 0; !st && dr < nd; dr++) r->drive[dr] = -r->lambda[m->driver[dr].row];
    return st;
}

kd_status kd_mech_inverse_projection(const kd_mech* m, kd_mech_work* w, double t, const double* q, const double* qd,
                                     const double* qdd, kd_mech_reactions* r, kd_error* err) {
    const int n = m->n, ncj = m->nc_joint, nd = m->ndriver;
    w->lu_valid = 0;
    kd_mech_jacobian(m, t, q, w->jac);
    /* Null space N of the joints' Phi_q: the last n - rank right singular vectors. */
    int rank = 0;
    if (ncj > 0) {
        kd_mech_jac_dense(m, w->jac, 0, ncj, w->K, ncj);
        if (LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'A', ncj, n, w->K, ncj, w->s, NULL, 1, w->VT, n, w->work,
                                w->lwork))
            return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: SVD failure", t);
        const int ns = ncj < n ? ncj : n;
        for (int i = 0; i < ns; i++) rank += w->s[i] > 1e-9 * w->s[0];
    } else {
        memset(w->VT, 0, sizeof(double) * (size_t)n * n);
        for (int i = 0; i < n; i++) w->VT[(size_t)i * n + i] = 1.0;
    }
    const int f = n - rank;
    if (f < nd)
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                            "at t = %g s: the projection needs at most one driver per degree of freedom (%d DOF, %d "
                            "drivers)",
                            t, f, nd);
    if (f > nd) return projection_free(m, w, t, q, qd, qdd, r, rank, f, err);
    /* C = Phi_driver N (nd x f); the partial velocities A = N C^-1 satisfy
     * Phi_joint A = 0 and Phi_driver A = I. N's column c is row rank + c of VT. */
    kd_mech_jac_dense(m, w->jac, ncj, nd, w->A, w->ld_A);
    for (int dr = 0; dr < nd; dr++)
        for (int c = 0; c < f; c++) {
            double s = 0.0;
            for (int i = 0; i < n; i++) s += w->A[(size_t)i * w->ld_A + dr] * w->VT[(size_t)i * n + rank + c];
            w->C[(size_t)c * nd + dr] = s;
        }
    /* A^T = C^-T N^T: solve C^T X = N^T (nd x n) */
    double* X = w->P;
    for (int c = 0; c < f; c++)
        for (int i = 0; i < n; i++) X[(size_t)i * nd + c] = w->VT[(size_t)i * n + rank + c];
    double* CT = w->K;
    for (int a = 0; a < nd; a++)
        for (int b = 0; b < nd; b++) CT[(size_t)b * nd + a] = w->C[(size_t)a * nd + b];
    if (nd > 0 && LAPACKE_dgesv_work(LAPACK_COL_MAJOR, nd, n, CT, nd, w->ipiv, X, nd))
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                            "at t = %g s: the drivers do not control the mechanism's DOF (singular projection)", t);
    /* driving forces A^T (M q'' - Q) */
    kd_mech_force(m, t, q, qd, w->Q);
    for (int i = 0; i < n; i++) w->R[i] = m->mass[i] * qdd[i] - w->Q[i];
    for (int dr = 0; dr < nd; dr++) {
        double s = 0.0;
        for (int i = 0; i < n; i++) s += X[(size_t)i * nd + dr] * w->R[i];
        r->lambda[m->driver[dr].row] = -s;
    }
    return joint_multipliers(m, w, t, q, r, err);
}
