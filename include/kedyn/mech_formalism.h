/* kedyn: the formalisms of analytical mechanics for systems with joints (theory.md sec. 4 and 6).
 *
 * A planar mechanism of rigid bodies in centre-of-mass coordinates q = (x, y, phi) per body,
 *     M q'' + Phi_q^T lambda = Q(q, q', t),     Phi(q, t) = 0,
 * reaches its accelerations by one of five routes (docs/formalisms.md, "Systems with joints"):
 *
 *   newton-euler  the Newton-Euler equations of every body with the joint reactions as Lagrange
 *                 multipliers: the augmented system, multipliers by the Schur complement
 *                 (Phi_q M^-1 Phi_q^T) lambda = Phi_q M^-1 Q - gamma (formulation augmented;
 *                 or ida, the same equations as a DAE);
 *   maggi         elimination of the multipliers by the partition matrix A(q) of the independent
 *                 speeds w' (q' = A w', q'' = A w'' + b): A^T M A w'' = A^T (Q - M b)
 *                 (formulation maggi);
 *   kane          generalised speeds u = w'; partial velocities of each body's centre of mass and
 *                 partial angular velocities (the velocity solution for unit u, the columns of A),
 *                 generalised active and inertia forces summed body by body,
 *                 F_r = sum_b (F_b . dv_G/du_r + M_b dw/du_r),
 *                 F*_r = -sum_b (m_b a_G . dv_G/du_r + J_b alpha dw/du_r), F_r + F*_r = 0
 *                 (formulation maggi with its own reduced equations, mech_kane.c);
 *   gibbs-appell  Appell's equations dS/dw''_r = dP/dw''_r from the acceleration energy
 *                 S = 1/2 sum_b (m_b |a_G|^2 + J_b alpha^2) and the acceleration work
 *                 P = sum_b (F_b . a_G + M_b alpha) of the independent accelerations, by
 *                 hyper-dual differentiation (formulation maggi, mech_gibbs_appell.c); or, with
 *                 formulation udwadia-kalaba, Gauss's principle in body coordinates in closed
 *                 form q'' = a + M^-1 Phi_q^T S^+ (gamma - Phi_q a), a = M^-1 Q (takes redundant
 *                 constraints);
 *   lagrange      Lagrange's equations of the first kind, d/dt dT/dq' - dT/dq = Q - Phi_q^T lambda
 *                 with Phi = 0: in centre-of-mass coordinates T = 1/2 q'^T M q' with M constant,
 *                 so they are the Newton-Euler equations term by term; the route keeps the
 *                 multipliers as unknowns (the DAE in (q, v, lambda), formulation ida; per state
 *                 the whole augmented matrix by LU) instead of eliminating them.
 *
 * Elastic bodies in mechanisms join through the body loop of the Kane route (their partial
 * velocities of material points and the generalised inertia forces integrated over the body)
 * and through a non-diagonal M in the others. Today the rigid routes here sum rigid bodies; a
 * mechanism's elastic links are integrated by the two-way floating-frame system (kedyn/ffr.h),
 * whose block-diagonal M(q) each formulation takes (docs/formalisms.md).
 */
#ifndef KEDYN_MECH_FORMALISM_H
#define KEDYN_MECH_FORMALISM_H

#include "kedyn/mbs.h"
#include "kedyn/mech.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kd_mech_formalism {
    KD_MECH_NEWTON_EULER = 0,
    KD_MECH_MAGGI,
    KD_MECH_KANE,
    KD_MECH_GIBBS_APPELL,
    KD_MECH_LAGRANGE,
    KD_MECH_FORMALISM_COUNT
} kd_mech_formalism;

/* "newton-euler", "maggi", "kane", "gibbs-appell", "lagrange"; parse returns -1 for others. */
const char* kd_mech_formalism_name(kd_mech_formalism f);
int kd_mech_formalism_parse(const char* s);

/* The forward-dynamics formulation (kedyn/mbs.h) of formalism f. `given` is the formulation
 * the model names (-1: none): newton-euler takes augmented (default) or ida; maggi and kane take
 * maggi, gibbs-appell maggi (default, Appell's equations) or udwadia-kalaba, lagrange ida. Returns the formulation, or -1 when `given`
 * contradicts the formalism. */
int kd_mech_formalism_formulation(kd_mech_formalism f, int given);

/* Make opts integrate mechanism m by formalism f: its formulation (opts->formulation must
 * already hold a compatible one or be overwritten by it) and, for Kane, the reduced equations
 * of mech_kane.c (opts->reduced, borrowing m). */
void kd_mech_formalism_opts(kd_mech_formalism f, const kd_mech* m, kd_mbs_opts* opts);

/* Kane's generalised active and inertia forces summed over the bodies (kd_mbs_opts.reduced
 * contract; ctx is the kd_mech). */
int kd_mech_kane_reduced(void* ctx, double t, const double* q, const double* qd, int f, const double* A,
                         const double* b, const double* Q, double* Mh, double* rh, double* flops);

/* Appell's equations by differentiation of the acceleration energy (same contract). */
int kd_mech_gibbs_appell_reduced(void* ctx, double t, const double* q, const double* qd, int f, const double* A,
                                 const double* b, const double* Q, double* Mh, double* rh, double* flops);

/* One route at single states: q'' and lambda at consistent (t, q, q'), and the work it took. */
typedef struct kd_mech_route kd_mech_route;
kd_status kd_mech_route_new(kd_mech_formalism f, const kd_mech* m, double t0, const double* q0, kd_mech_route** out,
                            kd_error* err);
kd_status kd_mech_route_eval(kd_mech_route* r, double t, const double* q, const double* qd, double* qdd, double* lambda,
                             kd_error* err);
/* Evaluations so far and their floating-point operations (counted kernels, kd_mbs_stats.flops). */
void kd_mech_route_work(const kd_mech_route* r, long* evaluations, double* flops);
void kd_mech_route_free(kd_mech_route** r);

#ifdef __cplusplus
}
#endif
#endif
