/* Appell's equations of a mechanism (theory.md sec. 4; seed 004): the acceleration energy
 *
 *   S(w'') = 1/2 sum_b (m_b |a_G|^2 + J_b alpha^2),    a_G = sum_s (dv_G/du_s) w''_s + a_G0,
 *                                                      alpha = sum_s (dw/du_s) w''_s + alpha0,
 *
 * of the independent accelerations w'' (the acceleration constraints hold by construction:
 * q'' = A w'' + b), and the acceleration work of the applied forces
 * P(w'') = sum_b (F_b . a_G + M_b alpha). Appell's equations dS/dw''_r = dP/dw''_r are linear in
 * w'' (S is quadratic): the coefficients d2S/dw''_r dw''_s and the free terms dS/dw''_r at
 * w'' = 0 and dP/dw''_r are taken by hyper-dual automatic differentiation of the two scalars,
 * one pass per pair r <= s (f (f + 1) / 2 passes), never forming the partial velocities'
 * products by hand (mech_kane.c does that). The kinematic data (A, b) come from the partitioned
 * solver (kd_mbs_opts.reduced). */
#include <stddef.h>

#include "hyperdual.h"
#include "kedyn/mech_formalism.h"

enum { BODY_FLOPS = 6 * KD_HD_MUL_FLOPS + 10 * KD_HD_ADD_FLOPS + 8 * KD_HD_SCALE_FLOPS };

/* S and P over the bodies with seed e1 on w''_r and e2 on w''_s, at w'' = 0. */
static void energies(const kd_mech* m, const double* A, const double* b, const double* Q, int r, int s, hd* S,
                     hd* P) {
    const int n = m->n;
    *S = hd_make(0, 0, 0, 0), *P = hd_make(0, 0, 0, 0);
    for (int bd = 0; bd < m->nbody; bd++) {
        const int o = 3 * bd;
        hd acc[3];   /* a_Gx, a_Gy, alpha */
        for (int c = 0; c < 3; c++)
            acc[c] = hd_make(b[o + c], A[o + c + (size_t)n * r], A[o + c + (size_t)n * s], 0);
        const hd a2 = hd_add(hd_mul(acc[0], acc[0]), hd_mul(acc[1], acc[1]));
        *S = hd_add(*S, hd_add(hd_scale(0.5 * m->mass[o], a2),
                                     hd_scale(0.5 * m->mass[o + 2], hd_mul(acc[2], acc[2]))));
        for (int c = 0; c < 3; c++) *P = hd_add(*P, hd_scale(Q[o + c], acc[c]));
    }
}

int kd_mech_gibbs_appell_reduced(void* ctx, double t, const double* q, const double* qd, int f, const double* A,
                                 const double* b, const double* Q, double* Mh, double* rh, double* flops) {
    (void)t, (void)q, (void)qd;
    const kd_mech* m = ctx;
    for (int r = 0; r < f; r++)
        for (int s = 0; s <= r; s++) {
            hd S, P;
            energies(m, A, b, Q, r, s, &S, &P);
            Mh[r + f * s] = S.e12;                   /* d2S / dw''_r dw''_s */
            if (s == r) rh[r] = P.e1 - S.e1;         /* dP/dw''_r - dS/dw''_r at w'' = 0 */
        }
    *flops += (double)f * (f + 1) / 2 * m->nbody * BODY_FLOPS;
    return 0;
}
