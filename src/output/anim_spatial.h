/* Recording a spatial mechanism for the animation (src/output/anim_spatial.c): the pose of every
 * body of d->sdesc (kedyn/sdesc.h) from the coordinates of kd_smech (kedyn/smech.h), offered to
 * a pose recorder (kd_anim_recorder_new_poses, kedyn/report.h). Internal to src/output and the
 * runner. */
#ifndef KEDYN_ANIM_SPATIAL_H
#define KEDYN_ANIM_SPATIAL_H

#include "kedyn/report.h"
#include "kedyn/smech.h"

/* What a spatial analysis needs to record: the recorder (NULL: nothing) and one pose buffer
 * (12 numbers per body of d->sdesc), allocated once. */
typedef struct anim_spatial {
    kd_anim_recorder* rec;
    const kd_desc* d;
    const kd_smech* m;
    double* pose;
} anim_spatial;

kd_status anim_spatial_init(anim_spatial* a, kd_anim_recorder* rec, const kd_desc* d, const kd_smech* m,
                            kd_error* err);
/* Offer the coordinates q at time t (no allocation; nothing between recording instants). */
void anim_spatial_offer(anim_spatial* a, double t, const double* q);
void anim_spatial_free(anim_spatial* a);

/* Poses of the bodies of d->sdesc (12 each: frame origin, rotation row-major): a moving body's
 * origin r_G - A(p) com, its rotation A(p) of the normalised Euler parameters; a ground the
 * identity (its points are global). */
void anim_spatial_pose(const kd_desc* d, const kd_smech* m, const double* q, double* pose);

#endif
