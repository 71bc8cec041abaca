/* Internal to the spatial floating-frame system (src/links/floating_body3d.c, floating_spatial.c,
 * floating_spatial_mechanism.c). Not a public header. */
#ifndef KEDYN_FFR3D_INTERNAL_H
#define KEDYN_FFR3D_INTERNAL_H

#include "kedyn/element.h"
#include "kedyn/ffr3d.h"

/* One body: rigid (frame at the centre of mass, nf = 0) or a 3D beam in its floating frame
 * (frame clamped at node 1). Invariants of theory.md sec. 17 (F1); matrices row-major. */
typedef struct f3_body {
    char name[64];
    int elastic;
    int off, nf, size;            /* first coordinate, elastic coordinates, 7 + nf */
    kd_ffr3d_beam beam;
    int nodes;
    int* node_coord;              /* (6 nodes) elastic index of (u, v, w, rx, ry, rz), -1 held */
    double m, St0[3], P0[9];      /* int rho dV, int rho u0 dV, int rho u0 u0^T dV */
    double* SN;                   /* (3 nf) row i: int rho S_i dV */
    double* X;                    /* (9 nf) (3k + i) nf + a: int rho u0_k S_ia dV */
    double* Mij;                  /* (9 nf^2) (3i + j) nf^2 + a nf + b: int rho S_ia S_jb dV */
    double* Mff;                  /* (nf^2) sum_i m_ii */
    double* K;                    /* (nf^2) elastic stiffness */
    double creg;                  /* c of the c p p^T regularisation (theory.md sec. 11, S7) */
    kd_element_kind kind;         /* beams: the element kind, constants and length */
    kd_element_consts ec;
    double Le;
    double g0[144];               /* element int (v'^T v' + w'^T w') dx (row-major 12 x 12), F9 */
    /* modal reduction (F11; T NULL: none): q_f = T x, node_coord then maps the boundary nodes'
     * DOFs into x (-1 elsewhere) and full_coord the nodes' DOFs into q_f */
    double* T;                    /* (nfull x nf) row-major */
    int nfull;
    int* full_coord;
    double* zfull;                /* (2 nfull) work: q_f, and its generalized force */
    double omega_max;             /* rad/s, the reduced link's highest frequency, frame clamped */
    double* Pm;                   /* F12 (geometric stiffness): (ne x ne) the projector onto the axial
                                   * strain fields of the basis */
    double* sw;                   /* (2 ne) work: the slope strains s_e and P s */
    /* shells (theory.md sec. 22, SL6; floating_shell3d.c): the frame is the body frame, the support
     * set clamped; node_x (3 per node) the nodes in it; no section forces */
    int shell;
    double* node_x;
    int shell_modes;              /* SL9: > 0, the shell is reduced (no dense blocks are formed) */
    struct f3_shell_geo* sgeo;    /* SL8: the membrane stress stiffening (NULL: none) */
} f3_body;

/* The map of the nodes' DOFs into the full elastic coordinates. */
#define F3_FULL_COORD(b) ((b)->full_coord ? (b)->full_coord : (b)->node_coord)

/* Doubles of scratch one body evaluation needs (nf its elastic count: the full count of a
 * reduced body). */
#define F3_SCRATCH(nf) (12 * (size_t)(nf) + 16)

kd_status f3_body_init_beam(f3_body* b, const kd_ffr3d_beam* beam, kd_error* err);
/* SL6: shell body b from the compiled model of its mesh in the body frame (support clamped). */
struct kd_model;
kd_status f3_body_init_shell(f3_body* b, const struct kd_model* md, kd_error* err);
/* SL8: the geometric part of a shell body's elastic force at its elastic coordinates z added to Qf
 * (Qf may be NULL), its energy into *U (U may be NULL); and the release of its data. SL10: on a
 * reduced shell z and Qf are the reduced coordinates x and their force (work in b->zfull). */
void f3_shell_geometric_force(const f3_body* b, const double* z, double* Qf, double* U);
void f3_shell_geo_free(struct f3_shell_geo* g);
/* SL10: the relaxation data of a reduced shell's SL8 (after its basis b->T is set). */
kd_status f3_shell_geo_reduce(f3_body* b, kd_error* err);
/* SL10: the relaxation field T s - y of a reduced shell with SL8 at its coordinates zr, on the full
 * elastic coordinates (the body's work: valid until its next evaluation); NULL when it has none. */
const double* f3_shell_relaxation(const f3_body* b, const double* zr);
void f3_body_init_rigid(f3_body* b, double mass, const double J[9]);
void f3_body_free(f3_body* b);
/* F11: reduce beam body b on the Craig-Bampton basis of the lowest `modes` fixed-interface modes
 * and the constraint modes of the nodes with boundary[node] != 0 (nodes entries); augment: with
 * the static vectors of the distributed inertia loads (F12). */
kd_status f3_body_reduce(f3_body* b, int modes, const int* boundary, int augment, kd_error* err);
/* A shell model's DOF name as a component of its node's (u, v, w, rx, ry, rz): 0..5, or -1. */
int f3_shell_dof_component(kd_dof_name n);
/* SL9: reduce shell body b (f3_body_init_shell with b->shell_modes > 0) on the Craig-Bampton basis
 * of b->shell_modes fixed-interface modes and the constraint modes of the free nodes among
 * joint_nodes (others ignored), from the sparse matrices of its model md (floating_shell3d_modal.c);
 * augment as above. */
kd_status f3_shell_reduce(f3_body* b, const struct kd_model* md, const int* joint_nodes, int njoint_nodes, int augment,
                          kd_error* err);
/* y (rows x nr) = x (rows x nfull) T (floating_body3d_modal.c) */
void f3_project1(const double* T, int nfull, int nr, const double* x, int rows, double* y);
/* The full elastic coordinates of the body's z (z itself when not reduced; else b->zfull). */
const double* f3_body_expand(const f3_body* b, const double* z);
/* The body's block of M(q) (column-major size x size) at its coordinates q (R, p, q_f). */
void f3_body_mass(const f3_body* b, const double* q, double* M, double* scratch);
/* Quadratic-velocity, gravity and elastic forces into Q (size). */
void f3_body_force(const f3_body* b, const double* q, const double* qd, const double g[3], double* Q,
                   double* scratch);
double f3_body_kinetic(const f3_body* b, const double* q, const double* qd, double* scratch);
double f3_body_gravity_potential(const f3_body* b, const double* q, const double g[3]);
double f3_body_strain(const f3_body* b, const double* q);
/* N, My, Mz at every node (4 per node, sigma from c_y, c_z; 0 when both are 0). */
void f3_body_section_forces(const f3_body* b, const double* q, double c_y, double c_z, double* out);
void f3_body_momentum(const f3_body* b, const double* q, const double* qd, double p[3], double L[3],
                      double* scratch);

/* The mechanism joint a system joint comes from (kd_ffr3d_joint_tag; floating_spatial_mechanism.c). */
void f3_set_joint_tag(kd_ffr3d_system* s, int j, int tag);

#endif
