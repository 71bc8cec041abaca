/* Recording a mechanism for the animation (src/output/anim_mech.c): the pose of
 * every body from the mechanism's coordinates, offered to an animation
 * recorder (kedyn/report.h) from the mechanism analyses' output callbacks.
 * Internal to src/output. */
#ifndef KEDYN_ANIM_MECH_H
#define KEDYN_ANIM_MECH_H

#include "kedyn/mech.h"
#include "kedyn/report.h"

/* Poses (12 numbers per body of d: origin, rotation row-major) from the
 * mechanism coordinates q: a moving rigid body's frame origin is
 * r_G - A(phi) com (kedyn/mech.h), its rotation Rz(phi); the ground and the
 * beams keep their fixed frames (identity at the origin for the ground). */
void anim_mech_pose(const kd_desc* d, const kd_model* model, const kd_mech* m, const double* q, double* pose);

/* The same for the pose of one moving body b (index in kd_mech). */
void anim_mech_body_pose(const kd_desc* d, const kd_mech* m, int b, const double* q, double pose[12]);

/* What a mechanism analysis needs to record: the recorder (NULL: record
 * nothing) and one pose buffer, allocated once. */
typedef struct anim_mech {
    kd_anim_recorder* rec;
    const kd_desc* d;
    const kd_model* model;
    const kd_mech* m;
    double* pose;                 /* (12 d->nbodies) */
} anim_mech;

kd_status anim_mech_init(anim_mech* a, kd_anim_recorder* rec, const kd_desc* d, const kd_mech* m,
                            kd_error* err);
/* Offer the state at time t (no allocation; nothing between recording
 * instants). */
void anim_mech_offer(anim_mech* a, double t, const double* q);
void anim_mech_free(anim_mech* a);

#endif
