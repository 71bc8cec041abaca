/* Internal to the floating-frame system (src/links/floating_*.c). Not a public header. */
#ifndef KEDYN_FFR_INTERNAL_H
#define KEDYN_FFR_INTERNAL_H

#include "kedyn/ffr.h"

/* One body: rigid (frame at the centre of mass, nf = 0) or a planar beam in its floating frame.
 * Matrices are dense nf x nf, row-major (a body is small). */
typedef struct ffr_body {
    char name[64];
    int elastic;
    int off, nf, size;            /* first coordinate, elastic coordinates, 3 + nf */
    kd_ffr_beam beam;
    int nodes;
    int* node_coord;              /* (3 nodes) elastic index of (u, v, rz) at each node, -1 removed */
    double m, S0[2], I0;          /* int rho dV, int rho u0 dV, int rho |u0|^2 dV (rigid: J_G) */
    double* SN;                   /* (2 x nf) int rho N_x dV, int rho N_y dV */
    double *a0, *b0;              /* (nf) int rho N^T u0 dV, int rho (u0x N_y - u0y N_x) dV */
    double *Mff, *G, *K;          /* (nf x nf) int rho N^T N, int rho (N_x^T N_y - N_y^T N_x), K_ff */
    /* geometric stiffness (kd_ffr_beam.geometric): per element the elastic index of each of its 6
     * DOFs (-1 held), the invariant g0 = int v'^T v' dx (6 x 6, shared) and EA, element length */
    int* emap;                    /* (6 elements) */
    int geometric;
    double g0[36];
    double EA, EI, Le;
    double curv[2][6];            /* d theta_z / dx at the element's two ends, per element DOF */
} ffr_body;

kd_status ffr_body_init_beam(ffr_body* b, const kd_ffr_beam* beam, kd_error* err);
void ffr_body_init_rigid(ffr_body* b, double mass, double J_G);
void ffr_body_free(ffr_body* b);
/* The body's block of M(q) (column-major size x size) at its coordinates q (x, y, theta, qf);
 * scratch holds 2 nf doubles. */
void ffr_body_mass(const ffr_body* b, const double* q, double* M, double* scratch);
/* Quadratic-velocity, gravity and elastic forces into Q (size). */
void ffr_body_force(const ffr_body* b, const double* q, const double* qd, const double g[2], double* Q,
                    double* scratch);
double ffr_body_gravity_potential(const ffr_body* b, const double* q, const double g[2]);
double ffr_body_strain(const ffr_body* b, const double* q);
/* Axial force N, bending moment M and sigma = |N|/A + |M| c / I at every node (3 per node),
 * the averages of the adjacent elements' end values. */
void ffr_body_section_forces(const ffr_body* b, const double* q, double c, double* out);
void ffr_body_momentum(const ffr_body* b, const double* q, const double* qd, double p[2], double* L,
                       double* scratch);

/* Joints added so far, and a label for those from index `from` on (the mechanism's joint). */
int ffr_joint_count(const kd_ffr_system* s);
void ffr_tag_joints(kd_ffr_system* s, int from, int tag);

#endif
