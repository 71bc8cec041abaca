/* kedyn: the formalisms of analytical mechanics as interchangeable routes to
 * the element equations (theory.md sec. 3 and 4).
 *
 * An elastic element in a prescribed moving frame obeys
 *     m d'' + c d' + k d = q                                  (inertia part)
 * to which the elastic stiffness [k], the geometric stiffness [k_g], Rayleigh
 * damping and the nodal loads are added the same way whatever the route
 * (kedyn/system.h). The inertia part (mass m, gyroscopic c, inertia
 * stiffness k = k(eps) + k(omega), right-hand side q = -[m_Oi](a_O,L - g_L)
 * - q_i(eps) - q_i(omega)) is what the formalisms derive differently:
 *
 *   invariants    the element's inertia invariants combined with the frame
 *                 motion (kedyn/inertia.h); the default and the fastest;
 *   lagrange      L = T - V by quadrature of the point velocities, and
 *                 dL/dd', d/dt dL/dd', dL/dd by hyper-dual automatic
 *                 differentiation (src/formalisms/lagrange.c);
 *   kane          partial velocities dv/dd' = N and point accelerations at
 *                 the quadrature points, generalized inertia forces
 *                 int (dv/dd')^T a dm (src/formalisms/kane.c);
 *   gibbs-appell  the acceleration energy S = 1/2 int rho a^T a dV and
 *                 dS/dd'' by hyper-dual differentiation
 *                 (src/formalisms/gibbs_appell.c);
 *   hamilton      the canonical momenta p = dL/dd' and their rates
 *                 p' = dL/dd by quadrature of point velocities, dual in
 *                 time; the first-order system in (d, p) is integrated as
 *                 such (kedyn/hamilton.h, src/formalisms/hamilton.c).
 *
 * All routes evaluate the point kinematics of theory.md sec. 2 at their own
 * quadrature points (the family's rule over its domain times transverse
 * points that integrate the transverse moments exactly: a beam's A, Iy, Iz,
 * a plate's thickness) and never read the invariants.
 * Because the equations are linear in d, d', d'', a route obtains each matrix
 * either as a second derivative of its scalar (L, S) or by evaluating its
 * generalized forces for unit states; kd_formalism_ops counts the work.
 *
 * Formalisms for assembled systems with joints (Newton-Euler with Lagrange
 * multipliers, Maggi, Kane, Gibbs-Appell, Lagrange of the first kind) act on
 * the constrained-system interface (kedyn/cms.h), not on single elements:
 * kedyn/mech_formalism.h.
 */
#ifndef KEDYN_FORMALISM_H
#define KEDYN_FORMALISM_H

#include "kedyn/element.h"
#include "kedyn/inertia.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kd_formalism {
    KD_FORMALISM_INVARIANTS = 0,
    KD_FORMALISM_LAGRANGE,
    KD_FORMALISM_KANE,
    KD_FORMALISM_GIBBS_APPELL,
    KD_FORMALISM_HAMILTON,
    KD_FORMALISM_COUNT
} kd_formalism;

/* "invariants", "lagrange", "kane", "gibbs-appell", "hamilton". */
const char* kd_formalism_name(kd_formalism f);
/* Parse a name; returns 0 and sets *f, or -1. */
int kd_formalism_parse(const char* name, kd_formalism* f);

/* The motion of an element's frame at one instant, local components
 * (theory.md sec. 2): angular velocity and acceleration, origin velocity
 * and acceleration, and gravity g_L = R^T g. */
typedef struct kd_frame_state {
    double omega[3], eps[3];
    double v[3], a[3];
    double g[3];
} kd_frame_state;

/* Work counters, added to by every route call. */
typedef struct kd_formalism_ops {
    long elements;                /* element equation builds */
    long points;                  /* kinematic evaluations at quadrature points */
    long derivatives;             /* differentiations: AD passes (Lagrange, Gibbs-Appell,
                                     Hamilton) or partial velocities (Kane) */
    double flops;                 /* floating-point operations of the route's kernels */
} kd_formalism_ops;

/* The inertia part of one element's equations (row-major ndof x ndof). */
typedef struct kd_element_eqs {
    int n;
    double m[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    double c[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    double k[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    double q[KD_ELEM_DOF_MAX];
} kd_element_eqs;

/* Hamilton's canonical data of one element (theory.md sec. 4):
 *   p  = Pv d' + Pd d + p0          (momenta, p = dL/dd')
 *   p' = Rd d + Rv d' + r0          (p' = dL/dd, inertia and gravity part)
 * and the explicit time derivatives dPd, dp0 of Pd, p0 through the frame
 * motion (Pv is constant). The second-order form follows by differentiating
 * p: m = Pv, c = Pd - Rv, k = dPd - Rd, q = r0 - dp0. */
typedef struct kd_canonical_eqs {
    int n;
    double Pv[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], Pd[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    double dPd[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    double Rd[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], Rv[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    double p0[KD_ELEM_DOF_MAX], dp0[KD_ELEM_DOF_MAX], r0[KD_ELEM_DOF_MAX];
} kd_canonical_eqs;

/* Make dynamics analysis a use formalism f, keeping its integrator where it
 * can: Hamilton's route takes the implicit midpoint rule in place of a
 * fixed-step integrator and hamilton-cvode in place of an adaptive one; the
 * other routes take cvode-bdf in place of hamilton-cvode and
 * generalized-alpha in place of the implicit midpoint rule. Other analyses
 * are left alone. */
void kd_analysis_use_formalism(kd_analysis_desc* a, kd_formalism f);

/* The inertia part of the equations of element p placed at `at` in its body
 * (origin and axes, kedyn/inertia.h), over the body's DOFs, in frame state
 * fs, by formalism f. ops may be NULL. */
void kd_formalism_element(kd_formalism f, const kd_element_props* p, const kd_element_place* at, const kd_frame_state* fs,
                          kd_element_eqs* out, kd_formalism_ops* ops);

/* The routes one by one (same contract). */
void kd_invariants_element(const kd_element_props* p, const kd_element_place* at, const kd_frame_state* fs, kd_element_eqs* out,
                           kd_formalism_ops* ops);
void kd_lagrange_element(const kd_element_props* p, const kd_element_place* at, const kd_frame_state* fs, kd_element_eqs* out,
                         kd_formalism_ops* ops);
void kd_kane_element(const kd_element_props* p, const kd_element_place* at, const kd_frame_state* fs, kd_element_eqs* out,
                     kd_formalism_ops* ops);
void kd_gibbs_appell_element(const kd_element_props* p, const kd_element_place* at, const kd_frame_state* fs, kd_element_eqs* out,
                             kd_formalism_ops* ops);
void kd_hamilton_element(const kd_element_props* p, const kd_element_place* at, const kd_frame_state* fs, kd_element_eqs* out,
                         kd_formalism_ops* ops);

/* Hamilton's canonical element data (see kd_canonical_eqs). */
void kd_hamilton_canonical(const kd_element_props* p, const kd_element_place* at, const kd_frame_state* fs, kd_canonical_eqs* out,
                           kd_formalism_ops* ops);

/* Lagrange's d/dt (dL/dd') and dL/dd of element p at the state (d, d') in
 * frame state fs (dd/dt of d' taken as dd, i.e. d/dt dL/dd' along the
 * motion with d'' = dd): used to check Hamilton's p' against Lagrange. */
void kd_lagrange_terms(const kd_element_props* p, const kd_element_place* at, const kd_frame_state* fs, const double* d,
                       const double* dv, const double* dd, double* ddt_dLdv, double* dLdd);

#ifdef __cplusplus
}
#endif
#endif
