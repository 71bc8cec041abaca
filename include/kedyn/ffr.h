/* kedyn: planar mechanisms with elastic links in the floating frame of reference, two-way coupled
 * (theory.md sec. 6, "coupling: two-way").
 *
 * Each body has reference coordinates (x, y, theta): the origin of its frame and the frame's angle.
 * A rigid body's frame sits at its centre of mass. An elastic body is a straight planar beam of
 * finite elements along its frame's x axis (first node at the origin), with elastic coordinates
 * q_f (nodal u, v, rz in the frame) after the frame's reference conditions:
 *
 *   root   the frame is clamped at the first node: u = v = rz = 0 there;
 *   chord  the frame is the chord of the end nodes (pinned-pinned): u = v = 0 at the first node,
 *          v = 0 at the last.
 *
 * A material point at u0 = (X, y) of the undeformed beam is at r = R + A(theta) (u0 + N q_f), so
 * with J = [0 -1; 1 0], u = u0 + N q_f and the element inertia invariants of kedyn/element.h
 * summed over the body (computed once, no quadrature per step):
 *
 *   M = [ m I     A J S     A S_N ]     S = int rho u dV = S0 + S_N q_f
 *       [  .    int rho u.u  b^T   ]     b = int rho (J u)^T N dV = b0 + (m_xy - m_yx)^T q_f
 *       [  .        .        m_ff  ]     int rho u.u = I0 + 2 a0.q_f + q_f^T m_ff q_f
 *
 *   Q_v = [ A (theta'^2 S - 2 theta' J S_N q_f') ]       a = int rho N^T u dV = a0 + m_ff q_f
 *         [ -2 theta' a.q_f'                      ]
 *         [ theta'^2 a - 2 theta' (m_yx - m_xy) q_f']
 *
 * with m_ij = int rho N_i^T N_j dV, and the elastic force -dU/dq_f. U = q_f^T K_ff q_f / 2, or with
 * geometric stiffness (kd_ffr_beam.geometric) the axial part of each element taken from its mean
 * strain with the transverse slopes, eps_e = (u2 - u1)/h + (q_e^T g0 q_e)/(2 h), g0 = int v'^T v' dx
 * (the element invariant of kedyn/element.h):
 *   U = sum_e [EA h eps_e^2 / 2] + bending,  -dU/dq = -K_ff q_f - sum_e [dN_e (e_u2 - e_u1) + N_e g0 q_e],
 * N_e = EA eps_e, dN_e = N_e - EA (u2 - u1)/h: the axial force stiffens bending (centrifugal
 * stiffening of rotating links), and the force stays the gradient of U, so T + U is conserved.
 * Gravity acts on every body.
 *
 * Joints join points: a node of an elastic body (r = R + A (u0 + u_node)), a point of a rigid body
 * in its frame, or a point of the ground; a point may also be held on a fixed line. Angle
 * constraints fix or drive the relative angle of two points (theta, plus rz at a beam node): welds,
 * prismatic joints, drivers. Bodies and points are kedyn/body.h's kd_mbody (rigid or elastic,
 * planar reference block (x, y, theta), a beam's elastic block and node map) and kd_mpoint, and
 * the joint equations are the rigid mechanism's (src/mechanism/joints.c: one module for both). The compiled
 * system is a kd_cms (kedyn/cms.h) with block-diagonal M(q), one block per body, solved by any
 * formulation of kedyn/mbs.h: augmented (Newton-Euler with multipliers) or maggi (projection on
 * the independent speeds: Kane's equations).
 *
 * Ownership: kd_ffr_new / kd_ffr_free(&s); the kd_cms view is valid while the system lives.
 */
#ifndef KEDYN_FFR_H
#define KEDYN_FFR_H

#include "kedyn/cms.h"
#include "kedyn/element.h"
#include "kedyn/law.h"
#include "kedyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kd_ffr_frame { KD_FFR_ROOT = 0, KD_FFR_CHORD } kd_ffr_frame;

typedef struct kd_ffr_beam {
    double length;                /* m */
    int elements;                 /* >= 1 */
    kd_theory theory;             /* KD_THEORY_EULER_BERNOULLI or KD_THEORY_RAYLEIGH (cubic, planar) */
    double E, rho, A, Iz;         /* Pa, kg/m^3, m^2, m^4 */
    kd_ffr_frame frame;
    int geometric;                /* 1: geometric stiffness of the elastic axial force (above) */
} kd_ffr_beam;

/* A point of a body: node (0-based) of an elastic body, or local coordinates p of a rigid body
 * (from its centre of mass) or of the ground (body = -1). */
typedef struct kd_ffr_point {
    int body;
    int node;
    double p[2];
} kd_ffr_point;

typedef struct kd_ffr_system kd_ffr_system;

/* A system with gravity (gx, gy) m/s^2. NULL when out of memory. */
kd_ffr_system* kd_ffr_new(double gx, double gy);
void kd_ffr_free(kd_ffr_system** s);

/* Bodies; return the body index or -1 (bad values, with err). */
int kd_ffr_add_rigid(kd_ffr_system* s, const char* name, double mass, double J_G, kd_error* err);
int kd_ffr_add_beam(kd_ffr_system* s, const char* name, const kd_ffr_beam* beam, kd_error* err);
/* Joints; return 0 or a kd_status with err. */
kd_status kd_ffr_add_revolute(kd_ffr_system* s, kd_ffr_point a, kd_ffr_point b, kd_error* err);
/* Point a on the fixed line through c along the unit direction d (a slider's guide). */
kd_status kd_ffr_add_line(kd_ffr_system* s, kd_ffr_point a, const double c[2], const double d[2], kd_error* err);
/* Relative angle: angle(b) - angle(a) = c + law(t) (law NULL: constant; copied), the angle of a
 * point being its body's theta, plus the node's rotation rz for a beam node (a weld, a prismatic
 * joint's fixed angle, a driver). */
kd_status kd_ffr_add_angle(kd_ffr_system* s, kd_ffr_point a, kd_ffr_point b, double c, const kd_law* law,
                           kd_error* err);
/* Driver: theta_body(t) = theta0 + law(t) (the law is copied). */
kd_status kd_ffr_add_driver(kd_ffr_system* s, int body, double theta0, const kd_law* law, kd_error* err);

/* Build the coordinate map, the Jacobian pattern and the kd_cms view. No more additions after. */
kd_status kd_ffr_finish(kd_ffr_system* s, kd_error* err);
const kd_cms* kd_ffr_cms(const kd_ffr_system* s);

/* Layout: coordinates n, first coordinate of a body (x, y, theta, then q_f), its elastic count,
 * and the coordinate of an elastic DOF (KD_DOF_U, KD_DOF_V, KD_DOF_RZ) at a node, -1 when the
 * reference conditions remove it. */
int kd_ffr_size(const kd_ffr_system* s);
int kd_ffr_body_count(const kd_ffr_system* s);
const char* kd_ffr_body_name(const kd_ffr_system* s, int body);
int kd_ffr_body_offset(const kd_ffr_system* s, int body);
int kd_ffr_body_elastic(const kd_ffr_system* s, int body);
int kd_ffr_body_nodes(const kd_ffr_system* s, int body);   /* 0 for a rigid body */
int kd_ffr_node_coordinate(const kd_ffr_system* s, int body, int node, kd_dof_name dof);

/* Assemble at t by moving the bodies' reference coordinates (x, y, theta) only, the elastic
 * coordinates and velocities held: Phi(q, t) = 0 by Gauss-Newton with minimum-norm steps, then
 * Phi_q q' = -Phi_t for the reference velocities (dense least squares: for mechanisms of tens of
 * bodies). Used after setting a deformed start, which the solvers' M-orthogonal projection would
 * otherwise partly undo. KD_ERR_NUMERIC when it does not converge. */
kd_status kd_ffr_assemble(const kd_ffr_system* s, double t, double* q, double* qd, kd_error* err);
/* Position of a point at q (after kd_ffr_finish; NaN before). */
void kd_ffr_point_position(const kd_ffr_system* s, const double* q, kd_ffr_point a, double r[2]);
/* Kinetic energy q'^T M q' / 2, potential energy of gravity and strain energy q_f^T K q_f / 2. */
void kd_ffr_energy(const kd_ffr_system* s, const double* q, const double* qd, double* T, double* V_gravity,
                   double* V_strain);
/* Section forces of a beam body at every node (3 per node): axial force N (tension > 0; the
 * element's mean strain, with the slopes when geometric), bending moment M = EI theta_z', and
 * sigma = |N|/A + |M| c / I (c: the extreme fibre's distance, 0: no stress); inner nodes average
 * their two elements. */
void kd_ffr_section_forces(const kd_ffr_system* s, int body, const double* q, double c, double* out);
/* The force (Fx, Fy) and moment M that the joints labelled `tag` apply on their second point's
 * body, from the multipliers (a system from kd_ffr_from_mechanism labels the constraints of
 * mechanism joint j, and of its driver, with j: M includes the driving torque). */
void kd_ffr_reaction(const kd_ffr_system* s, int tag, const double* lambda, double F[3]);
/* The largest force a revolute joint (or the pin of a weld) transmits, |lambda| of its two rows. */
double kd_ffr_max_pin_force(const kd_ffr_system* s, const double* lambda);
/* Linear momentum p (2) and angular momentum about the global origin (kg m^2/s). */
void kd_ffr_momentum(const kd_ffr_system* s, const double* q, const double* qd, double p[2], double* L);

/* The two-way coupled system of a mechanism with elastic links (docs/model-format.md, "Elastic
 * links"; kedyn/ked.h): the compiled rigid mechanism k (links as rigid bodies) becomes rigid bodies
 * and beams in their floating frames (chord between the end nodes, or the frame of node 1), its
 * revolute joints, welds and ground prismatic joints, its drivers on revolute joints and gravity.
 * The initial state (*q0, *qd0, allocated, n) is the rigid solution at t = 0 with undeformed
 * links. What the route does not take is a located KD_ERR_INPUT: other joints, drivers of
 * prismatic joints, springs, friction, torques and forces, Timoshenko or quintic links, a frame
 * at another node. */
struct kd_ked;
kd_status kd_ffr_from_mechanism(const kd_desc* d, const struct kd_ked* k, kd_ffr_system** out, double** q0,
                                double** qd0, kd_error* err);
/* Replace the undeformed links of q0 by the one-way route's quasi-static deflection at t = 0
 * (kd_ked_link_dynamics' start: the link under the rigid mechanism's inertia, gravity and joint
 * forces; kedyn/ked.h), so that a two-way run starts without the free vibration of a sudden load.
 * ad gives the integrator options of that one-step run; k's rigid solution must span at least
 * ad->dt. Elastic velocities stay zero. */
struct kd_analysis_desc;
kd_status kd_ffr_quasi_static_start(struct kd_ked* k, const struct kd_analysis_desc* ad, const kd_ffr_system* s,
                                    double* q0, kd_error* err);

#ifdef __cplusplus
}
#endif
#endif
