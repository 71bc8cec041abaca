/* The description of a spatial rigid mechanism (kedyn/sdesc.h): items, lookups, key tables. */
#include <stdlib.h>
#include <string.h>

#include "kedyn/sdesc.h"

const char* const kd_sjoint_type_names[KD_SJOINT_TYPE_COUNT] = {
    "spherical", "revolute", "universal", "cylindrical", "prismatic", "fixed", "point-on-line", "point-on-plane",
    "distance"};
const char* const kd_sforce_kind_names[KD_SF_KINDS] = {"gravity", "torque", "force", "spring"};

kd_sdesc* kd_sdesc_new(void) { return calloc(1, sizeof(kd_sdesc)); }

void kd_sdesc_free(kd_sdesc** ps) {
    if (!ps || !*ps) return;
    kd_sdesc* s = *ps;
    for (int i = 0; i < s->ndrivers; i++) kd_law_free(&s->drivers[i].law);
    for (int i = 0; i < s->nforces; i++)
        for (int c = 0; c < 3; c++) kd_law_free(&s->forces[i].value[c]);
    for (int i = 0; i < s->nbodies; i++)  /* plate links' mesh bodies */
        if (s->bodies[i].shell) {
            kd_mesh_clear(&s->bodies[i].shell->mesh);
            for (int k = 0; k < s->bodies[i].shell->nnode_sets; k++) free(s->bodies[i].shell->node_sets[k].nodes);
            free(s->bodies[i].shell->node_sets), free(s->bodies[i].shell);
        }
    free(s->bodies), free(s->joints), free(s->drivers), free(s->forces);
    free(s);
    *ps = NULL;
}

static void* add(void** arr, int* n, size_t size) {
    void* p = realloc(*arr, size * (size_t)(*n + 1));
    if (!p) return NULL;
    *arr = p;
    void* item = (char*)p + size * (size_t)*n;
    memset(item, 0, size);
    (*n)++;
    return item;
}

kd_sbody_desc* kd_sdesc_add_body(kd_sdesc* s) {
    kd_sbody_desc* b = add((void**)&s->bodies, &s->nbodies, sizeof(*b));
    if (b) b->R[0] = b->R[4] = b->R[8] = 1.0;
    return b;
}
kd_sjoint_desc* kd_sdesc_add_joint(kd_sdesc* s) {
    kd_sjoint_desc* j = add((void**)&s->joints, &s->njoints, sizeof(*j));
    if (j) j->body[0] = j->body[1] = j->point[0] = j->point[1] = -1;
    return j;
}
kd_sdriver_desc* kd_sdesc_add_driver(kd_sdesc* s) {
    kd_sdriver_desc* d = add((void**)&s->drivers, &s->ndrivers, sizeof(*d));
    if (d) d->joint = -1, d->law = kd_law_constant(0.0);
    return d;
}
kd_sforce_desc* kd_sdesc_add_force(kd_sdesc* s) {
    kd_sforce_desc* f = add((void**)&s->forces, &s->nforces, sizeof(*f));
    if (f) {
        f->body[0] = f->body[1] = f->point[0] = f->point[1] = -1;
        for (int c = 0; c < 3; c++) f->value[c] = kd_law_constant(0.0);
    }
    return f;
}

int kd_sdesc_find_body(const kd_sdesc* s, const char* name) {
    for (int i = 0; i < s->nbodies; i++)
        if (!strcmp(s->bodies[i].name, name)) return i;
    return -1;
}
int kd_sdesc_find_joint(const kd_sdesc* s, const char* name) {
    for (int i = 0; i < s->njoints; i++)
        if (!strcmp(s->joints[i].name, name)) return i;
    return -1;
}
int kd_sdesc_find_point(const kd_sdesc* s, int b, const char* name) {
    for (int i = 0; i < s->bodies[b].npoints; i++)
        if (!strcmp(s->bodies[b].points[i].name, name)) return i;
    return -1;
}

#define CUSTOM(k, ...) {.key = k, .type = KD_FIELD_CUSTOM, __VA_ARGS__}
#define TABLE(t)                                        \
    do {                                                \
        *n = (int)(sizeof(t) / sizeof((t)[0]));         \
        return t;                                       \
    } while (0)

static const kd_field sbody_fields[] = {
    CUSTOM("name", .required = 1, .doc = "unique name"),
    CUSTOM("type", .required = 1, .doc = "ground, rigid, beam (an elastic link: a 3D beam along the body's x axis) or plate (a shell link)"),
    CUSTOM("points", .doc = "named points {NAME: [x, y, z]} in the body frame (ground: global)"),
    CUSTOM("mass", .required = 1, .doc = "rigid: kg (beam: rho A L)"),
    CUSTOM("inertia", .required = 1, .doc = "rigid: [Ixx, Iyy, Izz, Ixy, Iyz, Izx] about the centre of mass, body axes, kg m^2 (beam: from the section)"),
    CUSTOM("com", .doc = "rigid: centre of mass in the body frame, m"),
    CUSTOM("position", .doc = "rigid: initial guess of the frame origin (global), m"),
    CUSTOM("orientation", .doc = "rigid: initial axes, {axis, angle}, {euler_zyx} or {matrix}"),
    CUSTOM("velocity", .doc = "rigid: initial velocity of the centre of mass (global), m/s"),
    CUSTOM("angular_velocity", .doc = "rigid: initial angular velocity (global), rad/s"),
    CUSTOM("material", .doc = "beam, plate: a material's name"),
    CUSTOM("section", .doc = "beam: a section's name"),
    CUSTOM("elements", .doc = "beam: number of elements (>= 1)"),
    CUSTOM("theory", .doc = "beam: euler-bernoulli (default), rayleigh or timoshenko; plate: shell (default)"),
    CUSTOM("frame", .doc = "beam: chord (default) or root, the link's floating frame"),
    CUSTOM("modes", .doc = "beam: one-way links projected on their lowest N constrained modes at rest (default: none)"),
    CUSTOM("static_correction", .doc = "beam with modes: output (default: the truncated modes' static share at the output instants), basis, none or (two-way) soft"),
    CUSTOM("geometric_stiffness", .doc = "beam, two-way: true (default) or false, the geometric stiffness of the elastic "
                                         "axial force; plate, two-way: of the membrane stress"),
    CUSTOM("interpolation", .doc = "plate: the shell element, dkt, mitc4, t6, q8 or q9"),
    CUSTOM("thickness", .doc = "plate: m (> 0)"),
    CUSTOM("mesh", .doc = "plate: {rectangle, divisions} or {file} in the body's x-y plane (body frame)"),
    CUSTOM("node_sets", .doc = "plate: named node sets {NAME: {x, y, z, tol} or {nodes}}"),
    CUSTOM("support", .doc = "plate: the node set clamped to the link's frame (the body frame)"),
    CUSTOM("output", .doc = "plate: the node set whose displacements dynamics.csv lists (default: every node)"),
};
const kd_field* kd_sbody_fields(int* n) { TABLE(sbody_fields); }

static const kd_field sorientation_fields[] = {
    CUSTOM("axis", .doc = "rotation axis (any length but zero)"),
    CUSTOM("angle", .doc = "rotation angle about axis, rad"),
    CUSTOM("euler_zyx", .doc = "[a, b, c]: R = Rz(a) Ry(b) Rx(c), rad"),
    CUSTOM("matrix", .doc = "[[..], [..], [..]]: rows of R (global = R body), orthonormal, det +1"),
};
const kd_field* kd_sorientation_fields(int* n) { TABLE(sorientation_fields); }

static const kd_field sjoint_fields[] = {
    CUSTOM("name", .required = 1, .doc = "unique name"),
    CUSTOM("type", .required = 1,
           .doc = "spherical, revolute, universal, cylindrical, prismatic, fixed, point-on-line, point-on-plane or distance"),
    CUSTOM("bodies", .required = 1, .doc = "[B1, B2]"),
    CUSTOM("points", .required = 1, .doc = "[P1, P2]: a point of each body"),
    CUSTOM("axis", .doc = "revolute, cylindrical, prismatic, fixed, point-on-line, point-on-plane: direction in B1's frame"),
    CUSTOM("axes", .doc = "universal: [axis 1 in B1's frame, axis 2 in B2's frame], orthogonal in the initial pose"),
    CUSTOM("length", .doc = "distance: m (default: the distance in the initial guess)"),
};
const kd_field* kd_sjoint_fields(int* n) { TABLE(sjoint_fields); }

static const kd_field sforce_fields[] = {
    CUSTOM("type", .required = 1, .doc = "gravity, torque, force or spring"),
    CUSTOM("g", .doc = "gravity: [gx, gy, gz], m/s^2"),
    CUSTOM("body", .doc = "torque, force: a rigid body's name"),
    CUSTOM("point", .doc = "force: a point of that body"),
    CUSTOM("value", .doc = "torque, force: [x, y, z] global components, each a law of time"),
    CUSTOM("bodies", .doc = "spring: [B1, B2]"),
    CUSTOM("points", .doc = "spring: [P1, P2]"),
    CUSTOM("k", .doc = "spring: N/m"),
    CUSTOM("length", .doc = "spring: free length, m"),
    CUSTOM("c", .doc = "spring: damping, N s/m"),
};
const kd_field* kd_sforce_fields(int* n) { TABLE(sforce_fields); }
