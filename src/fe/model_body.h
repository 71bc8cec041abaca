/* Elastic bodies of the model compiler (internal to src/fe): one file per
 * body type builds its frame, nodes (body-frame coordinates) and elements
 * (connectivity, element records); model_compile.c does the rest generically
 * (DOFs per node from the element families, supports, DOF numbering,
 * bandwidth, loads). A new body type (e.g. `type: plate`) adds one builder
 * file and one case in model_compile.c. */
#ifndef KEDYN_FE_MODEL_BODY_H
#define KEDYN_FE_MODEL_BODY_H

#include "kedyn/model.h"

/* Where the next node, element and connectivity entry of the model go while
 * bodies are built. */
typedef struct model_cursor {
    int node, elem, conn;
    int prop_cap;                 /* allocated records in m->prop */
} model_cursor;

/* (model_props.c) The index of the element record of a line element (kind, constants c,
 * length L), added when new (kd_element_props_init). Elements of the same
 * record share their invariants; a family with other geometry (node
 * coordinates, kd_element_props_init_nodes) adds a variant comparing
 * kd_element_props.node_x. */
int model_find_or_add_prop(kd_model* m, int* cap, kd_element_kind kind, const kd_element_consts* c, double L,
                           kd_status* st);

/* Plates (model_plate.c): membranes, plates and shells on a mesh. */
void model_plate_counts(const kd_body_desc* bd, int* nnode, int* nelem, int* nconn);
kd_status model_plate_build(const kd_desc* d, int b, kd_model* m, model_cursor* at, kd_error* err);

/* Beams (model_beam.c). */
void model_beam_counts(const kd_body_desc* bd, int* nnode, int* nelem, int* nconn);
kd_status model_beam_build(const kd_desc* d, int b, kd_model* m, model_cursor* at, kd_error* err);
/* The axial force of the two unit inertia load cases (after the DOF map). */
kd_status model_beam_axial_force(kd_model* m, int b);

#endif
