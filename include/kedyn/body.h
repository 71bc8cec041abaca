/* kedyn: the bodies of a constrained system and the points joints act on (theory.md sec. 6).
 *
 * A body is ground, rigid or elastic. Rigid and elastic bodies carry a reference frame whose pose
 * is a block of reference coordinates in the system vector q; an elastic body adds a block of
 * elastic coordinates (its nodal displacements and rotations in the frame, after the frame's
 * reference conditions). Both the rigid mechanism (kedyn/mech.h: one rigid body per moving body;
 * the one-way elastic links use it) and the floating-frame system (kedyn/ffr.h: rigid bodies and
 * beams) describe their bodies and the points of their joints with the types below, and evaluate
 * their joint equations through one module (src/mechanism/joints.c) from the points' states.
 *
 * Planar pose (KD_POSE_PLANAR): q[off .. off + 2] = (x, y, theta), the frame's origin and angle
 * (a rigid body of kedyn/mech.h has its frame at its centre of mass). A point with frame
 * coordinates s (and, at a node of an elastic body, the elastic displacement u = (u, v) and
 * rotation rz read from the body's elastic coordinates through node_coord) sits at
 *
 *     r_P = R + A(theta) (s + u),        angle_P = theta + rz
 *
 * Jacobian columns of r_P: I (x, y), perp(A (s + u)) (theta), A e_x (u), A e_y (v); of angle_P:
 * 1 (theta), 1 (rz). With q'' = 0, r_P'' = -theta'^2 A (s + u) + 2 theta' perp(A u'); the point's
 * velocity-squared term is g = -r_P'' (q'' = 0), and gamma of a joint is built from the g of its
 * points (kd_mpoint_state).
 *
 * Room for spatial bodies: `pose` names the parametrisation of the reference block and `nref` its
 * size. The spatial-mechanism issue adds KD_POSE_SPATIAL, (x, y, z, e0, e1, e2, e3) = position and
 * unit quaternion (nref = 7, with the normalisation constraint as an extra row), 3-component
 * positions, and node DOFs (u, v, w, rx, ry, rz). Everything here is planar until then.
 */
#ifndef KEDYN_BODY_H
#define KEDYN_BODY_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kd_mbody_kind {
    KD_MBODY_GROUND = 0,          /* fixed: no coordinates, its points are global */
    KD_MBODY_RIGID,               /* reference coordinates only */
    KD_MBODY_ELASTIC              /* reference and elastic coordinates (floating frame) */
} kd_mbody_kind;

/* Parametrisation of the reference coordinates (the frame's pose). */
typedef enum kd_pose_kind {
    KD_POSE_PLANAR = 0            /* (x, y, theta): KD_POSE_PLANAR_SIZE coordinates */
    /* KD_POSE_SPATIAL (reserved): (x, y, z, e0, e1, e2, e3), position + unit quaternion, 7 */
} kd_pose_kind;

#define KD_POSE_PLANAR_SIZE 3
#define KD_NODE_DOFS_PLANAR 3     /* u, v, rz of a node of a planar elastic body */

typedef struct kd_mbody {
    kd_mbody_kind kind;
    kd_pose_kind pose;
    int off;                      /* first reference coordinate in q (ground: -1) */
    int nref;                     /* reference coordinates: KD_POSE_PLANAR_SIZE */
    /* elastic bodies */
    int elastic_off;              /* first elastic coordinate in q */
    int nelastic;                 /* elastic coordinates */
    int nnode;                    /* nodes */
    const int* node_coord;        /* (KD_NODE_DOFS_PLANAR nnode) elastic index 0..nelastic-1 of (u, v, rz)
                                     at each node, -1 where the frame's reference conditions hold it;
                                     borrowed from the body's owner */
} kd_mbody;

/* A point of a body: ground point (body = -1, s global), point of a rigid body (s in its frame,
 * from the frame's origin), or node `node` of an elastic body (s its undeformed position in the
 * frame). body indexes the system's kd_mbody array. */
typedef struct kd_mpoint {
    int body;                     /* -1: ground */
    int node;                     /* elastic body: node (0-based); otherwise -1 */
    double s[2];
} kd_mpoint;

/* Local Jacobian slots of a point: its body's reference coordinates, then the node's elastic
 * coordinates (zero columns where the body has none). */
enum { KD_SLOT_X = 0, KD_SLOT_Y, KD_SLOT_THETA, KD_SLOT_U, KD_SLOT_V, KD_SLOT_RZ, KD_POINT_SLOTS };

/* The state of a point at (q, q'). */
typedef struct kd_mpoint_state {
    double r[2];                  /* frame origin (ground: 0) */
    double a[2];                  /* A (s + u): the point from the origin, global (ground: s) */
    double pa[2];                 /* perp(a) = d r_P / d theta */
    double v[2];                  /* velocity of the origin */
    double vr[2];                 /* A u': velocity relative to the frame, global */
    double g[2];                  /* velocity-squared term -r_P'' (q'' = 0) = w^2 a - 2 w perp(vr) */
    double w;                     /* frame angular velocity theta' */
    double angle, wa;             /* angle of the point (theta + rz) and its rate */
    double du[2], dv[2];          /* Jacobian columns of r_P for u and v: A e_x, A e_y */
    int elastic;                  /* 1 at a node of an elastic body */
} kd_mpoint_state;

/* The state of point p (bodies: the system's bodies); qd may be NULL (velocities zero). */
void kd_mpoint_eval(const kd_mbody* bodies, const kd_mpoint* p, const double* q, const double* qd,
                    kd_mpoint_state* o);

/* The column in q of each local slot of point p (KD_POINT_SLOTS entries, -1: none). */
void kd_mpoint_columns(const kd_mbody* bodies, const kd_mpoint* p, int col[KD_POINT_SLOTS]);

#ifdef __cplusplus
}
#endif
#endif
