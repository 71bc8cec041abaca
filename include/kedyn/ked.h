/* kedyn: elastic links of planar mechanisms, one-way kineto-elastodynamics
 * (KED; theory.md sec. 6 and 7.3, seeds 000, 001, 003, 004).
 *
 * A beam taking part in joints is an elastic link. The route:
 *   1. the rigid mechanism, with every link taken as a rigid body of the
 *      beam's mass and inertia (kd_mech_link_rigid, kedyn/mech.h), is solved
 *      over [settle, settle + t_end] at steps + 1 equal instants: kinematics and the
 *      multipliers' joint reactions when every degree of freedom is driven,
 *      forward dynamics (kedyn/mbs.h, Runge-Kutta) and the multipliers at
 *      each instant otherwise;
 *   2. each link gets a description of its own (kd_ked_link.desc): the beam
 *      in its floating frame, whose planar motion (x, y, phi of node 1) is a
 *      quintic Hermite law through the sampled positions, velocities and
 *      accelerations (kd_law_hermite: exact at the samples), the supports of
 *      the frame (below), the gravity of the model, and the forces of its
 *      joints from step 1 as nodal loads in the frame (cubic splines);
 *   3. the link's equations (theory.md sec. 3) are integrated with those
 *      loads, or their natural frequencies computed along the motion.
 *
 * Floating frame and supports (docs/model-format.md, "Elastic links"):
 *   chord (default)  x axis through the first and last joint nodes; the
 *                    frame holds u, v at the first and v at the last one
 *                    (pinned-pinned in the frame, statically determinate);
 *   node N (root)    the frame of node N: u, v, rz held there.
 * The joint forces of the rigid solution are applied at every joint node,
 * with the distributed inertia and gravity loads of the frame motion: the
 * load set is in equilibrium (it is the rigid body's d'Alembert balance), so
 * the frame supports carry no force in the quasi-static limit, and what they
 * carry in motion is the elastic contribution to the joint reactions
 * (kd_ked_link_reactions). The axial force the joints transmit along the
 * link (the axial joint loads beyond the node whose u is held) enters the
 * geometric stiffness as a time-varying preload, with the axial inertia
 * force of the frame motion (theory.md sec. 5); for links with joints at
 * their two ends this is exact.
 *
 * Ownership: kd_ked_new allocates everything; kd_ked_free releases it.
 * No allocation happens in kd_ked_link_dynamics' time steps or in the
 * instants of kd_ked_modes_along_motion.
 */
#ifndef KEDYN_KED_H
#define KEDYN_KED_H

#include <stddef.h>

#include "kedyn/analysis.h"
#include "kedyn/desc.h"
#include "kedyn/mech.h"
#include "kedyn/model.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KD_KED_LINK_JOINTS 8      /* joints on one link, at most */

typedef struct kd_ked_opts {
    double t_end;                 /* s (> 0) */
    int steps;                    /* rigid solution at steps + 1 equal instants (>= 1) */
    double speed;                 /* > 0: the first driver becomes {speed: speed} (rad/s or m/s) */
    double cond_max;              /* singular position above this condition number of Phi_q */
} kd_ked_opts;

/* The rigid mechanism's solution at the sample instants. */
typedef struct kd_ked_rigid {
    int nsamples, n, njoint, ndriver;
    int forward;                  /* 1: forward dynamics (undriven degrees of freedom) */
    double* t;                    /* (nsamples) */
    double *q, *qd, *qdd;         /* (nsamples x n) */
    double* F;                    /* (nsamples x 3 njoint) Fx, Fy, M each joint applies on its second body */
    double* drive;                /* (nsamples x ndriver) driving torques or forces */
} kd_ked_rigid;

typedef struct kd_ked_link {
    char name[KD_NAME_MAX];
    int body;                     /* index into the model's kd_desc.bodies */
    int mbody;                    /* moving body index in the rigid mechanism */
    int frame_node;               /* 0: chord frame; N: the frame of node N */
    int node_u;                   /* the node whose u the frame holds (1-based) */
    int njoint;
    int joint[KD_KED_LINK_JOINTS];        /* index into kd_mech.joint */
    int joint_node[KD_KED_LINK_JOINTS];   /* the link's node where it acts (1-based) */
    double joint_sign[KD_KED_LINK_JOINTS];/* +1: the link is the joint's second body, -1: first */
    kd_desc* desc;                /* the link alone in its floating frame (owned) */
    kd_model* model;              /* compiled from desc (owned; preload set per instant) */
    kd_law load[KD_KED_LINK_JOINTS][3];   /* joint force on the link, frame components u, v, rz */
    kd_law preload;               /* axial force the joints transmit, N (tension > 0) */
    int plain_step;               /* 1: every step assembled and factorised anew by the moving-frame
                                     system (the reference of the affine step, theory.md sec. 12.7) */
    int modes, statics;           /* modal reduction (kd_body_desc.modes, .statics; 0: the full link) */
    double c_y;                   /* distance of the extreme fibre from the neutral axis, m
                                     (0 for a generic section: no stresses) */
} kd_ked_link;

typedef struct kd_ked {
    kd_mech* mech;                /* the rigid mechanism (links as rigid bodies) */
    kd_ked_rigid rigid;
    int nlinks;
    kd_ked_link* link;            /* (nlinks) in the order of the model's bodies */
    int dof_undriven;             /* degrees of freedom left to forward dynamics */
} kd_ked;

/* Compile the mechanism of d, solve its rigid motion (step 1 above) and
 * build every elastic link (step 2). KD_ERR_INPUT (located) for what the
 * route does not take: a link with supports, motion or nodal loads of its
 * own, a joint other than revolute or fixed on a link, more than
 * KD_KED_LINK_JOINTS joints on one link; KD_ERR_NUMERIC (time and cause)
 * when the rigid solution fails. */
kd_status kd_ked_new(const kd_desc* d, const kd_ked_opts* o, kd_ked** out, kd_error* err);

/* kd_ked_new after a settling time: the rigid mechanism runs from t = 0 and
 * the instants cover [settle, settle + t_end] (a settled cycle of an
 * undriven mechanism started at rest); settle (s, >= 0) is rounded to a whole
 * number of sample spacings t_end / steps. */
kd_status kd_ked_new_settled(const kd_desc* d, const kd_ked_opts* o, double settle, kd_ked** out, kd_error* err);
void kd_ked_free(kd_ked** k);

/* Called at every output instant of a link's integration with its reduced
 * state; nonzero stops. */
typedef int (*kd_ked_output)(void* ctx, int link, double t, const double* q, const double* v, const double* a);

/* Integrate link `link` over the rigid solution's instants with the
 * integrator options of ad (newmark, hht or generalized-alpha; dt,
 * output_every, damping of the model), from the quasi-static state at the
 * first instant: at rest relative to the frame when that instant is t = 0,
 * moving at the quasi-static rate after a settling time (kd_ked_new_settled),
 * so that joining a running mechanism excites no vibration.
 * The preload follows the joints' axial force at every step. */
kd_status kd_ked_link_dynamics(kd_ked* k, int link, const kd_analysis_desc* ad, kd_ked_output out, void* ctx,
                               kd_integrate_stats* stats, kd_error* err);

/* Post-processing of a link state at t (reduced q, v, a of its model):
 *   displacements: every node's u, v, rz in the floating frame (3 x nnode);
 *   section forces at every node: N = EA u' (tension > 0), M = EI v''
 *     (theory.md sec. 5; average of the two elements at inner nodes), and
 *     sigma = |N|/A + |M| c / I, the largest normal stress of the section,
 *     which is the von Mises stress of a beam without shear (3 x nnode:
 *     N, M, sigma; sigma 0 for generic sections);
 *   reactions: per joint of the link, the elastic contribution (global Fx,
 *     Fy) to the force the joint applies on the link: the reactions of the
 *     frame supports, from the residual of the elements at the supported
 *     DOFs (2 x njoint; zero at joints without supported DOFs). */
void kd_ked_link_displacements(const kd_ked* k, int link, const double* q, double* out);
void kd_ked_link_section_forces(const kd_ked* k, int link, const double* q, double* out);
void kd_ked_link_reactions(kd_ked* k, int link, double t, const double* q, const double* v, const double* a,
                           double* out);

/* Pose of a link's floating frame (node 1) at t: x, y (m), phi (rad). */
void kd_ked_link_pose(const kd_ked* k, int link, double t, double pose[3]);

/* Natural frequencies of a link along the rigid motion (at the rigid
 * solution's instants), with every inertia term of the instant (theory.md
 * sec. 3): the quadratic eigenproblem
 *     (s^2 M + s C(t) + K(t)) x = 0,  C = [c] (+ damping),
 *     K = K + k_g(t) + k(eps(t)) + k(omega(t))
 * of the link in its frame supports, with the gyroscopic matrix, the
 * angular-acceleration stiffness (skew), the centrifugal softening and the
 * geometric stiffness of the instant's axial force (frame acceleration,
 * centrifugal field and joints' axial force). It is solved in state-space
 * form by the dense solver (kd_gyro_solve, LAPACK dggev) and the
 * frequencies are |Im s| (damped frequencies when the link has Rayleigh
 * damping). Instants where the problem is symmetric (C = 0 and K symmetric:
 * omega = eps = 0, no damping), or every instant with gyroscopic = 0, take
 * the symmetric problem (K + k_g + k(omega)) x = omega^2 M x (k(eps) and
 * [c] left out) by LAPACK's dsyevr (dsbgvx above 200 equations).
 * Modes are followed from instant to instant by the modal assurance
 * criterion MAC = |x_i^H M x_j|^2 between complex shapes normalised to
 * x^H M x = 1 (real shapes on the symmetric route), so curve i is one mode
 * even where two cross.
 * omega: (nsamples x count), rad/s; swaps: instants where the followed order
 * differs from the ascending one. */
typedef struct kd_ked_modes {
    int nsamples, count;
    double* t;                    /* (nsamples) */
    double* omega;                /* (nsamples x count) */
    double mac_min;               /* smallest MAC of a followed pair */
    int swaps;
    int state_space;              /* instants with the gyroscopic terms (not symmetric) */
    int dense_instants;           /* of those, solved by the dense state-space solver */
    double growth_max;            /* largest Re s of a followed mode, 1/s (> 0: unstable; 0 when
                                     none is positive or the route is symmetric) */
} kd_ked_modes;

/* kd_ked_modes_along_motion_opt with gyroscopic = KD_KED_GYRO_REFINE. */
kd_status kd_ked_modes_along_motion(kd_ked* k, int link, int count, kd_ked_modes* out, kd_error* err);
/* gyroscopic: the route of the instants that are not symmetric (the dense state-space solver up
 * to KD_GYRO_MAX equations, kedyn/modes.h, the sparse one above: kd_gyro_sparse_route). */
enum {
    KD_KED_GYRO_OFF = 0,          /* the symmetric problem, [c] and [k(eps)] left out */
    KD_KED_GYRO_REFINE = 1,       /* the quadratic problem: the symmetric modes refined by Newton's
                                     method, the dense state-space solver where that fails */
    KD_KED_GYRO_DENSE = 2         /* the quadratic problem by the dense state-space solver */
};
kd_status kd_ked_modes_along_motion_opt(kd_ked* k, int link, int count, int gyroscopic, kd_ked_modes* out,
                                        kd_error* err);
void kd_ked_modes_free(kd_ked_modes* m);

/* The same in two steps, for computing the instants in parallel (src/run): the instants are
 * independent (each one's preload and frame motion come from the rigid solution at its time),
 * the following of the modes is not. A workspace (kd_ked_along: its own copy of the link's
 * model, system and eigensolver workspace; one per thread) turns instant i into bytes; a
 * follower (kd_ked_follow) takes those bytes in instant order 0, 1, 2... and fills out.
 * kd_ked_modes_along_motion_opt is exactly these calls on one thread, so any schedule gives
 * the same bits. On the refined route every one of the count + 2 symmetric modes is refined
 * (and the dense solver run when one of them fails), since the modes followed are known only
 * in order. The bytes of an instant: O(count n) doubles, for a link of n equations. */
typedef struct kd_ked_along kd_ked_along;
typedef struct kd_ked_follow kd_ked_follow;
kd_status kd_ked_along_new(const kd_ked* k, int link, int count, int gyroscopic, kd_ked_along** out,
                           kd_error* err);
/* Instant i (0 <= i < k->rigid.nsamples) into the workspace's bytes; KD_ERR_NUMERIC (time,
 * cause) when the symmetric eigensolver fails. */
kd_status kd_ked_along_instant(kd_ked_along* w, int i, kd_error* err);
const void* kd_ked_along_bytes(const kd_ked_along* w, size_t* size);
void kd_ked_along_free(kd_ked_along** w);
/* After kd_ked_along_instant: the instant's time and its lowest modes on the symmetric route
 * (K + k_g + k(omega)) x = omega^2 M x of the workspace (gyroscopic terms left out): *count
 * eigenvalues omega^2 (ascending, rad^2/s^2) and their M-normalised shapes (n x *count, column
 * k at shape + k n, in the equations of the link's model k->link[link].model). Pointers into
 * the workspace, valid until its next instant. */
void kd_ked_along_symmetric(const kd_ked_along* w, double* t, int* n, int* count, const double** omega2,
                            const double** shape);
/* out: nsamples x count, filled as instants are added (KD_ERR_USAGE: the gyroscopic limit). */
kd_status kd_ked_follow_begin(const kd_ked* k, int link, int count, int gyroscopic, kd_ked_modes* out,
                              kd_ked_follow** f, kd_error* err);
kd_status kd_ked_follow_add(kd_ked_follow* f, int i, const void* bytes, size_t size, kd_error* err);
void kd_ked_follow_free(kd_ked_follow** f);

#ifdef __cplusplus
}
#endif
#endif
