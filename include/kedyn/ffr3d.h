/* kedyn: spatial mechanisms with elastic links in the floating frame of reference, two-way
 * coupled (theory.md sec. 17).
 *
 * Each body has seven reference coordinates (R, p): the origin of its frame (global) and the
 * Euler parameters of its axes (kedyn/smech.h: A(p) = E G^T, omega_body = 2 G(p) p'), with one
 * normalisation row (p.p - 1)/2 = 0. A rigid body's frame sits at its centre of mass. An elastic
 * body is a straight 3D beam of cubic elements (kedyn/element.h, the elements of the one-way
 * spatial links) along its frame's x axis, first node at the origin; its frame is clamped at that
 * node (the six DOFs u, v, w, rx, ry, rz of node 1 are not coordinates), and its elastic
 * coordinates q_f are the nodal (u, v, w, rx, ry, rz) of nodes 2..n in the frame.
 *
 * A material point at u0 of the undeformed beam is at r = R + A(p) (u0 + S q_f). The mass matrix
 * and the quadratic-velocity vector come from the inertia invariants m, S_t0 = int rho u0,
 * int rho u0 u0^T, S_N = int rho S, int rho u0_k S_i and m_ij = int rho S_i^T S_j, summed once from
 * the element invariants (theory.md sec. 17; no quadrature per evaluation). Joints join points (a
 * node of an elastic body, which moves with the node's deflection, a point of a rigid body or a
 * ground point) and axes (at a node: turned by the node's small rotation): spherical, revolute,
 * fixed, universal, cylindrical, prismatic, point-on-line, point-on-plane and distance (the joints
 * of kedyn/smech.h), drivers of a revolute joint's rotation or of a prismatic or cylindrical
 * joint's translation. The compiled system is a kd_cms with
 * block-diagonal M(q) (one block per body), solved by any formulation of kedyn/mbs.h.
 *
 * Ownership: kd_ffr3d_new / kd_ffr3d_free(&s); the kd_cms view is valid while the system lives.
 */
#ifndef KEDYN_FFR3D_H
#define KEDYN_FFR3D_H

#include "kedyn/cms.h"
#include "kedyn/desc.h"
#include "kedyn/law.h"
#include "kedyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KD_FFR3D_POSE 7           /* reference coordinates per body: R (3), p (4) */

typedef struct kd_ffr3d_beam {
    double length;                /* m */
    int elements;                 /* >= 1 */
    kd_theory theory;             /* KD_THEORY_EULER_BERNOULLI or KD_THEORY_RAYLEIGH (cubic) */
    double E, G, rho;             /* Pa, Pa, kg/m^3 */
    double A, Iy, Iz, J;          /* m^2; m^4: Iy = int z^2 dA, Iz = int y^2 dA, torsion constant J */
    int geometric;                /* 1: the geometric stiffness of the elastic axial force (theory.md
                                     sec. 17, F9); 0: linear elastic stiffness only */
} kd_ffr3d_beam;

/* A point: node `node` (0-based) of an elastic body, p (from the centre of mass, body axes) of a
 * rigid body, or p global for the ground (body = -1). */
typedef struct kd_ffr3d_point {
    int body;
    int node;
    double p[3];
} kd_ffr3d_point;

typedef enum kd_ffr3d_joint_type {
    KD_FFR3D_SPHERICAL = 0,       /* points coincide (3 rows) */
    KD_FFR3D_REVOLUTE,            /* and the axes stay parallel (5) */
    KD_FFR3D_FIXED,               /* and the relative orientation is kept (6) */
    KD_FFR3D_UNIVERSAL,           /* points coincide, axis (on a) _|_ axis2 (on b) (4) */
    KD_FFR3D_CYLINDRICAL,         /* b's point on the line through a's point along the axis, axes parallel (4) */
    KD_FFR3D_PRISMATIC,           /* cylindrical without rotation about the axis (5) */
    KD_FFR3D_POINT_ON_LINE,       /* b's point on the line through a's point along a's axis (2) */
    KD_FFR3D_POINT_ON_PLANE,      /* b's point on the plane through a's point normal to a's axis (1) */
    KD_FFR3D_DISTANCE             /* rod with ball ends: |r_b - r_a| = length (1) */
} kd_ffr3d_joint_type;

typedef struct kd_ffr3d_system kd_ffr3d_system;

/* A system with gravity g (m/s^2, global). NULL when out of memory. */
kd_ffr3d_system* kd_ffr3d_new(const double g[3]);
void kd_ffr3d_free(kd_ffr3d_system** s);

/* Bodies; return the index or -1 (bad values, with err). J: inertia tensor about the centre of
 * mass in body axes (row-major). */
int kd_ffr3d_add_rigid(kd_ffr3d_system* s, const char* name, double mass, const double J[9], kd_error* err);
int kd_ffr3d_add_beam(kd_ffr3d_system* s, const char* name, const kd_ffr3d_beam* beam, kd_error* err);
/* A shell link (theory.md sec. 22, SL6): body 0 of `model`, a shell mesh in its body frame with the
 * nodes of its support set clamped (the frame is the body frame; the model is only read). Its elastic
 * coordinates are the model's equations (node DOFs u, v, w, rx, ry, rz in body axes); dense storage,
 * at most KD_FFR3D_SHELL_MAX of them; the membrane stress stiffening of SL8 when the model's body
 * has its geometric stiffness on. Joints at its free nodes are spherical or distance. */
#define KD_FFR3D_SHELL_MAX 1500
struct kd_model;
int kd_ffr3d_add_shell(kd_ffr3d_system* s, const char* name, const struct kd_model* model, kd_error* err);
/* The shell link of kd_ffr3d_add_shell reduced (theory.md sec. 22, SL9): the Craig-Bampton basis of
 * the constraint modes of its free nodes in joint_nodes (every DOF of each stays a coordinate;
 * joints act only at those and at the support set) and the lowest `modes` modes of the shell
 * clamped at its support set and those nodes, then (static_vectors != 0) the static vectors of
 * the distributed inertia loads (sec. 17, F12). Built from the sparse matrices of the model
 * without any n_f x n_f matrix, so the KD_FFR3D_SHELL_MAX bound does not apply. */
int kd_ffr3d_add_shell_reduced(kd_ffr3d_system* s, const char* name, const struct kd_model* model, int modes,
                               const int* joint_nodes, int njoint_nodes, int static_vectors, kd_error* err);
/* 1 when body b is a shell link. */
int kd_ffr3d_body_shell(const kd_ffr3d_system* s, int b);
/* 1 when shell body b's elastic force has the membrane stress stiffening (theory.md sec. 22, SL8). */
int kd_ffr3d_body_geometric(const kd_ffr3d_system* s, int b);
/* Modal reduction of beam body b (theory.md sec. 17, F11; before the joints that use its interior
 * nodes and before kd_ffr3d_set_pose and kd_ffr3d_finish: the coordinates are laid out again):
 * the Craig-Bampton basis of the constraint modes of the joint nodes (joint_nodes, and the nodes
 * of joints already added; all six DOFs of each stay coordinates) and the lowest `modes`
 * fixed-interface modes (the link clamped at its frame node and the joint nodes; fewer when the
 * link has fewer interior DOFs), then up to 6 static vectors of the distributed inertia loads
 * (F12). Joints can then act only at those nodes. */
kd_status kd_ffr3d_reduce(kd_ffr3d_system* s, int b, int modes, const int* joint_nodes, int njoint_nodes,
                          kd_error* err);
/* The same with the static vectors of the distributed inertia loads (theory.md sec. 17, F12; what
 * kd_ffr3d_reduce adds) only when static_vectors != 0; 2: all but the mainly axial responses to the
 * linearly growing loads (`static_correction: soft`). */
kd_status kd_ffr3d_reduce_basis(kd_ffr3d_system* s, int b, int modes, const int* joint_nodes, int njoint_nodes,
                                int static_vectors, kd_error* err);
/* The highest natural frequency (rad/s) of reduced body b clamped at its frame (shells: an upper bound
 * of it; 0: neither). */
double kd_ffr3d_body_omega_max(const kd_ffr3d_system* s, int b);
/* u, v, w, rx, ry, rz of node `node` of body b at q (frame components; a reduced body's from its
 * basis; zeros for the frame node and rigid bodies). */
void kd_ffr3d_node_displacement(const kd_ffr3d_system* s, int b, int node, const double* q, double u[6]);
/* A reduced shell with the membrane stress stiffening (theory.md sec. 22, SL10): the in-plane field
 * by which the whole mesh relaxes the slopes' stretch beyond the basis (T s - y) at q, node by node
 * in kd_ffr3d_node_displacement's layout (u: 6 x nodes);
 * its membrane strain is part of the resultants N* of the elastic force. 0 (u untouched) for any
 * other body. */
int kd_ffr3d_shell_relaxation(const kd_ffr3d_system* s, int b, const double* q, double* u);
/* A joint between points a and b (different bodies) with its axis in global components at the
 * initial pose (revolute, fixed; ignored by spherical): the axis and its triad are carried into
 * each body's frame by kd_ffr3d_finish. Returns the joint index or -1. */
int kd_ffr3d_add_joint(kd_ffr3d_system* s, kd_ffr3d_joint_type type, kd_ffr3d_point a, kd_ffr3d_point b,
                       const double axis[3], kd_error* err);
/* Any joint type: axis2 (universal: b's axis, global at the initial pose, orthogonal to axis) and
 * length (distance; 0: the points' distance at the initial state of kd_ffr3d_finish). The axis of
 * a point-on-line or point-on-plane joint and of a cylindrical or prismatic joint is a's. */
int kd_ffr3d_add_joint_ex(kd_ffr3d_system* s, kd_ffr3d_joint_type type, kd_ffr3d_point a, kd_ffr3d_point b,
                          const double axis[3], const double axis2[3], double length, kd_error* err);
/* Driver of joint j: revolute, the rotation of b's body about the axis from the initial pose is
 * initial + law(t); prismatic or cylindrical, the displacement u.(r_b - r_a) along a's axis is
 * initial + law(t) (the law is copied). */
kd_status kd_ffr3d_add_driver(kd_ffr3d_system* s, int joint, const kd_law* law, double initial, kd_error* err);

/* The initial pose of body b into q (frame origin and axes R, row-major global = R body) and its
 * velocity into qd (origin velocity v and angular velocity w, global; qd, v, w may be NULL);
 * elastic coordinates zero. Coordinates are laid out as the bodies are added (kd_ffr3d_size). */
void kd_ffr3d_set_pose(const kd_ffr3d_system* s, int b, const double r[3], const double R[9], const double v[3],
                       const double w[3], double* q, double* qd);

/* Fix the coordinates, the joint triads from the initial state q0 (each body's axes there; the
 * nodes' elastic rotations taken as zero) and the Jacobian pattern. No more additions after. */
kd_status kd_ffr3d_finish(kd_ffr3d_system* s, const double* q0, kd_error* err);
const kd_cms* kd_ffr3d_cms(const kd_ffr3d_system* s);

int kd_ffr3d_size(const kd_ffr3d_system* s);
int kd_ffr3d_body_count(const kd_ffr3d_system* s);
const char* kd_ffr3d_body_name(const kd_ffr3d_system* s, int b);
int kd_ffr3d_body_offset(const kd_ffr3d_system* s, int b);
int kd_ffr3d_body_nodes(const kd_ffr3d_system* s, int b);     /* 0 for a rigid body */
int kd_ffr3d_joint_count(const kd_ffr3d_system* s);
/* Coordinate of elastic DOF d (0..5: u, v, w, rx, ry, rz) of node `node`, -1 when the frame holds it
 * (or, in a reduced body, when the node is not a joint node). */
int kd_ffr3d_node_coordinate(const kd_ffr3d_system* s, int b, int node, int d);

/* Position of a point at q. */
void kd_ffr3d_point_position(const kd_ffr3d_system* s, const double* q, kd_ffr3d_point a, double r[3]);
/* Kinetic energy, potential energy of gravity, strain energy q_f^T K q_f / 2 (with the geometric
 * stiffness: the axial part from the mean strain with the slopes, F9). */
void kd_ffr3d_energy(const kd_ffr3d_system* s, const double* q, const double* qd, double* T, double* V_gravity,
                     double* V_strain);
/* Section forces of beam body b at every node (4 per node): N = EA u' (tension > 0; with the
 * geometric stiffness the element's mean strain with the slopes, F9), My = EIy ry',
 * Mz = EIz rz' and sigma = |N|/A + |My| c_z/Iy + |Mz| c_y/Iz (c_y, c_z: the extreme fibres; both 0:
 * sigma 0); inner nodes average their two elements. */
void kd_ffr3d_section_forces(const kd_ffr3d_system* s, int b, const double* q, double c_y, double c_z, double* out);
/* Linear momentum and angular momentum about the global origin. */
void kd_ffr3d_momentum(const kd_ffr3d_system* s, const double* q, const double* qd, double p[3], double L[3]);
/* The force (global) that joint j's equations (and its translation driver) apply at its second
 * point, from the multipliers at q: -(d Phi / d r_b)^T lambda. */
void kd_ffr3d_joint_force(const kd_ffr3d_system* s, int j, const double* q, const double* lambda, double F[3]);

/* The body blocks at one body's coordinates (tests: the mass block M (column-major, size^2) and
 * the generalized force Q (size) of body b; work: scratch of kd_ffr3d_body_scratch doubles). */
int kd_ffr3d_body_size(const kd_ffr3d_system* s, int b);
void kd_ffr3d_body_mass(const kd_ffr3d_system* s, int b, const double* qb, double* M);
void kd_ffr3d_body_force(const kd_ffr3d_system* s, int b, const double* qb, const double* qdb, double* Q);

/* The two-way system of a spatial mechanism with `beam` bodies (docs/model-format.md, "Spatial
 * mechanisms", two-way links): the compiled rigid mechanism m (links as rigid bodies, assembled
 * at t = 0 with its velocities) gives the initial state (*q0, *qd0, allocated) with undeformed
 * links; ground, rigid and beam bodies, every joint of kedyn/smech.h at rigid points or link
 * nodes, its drivers and gravity. Anything else is a located KD_ERR_INPUT. */
struct kd_smech;
kd_status kd_ffr3d_from_smech(const kd_desc* d, const struct kd_smech* m, kd_ffr3d_system** out, double** q0,
                              double** qd0, kd_error* err);
/* The quasi-static start at t (theory.md sec. 17, F10): from a consistent (q, qd), the elastic
 * coordinates at rest relative to their frames (q_f' = 0) with q_f'' = 0 under the loads of the
 * motion, the reference coordinates re-assembled on the deformed links (Phi = 0,
 * Phi_q q' = -Phi_t). q, qd updated; KD_ERR_NUMERIC when Newton's method does not converge. */
kd_status kd_ffr3d_static_start(const kd_ffr3d_system* s, double t, double* q, double* qd, kd_error* err);
/* Mechanism joint index of system joint j (from kd_ffr3d_from_smech), or -1. */
int kd_ffr3d_joint_tag(const kd_ffr3d_system* s, int j);

#ifdef __cplusplus
}
#endif
#endif
