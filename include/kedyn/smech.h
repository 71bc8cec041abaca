/* kedyn: spatial rigid mechanisms (theory.md sec. "Spatial rigid mechanisms").
 *
 * Coordinates: seven per moving body b, q[7b .. 7b+6] = (x, y, z, e0, e1, e2, e3): the centre of
 * mass (global) and the Euler parameters (unit quaternion, e0 scalar) of the body axes. The
 * rotation matrix is the homogeneous quadratic A(p) = E(p) G(p)^T, so that every point and axis of
 * a body is a quadratic function of p and its Jacobian is linear in p (exact derivatives, also off
 * the unit sphere). One normalisation row (p.p - 1)/2 = 0 per body keeps |p| = 1. Euler
 * parameters rather than rotation matrices with a Lie-group integrator: the coordinates stay a
 * vector in R^7 per body, so the unchanged kd_cms solvers (kedyn/mbs.h: augmented, Udwadia-Kalaba,
 * Maggi, IDA) and their stabilisation and projection treat the normalisation like any other
 * constraint, with no singularity (unlike three angles) and no special update on a manifold.
 *
 * Mass matrix per body (7 x 7 block, kd_cms.mass_blocks): diag(m I3, 4 G^T J G + c p p^T) with J
 * the body-axis inertia tensor at the centre of mass and c = 4 tr(J) / 3. 4 G^T J G is singular
 * along p; c p p^T makes the block positive definite and, with -c p (p'.p') added to the force,
 * leaves the accelerations unchanged (p.p'' = -p'.p' is the normalisation's acceleration row;
 * only its multiplier shifts). Quadratic-velocity force 8 G(p')^T J G(p') p (Lagrange's equations
 * in p).
 *
 * Constraint rows: each joint's equations in joint order, then one normalisation row per body,
 * then one row per driver: nc = nc_joint + nbody + ndriver; nc_mech = nc_joint + nbody are the
 * mechanism's own equations (mobility). Every row spans the 7 coordinates of each of its bodies.
 *
 * Ownership: kd_smech_new allocates; every add copies its arguments (laws are copied);
 * kd_smech_finish fixes the sizes (no add after it); kd_smech_free releases and clears.
 */
#ifndef KEDYN_SMECH_H
#define KEDYN_SMECH_H

#include "kedyn/cms.h"
#include "kedyn/desc.h"
#include "kedyn/law.h"
#include "kedyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KD_SPOSE 7                /* coordinates per spatial body */

typedef enum kd_sjoint_type {
    KD_SJOINT_SPHERICAL = 0,      /* points coincide (3) */
    KD_SJOINT_REVOLUTE,           /* points coincide, axes parallel (5) */
    KD_SJOINT_UNIVERSAL,          /* points coincide, axis 1 (body 1) _|_ axis 2 (body 2) (4) */
    KD_SJOINT_CYLINDRICAL,        /* point 2 on the axis line of body 1, axes parallel (4) */
    KD_SJOINT_PRISMATIC,          /* cylindrical without rotation about the axis (5) */
    KD_SJOINT_FIXED,              /* weld (6) */
    KD_SJOINT_POINT_ON_LINE,      /* point 2 on the line through point 1 along the axis (2) */
    KD_SJOINT_POINT_ON_PLANE,     /* point 2 on the plane through point 1 normal to the axis (1) */
    KD_SJOINT_DISTANCE,           /* rod with ball ends: |r2 - r1| = length (1) */
    KD_SJOINT_TYPES
} kd_sjoint_type;

/* Equations of a joint type (3, 5, 4, 4, 5, 6, 2, 1, 1). */
int kd_sjoint_rows(kd_sjoint_type t);
/* "spherical", "revolute", "universal", "cylindrical", "prismatic", "fixed", "point-on-line",
 * "point-on-plane", "distance"; parse returns -1 for an unknown name. */
const char* kd_sjoint_name(kd_sjoint_type t);
int kd_sjoint_parse(const char* s);

typedef struct kd_sjoint {
    char name[64];
    kd_sjoint_type type;
    int body[2];                  /* moving body index, -1 = ground */
    double s[2][3];               /* point on each body from its centre of mass, body axes (ground: global) */
    double u[2][3];               /* joint axis in each body's axes (unit; universal: axis 1 in body 0,
                                     axis 2 in body 1) */
    double f[2][3], g[2][3];      /* f, g, u right-handed triad in body 0; their images in body 1 */
    double length;                /* distance */
    int row, nrow;
    int driver;                   /* -1 or index into drivers */
} kd_sjoint;

typedef struct kd_sdriver {
    int joint;                    /* revolute (relative rotation about the axis from the initial
                                     pose), prismatic or cylindrical (displacement along the axis) */
    kd_law law;                   /* owned */
    double initial;               /* added to law(t) */
    int row;
} kd_sdriver;

typedef enum kd_sforce_type {
    KD_SFORCE_TORQUE = 0,         /* torque (global components) on body[0] */
    KD_SFORCE_FORCE,              /* force (global components) at point s[0] of body[0] */
    KD_SFORCE_SPRING              /* spring-damper between s[0] on body[0] and s[1] on body[1] */
} kd_sforce_type;

typedef struct kd_sforce {
    kd_sforce_type type;
    int body[2];
    double s[2][3];
    kd_law value[3];              /* torque, force: components, owned */
    double k, length, c;          /* spring: N/m, free length, N s/m */
} kd_sforce;

typedef struct kd_smech {
    int nbody, njoint, ndriver, nforce;
    int n;                        /* 7 nbody */
    int nc, nc_joint, nc_mech;    /* all rows; joint rows; joint + normalisation rows */
    int finished;
    char (*body_name)[64];        /* (nbody) */
    double* mass;                 /* (nbody) */
    double* J;                    /* (9 nbody) inertia tensor at the centre of mass, body axes, row-major */
    double* com;                  /* (3 nbody) centre of mass in the body frame (from its origin) */
    double* q0;                   /* (n) initial guess */
    double* qd0;                  /* (n) initial velocity guess */
    double g[3];                  /* gravity */
    kd_sjoint* joint;
    kd_sdriver* driver;
    kd_sforce* force;
    int cap_body, cap_joint, cap_driver, cap_force;
    /* Phi_q pattern (after kd_smech_finish) */
    int jac_nnz;
    int* jac_rowptr;
    int* jac_col;
    int* jac_slot;                /* slot 0..13 in the row's local Jacobian: body 0's 7, body 1's 7 */
    int* row_owner;               /* (nc) joint index, or -1 - body for a normalisation row,
                                     or -(1 + nbody) - d for driver d */
    int* block_start;             /* (nbody + 1) 7 b */
    double length_scale;          /* largest point distance, m */
    double* jl_work;              /* (28 nc) local Jacobian rows, then a CSR Phi_q (kd_smech_reactions_of):
                                     a workspace of the callbacks, so
                                     that one kd_smech serves one solver at a time */
    double* qa_work;              /* (n) applied forces: a workspace of the formalism routes'
                                     callbacks (kedyn/smech_formalism.h), same rule */
    /* Linear algebra of kinematics, inverse dynamics and mobility (src/mechanism/spatial_mobility.c):
     * KD_SMECH_LINALG_AUTO (0, kd_smech_new's) takes, for n >= KD_SMECH_SPARSE_MIN, the sparse LU
     * of Phi_q (kedyn/smech_lu.h) when Phi_q is square (fully driven) and regular, the sparse QR of
     * Phi_q^T (kedyn/smech_qr.h: undriven or redundant) otherwise, and the dense SVD below that
     * size; DENSE and SPARSE force one. lu: the
     * sparse LU of the single-instant functions, made at their first call (same rule as jl_work). */
    int linalg;
    struct kd_smech_lu* lu;
} kd_smech;

enum { KD_SMECH_LINALG_AUTO = 0, KD_SMECH_LINALG_DENSE = 1, KD_SMECH_LINALG_SPARSE = 2 };
#define KD_SMECH_SPARSE_MIN 140   /* coordinates (20 bodies) from which AUTO takes the sparse LU */

kd_smech* kd_smech_new(void);
void kd_smech_free(kd_smech** m);

/* Orientation from an axis (need not be unit; zero: identity) and angle, from ZYX Euler angles
 * (R = Rz(a) Ry(b) Rx(c)) and as Euler parameters from a rotation matrix (row-major, checked
 * orthonormal with det +1 to tol; returns 1 otherwise). R row-major: global = R body. */
void kd_rot_axis_angle(const double axis[3], double angle, double R[9]);
void kd_rot_euler_zyx(const double abc[3], double R[9]);
int kd_rot_check(const double R[9], double tol);
void kd_quat_from_rot(const double R[9], double p[4]);
void kd_rot_from_quat(const double p[4], double R[9]);  /* E G^T (homogeneous) */

/* Inertia [Ixx, Iyy, Izz, Ixy, Iyz, Izx] (the tensor's entries: off-diagonal entries are the
 * tensor's, i.e. minus the products of inertia) into a row-major 3x3. Returns 0 when positive
 * definite and the principal moments satisfy the triangle inequality (to 1e-9 relative), 1 when not
 * positive definite, 2 when the triangle inequality fails. */
int kd_inertia_tensor(const double I6[6], double J[9]);

/* Build: a body with mass, inertia (row-major 3x3), centre of mass in the body frame, the frame
 * origin (global) and axes (R row-major); returns its index or -1 (no memory). */
int kd_smech_add_body(kd_smech* m, const char* name, double mass, const double J[9], const double com[3],
                      const double origin[3], const double R[9]);
/* Initial velocity of the centre of mass and angular velocity (global) of body b. */
void kd_smech_set_velocity(kd_smech* m, int b, const double v[3], const double w[3]);
/* A joint between bodies b0, b1 (-1 ground) at points P0, P1 given in each body's frame (from its
 * origin; ground: global); axis (body 0's frame; universal: axis1 in body 0, axis2 in body 1).
 * length (distance): 0 = from the initial guess. Returns the joint index or -1. */
int kd_smech_add_joint(kd_smech* m, const char* name, kd_sjoint_type type, int b0, int b1, const double P0[3],
                       const double P1[3], const double axis1[3], const double axis2[3], double length);
int kd_smech_add_driver(kd_smech* m, int joint, const kd_law* law, double initial);
/* Torque (global components) on body b; force (global components) at point P (body frame) of b. */
int kd_smech_add_torque(kd_smech* m, int b, const kd_law value[3]);
int kd_smech_add_force(kd_smech* m, int b, const double P[3], const kd_law value[3]);
int kd_smech_add_spring(kd_smech* m, int b0, const double P0[3], int b1, const double P1[3], double k, double length,
                        double c);
/* Fix the rows and the Jacobian pattern; KD_ERR_INPUT (err names the joint) for a zero-length axis
 * or universal axes not orthogonal in the initial pose. */
kd_status kd_smech_finish(kd_smech* m, kd_error* err);

void kd_smech_cms(const kd_smech* m, kd_cms* cms);

/* Compile the spatial description d->sdesc (kedyn/sdesc.h; `spatial: true`) into a finished
 * kd_smech; errors located in d->file (universal axes not orthogonal in the initial pose at the
 * joint's axes). Ground bodies have no coordinates; bodies keep the order of the rigid bodies. */
kd_status kd_smech_compile(const kd_desc* d, kd_smech** out, kd_error* err);

/* The functions behind the view. */
void kd_smech_phi(const kd_smech* m, double t, const double* q, double* phi);
void kd_smech_jacobian(const kd_smech* m, double t, const double* q, double* jac);
void kd_smech_phi_t(const kd_smech* m, double t, const double* q, double* phi_t);
/* kd_smech_jacobian and kd_smech_phi_t in one pass over the rows. */
void kd_smech_jacobian_phi_t(const kd_smech* m, double t, const double* q, double* jac, double* phi_t);
void kd_smech_gamma(const kd_smech* m, double t, const double* q, const double* qd, double* gamma);
void kd_smech_force(const kd_smech* m, double t, const double* q, const double* qd, double* Q);
/* The applied forces only (gravity, torques, point forces, springs; kd_smech_force without its
 * quadratic-velocity terms). */
void kd_smech_applied(const kd_smech* m, double t, const double* q, const double* qd, double* Q);
void kd_smech_mass_blocks(const kd_smech* m, const double* q, double* blocks);
/* Dense Phi_q rows [0, nrow) into A (column-major, leading dimension ld). */
void kd_smech_jac_dense(const kd_smech* m, const double* jac, int nrow, double* A, int ld);

/* Point s (from the centre of mass, body axes) of body b (-1: s global): position, velocity. */
void kd_smech_point(const kd_smech* m, int b, const double s[3], const double* q, const double* qd, double r[3],
                    double v[3]);
/* Angular velocity (global) of body b: w = 2 E(p) p'. */
void kd_smech_omega(const kd_smech* m, int b, const double* q, const double* qd, double w[3]);
/* q' of body b from the velocity of its centre of mass and its angular velocity (global):
 * p' = E(p)^T w / 2. */
void kd_smech_qd_of(const kd_smech* m, int b, const double* q, const double v[3], const double w[3], double* qd);
double kd_smech_kinetic(const kd_smech* m, const double* q, const double* qd);
double kd_smech_potential(const kd_smech* m, const double* q);

/* ---- mobility, kinematics, inverse dynamics (src/mechanism/spatial_mobility.c) ---- */

#define KD_SMECH_REDUNDANT_MAX 32

typedef struct kd_smech_mobility {
    int rank;                     /* rank of the mechanism's rows (joints + normalisation) */
    int rank_driven;              /* rank with the drivers */
    int dof;                      /* n - rank */
    int dof_undriven;             /* n - rank_driven */
    int gruebler;                 /* 6 nbody - sum of the joints' equations */
    int nredundant;
    int redundant_row[KD_SMECH_REDUNDANT_MAX];
    double cond;                  /* s_1 / s_rank of the driven Phi_q */
} kd_smech_mobility;

kd_status kd_smech_mobility_at(const kd_smech* m, double t, const double* q, kd_smech_mobility* mob, kd_error* err);
/* "J (revolute, row 2)" names of the redundant rows into buf. */
void kd_smech_redundant_names(const kd_smech* m, const kd_smech_mobility* mob, char* buf, int n);

/* Position Newton (minimum-norm steps, SVD) from q (in/out): KD_ERR_NUMERIC when it does not
 * converge in 50 iterations ("cannot assemble"). info: iterations, |Phi|, cond, rank (may be
 * NULL). Velocity: Phi_q q' = -Phi_t (least squares, minimum norm: projects a guess qd onto the
 * velocity constraints when project = 1). Acceleration: Phi_q q'' = gamma. */
typedef struct kd_smech_info {
    int iterations, rank;
    double residual, cond;
} kd_smech_info;
kd_status kd_smech_solve_position(const kd_smech* m, double t, double* q, kd_smech_info* info, kd_error* err);
kd_status kd_smech_solve_velocity(const kd_smech* m, double t, const double* q, double* qd, int project,
                                  kd_error* err);
kd_status kd_smech_solve_acceleration(const kd_smech* m, double t, const double* q, const double* qd, double* qdd,
                                      kd_error* err);

/* Reactions of one instant: for joint k, F[6k..6k+5] = force (global) and moment about the joint's
 * point on body 1, both acting on body 1 (constraint force -Phi_q^T lambda restricted to body 1's
 * rows); drive[d]: torque or force of driver d along its coordinate. */
typedef struct kd_smech_reactions {
    double* F;                    /* (6 njoint) */
    double* drive;                /* (ndriver) */
    double* lambda;               /* (nc) */
} kd_smech_reactions;
kd_status kd_smech_reactions_alloc(const kd_smech* m, kd_smech_reactions* r);
void kd_smech_reactions_free(kd_smech_reactions* r);
/* F and drive from r->lambda (as filled by a solver, e.g. kd_mbs_sample.lambda) at (t, q). */
void kd_smech_reactions_of(const kd_smech* m, double t, const double* q, kd_smech_reactions* r);
/* The same from Phi_q at (t, q) already evaluated (jac: kd_smech_jacobian's CSR values). */
void kd_smech_reactions_jac(const kd_smech* m, const double* q, const double* jac, kd_smech_reactions* r);
/* Multipliers: [M Phi_q^T; Phi_q 0] [q''; lambda] = [Q; gamma] at (t, q, q'); q'' into qdd (may be NULL). */
kd_status kd_smech_inverse_multipliers(const kd_smech* m, double t, const double* q, const double* qd, double* qdd,
                                       kd_smech_reactions* r, kd_error* err);
/* Projection: driving forces A^T (M q'' - Q) with A the partial velocities of the drivers
 * (Phi_mech A = 0, Phi_driver A = I); the joint multipliers from the rest, least squares. */
kd_status kd_smech_inverse_projection(const kd_smech* m, double t, const double* q, const double* qd,
                                      const double* qdd, kd_smech_reactions* r, kd_error* err);

/* Kinematic analysis over [0, t_end] in `steps` steps; stops with KD_ERR_NUMERIC (time, condition
 * number) at a singular position (cond > cond_max or a rank drop) after handing the solved
 * states to the sink. */
typedef int (*kd_smech_sink)(void* ctx, double t, const double* q, const double* qd, const double* qdd,
                             const kd_smech_info* info);
kd_status kd_smech_kinematics(const kd_smech* m, double t_end, int steps, double cond_max, kd_smech_sink sink,
                              void* ctx, double* cond_max_met, kd_error* err);

#ifdef __cplusplus
}
#endif
#endif
