/* kedyn: the keys of the description, one table per struct.
 *
 * Each key of a model file that maps onto one field of a description struct
 * is declared once, here: its name, type, range, default and a one-line
 * documentation (docs/model-format.md). The tables drive
 *   - the model-file reader (src/load): allowed keys, typed getters, range
 *     errors at the value, defaults;
 *   - kd_analysis_desc_init and kd_desc_add_*: the same defaults for a
 *     description built in code;
 *   - kd_desc_check: the range of every value, with the same words;
 *   - the parameter paths of sweeps (kd_desc_param): materials.NAME.KEY,
 *     sections.NAME.KEY, bodies.NAME.KEY, damping.BODY.rayleigh.KEY,
 *     joints.NAME.KEY, drivers.JOINT.KEY, forces.N.KEY, motion.BODY.KEY,
 *     and the numbers of laws (LAW).
 * Keys that need more than one field or a cross-reference (a section's
 * `shear`, a dynamics' `initial`) are declared with type KD_FIELD_CUSTOM:
 * the reader handles them by name, the table still documents them.
 */
#ifndef KEDYN_DESC_FIELDS_H
#define KEDYN_DESC_FIELDS_H

#include <stddef.h>

#include "kedyn/desc.h"
#include "kedyn/law.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kd_field_type {
    KD_FIELD_NUMBER = 0,          /* double, in `range` */
    KD_FIELD_INT,                 /* int, at least `lo` */
    KD_FIELD_BOOL,                /* int 0 / 1 (true / false) */
    KD_FIELD_CHOICE,              /* an enum stored as int: value = first + index in names */
    KD_FIELD_BODY,                /* int index into kd_desc.bodies, by name (default -1) */
    KD_FIELD_LIST,                /* double[KD_LIST_MAX] and its count (count_offset) */
    KD_FIELD_CUSTOM               /* read by the reader's own code (documented here) */
} kd_field_type;

typedef enum kd_field_range {
    KD_RANGE_ANY = 0,             /* any finite number */
    KD_RANGE_POSITIVE,            /* > 0 */
    KD_RANGE_NONNEGATIVE,         /* >= 0 */
    KD_RANGE_CLOSED,              /* [lo, hi] */
    KD_RANGE_OPEN                 /* (lo, hi) */
} kd_field_range;

typedef struct kd_field {
    const char* key;
    kd_field_type type;
    size_t offset;                /* of the value in its struct */
    kd_field_range range;         /* numbers and list items */
    double lo, hi;                /* range bounds; int: lo is the least value */
    double def;                   /* default (choices: the enum value, 0 = UNSET) */
    int required;                 /* 1: a model file must give it */
    const char* const* names;     /* choices: the names, in enum order from `first` */
    int nnames, first;
    size_t count_offset;          /* lists: the int count */
    unsigned only;                /* sections: mask of (1 << kd_shape), bodies: of
                                     (1 << kd_body_type), joints: of (1 << kd_joint_type)
                                     the key applies to (0: all) */
    const char* doc;
    const char* range_words;      /* the range in words when the bounds print badly (NULL) */
} kd_field;

/* The table of an analysis type, of materials and of sections; *n gets the
 * number of entries. An analysis' table includes its `type` key (CUSTOM). */
const kd_field* kd_analysis_fields(kd_analysis_type t, int* n);
const kd_field* kd_material_fields(int* n);
const kd_field* kd_section_fields(int* n);
/* Bodies: `only` is a mask of (1 << kd_body_type). */
const kd_field* kd_body_fields(int* n);

/* Supports: body, node, fix. Dampings: body and rayleigh, whose mapping
 * {alpha, beta} has its own table (fields of kd_damping_desc). */
const kd_field* kd_support_fields(int* n);
const kd_field* kd_damping_fields(int* n);
const kd_field* kd_rayleigh_fields(int* n);

/* Joints (`only`: a mask of (1 << kd_joint_type)) and drivers. */
const kd_field* kd_joint_fields(int* n);
const kd_field* kd_driver_fields(int* n);

/* Loads (the items of `forces:`): one table per kd_load_type, selected by
 * the `type` key (each table includes it, CUSTOM); kd_load_type_name gives
 * the model-file name of a type ("nodal", "gravity", "spring", ...). */
#define KD_LOAD_TYPES ((int)KD_LOAD_FORCE + 1)
const kd_field* kd_load_fields(kd_load_type t, int* n);
const char* kd_load_type_name(kd_load_type t);

/* Laws of time (kedyn/law.h), fields of kd_law: a law is a number (a
 * constant) or a mapping with one key of kd_law_form_fields, whose entry i
 * is the form of kd_law_type i + 1 (speed, sine, spin_up, table);
 * kd_law_fields gives the keys inside the sine, spin_up and table forms
 * (NULL and *n = 0 for the others). */
const kd_field* kd_law_form_fields(int* n);
const kd_field* kd_law_fields(kd_law_type t, int* n);

/* Motions (fields of kd_motion_desc): body, rotation, planar, pose, hub;
 * the keys inside rotation, planar and pose (laws and vectors: CUSTOM). */
const kd_field* kd_motion_fields(int* n);
const kd_field* kd_rotation_fields(int* n);
const kd_field* kd_planar_motion_fields(int* n);
const kd_field* kd_pose_fields(int* n);

/* The `output:` mapping (nodes). */
const kd_field* kd_output_fields(int* n);

/* A dynamics' `initial` mapping (fields of kd_dynamics_desc: from, mode,
 * amplitude; q and qdot CUSTOM), the entries of q and qdot (fields of
 * kd_initial_value) and a beam's `frame` mapping (fields of kd_body_desc). */
const kd_field* kd_initial_fields(int* n);
const kd_field* kd_initial_value_fields(int* n);
const kd_field* kd_frame_fields(int* n);

/* A plate's `mesh` mapping (all CUSTOM: rectangle, divisions, file,
 * origin, x_axis, normal) and one entry of its `node_sets` (fields of
 * kd_node_set_desc: x, y, z, tol, nodes). */
const kd_field* kd_mesh_fields(int* n);
const kd_field* kd_node_set_fields(int* n);

/* Measured records and sensors (fields of kd_record_desc, kd_sensor_desc). */
const kd_field* kd_record_fields(int* n);
const kd_field* kd_sensor_fields(int* n);

/* The top-level keys of a model file (each a section, CUSTOM). */
const kd_field* kd_model_fields(int* n);

/* The field named key in a table, or NULL. */
const kd_field* kd_field_find(const kd_field* f, int n, const char* key);

/* The struct of an analysis' fields (&a->modes, &a->dynamics...). */
void* kd_analysis_fields_base(kd_analysis_desc* a);

/* Set every field of the table in base to its default. */
void kd_fields_defaults(const kd_field* f, int n, void* base);

/* 1 when the number x lies in the field's range. */
int kd_field_in_range(const kd_field* f, double x);
/* The range in words, for messages: "positive", "at least 1",
 * "in [0, 1]", "in (-1, 0.5)", ">= 0"; "" for any number. */
const char* kd_field_range_text(const kd_field* f, char* buf, size_t n);

/* Check the values of base against the table (ranges, whole numbers,
 * required keys given). Returns 0, or -1 and writes "KEY must be ..." into
 * why. */
int kd_fields_check(const kd_field* f, int n, const void* base, char* why, size_t nwhy);
/* The same for the entries whose `only` includes `only` (0: every entry). */
int kd_fields_check_only(const kd_field* f, int n, unsigned only, const void* base, char* why, size_t nwhy);

#ifdef __cplusplus
}
#endif
#endif
