/* kedyn: inertia terms of an element in a moving frame (theory.md sec. 3).
 *
 * With W = [omega_L]x and E = [eps_L]x (skew matrices of the local angular
 * velocity and acceleration), every term is a combination of the element's
 * invariants m_ij, s_i, x_ik (kedyn/element.h), no quadrature per instant:
 *   [c]      = 2 int rho N^T W N dV      = 2 sum_ij W_ij m_ij     (skew)
 *   [k(eps)] =   int rho N^T E N dV      =   sum_ij E_ij m_ij     (skew)
 *   [k(w)]   =   int rho N^T W W N dV    =   sum_ij (WW)_ij m_ij  (symmetric, <= 0)
 *   q_i(eps) =   int rho N^T E r dV      =   sum_ij E_ij X_ij
 *   q_i(w)   =   int rho N^T W W r dV    =   sum_ij (WW)_ij X_ij
 *   [m_Oi] a =   int rho N^T dV a        =   sum_i a_i s_i
 * where r = (s0 + x, y, z) is the point's position in the body frame (s0 the
 * element's first node on the body axis) and X_ij = x_ij + s0 delta_j0 s_i.
 * The element equation is
 *   m d'' + c d' + (k + k_g + k(eps) + k(w)) d = q_ext - [m_Oi] a_O,L - q_i(eps) - q_i(w).
 */
#ifndef KEDYN_INERTIA_H
#define KEDYN_INERTIA_H

#include "kedyn/element.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_inertia_terms {
    double c[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];      /* gyroscopic matrix */
    double k_eps[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];  /* angular-acceleration stiffness */
    double k_omega[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];/* centrifugal softening */
    double q[KD_ELEM_DOF_MAX];                        /* [m_Oi] a_O,L + q_i(eps) + q_i(w) */
} kd_inertia_terms;

/* The inertia terms of element props p at axial offset s0 in a frame with
 * local angular velocity w, angular acceleration e and origin acceleration a
 * (all local components). Row-major ndof x ndof. */
void kd_inertia_terms_eval(const kd_element_props* p, double s0, const double w[3], const double e[3],
                           const double a[3], kd_inertia_terms* out);

/* The skew matrix [v]x (row-major 3x3). */
void kd_skew(double S[9], const double v[3]);

#ifdef __cplusplus
}
#endif
#endif
