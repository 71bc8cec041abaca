/* Internal to the one-way elastic links (src/links/one_way.c, spatial_one_way.c): what the planar
 * and the spatial routes share once a link is a model in its moving frame (theory.md sec. 6, 7.3,
 * 12). Not a public header.
 *
 * A link's equations are the moving-frame system (kedyn/system.h) of its model plus the axial
 * force its joints transmit, a time-varying preload of the geometric stiffness (the law
 * `preload`). link_ode keeps that preload current and integrates the link; its matrices are
 * affine in the frame state (theory.md sec. 12.7), so it precomputes their parts once and
 * combines them per step, and solves each step with a factorisation kept while it serves
 * (src/links/link_step.c). */
#ifndef KEDYN_LINK_ODE_H
#define KEDYN_LINK_ODE_H

#include "kedyn/analysis.h"
#include "kedyn/desc.h"
#include "kedyn/integrate.h"
#include "kedyn/ked.h"
#include "kedyn/model.h"
#include "kedyn/system.h"

typedef struct link_step link_step;
typedef struct link_modal link_modal;

/* Parameters of the affine parts: of K (a_eff 3, eps 3, omega_i omega_j 6, P), of C (omega 3),
 * of the inertia loads (a_eff, eps, omega_i omega_j). */
enum { LINK_NPK = 13, LINK_NPC = 3, LINK_NPF = 12 };

typedef struct link_ode {
    kd_system s;
    kd_model* model;              /* the link's model (its body 0's preload is set per instant) */
    const kd_law* preload_law;    /* axial force the joints transmit, N */
    const char* name;             /* for messages */
    double preload;               /* the value the system's matrices were built with */
    link_step* step;              /* the affine parts and the kept factorisation (NULL: the plain
                                     system route, every step assembled and factorised anew) */
    link_modal* modal;            /* the parts projected on a modal basis (NULL: the full link;
                                     theory.md sec. 12.11) */
} link_ode;

/* The system of model m with the preload law; fast = 1 takes the affine step (link_step.c). */
kd_status link_ode_init(link_ode* lo, kd_model* m, const kd_law* preload, const char* name, int fast,
                        kd_error* err);
void link_ode_free(link_ode* lo);
/* The kd_ode2 of the link (callbacks with ctx = lo). */
kd_ode2 link_ode_ode2(link_ode* lo);
/* Quasi-static state K(t) q = f(t) (the message names the link and a possible buckling). */
kd_status link_ode_static(link_ode* lo, double t, double* q, kd_error* err);
/* Integrate from (q0, v0) at t0 to t_end with the one-way settings of dy (UNSET: defaults);
 * out(ctx, link, ...) at the output instants. */
kd_status link_ode_integrate(link_ode* lo, const kd_dynamics_desc* dy, double t0, double t_end, const double* q0,
                             const double* v0, kd_ked_output out, void* ctx, int link, kd_integrate_stats* stats,
                             kd_error* err);

/* The affine step (link_step.c): built from the system at init, freed with the link. */
kd_status link_step_new(link_ode* lo, link_step** out, kd_error* err);
void link_step_free(link_step** ps);
int link_step_matrices(void* ctx, double t, kd_gband* C, kd_gband* K, int* changed);
int link_step_force(void* ctx, double t, double* f);
int link_step_solve(void* ctx, double t, double cm, double cc, double ck, double am, const double* a,
                    const double* x, const double* y, double* r, int* factored);

/* The affine parts as link_step keeps them (for their projection, link_modal.c): K0, C0 at the
 * zero frame state and M (band), the parts of K (c < LINK_NPK) and of C (then LINK_NPC) as sparse
 * lists over the union pattern (urow, ucol), the inertia-load parts F (NULL: zero). Pointers
 * into the step, valid while it lives and before its first step. */
typedef struct link_parts {
    int n, kd;
    const kd_gband *K0, *C0, *M;
    int nu;
    const int *urow, *ucol;
    int nnz[LINK_NPK + LINK_NPC];
    const int* idx[LINK_NPK + LINK_NPC];
    const double* val[LINK_NPK + LINK_NPC];
    const double* F[LINK_NPF];
} link_parts;
void link_step_parts(const link_step* w, link_parts* out);
/* The parameters p (LINK_NPK) and omega (LINK_NPC) of the frame state and preload at t. */
void link_step_params(link_step* w, double t, double* p);

/* ---- modal reduction (link_modal.c; theory.md sec. 12.11) ---------------------------------- */

/* Project the link (initialised with fast = 1) on its lowest `modes` constrained modes at rest;
 * statics = 1: the truncated modes' quasi-static share added to the displacements at the output
 * instants (the modal acceleration method); statics = 2: the static deflections under its nodal
 * loads' DOFs and its inertia-load parts added to the basis; from then on link_ode_ode2 is the reduced system (its n the basis size), and
 * link_ode_static and link_ode_integrate take and give physical states. */
kd_status link_ode_reduce(link_ode* lo, int modes, int statics, kd_error* err);
void link_modal_free(link_modal** pm);
kd_ode2 link_modal_ode2(link_modal* w);
/* Physical x = V eta (n) / eta = V^T M x (r). */
void link_modal_expand(const link_modal* w, const double* eta, double* x);
/* The physical state at t into x (n; with nu, alpha: 3 n, q, v, a): V eta, V nu, V alpha, plus
 * with the static correction (statics = 1) the truncated modes' quasi-static share
 * G f(t) = K0^-1 f(t) - V diag(lambda)^-1 V^T f(t) and its rates G f', G f'' (differences of f
 * inside the span [t0, t1] of link_modal_span). */
void link_modal_state(link_modal* w, double t, const double* eta, const double* nu, const double* alpha, double* x);
void link_modal_span(link_modal* w, double t0, double t1);
void link_modal_project(const link_modal* w, const double* x, double* eta);
/* The reduced system's lowest count frequencies at t (rad/s, ascending): gyroscopic = 0, the
 * symmetric problem (K_r + k_g + k(omega) with eps and [c] left out) omega^2 = eig(K_r); else the
 * quadratic one by the state-space matrix of the reduced M, C, K. 1 when it fails. */
int link_modal_frequencies(link_modal* w, double t, int count, int gyroscopic, double* omega);

/* ---- frequencies along the motion (src/links/modes_along_motion.c) ----------------------- */

/* What the frequencies of a link along the motion need: its description in its moving frame,
 * its preload law, its name, the instants (ns) and its equations. */
typedef struct along_source {
    const kd_desc* desc;
    const kd_law* preload;
    const char* name;
    const double* t;
    int ns, neq;
} along_source;

/* kd_ked_along_new, kd_ked_follow_begin and kd_ked_modes_along_motion_opt (kedyn/ked.h) for any
 * link's source. */
kd_status link_along_new(along_source src, int count, int gyroscopic, kd_ked_along** out, kd_error* err);
kd_status link_follow_begin(along_source src, int count, int gyroscopic, kd_ked_modes* out, kd_ked_follow** f,
                            kd_error* err);
kd_status link_modes_along_motion(along_source src, int count, int gyroscopic, kd_ked_modes* out, kd_error* err);

/* ---- the link's description and post-processing ------------------------------------------ */

/* A support of body 0 at node (1-based) holding the DOFs of mask fix. */
kd_status link_desc_support(kd_desc* d, int node, unsigned fix);
/* A nodal load on body 0 at node (1-based), DOF dof, of value law (copied). */
kd_status link_desc_nodal(kd_desc* d, int node, kd_dof_name dof, const kd_law* law);
/* The axial force the joints transmit past node node_u (1-based): at each instant t[i] the sum of
 * the joints' axial loads (load[j * stride], frame u) beyond it less those before it, as a table
 * law (theory.md sec. 7.3). */
kd_status link_preload_table(kd_law* preload, const kd_law* load, int stride, int njoint, const int* joint_node,
                             int node_u, int ns, const double* t, double* buf, kd_error* err);
/* Index of DOF name at node n (0-based) of m in the all-DOF numbering, or -1. */
int link_node_dof(const kd_model* m, int n, kd_dof_name name);
/* Element DOF values of element e from the reduced state x (fixed DOFs 0; x NULL: all 0). */
int link_elem_values(const kd_model* m, int e, const double* x, double* de);
/* The reactions of the frame supports at the joints' nodes (theory.md sec. 7.3, 12): at each
 * supported translation c < ncomp of a joint's node, the residual of the elements there
 * (m (a + alpha v) + c v + k (q + beta v) + (k_g + k(eps) + k(omega)) q + q_inertia, gravity in
 * the frame acceleration) less the joint loads applied there (load[j * stride + c]); frame
 * components into R (ncomp per joint; 0 at free DOFs; several joints at one node: the first
 * reports it). f: the link's frame at t. Sets body 0's preload to the law's value at t. */
void link_support_reactions(kd_model* m, const kd_frame* f, const kd_law* preload, const kd_law* load, int stride,
                            int njoint, const int* joint_node, int ncomp, double t, const double* q, const double* v,
                            const double* a, double* R);

#endif
