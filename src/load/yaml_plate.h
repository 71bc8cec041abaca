/* The plate part of the model-file loader (src/load): a `type: plate` body
 * with its mesh and node sets (yaml_plate.c), Gmsh meshes (mesh_gmsh.c), and
 * node-set references of supports, loads and output requests. */
#ifndef KEDYN_LOAD_YAML_PLATE_H
#define KEDYN_LOAD_YAML_PLATE_H

#include "yaml_schema.h"

/* The keys of a plate body that its key table does not read (material,
 * mesh, node_sets); f: the keys read by read_table into b. */
kd_status yaml_read_plate_body(loader* ld, const node_t* v, field* f, kd_body_desc* b);

/* The node set `name` of plate body b, as a node of the model file (at, for
 * the error when it has none); *set gets it. */
kd_status yaml_node_set(loader* ld, const node_t* at, const kd_body_desc* b, const kd_node_set_desc** set);

/* A node number of the model file (a mesh node tag for plates) on body b
 * into its 1-based position in the body (beams: the number itself). */
kd_status yaml_body_node(loader* ld, const node_t* at, const kd_body_desc* b, int tag, int* node);

/* A Gmsh 4.1 ASCII mesh file (path relative to the model file's directory)
 * into b->mesh: nodes, the 2D elements (all of one type, with elem_nnode
 * nodes) and each physical group as a node set of b. Errors are located at
 * the .msh file's own line and column. */
kd_status yaml_read_gmsh(loader* ld, const node_t* at, const char* path, int elem_nnode, kd_body_desc* b);

#endif
