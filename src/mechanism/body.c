/* Body points (kedyn/body.h; theory.md sec. 6): position, velocity, angle, Jacobian columns and
 * velocity-squared terms of a ground point, a point of a rigid body or a node of an elastic body
 * in its floating frame. */
#include "joints.h"

void kd_mpoint_eval(const kd_mbody* bodies, const kd_mpoint* p, const double* q, const double* qd,
                    kd_mpoint_state* o) {
    mpoint_eval(bodies, p, q, qd, o);
}

void kd_mpoint_columns(const kd_mbody* bodies, const kd_mpoint* p, int col[KD_POINT_SLOTS]) {
    for (int k = 0; k < KD_POINT_SLOTS; k++) col[k] = -1;
    if (p->body < 0) return;
    const kd_mbody* b = &bodies[p->body];
    for (int k = 0; k < KD_POSE_PLANAR_SIZE; k++) col[k] = b->off + k;
    if (b->kind != KD_MBODY_ELASTIC) return;
    const int* nc = b->node_coord + KD_NODE_DOFS_PLANAR * p->node;
    for (int k = 0; k < KD_NODE_DOFS_PLANAR; k++)
        if (nc[k] >= 0) col[KD_SLOT_U + k] = b->elastic_off + nc[k];
}
