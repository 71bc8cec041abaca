/* The schema layer of the model-file loader, shared by its parts:
 * src/io/yaml_model.c (materials, sections, beams, supports, frame motion,
 * loads, analyses) and src/io/yaml_mech.c (rigid bodies, joints, drivers,
 * mechanism forces and analyses). Private to kedyn_io.
 *
 * The helpers keep their short names inside the loader's files; the macros
 * below give them a kdy_ prefix as linked symbols (function-like, so that
 * struct members of the same name are untouched).
 */
#ifndef KEDYN_YAML_LOADER_H
#define KEDYN_YAML_LOADER_H

#include <yaml.h>

#include "kedyn/desc.h"

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

/* ---- the mechanism part (src/io/yaml_mech.c) ---------------------------- */

/* A body of type rigid (the type key already read). */
kd_status yaml_read_rigid_body(loader* ld, const node_t* v, kd_body_desc* b);
/* One item of `joints:` / `drivers:` (joints first: drivers name them). */
kd_status yaml_read_joint(loader* ld, const node_t* v);
kd_status yaml_read_driver(loader* ld, const node_t* v);
/* A force of type spring, friction, torque or force. */
kd_status yaml_read_mech_force(loader* ld, const node_t* v, const char* type);
/* The keys of a kinematics or inverse_dynamics analysis (type already set in a). */
kd_status yaml_read_mech_analysis(loader* ld, const node_t* v, kd_analysis_desc* a);

/* src/io/yaml_ked.c: elastic links of mechanisms (kedyn/ked.h): a beam's
 * `frame` key, the `modes_along_motion` analysis, and `coupling` of a
 * dynamics analysis. */
kd_status yaml_read_beam_frame(loader* ld, const node_t* v, kd_body_desc* b);
kd_status yaml_read_ked_analysis(loader* ld, const node_t* v, kd_analysis_desc* a);
kd_status yaml_read_coupling(loader* ld, const node_t* v, kd_analysis_desc* a);
kd_status yaml_read_settle(loader* ld, const node_t* v, kd_analysis_desc* a);

#endif
