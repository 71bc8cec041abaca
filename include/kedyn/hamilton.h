/* kedyn: Hamilton's canonical equations of the moving-frame system,
 * integrated as a first-order system in (q, p) (theory.md sec. 4):
 *
 *     p  = M q' + Pd(t) q + p0(t)                     (canonical momenta)
 *     q' = M^-1 (p - Pd q - p0)                       (= dH/dp)
 *     p' = (dPd - K) q + (Pd - C) q' + f + dp0        (= -dH/dq + loads)
 *
 * where Pd, dPd, p0, dp0 come from the Hamilton route's element momenta
 * (kd_system_canonical) and C, K, f are the second-order matrices of the same
 * route (so p' holds the elastic, geometric and damping forces and the
 * loads; differentiating p reproduces M q'' + C q' + K q = f). Integrators:
 *   hamilton-cvode     SUNDIALS CVODE BDF on y = (q, p), Newton with GMRES
 *                      and an exact banded preconditioner: (I - g J) z = r
 *                      reduces to (M + g C + g^2 (K - dPd)) z_q =
 *                      M r_q + g (r_p - (Pd - C) r_q), z_p = M (z_q - r_q)/g
 *                      + Pd z_q;
 *   implicit-midpoint  the symplectic implicit midpoint rule with fixed dt:
 *                      y1 = y0 + dt F(t + dt/2, (y0 + y1)/2), one banded
 *                      solve of the same reduced matrix (g = dt/2) per step.
 * No allocation inside a step; memory linear in the model size.
 */
#ifndef KEDYN_HAMILTON_H
#define KEDYN_HAMILTON_H

#include "kedyn/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Integrate system s (initialised with KD_FORMALISM_HAMILTON) from (q0, v0)
 * at o->t0 to o->t_end with o->method KD_INT_HAMILTON_CVODE (rtol, atol,
 * dt = first step, dt_max) or KD_INT_IMPLICIT_MIDPOINT (dt). `output`
 * receives (t, q, q', q'') as with kd_integrate; on a failure returns
 * KD_ERR_NUMERIC with the time and cause. */
kd_status kd_hamilton_integrate(kd_system* s, const kd_integrate_opts* o, const double* q0, const double* v0,
                                kd_output_fn output, void* output_ctx, kd_integrate_stats* stats, kd_error* err);

#ifdef __cplusplus
}
#endif
#endif
