/* The model description: construction, defaults and look-up (kedyn/desc.h).
 * The consistency checks are in desc_check.c, the parameter paths in
 * desc_param.c, the key tables in desc_fields.c. */
#include "kedyn/sdesc.h"
#include "kedyn/desc.h"

#include <stdlib.h>
#include <string.h>

#include "kedyn/desc_fields.h"
#include "desc_names.h"

kd_desc* kd_desc_new(void) { return calloc(1, sizeof(kd_desc)); }

void kd_desc_free(kd_desc** pd) {
    if (!pd || !*pd) return;
    kd_desc* d = *pd;
    for (int i = 0; i < d->noutput_nodes; i++) free(d->output_nodes[i].nodes);
    for (int i = 0; i < d->nmotions; i++) kd_motion_free(&d->motions[i].motion);
    for (int i = 0; i < d->nloads; i++) {
        kd_law_free(&d->loads[i].value);
        kd_law_free(&d->loads[i].value_y);
    }
    for (int i = 0; i < d->ndrivers; i++) kd_law_free(&d->drivers[i].law);
    free(d->joints);
    free(d->drivers);
    kd_sdesc_free(&d->sdesc);
    for (int i = 0; i < d->nanalyses; i++) kd_analysis_desc_clear(&d->analyses[i]);
    free(d->motions);
    free(d->dampings);
    free(d->loads);
    free(d->materials);
    free(d->sections);
    for (int i = 0; i < d->nbodies; i++) {
        kd_mesh_clear(&d->bodies[i].mesh);
        for (int k = 0; k < d->bodies[i].nnode_sets; k++) free(d->bodies[i].node_sets[k].nodes);
        free(d->bodies[i].node_sets);
    }
    free(d->bodies);
    free(d->supports);
    free(d->analyses);
    free(d->output_nodes);
    free(d->records);
    free(d->sensors);
    free(d);
    *pd = NULL;
}

/* Grow an array by one zeroed item; returns the new item or NULL. */
static void* append_item(void** arr, int* n, size_t size) {
    void* p = realloc(*arr, (size_t)(*n + 1) * size);
    if (!p) return NULL;
    *arr = p;
    char* item = (char*)p + (size_t)(*n) * size;
    memset(item, 0, size);
    (*n)++;
    return item;
}

/* An item with the defaults of its key table (kedyn/desc_fields.h). */
static void* add_with_defaults(void** arr, int* n, size_t size, const kd_field* (*table)(int*)) {
    void* x = append_item(arr, n, size);
    int nf = 0;
    const kd_field* f = table(&nf);
    if (x) kd_fields_defaults(f, nf, x);
    return x;
}

kd_material_desc* kd_desc_add_material(kd_desc* d) {
    kd_material_desc* m = append_item((void**)&d->materials, &d->nmaterials, sizeof(*m));
    int n = 0;
    const kd_field* f = kd_material_fields(&n);
    if (m) kd_fields_defaults(f, n, m);
    return m;
}

kd_section_desc* kd_desc_add_section(kd_desc* d) {
    kd_section_desc* s = append_item((void**)&d->sections, &d->nsections, sizeof(*s));
    int n = 0;
    const kd_field* f = kd_section_fields(&n);
    if (s) kd_fields_defaults(f, n, s);
    return s;
}

kd_body_desc* kd_desc_add_body(kd_desc* d) {
    kd_body_desc* b = append_item((void**)&d->bodies, &d->nbodies, sizeof(*b));
    int n = 0;
    const kd_field* f = kd_body_fields(&n);
    if (b) {
        kd_fields_defaults(f, n, b);  /* euler-bernoulli, cubic, planar, geometric stiffness */
        b->material = b->section = -1;
    }
    return b;
}

kd_support_desc* kd_desc_add_support(kd_desc* d) {
    return add_with_defaults((void**)&d->supports, &d->nsupports, sizeof(kd_support_desc), kd_support_fields);
}

kd_analysis_desc* kd_desc_add_analysis(kd_desc* d, kd_analysis_type type) {
    kd_analysis_desc* a = append_item((void**)&d->analyses, &d->nanalyses, sizeof(*a));
    if (a) kd_analysis_desc_init(a, type);
    return a;
}

kd_output_nodes_desc* kd_desc_add_output_nodes(kd_desc* d) {
    return append_item((void**)&d->output_nodes, &d->noutput_nodes, sizeof(kd_output_nodes_desc));
}

kd_initial_value* kd_desc_add_initial(kd_dynamics_desc* dy) {
    return append_item((void**)&dy->initial, &dy->ninitial, sizeof(kd_initial_value));
}

kd_record_desc* kd_desc_add_record(kd_desc* d) {
    return add_with_defaults((void**)&d->records, &d->nrecords, sizeof(kd_record_desc), kd_record_fields);
}

kd_sensor_desc* kd_desc_add_sensor(kd_desc* d) {
    kd_sensor_desc* s = add_with_defaults((void**)&d->sensors, &d->nsensors, sizeof(kd_sensor_desc), kd_sensor_fields);
    if (s) s->record = -1;
    return s;
}

int kd_desc_find_record(const kd_desc* d, const char* name) {
    for (int i = 0; i < d->nrecords; i++)
        if (strcmp(d->records[i].name, name) == 0) return i;
    return -1;
}

int kd_desc_find_sensor(const kd_desc* d, const char* name) {
    for (int i = 0; i < d->nsensors; i++)
        if (strcmp(d->sensors[i].name, name) == 0) return i;
    return -1;
}

kd_motion_desc* kd_desc_add_motion(kd_desc* d) {
    return add_with_defaults((void**)&d->motions, &d->nmotions, sizeof(kd_motion_desc), kd_motion_fields);
}

kd_damping_desc* kd_desc_add_damping(kd_desc* d) {
    kd_damping_desc* dm = add_with_defaults((void**)&d->dampings, &d->ndampings, sizeof(*dm), kd_damping_fields);
    int n = 0;
    const kd_field* f = kd_rayleigh_fields(&n);
    if (dm) kd_fields_defaults(f, n, dm);
    return dm;
}

kd_load_desc* kd_desc_add_load(kd_desc* d) {
    return append_item((void**)&d->loads, &d->nloads, sizeof(kd_load_desc));
}

kd_joint_desc* kd_desc_add_joint(kd_desc* d) {
    return add_with_defaults((void**)&d->joints, &d->njoints, sizeof(kd_joint_desc), kd_joint_fields);
}

kd_driver_desc* kd_desc_add_driver(kd_desc* d) {
    return add_with_defaults((void**)&d->drivers, &d->ndrivers, sizeof(kd_driver_desc), kd_driver_fields);
}

int kd_desc_find_joint(const kd_desc* d, const char* name) {
    for (int i = 0; i < d->njoints; i++)
        if (strcmp(d->joints[i].name, name) == 0) return i;
    return -1;
}

int kd_desc_find_point(const kd_desc* d, int b, const char* name) {
    if (b < 0 || b >= d->nbodies) return -1;
    for (int i = 0; i < d->bodies[b].npoints; i++)
        if (strcmp(d->bodies[b].points[i].name, name) == 0) return i;
    return -1;
}

int kd_desc_is_mechanism(const kd_desc* d) {
    if (d->njoints > 0 || d->spatial) return 1;
    for (int i = 0; i < d->nbodies; i++)
        if (d->bodies[i].type == KD_BODY_RIGID) return 1;
    return 0;
}

int kd_desc_beam_in_joints(const kd_desc* d, int b) {
    if (b < 0 || b >= d->nbodies || d->bodies[b].type != KD_BODY_BEAM) return 0;
    for (int k = 0; k < d->njoints; k++)
        if (d->joints[k].body[0] == b || d->joints[k].body[1] == b) return 1;
    return 0;
}

int kd_desc_elastic_links(const kd_desc* d) {
    int n = 0;
    for (int b = 0; b < d->nbodies; b++) n += kd_desc_beam_in_joints(d, b);
    for (int b = 0; d->sdesc && b < d->sdesc->nbodies; b++)  /* spatial links */
        n += d->sdesc->bodies[b].beam || d->sdesc->bodies[b].plate;
    return n;
}

const char* kd_joint_type_str(kd_joint_type t) {
    return t >= 0 && t < KD_JOINT_TYPES ? desc_joint_type_names[t] : "?";
}

int kd_desc_find_material(const kd_desc* d, const char* name) {
    for (int i = 0; i < d->nmaterials; i++)
        if (strcmp(d->materials[i].name, name) == 0) return i;
    return -1;
}

int kd_desc_find_section(const kd_desc* d, const char* name) {
    for (int i = 0; i < d->nsections; i++)
        if (strcmp(d->sections[i].name, name) == 0) return i;
    return -1;
}

int kd_desc_find_body(const kd_desc* d, const char* name) {
    for (int i = 0; i < d->nbodies; i++)
        if (strcmp(d->bodies[i].name, name) == 0) return i;
    return -1;
}

const char* kd_dof_name_str(kd_dof_name dof) {
    static const char* names[KD_DOF_NAMES] = {"u", "v", "w", "rx", "ry", "rz", "kz", "ky", "wxy"};
    return (dof >= 0 && dof < KD_DOF_NAMES) ? names[dof] : "?";
}

const char* kd_theory_str(kd_theory t) {
    return (t >= 0 && t < KD_THEORIES) ? desc_theory_names[t] : "?";
}

const char* kd_interp_str(kd_interp i) {
    return (i >= 0 && i < KD_INTERPS) ? desc_interp_names[i] : "?";
}

const char* kd_shape_str(kd_shape s) {
    switch (s) {
    case KD_SHAPE_CIRCLE: return "circle";
    case KD_SHAPE_TUBE: return "tube";
    case KD_SHAPE_RECTANGLE: return "rectangle";
    case KD_SHAPE_GENERIC: return "generic";
    }
    return "?";
}

int kd_desc_rotating_body(const kd_desc* d, int body) {
    if (body >= 0) {
        for (int i = 0; i < d->nmotions; i++)
            if (d->motions[i].body == body && d->motions[i].motion.type == KD_MOTION_ROTATION) return body;
        return -1;
    }
    int found = -1;
    for (int i = 0; i < d->nmotions; i++)
        if (d->motions[i].motion.type == KD_MOTION_ROTATION) {
            if (found >= 0) return -1;
            found = d->motions[i].body;
        }
    return found;
}

void kd_analysis_desc_init(kd_analysis_desc* a, kd_analysis_type type) {
    memset(a, 0, sizeof(*a));
    a->type = type;
    int n = 0;
    const kd_field* f = kd_analysis_fields(type, &n);
    kd_fields_defaults(f, n, kd_analysis_fields_base(a));
}

void kd_analysis_desc_clear(kd_analysis_desc* a) {
    if (a->type == KD_ANALYSIS_DYNAMICS) {
        free(a->dynamics.initial);
        a->dynamics.initial = NULL, a->dynamics.ninitial = 0;
    }
    if (a->type == KD_ANALYSIS_SWEEP && a->sweep.inner) {
        kd_analysis_desc_clear(a->sweep.inner);
        free(a->sweep.inner);
        a->sweep.inner = NULL;
    }
}
