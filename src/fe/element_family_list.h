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
extern const kd_element_family element_family_plate_dkt;   /* element_plate_dkt.c */
extern const kd_element_family element_family_plate_acm;   /* element_plate_acm.c */
extern const kd_element_family element_family_plate_bfs;   /* element_plate_bfs.c */
extern const kd_element_family element_family_plate_mitc4; /* element_plate_mitc4.c */
extern const kd_element_family element_family_shell_q4;    /* element_shell.c: Q4 + MITC4 */
extern const kd_element_family element_family_shell_tri;   /* element_shell.c: CST + DKT */
extern const kd_element_family element_family_shell_t6;    /* element_shell_p2.c: T6 + MITC6 */
extern const kd_element_family element_family_shell_q8;    /* element_shell_p2.c: Q8 + MITC9 */
extern const kd_element_family element_family_shell_q9;    /* element_shell_p2.c: Q9 + MITC9 */

/* Warping of a 4-node shell (element_shell.c; theory.md sec. 14.6): max |h_a| / sqrt(A), the
 * nodes' offsets from the mean plane over the root of its area; above the limit the element is
 * rejected. */
#define SHELL_WARP_LIMIT 0.1
/* Drilling stiffness / (G t) of a shell element off its plane (theory.md sec. 18.5); a flat one's
 * is 10^-3 (sec. 10.7). */
#define SHELL_DRILL_WARPED 0.1
double shell_quad_warping(const double x[4][3]);
/* The same for the 6, 8, 9-node shells (element_shell_p2.c): the nodes' offsets from the plane
 * of the corners (through their centroid). */
double shell_p2_warping(int nnode, const double x[][3]);
/* A shell's point in body axes from its rows in the element's own axes (element_shell.c). */
void shell_point_out(const kd_element_props* p, double N0[3][KD_ELEM_DOF_MAX],
                     double Nt[3][KD_ELEM_DOF_MAX], double Ns[3][KD_ELEM_DOF_MAX],
                     double B[KD_STRAIN_MAX][KD_ELEM_DOF_MAX], double G[2][3][KD_ELEM_DOF_MAX],
                     double det, const double x2[2], double z0, kd_element_point* out);

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
/* Polynomial w fields of the Kirchhoff plates (element_plate_poly.c):
 * monomials (x/h)^ex[m][0] (y/h)^ex[m][1], x, y from node 1; C[m][k] the
 * coefficient of monomial m in the shape function of DOF k. */
#define PLATE_POLY_MAX 16
typedef struct plate_poly {
    int n, ndof;                  /* monomials; DOFs (<= n, the rest constraints) */
    int ex[PLATE_POLY_MAX][2];
    double h;                     /* length scale of the monomials */
    double C[PLATE_POLY_MAX][PLATE_POLY_MAX];
} plate_poly;
/* Shape functions and derivatives of every DOF at a point. */
typedef struct plate_poly_point {
    double w[PLATE_POLY_MAX], wx[PLATE_POLY_MAX], wy[PLATE_POLY_MAX];
    double wxx[PLATE_POLY_MAX], wyy[PLATE_POLY_MAX], wxy[PLATE_POLY_MAX];
} plate_poly_point;
/* row[m] = d^(dx+dy) monomial_m / dx^dx dy^dy at (x, y). */
void plate_poly_row(const plate_poly* P, double x, double y, int dx, int dy, double row[PLATE_POLY_MAX]);
/* The coefficients from the functional rows A (n x n): rows 0..ndof-1 the
 * DOFs, the others homogeneous constraints; 0, or 1 when singular. */
int plate_poly_solve(plate_poly* P, const double A[PLATE_POLY_MAX][PLATE_POLY_MAX], int ndof);
/* The rows of the nodal DOFs w, theta_x = w,y, theta_y = -w,x [, w,xy]
 * at nnode nodes xl; returns their count. plate_poly_nodal: rows + solve. */
int plate_poly_nodal_rows(const plate_poly* P, int nnode, const double xl[][2], int twist,
                          double A[PLATE_POLY_MAX][PLATE_POLY_MAX]);
int plate_poly_nodal(plate_poly* P, int nnode, const double xl[][2], int twist);
void plate_poly_eval(const plate_poly* P, double x, double y, plate_poly_point* out);
/* The field kept in / read from kd_element_props.aux (computed once by init). */
void plate_poly_store(kd_element_props* p, const plate_poly* P);
void plate_poly_load(const kd_element_props* p, plate_poly* P);
/* DKT at xi for corner coordinates xl (element_plate_dkt.c): x(xi), the
 * rotations beta_x = theta_y, beta_y = -theta_x and the curvature rows
 * over the 9 DOFs (w, theta_x, theta_y per node); returns det J. */
double dkt_rows(const double xl[3][2], const double xi[3], double x[2], double bx[9], double by[9],
                double Bb[3][9]);
/* The reduced cubic w of a triangle (mass and pre-stress of the DKT);
 * 0, or 1 when degenerate. */
int dkt_w_field(const double xl[3][2], double L, plate_poly* P);
/* The w fields of the a x b Kirchhoff rectangles (element_plate_rect.c;
 * node 1 at the origin); 0, or 1 when degenerate. */
int acm_w_field(double a, double b, plate_poly* P);
int bfs_w_field(double a, double b, plate_poly* P);
/* The Kirchhoff rectangles' table entries (element_plate_rect.c). */
kd_status kirchhoff_rect_init(kd_element_props* p);
const kd_quadrature* kirchhoff_rect_quadrature(const kd_element_props* p);
void kirchhoff_rect_eval(const kd_element_props* p, const double xi[3], kd_element_point* out);
extern const double node_xi_tri3[3][3];
extern const double node_xi_tri6[6][3];
extern const double node_xi_quad4[4][3];
extern const double node_xi_quad9[9][3];  /* Q8: the first 8 */

#endif
