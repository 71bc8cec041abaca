/* kedyn: planar rigid mechanisms (theory.md sec. 6).
 *
 * kd_mech_compile turns the mechanism part of a description (rigid bodies,
 * joints, drivers, mechanism forces; kedyn/desc.h) into an immutable
 * kd_mech: flat arrays of bodies, joints, drivers and forces, and the fixed
 * sparsity pattern of the constraint Jacobian. Its constraint equations,
 * Jacobian, gamma and applied forces are exposed to every solver through the
 * kd_cms interface (kedyn/cms.h, kd_mech_cms).
 *
 * Coordinates: q[3b .. 3b+2] = (x, y, phi) of the centre of mass of moving
 * body b (ground has none), so M = diag(m, m, J_G). A point P of body b with
 * body-frame coordinates p and centre of mass c sits at r_P = r_b + A(phi_b) s,
 * s = p - c. Ground points are global. The bodies and joint points are
 * described as kedyn/body.h's kd_mbody (rigid, planar pose, off = 3b) and
 * kd_mpoint; the joint equations are those of src/mechanism/joints.c, shared
 * with the floating-frame system (kedyn/ffr.h). Spatial bodies will add
 * reference blocks of 7 (position, quaternion) through kd_mbody's pose/nref.
 *
 * Constraint rows: every joint's equations (in joint order), then one row per
 * driver: nc = nc_joint + ndriver. A driver prescribes the relative angle
 * phi_j - phi_i (revolute) or the displacement u_i . (r_Pj - r_Pi) along the
 * axis (prismatic) as initial + law(t).
 *
 * Sign convention (theory.md sec. 6): M q'' + Phi_q^T lambda = Q; the
 * constraint force on the coordinates is -Phi_q^T lambda.
 *
 * Ownership: kd_mech_compile allocates; kd_mech_free releases and clears.
 * The kd_cms view filled by kd_mech_cms borrows the kd_mech.
 */
#ifndef KEDYN_MECH_H
#define KEDYN_MECH_H

#include "kedyn/body.h"
#include "kedyn/cms.h"
#include "kedyn/desc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_mjoint {
    char name[KD_NAME_MAX];
    kd_joint_type type;
    int body[2];                  /* moving body index, -1 = ground */
    double s[2][2];               /* point on each body from its centre of mass, body frame
                                     (ground: global position) */
    kd_mpoint point[2];           /* the same two points as body points (kedyn/body.h) */
    double axis[2];               /* prismatic, rolling: unit direction in body[0]'s frame */
    double length;                /* distance: m */
    double radius;                /* rolling: m */
    double ref;                   /* prismatic, fixed: relative angle; rolling: the rolling
                                     invariant u.d + R (phi_j - phi_i), from the initial guess */
    int row, nrow;                /* first constraint row and row count */
    int driver;                   /* index into drivers, -1 when not driven */
    int desc;                     /* index into kd_desc.joints */
} kd_mjoint;

typedef struct kd_mdriver {
    int joint;                    /* index into joints */
    kd_law law;                   /* owned */
    double initial;               /* added to law(t) */
    int row;                      /* constraint row */
} kd_mdriver;

typedef enum kd_mforce_type {
    KD_MFORCE_SPRING = 0,
    KD_MFORCE_FRICTION,
    KD_MFORCE_TORQUE,
    KD_MFORCE_FORCE
} kd_mforce_type;

typedef struct kd_mforce {
    kd_mforce_type type;
    int body[2];                  /* moving body indices (-1 = ground); torque, force: body[0] */
    double s[2][2];               /* spring: points; force: point on body[0] */
    double k, length, c;          /* spring */
    int joint;                    /* friction */
    double force, v_smooth;       /* friction */
    kd_law value, value_y;        /* torque: value; force: (value, value_y); owned */
} kd_mforce;

typedef struct kd_mech {
    /* sizes */
    int nbody;                    /* moving rigid bodies */
    int n;                        /* coordinates, 3 nbody */
    int njoint, ndriver, nforce;
    int nc, nc_joint;             /* constraint rows; joint rows come first */
    /* bodies */
    char (*body_name)[KD_NAME_MAX];  /* (nbody) */
    kd_mbody* bodies;             /* (nbody) rigid, planar: reference block q[3b .. 3b + 2] */
    int* body_desc;               /* (nbody) index into kd_desc.bodies */
    int* desc_body;               /* (ndesc_bodies) moving index of each desc body, -1 otherwise */
    double* mass;                 /* (n) diagonal of M: m, m, J_G per body */
    double* q0;                   /* (n) initial guess from position, angle, com */
    double g[2];                  /* gravity, m/s^2 */
    /* joints, drivers, forces */
    kd_mjoint* joint;             /* (njoint) */
    kd_mdriver* driver;           /* (ndriver) */
    kd_mforce* force;             /* (nforce) */
    int* row_joint;               /* (nc) joint owning each row (driver rows: the driven joint) */
    struct joint_def* jdef;       /* (njoint + ndriver) private: the joint equations' data of each joint,
                                     then of each driver row (src/mechanism/joints.h) */
    /* Phi_q pattern: every row spans all coordinates of its (one or two) moving bodies */
    int jac_nnz;
    int* jac_rowptr;              /* (nc + 1) */
    int* jac_col;                 /* (jac_nnz) ascending in each row */
    int* jac_slot;                /* (jac_nnz) slot in the row's local Jacobian [point0 slots, point1 slots]
                                     (kedyn/body.h: KD_POINT_SLOTS per point; x y phi used here) */
    double length_scale;          /* a characteristic length (largest point distance), m: tolerances */
    /* named points of the moving bodies (outputs) */
    int npoint;
    int* point_body;              /* (npoint) moving body */
    double* point_s;              /* (2 npoint) from the centre of mass, body frame */
    char (*point_name)[KD_NAME_MAX];  /* (npoint) */
} kd_mech;

/* Compile the mechanism of d (which must pass kd_desc_check). Errors are
 * located at the offending item (unknown names are caught by the loader;
 * here: a mechanism without moving bodies, joints between two ground bodies,
 * forces on beams...). */
kd_status kd_mech_compile(const kd_desc* d, kd_mech** out, kd_error* err);

/* A beam taking part in joints (an elastic link, kedyn/ked.h) enters the
 * mechanism as a rigid body: its frame has the origin at its first point and
 * the x axis along it, its centre of mass at (L/2, 0); mass rho A L and
 * J_G = rho A L^3/12 (+ rho I_z L for rayleigh and timoshenko beams, whose
 * elements carry rotary inertia). This gives them, and the initial angle of
 * its axis (rad). */
void kd_mech_link_rigid(const kd_desc* d, int b, double* mass, double* inertia, double* angle);

/* Free a mechanism; clears *m. NULL is allowed. */
void kd_mech_free(kd_mech** m);

/* Fill a kd_cms view of the mechanism (borrowed; valid while m lives). */
void kd_mech_cms(const kd_mech* m, kd_cms* cms);

/* The constraint functions behind kd_mech_cms (theory.md sec. 6), callable
 * directly. phi, phi_t, gamma: (nc); jac: (jac_nnz) in the pattern; Q: (n). */
void kd_mech_phi(const kd_mech* m, double t, const double* q, double* phi);
void kd_mech_jacobian(const kd_mech* m, double t, const double* q, double* jac);
void kd_mech_phi_t(const kd_mech* m, double t, const double* q, double* phi_t);
void kd_mech_gamma(const kd_mech* m, double t, const double* q, const double* qd, double* gamma);
void kd_mech_force(const kd_mech* m, double t, const double* q, const double* qd, double* Q);

/* Dense Phi_q (nc x n, column-major, leading dimension ld >= nc) of the rows
 * [row0, row0 + nrow) from the sparse values jac. */
void kd_mech_jac_dense(const kd_mech* m, const double* jac, int row0, int nrow, double* A, int ld);

/* Global position and velocity of point s (body frame, from the centre of
 * mass) of moving body b (b = -1: s is a ground point). */
void kd_mech_point(const kd_mech* m, int b, const double* s, const double* q, const double* qd, double r[2], double v[2]);

/* Global acceleration of point s of moving body b: r'' + alpha perp(A s) - omega^2 A s. */
void kd_mech_point_acc(const kd_mech* m, int b, const double* s, const double* q, const double* qd, const double* qdd,
                       double a[2]);

/* Kinetic energy 1/2 q'^T M q' and potential energy of gravity and springs. */
double kd_mech_kinetic(const kd_mech* m, const double* qd);
double kd_mech_potential(const kd_mech* m, const double* q);

/* ---- mobility ---------------------------------------------------------- */

#define KD_MECH_REDUNDANT_MAX 32

typedef struct kd_mech_mobility {
    int rank_joint;               /* rank of the joints' Phi_q */
    int rank;                     /* rank with the drivers */
    int dof;                      /* n - rank_joint: degrees of freedom of the mechanism */
    int dof_undriven;             /* n - rank: degrees of freedom left free by the drivers */
    int gruebler;                 /* 3 nbody - sum of the equations of the joints */
    int nredundant;               /* redundant constraint rows (joints and drivers) */
    int redundant_row[KD_MECH_REDUNDANT_MAX];  /* rows found dependent on earlier ones */
    double cond;                  /* condition number of Phi_q on its rank (s_1 / s_rank) */
} kd_mech_mobility;

/* Rank of Phi_q(q, t) by the SVD (relative tolerance 1e-9), DOF, Grübler's
 * count, and the redundant rows by QR with column pivoting of Phi_q^T
 * (a row is redundant when it adds nothing to the rows pivoted before it). */
kd_status kd_mech_mobility_at(const kd_mech* m, double t, const double* q, kd_mech_mobility* mob, kd_error* err);

/* "jA (revolute, row 2)" names of the redundant rows, comma-separated, into buf. */
void kd_mech_redundant_names(const kd_mech* m, const kd_mech_mobility* mob, char* buf, int n);

/* ---- kinematics (src/mechanism/kinematics.c) ------------------------------- */

/* Workspace of the kinematic and inverse-dynamic solvers: allocated once
 * (kd_mech_work_new), no allocation in a time step. */
typedef struct kd_mech_work kd_mech_work;

kd_mech_work* kd_mech_work_new(const kd_mech* m);
void kd_mech_work_free(kd_mech_work** w);

typedef struct kd_mech_kin_info {
    int iterations;               /* Newton iterations of the last position solve */
    double residual;              /* |Phi| after it, m or rad */
    double cond;                  /* condition number of Phi_q at the solution (on its rank) */
    int rank;                     /* numerical rank of Phi_q at the solution */
} kd_mech_kin_info;

/* Position problem Phi(q, t) = 0 by Newton-Raphson from q (in/out), each
 * step the minimum-norm correction -Phi_q^+ Phi (SVD), so that an assembly
 * with free DOF stays close to the guess. KD_ERR_NUMERIC (err says when and
 * why) when it does not converge in 50 iterations. */
kd_status kd_mech_solve_position(const kd_mech* m, kd_mech_work* w, double t, double* q, kd_mech_kin_info* info,
                                 kd_error* err);

/* Velocity Phi_q q' = -Phi_t and acceleration Phi_q q'' = gamma at a solved
 * position (least squares on the rank of Phi_q). */
kd_status kd_mech_solve_velocity(const kd_mech* m, kd_mech_work* w, double t, const double* q, double* qd, kd_error* err);
kd_status kd_mech_solve_acceleration(const kd_mech* m, kd_mech_work* w, double t, const double* q, const double* qd,
                                     double* qdd, kd_error* err);

/* Called once per output time with the solved state; nonzero aborts. */
typedef int (*kd_mech_sink)(void* ctx, double t, const double* q, const double* qd, const double* qdd,
                            const kd_mech_kin_info* info);

typedef struct kd_mech_kin_stats {
    int steps;                    /* output times solved */
    double t_reached;             /* last time solved */
    double cond_max;              /* largest condition number met, and when */
    double t_cond_max;
    int newton_max;               /* most Newton iterations in one step */
} kd_mech_kin_stats;

/* Kinematic analysis over [0, t_end] in `steps` equal steps (steps + 1
 * output times): assembly from the initial guess, then position (predicted
 * from the previous velocity and acceleration), velocity and acceleration at
 * each time. Needs a fully driven mechanism (no undriven DOF). A singular
 * position (condition number of Phi_q above cond_max, a rank drop, or no
 * assembly) stops the analysis with KD_ERR_NUMERIC, the time and the
 * condition number in err; what was solved has gone to the sink. */
kd_status kd_mech_kinematics(const kd_mech* m, double t_end, int steps, double cond_max, kd_mech_sink sink, void* ctx,
                             kd_mech_kin_stats* stats, kd_error* err);

/* ---- inverse dynamics (src/mechanism/inverse.c) ----------------------------- */

/* Joint reactions of one instant: for joint k, the force (global) and the
 * moment about its point on the second body that the joint applies on its
 * second body, with the driver's force or torque included for a driven joint;
 * and drive[d], the driving torque (revolute) or force (prismatic) of driver d
 * along its coordinate. */
typedef struct kd_mech_reactions {
    double* F;                    /* (3 njoint) Fx, Fy, M per joint */
    double* drive;                /* (ndriver) */
    double* lambda;               /* (nc) multipliers */
} kd_mech_reactions;

kd_status kd_mech_reactions_alloc(const kd_mech* m, kd_mech_reactions* r);
void kd_mech_reactions_free(kd_mech_reactions* r);

/* Multipliers route (seed 003): solve the augmented system
 *     [M  Phi_q^T] [q'']   [Q    ]
 *     [Phi_q   0 ] [lam] = [gamma]
 * at (t, q, q'); qdd_out (may be NULL) gets its q''. */
kd_status kd_mech_inverse_multipliers(const kd_mech* m, kd_mech_work* w, double t, const double* q, const double* qd,
                                      double* qdd_out, kd_mech_reactions* r, kd_error* err);

/* Projection route (seed 004, A43-A46): with A the partial velocities of the
 * driven coordinates (Phi_joint A = 0, Phi_driver A = I, from an SVD null
 * space of the joints' Phi_q), the driving forces are A^T (M q'' - Q) and the
 * liaison forces never enter; the joint reactions then follow from
 * Phi_joint^T lambda_joint = Q - M q'' - Phi_driver^T lambda_driver. */
kd_status kd_mech_inverse_projection(const kd_mech* m, kd_mech_work* w, double t, const double* q, const double* qd,
                                     const double* qdd, kd_mech_reactions* r, kd_error* err);

#ifdef __cplusplus
}
#endif
#endif
