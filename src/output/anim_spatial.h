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
    /* elastic links (beam and plate bodies): the u, v, w of their shape points, body frame */
    double* disp;                 /* (3 x points over the bodies), NULL without links */
    int* disp_adr;                /* (nbodies + 1) first point of each body in disp */
    int* node;                    /* (points) the link's node (0-based) of each point, -1: none */
    int* desc_body;               /* (m->nbody) body of d->sdesc of each moving body */
    double* q;                    /* (m->n) rigid coordinates of an instant */
    int cursor;                   /* rigid sample interval of the last instant */
} anim_spatial;

kd_status anim_spatial_init(anim_spatial* a, kd_anim_recorder* rec, const kd_desc* d, const kd_smech* m,
                            kd_error* err);
/* Offer the coordinates q at time t (no allocation; nothing between recording instants). */
void anim_spatial_offer(anim_spatial* a, double t, const double* q);
void anim_spatial_free(anim_spatial* a);

/* One-way elastic links (src/run/run_spatial_links.c): the displacements u6 (u, v, w, rx, ry, rz
 * per node, the link's frame = its body's axes, kedyn/sked.h) of the link on moving body `body`
 * at t; with r (the last link of the instant) the instant is offered: the bodies at the rigid
 * solution r interpolated at t (cubic Hermite in q, q' between its samples), the links' nodes
 * displaced (a beam's drawn at p1 + x_n + scale u_n, a plate's mesh nodes at x_n + scale u_n,
 * kd_anim_smech_shapes). No allocation. */
struct kd_sked_rigid;
void anim_spatial_link(anim_spatial* a, double t, int body, const double* u6, int nnode,
                       const struct kd_sked_rigid* r);

/* Poses of the bodies of d->sdesc (12 each: frame origin, rotation row-major): a moving body's
 * origin r_G - A(p) com, its rotation A(p) of the normalised Euler parameters; a ground the
 * identity (its points are global). */
void anim_spatial_pose(const kd_desc* d, const kd_smech* m, const double* q, double* pose);

#endif
