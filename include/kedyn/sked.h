/* kedyn: one-way kineto-elastodynamics of elastic links on a spatial mechanism
 * (theory.md sec. 12). The rigid spatial mechanism (kedyn/smech.h) is solved
 * by kinematics (or, with undriven degrees of freedom, forward dynamics) at
 * steps + 1 instants with the joint reactions of the multipliers (kd_sked_rigid). A link is a 3D beam (6 DOF per node) laid along
 * the x axis of one rigid body, from a point P1 of that body; it is solved in
 * its floating frame (the body's axes, origin at P1) by the moving-frame engine
 * (kd_system) with
 *   - the frame motion as a tabulated 3D pose (kedyn/frame.h, `pose`): the
 *     origin by quintic Hermite polynomials through the sampled position,
 *     velocity and acceleration of P1, the rotation vector of the body's axes
 *     (unwrapped from instant to instant) by quintic Hermite polynomials through
 *     its samples and its rates from omega = J phi', eps = J phi'' + J' phi'
 *     (exact at the instants);
 *   - the joints' wrenches of the rigid solution on the body as nodal loads at
 *     the joint nodes (frame components: forces on u, v, w, moments on rx, ry,
 *     rz), gravity, and the axial force they transmit past the node whose u the
 *     frame holds as a time-varying preload of the geometric stiffness;
 *   - frame supports: chord (u, v, w, rx at the first joint node; v, w at the
 *     last) or a clamped node (frame_node).
 * The link's mass should be the body's (rho A L, the beam's inertia): the load
 * set is then the rigid body's d'Alembert balance and the supports carry only
 * the elastic contribution to the joint reactions.
 * Ownership: kd_sked_rigid_solve and kd_sked_link_new allocate, the _free
 * functions release. No allocation in the time steps of kd_sked_link_dynamics.
 */
#ifndef KEDYN_SKED_H
#define KEDYN_SKED_H

#include "kedyn/analysis.h"
#include "kedyn/desc.h"
#include "kedyn/integrate.h"
#include "kedyn/ked.h"
#include "kedyn/model.h"
#include "kedyn/smech.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_sked_rigid {
    int nsamples, n, njoint;
    int forward;                  /* 1: by forward dynamics (undriven degrees of freedom) */
    double* t;                    /* (nsamples) */
    double *q, *qd, *qdd;         /* (nsamples x n) */
    double* F;                    /* (nsamples x 6 njoint) force and moment each joint applies on its second body */
} kd_sked_rigid;

/* The rigid motion over [0, t_end] at steps + 1 instants and the reactions by the multipliers:
 * kinematics when every degree of freedom is driven, else forward dynamics from the assembled
 * position and the given velocities (theory.md sec. 12.10). */
kd_status kd_sked_rigid_solve(const kd_smech* m, double t_end, int steps, double cond_max, kd_sked_rigid* r,
                              kd_error* err);
void kd_sked_rigid_free(kd_sked_rigid* r);

/* What makes a link: rigid body `body` of m carries a beam from P1 (body frame, from the body
 * frame's origin) along its x axis. */
typedef struct kd_sked_link_spec {
    char name[KD_NAME_MAX];
    int body;                     /* moving body index in the kd_smech */
    double p1[3];                 /* node 1, body frame (from the frame origin), m */
    double length;                /* m */
    int elements;
    kd_theory theory;
    int frame_node;               /* 0: chord frame; N: clamped at node N */
    kd_material_desc material;
    kd_section_desc section;
    double g[3];                  /* gravity */
    double damp_alpha, damp_beta; /* Rayleigh damping of the link (0: none) */
    int modes;                    /* > 0: the link projected on its lowest `modes` constrained modes
                                     at rest (theory.md sec. 12.11); 0: the full link */
    int statics;                  /* with modes, the static correction of the truncated modes: 0 none,
                                     1 their quasi-static share added at the output instants, 2 the
                                     load shapes' static deflections in the basis */
    const kd_body_desc* shell;    /* not NULL: a shell link (a spatial `plate` body, theory.md sec. 22):
                                     this mesh in the body frame (the link's frame: its origin and axes;
                                     p1 = 0), length, elements, theory, section unused */
    int support_set, output_set;  /* indices into shell->node_sets: the set clamped to the frame, the
                                     set the outputs list (-1: every node) */
} kd_sked_link_spec;

typedef struct kd_sked_link {
    kd_sked_link_spec spec;
    int njoint;
    int joint[KD_KED_LINK_JOINTS];         /* index into kd_smech.joint */
    int joint_node[KD_KED_LINK_JOINTS];    /* 1-based node */
    double joint_sign[KD_KED_LINK_JOINTS]; /* +1: the link is the joint's second body */
    int node_u;                   /* node whose u the frame holds (1-based) */
    double t0, t_end;
    kd_desc* desc;                /* the link alone in its moving frame (owned) */
    kd_model* model;              /* compiled from desc (owned) */
    kd_law load[KD_KED_LINK_JOINTS][6];    /* joint wrench on the link, frame components */
    kd_law preload;               /* axial force the joints transmit, N */
    double c_y, c_z;              /* extreme fibre distances along y and z (0: generic section) */
    int plain_step;               /* 1: every step assembled and factorised anew by the moving-frame
                                     system (the reference of the affine step, theory.md sec. 12.7) */
} kd_sked_link;

/* The spec of beam body b of d's spatial description (kd_sdesc.bodies[b]), moving body mb of the
 * compiled mechanism: its points, length, elements, theory, frame, material, section and the
 * model's gravity (the sum of its gravity forces); no damping. */
void kd_sked_link_spec_of(const kd_desc* d, int b, int mb, kd_sked_link_spec* spec);

/* Shell links: the rigid mass, centre of mass (body frame) and inertia tensor about it (Ixx, Iyy,
 * Izz, Ixy, Iyz, Izx, the tensor's entries) of plate p of density rho from its mesh (corner
 * triangles, theory.md sec. 22); 1 when it has no area. */
int kd_splate_mass(const kd_body_desc* p, double rho, double* mass, double com[3], double inertia[6]);
/* The 1-based node of p's mesh at x (body frame, within 1e-6 of the mesh size), 0 when none. */
int kd_splate_node_at(const kd_body_desc* p, const double x[3]);

kd_status kd_sked_link_new(const kd_smech* m, const kd_sked_rigid* r, const kd_sked_link_spec* spec,
                           kd_sked_link** out, kd_error* err);
void kd_sked_link_free(kd_sked_link** L);

/* Integrate the link from the quasi-static state at the first instant (kd_ked_output with link
 * index 0); integrator settings from dy (UNSET: the one-way defaults). */
kd_status kd_sked_link_dynamics(kd_sked_link* L, const kd_dynamics_desc* dy, kd_ked_output out, void* ctx,
                                kd_integrate_stats* stats, kd_error* err);
/* Quasi-static state K(t) q = f(t) at t (reduced q). */
kd_status kd_sked_link_static(kd_sked_link* L, double t, double* q, kd_error* err);

/* The natural frequencies of the link along the rigid motion r (theory.md sec. 12.9): at each
 * instant the lowest count modes of the link in its moving frame, with the frame's omega, eps and
 * the joints' preload of the instant, followed from instant to instant by the MAC; gyroscopic:
 * KD_KED_GYRO_* (as kd_ked_modes_along_motion_opt, kedyn/ked.h). A link with spec.modes > 0:
 * the lowest count frequencies of its reduced matrices at each instant, ascending (not followed;
 * gyroscopic: the dense state-space solve of the reduced M, C, K). out: freed by
 * kd_ked_modes_free. */
kd_status kd_sked_modes_along_motion(const kd_sked_link* L, const kd_sked_rigid* r, int count, int gyroscopic,
                                     kd_ked_modes* out, kd_error* err);

/* Every node's u, v, w, rx, ry, rz in the frame (6 x nnode). */
void kd_sked_link_displacements(const kd_sked_link* L, const double* q, double* out);
/* Every node's N = EA u', My = EIy ry', Mz = EIz rz', sigma = |N|/A + |My| c_z/Iy + |Mz| c_y/Iz
 * (4 x nnode; inner nodes: the mean of the two elements' end values). */
void kd_sked_link_section_forces(const kd_sked_link* L, const double* q, double* out);
/* Shell links: at the centre of each element of the link's model (the mesh's elements, in order)
 * N_x, N_y, N_xy (N/m), M_x, M_y, M_xy (N m/m) along the element's own axes and the larger of the
 * von Mises stresses at its two surfaces, sigma = N / t +- 6 M / t^2 per component (Pa)
 * (KD_PLATE_STRESS x nelem; theory.md sec. 22, SL5). */
#define KD_PLATE_STRESS 7
void kd_sked_plate_stress(const kd_sked_link* L, const double* q, double* out);

/* Shell links: the wrench the support set applies on the link at (t, q, v, a): the sum over its
 * nodes of the residual of the link's element equations at u .. rz (inertia of the frame motion
 * and gravity included, the joint loads applied there not subtracted), force and moment about the
 * frame origin, frame components (w[6]; theory.md sec. 22, SL7). */
void kd_sked_plate_support(const kd_sked_link* L, double t, const double* q, const double* v, const double* a,
                           double w[6]);

/* The elastic contribution to each joint's force on the link at (t, q, v, a): the reactions of
 * the frame supports at the joint's node (the residual of the link's element equations, inertia
 * of the frame motion and gravity included, at the supported u, v, w, less the joint loads
 * applied there), global components (3 x njoint; zero at joints without supported
 * translations; several joints at one node: the first reports it). A plate link: the support
 * set's force (kd_sked_plate_support) less the joint loads at its nodes, on the first joint at a
 * node of the set, zero at the others (theory.md sec. 22, SL7). */
void kd_sked_link_reactions(const kd_sked_link* L, double t, const double* q, const double* v, const double* a,
                            double* out);

#ifdef __cplusplus
}
#endif
#endif
