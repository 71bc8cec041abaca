/* Internal to kedyn (src/mechanism, src/links): the planar joint equations, once, for every route
 * (rigid mechanism kedyn/mech.h, its one-way elastic links, the two-way floating-frame system
 * kedyn/ffr.h). A joint joins two body points (kedyn/body.h), I (its first) and J (its second);
 * from their states joint_eval gives Phi, the local Jacobian rows, and gamma (theory.md sec. 6).
 *
 * Local Jacobian: JOINT_SLOTS values per row, the KD_POINT_SLOTS slots of I (x, y, theta, u, v,
 * rz) then those of J; joint_pattern maps them to the columns of q of a CSR row.
 */
#ifndef KEDYN_JOINTS_H
#define KEDYN_JOINTS_H

#include "kedyn/body.h"

typedef enum joint_type {
    JOINT_REVOLUTE = 0,           /* P_i - P_j = 0 (2 rows) */
    JOINT_PRISMATIC,              /* n . (P_j - P_i) = 0, n normal to `axis` fixed in I; angle_j - angle_i = ref (2) */
    JOINT_FIXED,                  /* revolute rows, then angle_j - angle_i = ref (3) */
    JOINT_DISTANCE,               /* (|P_j - P_i|^2 - L^2) / (2 L) = 0 (1) */
    JOINT_ROLLING,                /* n . d = R; u . d + R (angle_j - angle_i) = ref (2): a disc J on a line of I */
    JOINT_POINT_ON_LINE,          /* n . (P_j - P_i) = 0 (1): P_j on the line through P_i along `axis` */
    JOINT_ANGLE,                  /* angle_j - angle_i = c + c1 (1): relative angle, revolute driver */
    JOINT_SLIDE,                  /* u . (P_j - P_i) = c + c1 (1): translation along `axis`, prismatic driver */
    JOINT_TYPES
} joint_type;

/* A joint's constant data. axis: unit direction in I's frame (the point's angle turns it: theta,
 * plus rz at a node); length: distance; radius: rolling (signed: the side of the line the disc is
 * on); ref: the relative angle of prismatic and fixed joints, the rolling invariant. */
typedef struct joint_def {
    joint_type type;
    double axis[2];
    double length, radius, ref;
} joint_def;

#include <math.h>
#include <stddef.h>

/* kd_mpoint_eval (kedyn/body.h), inline for the joint loops of the two routes: every field set,
 * the velocity terms only from q' (zero when qd is NULL). */
static inline void mpoint_eval(const kd_mbody* bodies, const kd_mpoint* p, const double* q, const double* qd,
                               kd_mpoint_state* o) {
    o->v[0] = o->v[1] = o->vr[0] = o->vr[1] = o->g[0] = o->g[1] = 0.0;
    o->du[0] = o->du[1] = o->dv[0] = o->dv[1] = 0.0;
    o->w = o->wa = 0.0;
    o->elastic = 0;
    if (p->body < 0) {
        o->r[0] = o->r[1] = 0.0;
        o->a[0] = p->s[0], o->a[1] = p->s[1];
        o->pa[0] = -o->a[1], o->pa[1] = o->a[0];
        o->angle = 0.0;
        return;
    }
    const kd_mbody* b = &bodies[p->body];
    const int off = b->off;
    o->r[0] = q[off], o->r[1] = q[off + 1], o->angle = q[off + 2];
    const double c = cos(o->angle), sn = sin(o->angle);
    if (qd) o->v[0] = qd[off], o->v[1] = qd[off + 1], o->w = o->wa = qd[off + 2];
    if (b->kind != KD_MBODY_ELASTIC) {
        o->a[0] = c * p->s[0] - sn * p->s[1];
        o->a[1] = sn * p->s[0] + c * p->s[1];
        o->pa[0] = -o->a[1], o->pa[1] = o->a[0];
        if (qd) o->g[0] = o->w * o->w * o->a[0], o->g[1] = o->w * o->w * o->a[1];
        return;
    }
    /* a node: s + u, the elastic displacement in the frame, and the node's rotation rz */
    const int* nc = b->node_coord + KD_NODE_DOFS_PLANAR * p->node;
    const double* qe = q + b->elastic_off;
    const double* qde = qd ? qd + b->elastic_off : NULL;
    double s[2] = {p->s[0], p->s[1]}, sd[2] = {0.0, 0.0};
    o->elastic = 1;
    if (nc[0] >= 0) s[0] += qe[nc[0]], sd[0] = qde ? qde[nc[0]] : 0.0;
    if (nc[1] >= 0) s[1] += qe[nc[1]], sd[1] = qde ? qde[nc[1]] : 0.0;
    o->du[0] = c, o->du[1] = sn;
    o->dv[0] = -sn, o->dv[1] = c;
    if (nc[2] >= 0) {
        o->angle += qe[nc[2]];
        if (qde) o->wa += qde[nc[2]];
    }
    o->a[0] = c * s[0] - sn * s[1];
    o->a[1] = sn * s[0] + c * s[1];
    o->pa[0] = -o->a[1], o->pa[1] = o->a[0];
    if (qd) {
        /* g = w^2 A (s + u) - 2 w perp(A u') */
        o->vr[0] = c * sd[0] - sn * sd[1];
        o->vr[1] = sn * sd[0] + c * sd[1];
        o->g[0] = o->w * o->w * o->a[0] + 2 * o->w * o->vr[1];
        o->g[1] = o->w * o->w * o->a[1] - 2 * o->w * o->vr[0];
    }
}

#define JOINT_SLOTS (2 * KD_POINT_SLOTS)

/* Rows of a joint type. */
int joint_rows(joint_type t);

/* The rows of joint j between points I and J: phi (rows), jl (JOINT_SLOTS per row), gam (rows);
 * any may be NULL. For JOINT_ANGLE and JOINT_SLIDE, Phi = (value - c) - c1 with the driver's
 * offset and law value, and d2c = (c + c1)'' enters gamma; other types ignore c, c1, d2c.
 * gam needs the states evaluated with q'. */
void joint_eval(const joint_def* j, const kd_mpoint_state* pi, const kd_mpoint_state* pj, double c, double c1,
                double d2c, double* phi, double* jl, double* gam);

/* Slots of side `side` (0: I, 1: J) that row `row` of type t can make nonzero (bit k: slot k). */
unsigned joint_row_slots(joint_type t, int row, int side);
#define JOINT_REFERENCE_SLOTS ((1u << KD_SLOT_X) | (1u << KD_SLOT_Y) | (1u << KD_SLOT_THETA))

/* The CSR entries of one row: for each point p[side] (body >= 0), the columns of q of the slots in
 * mask[side] that the point has (kd_mpoint_columns), sorted by column (I first on a tie). Writes
 * col[] and slot[] (local slot 0..JOINT_SLOTS-1), returns their count (at most JOINT_SLOTS). */
int joint_pattern_row(const kd_mbody* bodies, const kd_mpoint p[2], const unsigned mask[2], int* col, int* slot);

/* jac[e] = jl[JOINT_SLOTS r + slot[e]] for the entries e of rows row0 .. row0 + nrow - 1. */
void joint_scatter(const int* rowptr, const int* slot, int row0, int nrow, const double* jl, double* jac);

#endif
