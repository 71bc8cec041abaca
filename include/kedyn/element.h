/* kedyn: the one-dimensional element library (beams, bars, torsion).
 *
 * An element kind is fixed by (theory, interpolation, planar). Each kind
 * supplies, at a point xi in [0, 1] of an element of length L, the shape
 * functions of six kinematic fields of its axis (u, v, w, theta_x, theta_y,
 * theta_z) as rows over the element DOFs, and their x-derivatives. From them
 * alone, by Gauss quadrature, kd_element_props_init computes
 *   - the elastic stiffness [k] (strain energy of axial, bending, torsion and
 *     shear strains; theory.md sec. 5), and
 *   - the inertia invariants of theory.md sec. 3, integrated over the volume:
 *       m_ij = int rho N_i^T N_j dV   (i, j = displacement components x, y, z)
 *       s_i  = int rho N_i^T dV
 *       x_ik = int rho N_i^T x_k dV   (x_k measured from the element's first node)
 *     where N_i is the row of N for component i of the displacement of a
 *     material point at (x, y, z) of the section:
 *       u_p = u - y theta_z + z theta_y,  v_p = v - z theta_x,  w_p = w + y theta_x.
 * Every later inertia term ([m], [c], [k(eps)], [k(omega)], q_i, [m_Oi]) is a
 * fixed combination of these invariants with the frame motion of the instant.
 * Likewise the geometric stiffness of an axial force P quadratic along the
 * element, P = p0 + p1 xi + p2 xi^2, is k_g = sum_k p_k g_k with
 *       g_k  = int xi^k (v'^T v' + w'^T w') dx   (theory.md sec. 5).
 *
 * Element DOF vectors are node 1's DOFs then node 2's, in the node order
 * given by kd_element_node_dofs().
 */
#ifndef KEDYN_ELEMENT_H
#define KEDYN_ELEMENT_H

#include "kedyn/desc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KD_NODE_DOF_MAX 8                     /* 3D quintic: u v w rx ry rz kz ky */
#define KD_ELEM_DOF_MAX (2 * KD_NODE_DOF_MAX)

/* The six kinematic fields of the beam axis. */
enum { KD_F_U = 0, KD_F_V, KD_F_W, KD_F_TX, KD_F_TY, KD_F_TZ, KD_NFIELD };

typedef struct kd_element_kind {
    kd_theory theory;
    kd_interp interp;
    int planar;
} kd_element_kind;

/* Cross-section and material constants an element needs. */
typedef struct kd_element_consts {
    double E, G, rho;
    double A, Iy, Iz, J;          /* Iy: about local y (bending in x-z), Iz: about z (x-y) */
    double kappa_y, kappa_z;      /* shear coefficients for shear along y and z */
} kd_element_consts;

/* Per-element quantities, computed once (kd_element_props_init) and shared
 * by every element with the same kind, length and constants. Matrices are
 * row-major, ndof x ndof. */
typedef struct kd_element_props {
    kd_element_kind kind;
    kd_element_consts c;
    double L;                     /* element length, m */
    int ndof;                     /* element DOFs (2 x node DOFs) */
    int ncomp;                    /* displacement components: 2 planar, 3 spatial */
    double k[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];           /* elastic stiffness */
    double m_ij[3][3][KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];  /* int rho N_i^T N_j dV */
    double s_i[3][KD_ELEM_DOF_MAX];                         /* int rho N_i^T dV */
    double x_ik[3][3][KD_ELEM_DOF_MAX];                     /* int rho N_i^T x_k dV */
    double g_k[3][KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];      /* int xi^k (v'^T v' + w'^T w') dx */
    double mass;                  /* int rho dV = rho A L */
} kd_element_props;

/* DOF names at each node of an element kind, in element order; returns the
 * count (<= KD_NODE_DOF_MAX). */
int kd_element_node_dofs(kd_element_kind kind, kd_dof_name dofs[KD_NODE_DOF_MAX]);

/* Shape functions of the six fields at xi in [0, 1]: N[f][a] is field f's
 * coefficient of element DOF a; dN the derivative with respect to x
 * (= d/dxi / L). Fields a kind does not have are zero. */
void kd_element_shape(kd_element_kind kind, const kd_element_consts* c, double L, double xi,
                      double N[KD_NFIELD][KD_ELEM_DOF_MAX],
                      double dN[KD_NFIELD][KD_ELEM_DOF_MAX]);

/* Shape functions of the displacement of a section point, split as
 * N_i(x, y, z) = N0[i] + y Ny[i] + z Nz[i] (i = x, y, z components), with the
 * rotary terms dropped where the kind neglects rotary inertia of bending
 * (Euler-Bernoulli). */
void kd_element_point_shape(kd_element_kind kind, double N[KD_NFIELD][KD_ELEM_DOF_MAX],
                            double N0[3][KD_ELEM_DOF_MAX], double Ny[3][KD_ELEM_DOF_MAX],
                            double Nz[3][KD_ELEM_DOF_MAX]);

/* Compute stiffness and inertia invariants by Gauss quadrature. Returns
 * KD_ERR_USAGE for an unsupported combination (e.g. quintic Timoshenko). */
kd_status kd_element_props_init(kd_element_props* p, kd_element_kind kind,
                                const kd_element_consts* c, double L);

/* The consistent mass matrix m = sum_i m_ii (row-major ndof x ndof). */
void kd_element_mass(const kd_element_props* p, double* m);

/* Shear coefficient of a section shape (Cowper, 1966); for generic sections
 * returns 0 (must be given). */
double kd_section_shear_coefficient(kd_shape shape, double nu, double d, double t);

/* Fill A, Iy, Iz, J and the shear coefficients of a section, with material
 * Poisson's ratio nu. */
void kd_section_properties(const kd_section_desc* s, double nu, kd_element_consts* c);

#ifdef __cplusplus
}
#endif
#endif
