/* Kinematic analysis of a mechanism (theory.md sec. 6):
 *
 *     position:      Phi(q, t) = 0            Newton-Raphson
 *     velocity:      Phi_q q' = -Phi_t
 *     acceleration:  Phi_q q'' = gamma
 *
 * Each linear solve is a minimum-norm least-squares solve by the SVD
 * (LAPACK dgelss): consistent redundant constraints are handled, and the
 * singular values give the condition number of Phi_q at every step, by which
 * dead-centre and locking positions are detected and reported. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "mechanism_internal.h"

#define NEWTON_MAX 50
#define LSQ_RCOND 1e-12

/* A square Phi_q of full rank (the usual fully driven mechanism without
 * redundant constraints) is factorised by LU (dgetrf), its condition number
 * estimated in the 1-norm (dgecon), and the factors are kept for the velocity
 * and acceleration solves at the same position. */
/* Phi_q into w->A, equilibrated so that its condition number does not
 * depend on units: angle columns scaled by the mechanism's length L (the
 * unknown is L phi), then each row by its largest entry. Solutions are
 * unscaled by scale_rhs / unscale_x. */
static void scaled_jacobian(const kd_mech* m, kd_mech_work* w) {
    kd_mech_jac_dense(m, w->jac, 0, m->nc, w->A, w->ld_A);
    for (int c = 0; c < m->n; c++) w->cs[c] = c % 3 == 2 ? 1.0 / m->length_scale : 1.0;
    for (int r = 0; r < m->nc; r++) {
        double big = 0.0;
        for (int c = 0; c < m->n; c++) big = fmax(big, fabs(w->A[(size_t)c * w->ld_A + r] * w->cs[c]));
        w->rs[r] = big > 0 ? 1.0 / big : 1.0;
    }
    for (int c = 0; c < m->n; c++)
        for (int r = 0; r < m->nc; r++) w->A[(size_t)c * w->ld_A + r] *= w->rs[r] * w->cs[c];
}

static void scale_rhs(const kd_mech* m, kd_mech_work* w) {
    for (int r = 0; r < m->nc; r++) w->rhs[r] *= w->rs[r];
}

static void unscale_x(const kd_mech* m, kd_mech_work* w) {
    for (int c = 0; c < m->n; c++) w->rhs[c] *= w->cs[c];
}

static int lu_path(const kd_mech* m, const kd_mech_work* w) {
    return m->nc == m->n && w->rank_expected == m->n;
}

static int lu_factor(const kd_mech* m, kd_mech_work* w, double* cond) {
    scaled_jacobian(m, w);
    const double anorm = LAPACKE_dlange_work(LAPACK_COL_MAJOR, '1', m->n, m->n, w->A, w->ld_A, w->work);
    const lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m->n, m->n, w->A, w->ld_A, w->ipiv);
    w->lu_valid = info == 0;
    if (info < 0) return -1;
    if (info > 0) {
        *cond = INFINITY;
        return m->n - 1;
    }
    /* the sign of det(Phi_q): it changes only where Phi_q passes through a
     * singular matrix */
    int sign = 1;
    for (int i = 0; i < m->n; i++) {
        if (w->A[(size_t)i * w->ld_A + i] < 0) sign = -sign;
        if (w->ipiv[i] != i + 1) sign = -sign;
    }
    w->det_sign = sign;
    double rcond = 0.0;
    if (LAPACKE_dgecon_work(LAPACK_COL_MAJOR, '1', m->n, w->A, w->ld_A, anorm, &rcond, w->work, w->iwork)) return -1;
    *cond = rcond > 0 ? 1.0 / rcond : INFINITY;
    return m->n;
}

static int lu_solve(const kd_mech* m, kd_mech_work* w) {
    scale_rhs(m, w);
    const int info = (int)LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', m->n, 1, w->A, w->ld_A, w->ipiv, w->rhs, w->ld_A);
    unscale_x(m, w);
    return info;
}

/* Solve Phi_q x = b (b in w->rhs, x back in w->rhs[0..n)); returns the rank
 * and the condition number on the expected rank. Least squares by the SVD
 * (redundant constraints, assembly with free DOF), LU otherwise. */
static int solve_jac(const kd_mech* m, kd_mech_work* w, double* cond) {
    if (lu_path(m, w)) {
        const int rank = lu_factor(m, w, cond);
        if (rank == m->n && lu_solve(m, w)) return -1;
        return rank;
    }
    w->lu_valid = 0;
    w->det_sign = 0;
    scaled_jacobian(m, w);
    scale_rhs(m, w);
    int rank = 0;
    if (mech_lsq(w, m->nc, m->n, w->A, w->ld_A, w->rhs, LSQ_RCOND, w->s, &rank)) return -1;
    unscale_x(m, w);
    const int ns = m->nc < m->n ? m->nc : m->n;
    const int r0 = w->rank_expected > 0 ? w->rank_expected : rank;
    *cond = mech_cond(w->s, ns, r0 > rank ? ns + 1 : r0);
    return rank;
}

static double inf_norm(const double* v, int n) {
    double x = 0.0;
    for (int i = 0; i < n; i++) x = fmax(x, fabs(v[i]));
    return x;
}

kd_status kd_mech_solve_position(const kd_mech* m, kd_mech_work* w, double t, double* q, kd_mech_kin_info* info,
                                 kd_error* err) {
    const double tol = 1e-11 * (1.0 + m->length_scale);
    kd_mech_kin_info local;
    if (!info) info = &local;
    memset(info, 0, sizeof(*info));
    for (int it = 0; it <= NEWTON_MAX; it++) {
        kd_mech_phi(m, t, q, w->phi);
        info->residual = inf_norm(w->phi, m->nc);
        info->iterations = it;
        kd_mech_jacobian(m, t, q, w->jac);
        for (int r = 0; r < m->nc; r++) w->rhs[r] = -w->phi[r];
        for (int r = m->nc; r < w->ld_A; r++) w->rhs[r] = 0.0;
        info->rank = solve_jac(m, w, &info->cond);
        if (info->rank < 0) return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: LAPACK failure", t);
        if (info->residual <= tol) return KD_OK;
        if (it == NEWTON_MAX || !isfinite(info->residual)) break;
        /* limit the step: an angle change of at most 0.5 rad per iteration */
        double scale = 1.0;
        for (int b = 0; b < m->nbody; b++) scale = fmin(scale, 0.5 / fmax(fabs(w->rhs[3 * b + 2]), 1e-300));
        for (int i = 0; i < m->n; i++) q[i] += scale * w->rhs[i];
    }
    return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                        "no assembly at t = %g s: Newton-Raphson did not converge (|Phi| = %.3g after %d iterations, "
                        "condition number of Phi_q %.3g); the mechanism cannot reach this position (locking or "
                        "limit position?)",
                        t, info->residual, NEWTON_MAX, info->cond);
}

/* Solve with the rhs in w->rhs: reusing the LU factors of Phi_q at this
 * position when `reuse` says they are current. */
static kd_status solve_rhs(const kd_mech* m, kd_mech_work* w, double t, const double* q, int reuse, double* x,
                           kd_error* err) {
    for (int r = m->nc; r < w->ld_A; r++) w->rhs[r] = 0.0;
    int fail;
    if (reuse && w->lu_valid && lu_path(m, w)) {
        fail = lu_solve(m, w) != 0;
    } else {
        double cond;
        kd_mech_jacobian(m, t, q, w->jac);
        fail = solve_jac(m, w, &cond) < 0;
    }
    if (fail) return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: LAPACK failure", t);
    memcpy(x, w->rhs, sizeof(double) * (size_t)m->n);
    return KD_OK;
}

static kd_status velocity(const kd_mech* m, kd_mech_work* w, double t, const double* q, double* qd, int reuse,
                          kd_error* err) {
    kd_mech_phi_t(m, t, q, w->phi);
    for (int r = 0; r < m->nc; r++) w->rhs[r] = -w->phi[r];
    return solve_rhs(m, w, t, q, reuse, qd, err);
}

static kd_status acceleration(const kd_mech* m, kd_mech_work* w, double t, const double* q, const double* qd,
                              double* qdd, int reuse, kd_error* err) {
    kd_mech_gamma(m, t, q, qd, w->rhs);
    return solve_rhs(m, w, t, q, reuse, qdd, err);
}

kd_status kd_mech_solve_velocity(const kd_mech* m, kd_mech_work* w, double t, const double* q, double* qd,
                                 kd_error* err) {
    return velocity(m, w, t, q, qd, 0, err);
}

kd_status kd_mech_solve_acceleration(const kd_mech* m, kd_mech_work* w, double t, const double* q, const double* qd,
                                     double* qdd, kd_error* err) {
    return acceleration(m, w, t, q, qd, qdd, 0, err);
}

kd_status kd_mech_kinematics(const kd_mech* m, double t_end, int steps, double cond_max, kd_mech_sink sink, void* ctx,
                             kd_mech_kin_stats* stats, kd_error* err) {
    memset(stats, 0, sizeof(*stats));
    stats->t_reached = NAN;
    kd_mech_work* w = kd_mech_work_new(m);
    double* q = w ? calloc((size_t)(5 * m->n + 5), sizeof(double)) : NULL;
    if (!q) {
        kd_mech_work_free(&w);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    double *qd = q + m->n + 1, *qdd = qd + m->n + 1, *q_prev = qdd + m->n + 1, *q_pred = q_prev + m->n + 1;
    memcpy(q, m->q0, sizeof(double) * (size_t)m->n);
    kd_mech_kin_info info;
    kd_status st = kd_mech_solve_position(m, w, 0.0, q, &info, err);
    if (st) {
        kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                     "assembly failed: the initial guess does not converge to a position satisfying the joints and "
                     "drivers at t = 0 (|Phi| = %.3g); check the bodies' position and angle", info.residual);
    }
    /* A kinematic analysis needs every DOF driven. */
    kd_mech_mobility mob;
    if (!st) st = kd_mech_mobility_at(m, 0.0, q, &mob, err);
    if (!st && mob.dof_undriven > 0)
        st = kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                          "kinematics needs one driver per degree of freedom: the mechanism has %d DOF and %d of them "
                          "are not driven",
                          mob.dof, mob.dof_undriven);
    if (!st) w->rank_expected = mob.rank;
    const double h = t_end / steps;
    double prev_cond = info.cond;
    int prev_sign = w->det_sign;
    for (int k = 0; k <= steps && !st; k++) {
        const double t = k * h;
        if (k > 0) {
            /* predictor: second-order Taylor step from the previous solution */
            memcpy(q_prev, q, sizeof(double) * (size_t)m->n);
            for (int i = 0; i < m->n; i++) q[i] += h * qd[i] + 0.5 * h * h * qdd[i];
            memcpy(q_pred, q, sizeof(double) * (size_t)m->n);
            st = kd_mech_solve_position(m, w, t, q, &info, err);
            if (st) {
                const size_t len = strlen(err->msg);
                snprintf(err->msg + len, sizeof(err->msg) - len,
                         "; the last position solved, at t = %g s, had condition number %.3g", stats->t_reached,
                         prev_cond);
                break;
            }
        }
        /* A branch jump: the Newton correction of the second-order prediction
         * is larger than half the step's motion. On a regular path the
         * correction is O(h^3) against a motion O(h); it reaches the motion's
         * size only where the solution leaves its branch, i.e. after crossing
         * a singular (change-point, dead-centre) position between two instants
         * where Phi_q itself was still regular enough. */
        if (k > 0) {
            double corr = 0.0, move = 0.0;
            for (int i = 0; i < m->n; i++) {
                corr = fmax(corr, fabs(q[i] - q_pred[i]));
                move = fmax(move, fabs(q[i] - q_prev[i]));
            }
            const double floor = 1e-6 * (1.0 + m->length_scale);
            /* det(Phi_q) changed sign: Phi_q was singular in between */
            if (prev_sign * w->det_sign < 0) {
                st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                                  "singular position crossed between t = %g and %g s: the determinant of Phi_q changed "
                                  "sign; the condition number of Phi_q reached %.3g at t = %g s; a change point or "
                                  "dead centre, where the drivers do not determine the motion (more steps locate it "
                                  "closer)",
                                  t - h, t, fmax(stats->cond_max, info.cond),
                                  info.cond > stats->cond_max ? t : stats->t_cond_max);
                break;
            }
            if (corr > 0.5 * move && corr > floor) {
                st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                                  "singular position crossed between t = %g and %g s: the position left its branch "
                                  "(the correction of the predicted step, %.3g, exceeds half the step's motion); the "
                                  "condition number of Phi_q reached %.3g at t = %g s; a change point or dead centre, "
                                  "where the drivers do not determine the motion (more steps locate it closer)",
                                  t - h, t, corr, stats->cond_max, stats->t_cond_max);
                break;
            }
        }
        if (info.cond > cond_max || info.rank < w->rank_expected) {
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                              "singular position at t = %g s: the condition number of Phi_q is %.3g (above cond_max "
                              "%.3g; rank %d of %d): a dead-centre or locking position, where velocities and "
                              "accelerations are not determined by the drivers",
                              t, info.cond, cond_max, info.rank, w->rank_expected);
            break;
        }
        /* the last Newton iteration factorised Phi_q at this very position */
        if ((st = velocity(m, w, t, q, qd, 1, err)) || (st = acceleration(m, w, t, q, qd, qdd, 1, err))) break;
        prev_cond = info.cond;
        prev_sign = w->det_sign;
        if (info.cond > stats->cond_max) stats->cond_max = info.cond, stats->t_cond_max = t;
        if (info.iterations > stats->newton_max) stats->newton_max = info.iterations;
        stats->steps++;
        stats->t_reached = t;
        if (sink && sink(ctx, t, q, qd, qdd, &info)) {
            st = kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "writing the results failed at t = %g s", t);
            break;
        }
    }
    free(q);
    kd_mech_work_free(&w);
    return st;
}
