/* The model-file loader's private header. Its files depend one way:
 *   yaml_model.c      the top-level reader (kd_load_yaml_*) and the model
 *                     sections (materials, sections, beams, supports, motion,
 *                     damping, nodal forces, output)
 *     -> yaml_mechanism.c  rigid bodies, joints, drivers, mechanism forces
 *     -> yaml_links.c      a beam's `frame` (elastic links of mechanisms)
 *     -> yaml_analysis.c   analyses, through the key tables (kedyn/desc_fields.h)
 *   each of them -> yaml_schema.c (the helpers declared first below), which
 *   calls nothing else of the loader.
 *
 * The helpers keep their short names inside the loader's files; the macros
 * below give them a kdy_ prefix as linked symbols (function-like, so that
 * struct members of the same name are untouched).
 */
#ifndef KEDYN_YAML_LOADER_H
#define KEDYN_YAML_LOADER_H

#include <yaml.h>

#include "kedyn/desc.h"
#include "kedyn/desc_fields.h"

typedef struct loader {
    yaml_document_t doc;
    kd_desc* d;
    kd_error* err;
    const char* file;
    char dir[1024];               /* directory of the model file: relative data files */
} loader;

typedef yaml_node_t node_t;

typedef struct field {
    const char* key;
    node_t* value;                /* filled by read_fields; NULL when absent */
    node_t* key_node;
} field;

#define loc_of(...) kdy_loc_of(__VA_ARGS__)
#define fail(...) kdy_fail(__VA_ARGS__)
#define node_at(...) kdy_node_at(__VA_ARGS__)
#define scalar(...) kdy_scalar(__VA_ARGS__)
#define expect(...) kdy_expect(__VA_ARGS__)
#define get_number(...) kdy_get_number(__VA_ARGS__)
#define get_positive(...) kdy_get_positive(__VA_ARGS__)
#define get_int(...) kdy_get_int(__VA_ARGS__)
#define get_bool(...) kdy_get_bool(__VA_ARGS__)
#define get_name(...) kdy_get_name(__VA_ARGS__)
#define get_choice(...) kdy_get_choice(__VA_ARGS__)
#define get_numbers(...) kdy_get_numbers(__VA_ARGS__)
#define read_fields(...) kdy_read_fields(__VA_ARGS__)
#define field_value(...) kdy_field_value(__VA_ARGS__)
#define require(...) kdy_require(__VA_ARGS__)
#define read_law(...) kdy_read_law(__VA_ARGS__)
#define get_body(...) kdy_get_body(__VA_ARGS__)
#define read_points(...) kdy_read_points(__VA_ARGS__)
#define get_dof(...) kdy_get_dof(__VA_ARGS__)
#define get_list(...) kdy_get_list(__VA_ARGS__)
#define read_table_file(...) kdy_read_table_file(__VA_ARGS__)
#define read_table(...) kdy_read_table(__VA_ARGS__)
#define read_table_kind(...) kdy_read_table_kind(__VA_ARGS__)

kd_loc loc_of(const node_t* n);
/* Fill ld->err with KD_ERR_INPUT at node n (the file when NULL). */
kd_status fail(loader* ld, const node_t* n, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
node_t* node_at(loader* ld, int id);
const char* scalar(const node_t* n);          /* the text of a scalar node, NULL otherwise */
kd_status expect(loader* ld, const node_t* n, yaml_node_type_t type, const char* what);
kd_status get_number(loader* ld, const node_t* n, const char* what, double* out);
kd_status get_positive(loader* ld, const node_t* n, const char* what, double* out);
kd_status get_int(loader* ld, const node_t* n, const char* what, int lo, int* out);
kd_status get_bool(loader* ld, const node_t* n, const char* what, int* out);
kd_status get_name(loader* ld, const node_t* n, const char* what, char* out);
kd_status get_choice(loader* ld, const node_t* n, const char* what, const char* const* words, int nwords, int* out);
/* A sequence of lo..hi numbers into out; *count gets their number. */
kd_status get_numbers(loader* ld, const node_t* n, const char* what, int lo, int hi, double* out, int* count);
/* Match a mapping's keys against `fields` (terminated by key NULL). */
kd_status read_fields(loader* ld, const node_t* map, const char* what, field* fields);
node_t* field_value(field* fields, const char* key);
kd_status require(loader* ld, const node_t* map, field* fields, const char* key, const char* what, node_t** out);
/* A law of time (kedyn/law.h): a number or {speed | sine | spin_up | table}. */
kd_status read_law(loader* ld, const node_t* n, const char* what, kd_law* law);
/* A body reference by name. */
kd_status get_body(loader* ld, const node_t* n, int* out);
/* A mapping of named points {NAME: [x, y(, z)]} into b->points. */
kd_status read_points(loader* ld, const node_t* map, kd_body_desc* b);

/* A DOF name: u v w rx ry rz kz ky (kedyn/desc.h). */
kd_status get_dof(loader* ld, const node_t* n, kd_dof_name* out);
/* A list of 1 to KD_LIST_MAX numbers. */
kd_status get_list(loader* ld, const node_t* n, const char* what, double* out, int* count);
/* A table from a CSV file: first column t, `column` by header name or by
 * 1-based number (relative paths from the model file's directory). */
kd_status read_table_file(loader* ld, const node_t* at, const char* path, const char* column, kd_law* law, int linear);
/* The keys of map through a key table t[0..n-1] (kedyn/desc_fields.h) into
 * base: unknown keys, missing required keys, types and ranges are errors at
 * their node. `only`: a mask of the entries' `only` (0: every entry). f
 * (nfmax >= n + 1 entries) gets the keys and their nodes, for the CUSTOM ones. */
kd_status read_table(loader* ld, const node_t* map, const char* what, const kd_field* t, int n, unsigned only, void* base,
                     field* f, int nfmax);
/* The same for an item of a given kind (a joint type...): every key of the
 * table is known; a key whose `only` excludes (1 << kind) is an error at its
 * value, "KEY applies to A and B NOUN" (kinds: the names of the kinds), and
 * is not required. f (nfmax >= n + 1 entries) gets every key and its node. */
kd_status read_table_kind(loader* ld, const node_t* map, const char* what, const kd_field* t, int n, int kind,
                          const char* const* kinds, int nkinds, const char* noun, void* base, field* f, int nfmax);

/* ---- the section readers ---------------------------------------------------- */

/* src/load/yaml_mechanism.c */
/* The keys of a rigid body that its key table does not read (com, position,
 * points); f: the keys read by read_table. */
kd_status yaml_read_rigid_body(loader* ld, field* f, kd_body_desc* b);
/* One item of `joints:` / `drivers:` (joints first: drivers name them). */
kd_status yaml_read_joint(loader* ld, const node_t* v);
kd_status yaml_read_driver(loader* ld, const node_t* v);
/* The keys of a force of type spring, friction, torque or force that its
 * key table does not read (f: the keys read by read_table into l). */
kd_status yaml_read_mech_force(loader* ld, const node_t* v, field* f, kd_load_desc* l);
/* A mechanism assembles at t = 0; otherwise an error at the joint or driver
 * that stays open (after the description's checks). */
kd_status yaml_check_assembly(loader* ld);

/* src/load/yaml_links.c: a beam's `frame` key (elastic links of mechanisms, kedyn/ked.h). */
kd_status yaml_read_beam_frame(loader* ld, const node_t* v, kd_body_desc* b);
/* A fixed rk4 step of two-way coupled links more than twice its stability
 * limit (from the shortest element's axial frequency) is an error at the
 * analysis (after the description's checks). */
kd_status yaml_check_explicit_step(loader* ld);

/* src/load/yaml_analysis.c: one item of `analyses:`. */
kd_status yaml_read_analysis(loader* ld, const node_t* v);

/* yaml_spatial.c: a `spatial: true` model's bodies, joints, drivers and forces (kd_desc.sdesc),
 * and, after its analyses, their kinds and the assembly (located errors). */
kd_status yaml_read_spatial(loader* ld, const node_t* root, field* f);
kd_status yaml_check_spatial(loader* ld, const node_t* root, field* f);

#endif
