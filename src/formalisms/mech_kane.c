/* Kane's equations of a mechanism (theory.md sec. 4; seed 004): generalised speeds u = w', the
 * rates of the independent coordinates, and for every body its partial velocity of the centre of
 * mass dv_G/du_r and partial angular velocity dw/du_r. Both come from the velocity solution for
 * unit generalised speeds (u = e_r, Phi_q q' = 0), which the partitioned solver hands over as the
 * columns of A; the accelerations for zero generalised accelerations (Phi_q q'' = gamma, w'' = 0)
 * give each body's remainder accelerations a_G0, alpha0, so that a_G = sum_s dv_G/du_s u'_s + a_G0.
 *
 *   generalised active forces   F_r  = sum_b (F_b . dv_G/du_r + M_b dw/du_r)
 *   generalised inertia forces  F*_r = -sum_b (m_b a_G . dv_G/du_r + J_b alpha dw/du_r)
 *   Kane's equations            F_r + F*_r = 0:
 *       sum_s [sum_b (m_b dv_G/du_r . dv_G/du_s + J_b dw/du_r dw/du_s)] u'_s
 *           = F_r - sum_b (m_b a_G0 . dv_G/du_r + J_b alpha0 dw/du_r)
 *
 * F_b is the resultant of the applied forces on body b reduced to its centre of mass and M_b their
 * moment about it (the body-coordinate generalised force). The joint reactions do no work on
 * the partial velocities and never appear. An elastic body would add its generalised inertia
 * forces int rho a . dv/du_r dV over its material points here (src/formalisms/kane.c does that
 * for a beam element in a moving frame). Elastic links of a mechanism reach the Kane route today
 * through the two-way floating-frame system, which the maggi formulation projects on the
 * independent speeds (docs/formalisms.md); this body loop itself sums rigid bodies. */
#include <stddef.h>

#include "kedyn/mech_formalism.h"

int kd_mech_kane_reduced(void* ctx, double t, const double* q, const double* qd, int f, const double* A,
                         const double* b, const double* Q, double* Mh, double* rh, double* flops) {
    (void)t, (void)q, (void)qd;
    const kd_mech* m = ctx;
    const int n = m->n;
    for (int r = 0; r < f; r++) {
        rh[r] = 0;
        for (int s = 0; s <= r; s++) Mh[r + f * s] = 0;
    }
    for (int bd = 0; bd < m->nbody; bd++) {
        const int o = 3 * bd;
        const double mass = m->mass[o], J = m->mass[o + 2];
        const double F[2] = {Q[o], Q[o + 1]}, M = Q[o + 2];      /* applied forces reduced to G */
        const double a0[2] = {b[o], b[o + 1]}, alpha0 = b[o + 2]; /* remainder accelerations */
        for (int r = 0; r < f; r++) {
            const double* ar = A + (size_t)n * r;
            const double vr[2] = {ar[o], ar[o + 1]}, wr = ar[o + 2];   /* dv_G/du_r, dw/du_r */
            /* F_r and the u'-free part of F*_r */
            rh[r] += F[0] * vr[0] + F[1] * vr[1] + M * wr - (mass * (a0[0] * vr[0] + a0[1] * vr[1]) + J * alpha0 * wr);
            /* coefficients of u'_s in -F*_r */
            for (int s = 0; s <= r; s++) {
                const double* as = A + (size_t)n * s;
                Mh[r + f * s] += mass * (vr[0] * as[o] + vr[1] * as[o + 1]) + J * wr * as[o + 2];
            }
        }
    }
    *flops += (double)m->nbody * f * (15.0 + 7.0 * (f + 1) / 2);
    return 0;
}
