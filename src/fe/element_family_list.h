/* The element families and the quadrature rules they share (internal to
 * src/fe). A new family: one file src/fe/element_<name>.c defining its
 * kd_element_family table, declared here, listed in element_families.c under
 * a new kd_family value (kedyn/element.h). */
#ifndef KEDYN_FE_ELEMENT_FAMILY_LIST_H
#define KEDYN_FE_ELEMENT_FAMILY_LIST_H

#include "kedyn/element.h"

extern const kd_element_family element_family_beam;     /* element_beam.c */
extern const kd_element_family element_family_membrane_cst; /* element_membrane.c */
extern const kd_element_family element_family_membrane_t6;
extern const kd_element_family element_family_membrane_q4;
extern const kd_element_family element_family_membrane_q8;
extern const kd_element_family element_family_membrane_q9;
extern const kd_element_family element_family_plate_mitc4; /* element_plate_mitc4.c */
extern const kd_element_family element_family_shell_q4;    /* element_shell.c: Q4 + MITC4 */

/* Quadrature rules (quadrature.c). */
extern const kd_quadrature quadrature_line_gauss6;       /* 6-point Gauss-Legendre on [0, 1] */
extern const kd_quadrature quadrature_tri3;              /* reference triangle, degree 2 */
extern const kd_quadrature quadrature_tri6;              /* degree 4 */
extern const kd_quadrature quadrature_tri12;             /* degree 6 */
extern const kd_quadrature quadrature_quad_gauss2x2;     /* [-1, 1]^2, degree 3 per coordinate */
extern const kd_quadrature quadrature_quad_gauss3x3;     /* degree 5 */
extern const kd_quadrature quadrature_quad_gauss4x4;     /* degree 7 */

/* Two-dimensional elements' shared pieces (element_membrane.c; theory.md
 * sec. 10.1). shape_2d: the shape functions of an interpolation's nodes
 * (CST/DKT: linear triangle; T6; Q4/ACM/BFS/MITC4: bilinear; Q8; Q9) and
 * their xi-derivatives dN[a][k] at xi; returns the node count. map_2d: the
 * isoparametric map of n nodes at plane coordinates xl: x(xi), the
 * x-derivatives dNx of the shape functions, returns det J. */
int shape_2d(kd_interp interp, const double xi[3], double N[KD_ELEM_NODE_MAX], double dN[KD_ELEM_NODE_MAX][2]);
double map_2d(int n, const double xl[][2], const double N[], const double dN[][2], double x[2],
              double dNx[KD_ELEM_NODE_MAX][2]);
/* Plane-stress matrix times t (theory.md sec. 10.2); for bending use t^3/12. */
void plane_stress_D(double E, double nu, double t, double D[3][3]);
/* KD_ERR_USAGE unless t, E, G, rho > 0 and -1 < nu = E/(2G) - 1 < 1/2. */
kd_status plate_consts_check(const kd_element_props* p);
/* KD_ERR_INPUT unless every node lies in the element x-y plane. */
kd_status plate_nodes_check(const kd_element_props* p);
/* Plates (theory.md sec. 10.3-10.6): node DOFs w, theta_x, theta_y; the
 * bending matrix D_b = E t^3 / (12 (1 - nu^2)) [...] and the shear
 * stiffness kappa G t (kappa = c->kappa_y, 0: 5/6). */
int plate_node_dofs(kd_element_kind kind, int node, kd_dof_name dofs[KD_NODE_DOF_MAX]);
void plate_bending_D(const kd_element_consts* c, double Db[3][3], double* ks);
/* MITC4 at xi for corner coordinates xl: bilinear N, dN/dx, x(xi), the
 * curvature rows Bb and the assumed shear rows Bs over the 12 DOFs (w,
 * theta_x, theta_y per node); returns det J. */
double mitc4_rows(const double xl[4][2], const double xi[3], double N[4], double dNx[4][2], double x[2],
                  double Bb[3][12], double Bs[2][12]);
extern const double node_xi_tri3[3][3];
extern const double node_xi_tri6[6][3];
extern const double node_xi_quad4[4][3];
extern const double node_xi_quad9[9][3];  /* Q8: the first 8 */

#endif
