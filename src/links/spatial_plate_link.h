/* Internal to the one-way elastic links of a spatial mechanism: what a shell link (a plate body,
 * src/links/spatial_plate_link.c) adds to the beam links of spatial_one_way.c. Not a public header. */
#ifndef KEDYN_SPATIAL_PLATE_LINK_H
#define KEDYN_SPATIAL_PLATE_LINK_H

#include "kedyn/sked.h"

/* The joints of L's body at mesh nodes (an error the caller locates otherwise). */
kd_status splate_link_joints(const kd_smech* m, kd_sked_link* L, kd_error* err);
/* Body b (body 0 of ld, material 0) as the link's shell mesh in its frame, the support set clamped
 * (KD_ERR_NOMEM when out of memory). */
kd_status splate_link_body(kd_desc* ld, const kd_sked_link_spec* sp, kd_body_desc* b);
/* The model of link sp alone, as a two-way shell link and its stresses take it (theory.md sec. 22,
 * SL6): splate_link_body in a new description *ld (the model's names point into it: free it after
 * the model), geometric its geometric_stiffness (SL8), compiled into *md. */
kd_status splate_link_model(const kd_sked_link_spec* sp, int geometric, kd_desc** ld, kd_model** md, kd_error* err);
/* The elastic contribution to the joints' forces on plate link L (theory.md sec. 22, SL7), frame
 * components (3 x njoint): the support set's force less the joint loads applied at its nodes, on
 * the first joint at a node of the set; 0 at the others. */
void splate_link_reactions(const kd_sked_link* L, double t, const double* q, const double* v, const double* a,
                           double* R);

#endif
