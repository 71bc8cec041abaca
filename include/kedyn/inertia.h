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
 * where r = r0 + x is the point's position in the body frame (r0 the element
 * origin, its first node) and X_ij = x_ij + r0_j s_i (theory.md sec. 3).
 * The element equation is
 *   m d'' + c d' + (k + k_g + k(eps) + k(w)) d = q_ext - [m_Oi] a_O,L - q_i(eps) - q_i(w).
 *
 * Element and body coordinates. An element's invariants are in its own
 * coordinates (kd_element_props: node 1 at the origin; a beam's axis along x;
 * a flat shell element in its plane) and over its own DOFs. The element sits
 * in its body at origin r0 with axes R (kd_element_place): a point at x in
 * element coordinates is at r0 + R x in the body. When R is not the identity,
 * the element's DOFs are element components of each node's translation
 * (u, v, w) and rotation (rx, ry, rz), and the body's DOFs are body
 * components: d_e = T d_b, T = diag(R^T) on each such triple. The terms in
 * body DOFs are T^T (terms of the element in element components) T, where
 * the frame vectors omega, eps, a and the origin r0 are taken in element
 * components (R^T omega, ...): W_e = R^T W R.
 */
#ifndef KEDYN_INERTIA_H
#define KEDYN_INERTIA_H

#include "kedyn/element.h"
#include "kedyn/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_inertia_terms {
    double c[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];      /* gyroscopic matrix */
    double k_eps[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];  /* angular-acceleration stiffness */
    double k_omega[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];/* centrifugal softening */
    double q[KD_ELEM_DOF_MAX];                        /* [m_Oi] a_O,L + q_i(eps) + q_i(w) */
} kd_inertia_terms;

/* Where an element sits in its body (kd_model_elem_place). */
typedef struct kd_element_place {
    double r0[3];                 /* element origin (its node 1) in body coordinates, m */
    double R[9];                  /* element axes in body components, row-major: column j = axis j */
    int rotated;                  /* 0: R is the identity (element axes are the body's) */
} kd_element_place;

/* A place on the body's x axis at s0, axes those of the body (beams). */
void kd_element_place_on_axis(kd_element_place* at, double s0);

/* A place at origin r0 with axes R (row-major, columns the element axes in
 * body components; NULL: the body's). */
void kd_element_place_set(kd_element_place* at, const double r0[3], const double* R);

/* Can the DOFs of element p be rotated (every node's DOFs are whole
 * translation and rotation triples)? Beams with curvature DOFs, bars and
 * plates with w, rx, ry only cannot: they must be placed unrotated. */
int kd_element_place_rotatable(const kd_element_props* p);

/* Element DOFs to body DOFs: A <- T^T A T (row-major ndof x ndof) and
 * v <- T^T v; nothing when at is unrotated. p must be rotatable. */
void kd_element_place_matrix(const kd_element_props* p, const kd_element_place* at, double* A);
void kd_element_place_vector(const kd_element_props* p, const kd_element_place* at, double* v);

/* The inertia terms of element props p placed at `at` in a frame with
 * local angular velocity w, angular acceleration e and origin acceleration a
 * (all body components), over the body DOFs. Row-major ndof x ndof. */
void kd_inertia_terms_place(const kd_element_props* p, const kd_element_place* at, const double w[3],
                            const double e[3], const double a[3], kd_inertia_terms* out);

/* The same for an element on the body's x axis at s0, unrotated (beams). */
void kd_inertia_terms_eval(const kd_element_props* p, double s0, const double w[3], const double e[3],
                           const double a[3], kd_inertia_terms* out);

/* Where element e of a compiled model sits in its body: origin at its first
 * node's body coordinates, axes from m->elem_rot (the body's when NULL). */
void kd_model_elem_place(const kd_model* m, int e, kd_element_place* at);

/* The skew matrix [v]x (row-major 3x3). */
void kd_skew(double S[9], const double v[3]);

#ifdef __cplusplus
}
#endif
#endif
