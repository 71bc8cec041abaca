/* Body points (kedyn/body.h; theory.md sec. 6): position, velocity, angle, Jacobian columns and
 * velocity-squared terms of a ground point, a point of a rigid body or a node of an elastic body
 * in its floating frame. */
#include <math.h>
#include <string.h>

#include "kedyn/body.h"

void kd_mpoint_eval(const kd_mbody* bodies, const kd_mpoint* p, const double* q, const double* qd,
                    kd_mpoint_state* o) {
    memset(o, 0, sizeof(*o));
    if (p->body < 0) {
        o->a[0] = p->s[0], o->a[1] = p->s[1];
        o->pa[0] = -o->a[1], o->pa[1] = o->a[0];
        o->ca = 1.0;
        return;
    }
    const kd_mbody* b = &bodies[p->body];
    const int off = b->off;
    o->r[0] = q[off], o->r[1] = q[off + 1], o->angle = q[off + 2];
    const double c = cos(o->angle), sn = sin(o->angle);
    double s[2] = {p->s[0], p->s[1]}, sd[2] = {0.0, 0.0};
    if (qd) o->v[0] = qd[off], o->v[1] = qd[off + 1], o->w = qd[off + 2];
    o->wa = o->w;
    o->ca = c, o->sa = sn;
    if (b->kind == KD_MBODY_ELASTIC) {
        /* s + u: the node's elastic displacement in the frame, and the node's rotation */
        const int* nc = b->node_coord + KD_NODE_DOFS_PLANAR * p->node;
        o->elastic = 1;
        if (nc[0] >= 0) s[0] += q[b->elastic_off + nc[0]], sd[0] = qd ? qd[b->elastic_off + nc[0]] : 0.0;
        if (nc[1] >= 0) s[1] += q[b->elastic_off + nc[1]], sd[1] = qd ? qd[b->elastic_off + nc[1]] : 0.0;
        o->du[0] = c, o->du[1] = sn;
        o->dv[0] = -sn, o->dv[1] = c;
        if (nc[2] >= 0) {
            o->angle += q[b->elastic_off + nc[2]];
            if (qd) o->wa += qd[b->elastic_off + nc[2]];
            o->ca = cos(o->angle), o->sa = sin(o->angle);
        }
    }
    o->a[0] = c * s[0] - sn * s[1];
    o->a[1] = sn * s[0] + c * s[1];
    o->pa[0] = -o->a[1], o->pa[1] = o->a[0];
    if (o->elastic) {
        /* g = w^2 A (s + u) - 2 w perp(A u') */
        o->vr[0] = c * sd[0] - sn * sd[1];
        o->vr[1] = sn * sd[0] + c * sd[1];
        o->g[0] = o->w * o->w * o->a[0] + 2 * o->w * o->vr[1];
        o->g[1] = o->w * o->w * o->a[1] - 2 * o->w * o->vr[0];
    } else {
        o->g[0] = o->w * o->w * o->a[0];
        o->g[1] = o->w * o->w * o->a[1];
    }
}

int kd_mpoint_columns(const kd_mbody* bodies, const kd_mpoint* p, int col[KD_POINT_SLOTS]) {
    for (int k = 0; k < KD_POINT_SLOTS; k++) col[k] = -1;
    if (p->body < 0) return 0;
    const kd_mbody* b = &bodies[p->body];
    for (int k = 0; k < KD_POSE_PLANAR_SIZE; k++) col[k] = b->off + k;
    int n = KD_POSE_PLANAR_SIZE;
    if (b->kind == KD_MBODY_ELASTIC) {
        const int* nc = b->node_coord + KD_NODE_DOFS_PLANAR * p->node;
        for (int k = 0; k < KD_NODE_DOFS_PLANAR; k++)
            if (nc[k] >= 0) col[KD_SLOT_U + k] = b->elastic_off + nc[k], n += k < 2;
    }
    return n;
}
