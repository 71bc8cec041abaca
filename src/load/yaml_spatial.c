/* The spatial-mechanism part of the model-file loader (`spatial: true`; docs/model-format.md,
 * "Spatial mechanisms"): bodies with inertia tensors and orientations, spatial joints, drivers
 * and forces into kd_desc.sdesc (kedyn/sdesc.h), then the assembly check. Called from
 * src/load/yaml_model.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/sdesc.h"
#include "kedyn/element.h"
#include "kedyn/ffr3d.h"
#include "kedyn/sked.h"
#include "kedyn/smech.h"
#include "yaml_plate.h"
#include "yaml_schema.h"

#define NOMEM(ld) kd_error_set((ld)->err, KD_ERR_NOMEM, (ld)->file, KD_LOC_NONE, "out of memory")

static int seq_len(const node_t* n) {
    return n->type == YAML_SEQUENCE_NODE ? (int)(n->data.sequence.items.top - n->data.sequence.items.start) : -1;
}

static void fields_of(const kd_field* t, int nt, field* f) {
    for (int i = 0; i < nt; i++) f[i] = (field){t[i].key, 0, 0};
    f[nt] = (field){NULL, 0, 0};
}

static kd_status get3(loader* ld, const node_t* n, const char* what, double out[3]) {
    int c;
    return get_numbers(ld, n, what, 3, 3, out, &c);
}

static double norm3(const double* a) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

static kd_status read_orientation(loader* ld, const node_t* v, kd_sbody_desc* b) {
    int nt;
    const kd_field* t = kd_sorientation_fields(&nt);
    field f[8];
    fields_of(t, nt, f);
    kd_status st = read_fields(ld, v, "orientation", f);
    if (st) return st;
    node_t *ax = field_value(f, "axis"), *an = field_value(f, "angle"), *eu = field_value(f, "euler_zyx"),
           *mx = field_value(f, "matrix");
    const int forms = (ax || an) + !!eu + !!mx;
    if (forms != 1) return fail(ld, v, "orientation takes one of {axis, angle}, {euler_zyx} or {matrix}");
    if (ax || an) {
        double axis[3], angle;
        if (!ax || !an) return fail(ld, v, "orientation {axis, angle} needs both");
        if ((st = get3(ld, ax, "axis", axis)) || (st = get_number(ld, an, "angle", &angle))) return st;
        if (!(norm3(axis) > 0)) return fail(ld, ax, "the orientation axis has zero length");
        kd_rot_axis_angle(axis, angle, b->R);
    } else if (eu) {
        double abc[3];
        if ((st = get3(ld, eu, "euler_zyx", abc))) return st;
        kd_rot_euler_zyx(abc, b->R);
    } else {
        if (seq_len(mx) != 3) return fail(ld, mx, "matrix must list three rows of three numbers");
        for (int i = 0; i < 3; i++)
            if ((st = get3(ld, node_at(ld, mx->data.sequence.items.start[i]), "matrix row", b->R + 3 * i))) return st;
        if (kd_rot_check(b->R, 1e-6))
            return fail(ld, mx, "the orientation matrix is not a rotation (orthonormal with determinant +1, to 1e-6)");
    }
    return KD_OK;
}

/* `modes` and `static_correction` of an elastic link, beam or plate (theory.md sec. 12.11, 22 SL7). */
static kd_status read_modes(loader* ld, field* f, kd_sbody_desc* b) {
    node_t* x;
    kd_status st;
    b->statics = 1;
    if ((x = field_value(f, "modes"))) {  /* modal reduction (theory.md sec. 12.11) */
        double e;
        if ((st = get_number(ld, x, "modes", &e))) return st;
        if (!(e >= 1 && e <= 100000 && e == floor(e))) return fail(ld, x, "modes must be a whole number >= 1");
        b->modes = (int)e;
    }
    if ((x = field_value(f, "static_correction"))) {
        static const char* const corr[] = {"none", "output", "basis", "soft"};  /* soft: two-way links (F12) */
        if (!b->modes) return fail(ld, x, "static_correction applies with modes");
        if ((st = get_choice(ld, x, "static_correction", corr, 4, &b->statics))) return st;
    }
    return KD_OK;
}

/* A beam body (elastic link, kedyn/sked.h): its material, section, elements, theory, frame; the
 * beam runs from the first to the last point along the body's x axis; mass rho A L, centre of
 * mass at mid-length, inertia rho (Iy + Iz) L about x and rho A L^3 / 12 (+ rho I L: rayleigh,
 * timoshenko) across (theory.md sec. 12). */
static kd_status read_beam(loader* ld, const node_t* v, field* f, kd_sbody_desc* b) {
    node_t *x, *mt, *sc;
    kd_status st;
    char name[KD_NAME_MAX];
    if ((st = require(ld, v, f, "material", "beam", &mt)) || (st = get_name(ld, mt, "material", name))) return st;
    if ((b->material = kd_desc_find_material(ld->d, name)) < 0) return fail(ld, mt, "unknown material '%s'", name);
    if ((st = require(ld, v, f, "section", "beam", &sc)) || (st = get_name(ld, sc, "section", name))) return st;
    if ((b->section = kd_desc_find_section(ld->d, name)) < 0) return fail(ld, sc, "unknown section '%s'", name);
    b->elements = 10;
    if ((x = field_value(f, "elements"))) {
        double e;
        if ((st = get_number(ld, x, "elements", &e))) return st;
        if (!(e >= 1 && e <= 100000 && e == floor(e))) return fail(ld, x, "elements must be a whole number >= 1");
        b->elements = (int)e;
    }
    b->theory = KD_THEORY_EULER_BERNOULLI;
    if ((x = field_value(f, "theory"))) {
        static const char* const th[] = {"euler-bernoulli", "rayleigh", "timoshenko"};
        static const kd_theory tv[] = {KD_THEORY_EULER_BERNOULLI, KD_THEORY_RAYLEIGH, KD_THEORY_TIMOSHENKO};
        int c = 0;
        if ((st = get_choice(ld, x, "theory", th, 3, &c))) return st;
        b->theory = tv[c];
    }
    if ((x = field_value(f, "frame"))) {
        static const char* const fr[] = {"chord", "root"};
        int c = 0;
        if ((st = get_choice(ld, x, "frame", fr, 2, &c))) return st;
        b->frame_node = c;
    }
    if ((st = read_modes(ld, f, b))) return st;
    b->geometric_stiffness = 1;
    if ((x = field_value(f, "geometric_stiffness")) && (st = get_bool(ld, x, "geometric_stiffness", &b->geometric_stiffness)))
        return st;
    x = field_value(f, "points");
    if (b->npoints < 2) return fail(ld, x ? x : v, "a beam needs two points (its ends, on its x axis)");
    const double *a = b->points[0].x, *e = b->points[b->npoints - 1].x;
    b->length = e[0] - a[0];
    for (int i = 0; i < b->npoints; i++)
        if (fabs(b->points[i].x[1] - a[1]) > 1e-9 || fabs(b->points[i].x[2] - a[2]) > 1e-9)
            return fail(ld, x, "the points of a beam lie on a line along its x axis (same y and z)");
    if (!(b->length > 0)) return fail(ld, x, "a beam runs along +x from its first to its last point");
    memcpy(b->p1, a, sizeof(b->p1));
    b->beam = 1;
    const kd_material_desc* m = &ld->d->materials[b->material];
    kd_element_consts c;
    memset(&c, 0, sizeof(c));
    kd_section_properties(&ld->d->sections[b->section], m->nu, &c);
    const double L = b->length, mass = m->rho * c.A * L, rot = b->theory == KD_THEORY_EULER_BERNOULLI ? 0.0 : 1.0;
    b->mass = mass;
    b->inertia[0] = m->rho * (c.Iy + c.Iz) * L;
    b->inertia[1] = mass * L * L / 12 + rot * m->rho * c.Iy * L;
    b->inertia[2] = mass * L * L / 12 + rot * m->rho * c.Iz * L;
    b->com[0] = a[0] + 0.5 * L, b->com[1] = a[1], b->com[2] = a[2];
    if (!(mass > 0) || !(b->inertia[0] > 0)) return fail(ld, sc, "the section gives the beam no mass");
    return KD_OK;
}

/* A plate body (a shell link, kedyn/sked.h, theory.md sec. 22): a shell mesh flat in the body's
 * x-y plane (the body frame), its node sets, `support` (the set clamped to the link's frame) and
 * `output`; every point at a mesh node; mass, centre of mass and inertia from the mesh. */
static kd_status read_plate(loader* ld, const node_t* v, field* f, kd_sbody_desc* b) {
    kd_body_desc* p = b->shell = calloc(1, sizeof(*p));
    if (!p) return NOMEM(ld);
    snprintf(p->name, sizeof(p->name), "%s", b->name);
    p->type = KD_BODY_PLATE, p->theory = KD_THEORY_SHELL, p->interpolation = KD_INTERP_MITC4, p->section = -1;
    p->geometric_stiffness = 1, p->loc = b->loc;
    node_t *x, *th;
    kd_status st;
    int c = 0;
    if ((x = field_value(f, "theory"))) {
        static const char* const shell[] = {"shell"};
        if ((st = get_choice(ld, x, "theory (a plate link)", shell, 1, &c))) return st;
    }
    if ((x = field_value(f, "interpolation"))) {
        static const char* const in[] = {"dkt", "mitc4", "t6", "q8", "q9"};
        static const kd_interp iv[] = {KD_INTERP_DKT, KD_INTERP_MITC4, KD_INTERP_T6, KD_INTERP_Q8, KD_INTERP_Q9};
        if ((st = get_choice(ld, x, "interpolation (shell)", in, 5, &c))) return st;
        p->interpolation = iv[c];
    }
    if ((st = require(ld, v, f, "thickness", "plate", &th)) ||
        (st = get_positive(ld, th, "thickness", &p->thickness)) || (st = yaml_read_plate_body(ld, v, f, p)))
        return st;
    node_t* mesh = field_value(f, "mesh");
    const kd_mesh_desc* g = &p->mesh;
    for (int k = 0; k < 3; k++)
        if (g->origin[k] != 0 || g->x_axis[k] != 0 || g->normal[k] != 0)
            return fail(ld, mesh,
                        "the mesh of a plate link is in its body frame: origin, x_axis and normal do not apply");
    const double tol = 1e-6 * kd_mesh_size(g);
    for (int i = 0; i < g->nnodes; i++)
        if (fabs(g->node_x[3 * i + 2]) > tol)
            return fail(ld, mesh,
                        "node %d of the mesh of plate link '%s' is off its x-y plane (z = %g): a plate link is flat",
                        g->node_tag[i], b->name, g->node_x[3 * i + 2]);
    /* the membrane stress stiffening of two-way shells (theory.md sec. 22, SL8) */
    if ((x = field_value(f, "geometric_stiffness")) &&
        (st = get_bool(ld, x, "geometric_stiffness", &p->geometric_stiffness)))
        return st;
    b->geometric_stiffness = p->geometric_stiffness;
    const kd_node_set_desc* set;
    if ((st = require(ld, v, f, "support", "plate", &x)) || (st = yaml_node_set(ld, x, p, &set))) return st;
    b->support_set = (int)(set - p->node_sets);
    b->output_set = -1;
    if ((x = field_value(f, "output"))) {
        if ((st = yaml_node_set(ld, x, p, &set))) return st;
        b->output_set = (int)(set - p->node_sets);
    }
    for (int i = 0; i < b->npoints; i++)
        if (!kd_splate_node_at(p, b->points[i].x))
            return kd_error_set(ld->err, KD_ERR_INPUT, ld->file, b->points[i].loc,
                                "point '%s' of plate link '%s' is not at a node of its mesh", b->points[i].name,
                                b->name);
    if (kd_splate_mass(p, ld->d->materials[p->material].rho, &b->mass, b->com, b->inertia) ||
        !(b->mass > 0) || !(b->inertia[0] > 0) || !(b->inertia[1] > 0))
        return fail(ld, th, "the plate link '%s' has no mass (a positive density and area)", b->name);
    b->plate = 1;
    return KD_OK;
}

static kd_status read_body(loader* ld, const node_t* v) {
    kd_sdesc* s = ld->d->sdesc;
    int nt;
    const kd_field* t = kd_sbody_fields(&nt);
    field f[32];
    fields_of(t, nt, f);
    kd_status st = read_fields(ld, v, "body", f);
    if (st) return st;
    kd_sbody_desc* b = kd_sdesc_add_body(s);
    if (!b) return NOMEM(ld);
    b->loc = loc_of(v);
    node_t *name, *type, *x;
    static const char* const kinds[] = {"ground", "rigid", "beam", "plate"};
    int kind = 0;
    if ((st = require(ld, v, f, "name", "body", &name)) || (st = get_name(ld, name, "body name", b->name)) ||
        (st = require(ld, v, f, "type", "body", &type)) ||
        (st = get_choice(ld, type, "body type (spatial mechanisms)", kinds, 4, &kind)))
        return st;
    if (kd_sdesc_find_body(s, b->name) != s->nbodies - 1) return fail(ld, name, "body '%s' is defined twice", b->name);
    b->ground = kind == 0;
    if ((x = field_value(f, "points"))) {
        if (x->type != YAML_MAPPING_NODE) return fail(ld, x, "points must map names to [x, y, z]");
        for (yaml_node_pair_t* p = x->data.mapping.pairs.start; p < x->data.mapping.pairs.top; p++) {
            if (b->npoints >= KD_POINTS_MAX) return fail(ld, x, "more than %d points", KD_POINTS_MAX);
            kd_point_desc* pt = &b->points[b->npoints];
            node_t* k = node_at(ld, p->key);
            if ((st = get_name(ld, k, "point name", pt->name)) ||
                (st = get3(ld, node_at(ld, p->value), "point", pt->x)))
                return st;
            pt->loc = loc_of(k);
            for (int i = 0; i < b->npoints; i++)
                if (!strcmp(b->points[i].name, pt->name)) return fail(ld, k, "point '%s' is defined twice", pt->name);
            b->npoints++;
        }
    }
    static const char* const plate_only[] = {"interpolation", "thickness", "mesh", "node_sets", "support", "output"};
    for (size_t i = 0; kind != 3 && i < sizeof plate_only / sizeof plate_only[0]; i++)
        if ((x = field_value(f, plate_only[i])))
            return fail(ld, x, "'%s' applies to a plate (a shell link)", plate_only[i]);
    static const char* const rigid_only[] = {"mass", "inertia", "com", "position", "orientation", "velocity",
                                             "angular_velocity"};
    if (b->ground) {
        for (size_t i = 0; i < sizeof rigid_only / sizeof rigid_only[0]; i++)
            if ((x = field_value(f, rigid_only[i])))
                return fail(ld, x, "'%s' does not apply to a ground body", rigid_only[i]);
        return KD_OK;
    }
    static const char* const beam_only[] = {"material", "section", "elements", "theory", "frame", "modes",
                                            "static_correction", "geometric_stiffness"};
    if (kind == 3) {  /* a shell link: what it does not take, then the plate */
        static const char* const not_plate[] = {"mass", "inertia", "com", "section", "elements", "frame"};
        for (size_t i = 0; i < sizeof not_plate / sizeof not_plate[0]; i++)
            if ((x = field_value(f, not_plate[i])))
                return fail(ld, x, "'%s' does not apply to a plate link (its mass, inertia and com come from its mesh)",
                            not_plate[i]);
        if ((st = read_plate(ld, v, f, b)) || (st = read_modes(ld, f, b))) return st;
    } else if (kind != 2) {
        for (size_t i = 0; i < sizeof beam_only / sizeof beam_only[0]; i++)
            if ((x = field_value(f, beam_only[i])))
                return fail(ld, x, "'%s' applies to a beam (an elastic link)", beam_only[i]);
    } else {
        static const char* const rigid_keys[] = {"mass", "inertia", "com"};
        for (size_t i = 0; i < sizeof rigid_keys / sizeof rigid_keys[0]; i++)
            if ((x = field_value(f, rigid_keys[i])))
                return fail(ld, x, "'%s' of a beam comes from its material and section", rigid_keys[i]);
        if ((st = read_beam(ld, v, f, b))) return st;
    }
    node_t *mn, *in;
    int c;
    if (kind >= 2) {
        /* common keys of rigid bodies; mass, inertia and com come from the beam or the plate */
    } else if ((st = require(ld, v, f, "mass", "rigid body", &mn)) || (st = get_positive(ld, mn, "mass", &b->mass)) ||
        (st = require(ld, v, f, "inertia", "rigid body", &in)) ||
        (st = get_numbers(ld, in, "inertia [Ixx, Iyy, Izz, Ixy, Iyz, Izx]", 6, 6, b->inertia, &c)))
        return st;
    if (kind < 2) {
        b->loc_inertia = loc_of(in);
        double J[9];
        const int bad = kd_inertia_tensor(b->inertia, J);
        if (bad == 1) return fail(ld, in, "the inertia tensor of '%s' is not positive definite", b->name);
        if (bad == 2)
            return fail(ld, in,
                        "the inertia tensor of '%s' violates the triangle inequality (a principal moment exceeds "
                        "the sum of the other two)", b->name);
        if ((x = field_value(f, "com")) && (st = get3(ld, x, "com", b->com))) return st;
    }
    if ((x = field_value(f, "position")) && (st = get3(ld, x, "position", b->position))) return st;
    if ((x = field_value(f, "velocity")) && (st = get3(ld, x, "velocity", b->velocity))) return st;
    if ((x = field_value(f, "angular_velocity")) && (st = get3(ld, x, "angular_velocity", b->angular_velocity)))
        return st;
    if ((x = field_value(f, "orientation"))) {
        b->loc_orientation = loc_of(x);
        if ((st = read_orientation(ld, x, b))) return st;
    }
    return KD_OK;
}

static kd_status get_sbody(loader* ld, const node_t* n, int* out) {
    char name[KD_NAME_MAX];
    kd_status st = get_name(ld, n, "body", name);
    if (st) return st;
    *out = kd_sdesc_find_body(ld->d->sdesc, name);
    return *out < 0 ? fail(ld, n, "unknown body '%s'", name) : KD_OK;
}

static kd_status get_spoint(loader* ld, const node_t* n, int b, int* out) {
    char name[KD_NAME_MAX];
    kd_status st = get_name(ld, n, "point", name);
    if (st) return st;
    *out = kd_sdesc_find_point(ld->d->sdesc, b, name);
    return *out < 0 ? fail(ld, n, "body '%s' has no point '%s'", ld->d->sdesc->bodies[b].name, name) : KD_OK;
}

/* bodies: [A, B] and points: [P, Q] */
static kd_status get_pair(loader* ld, const node_t* v, field* f, const char* what, int body[2], int point[2]) {
    node_t *bn, *pn;
    kd_status st;
    if ((st = require(ld, v, f, "bodies", what, &bn))) return st;
    if (seq_len(bn) != 2) return fail(ld, bn, "bodies must list two bodies");
    for (int k = 0; k < 2; k++)
        if ((st = get_sbody(ld, node_at(ld, bn->data.sequence.items.start[k]), &body[k]))) return st;
    if (body[0] == body[1]) return fail(ld, bn, "a %s connects two different bodies", what);
    if (ld->d->sdesc->bodies[body[0]].ground && ld->d->sdesc->bodies[body[1]].ground)
        return fail(ld, bn, "a %s between two ground bodies", what);
    if ((st = require(ld, v, f, "points", what, &pn))) return st;
    if (seq_len(pn) != 2) return fail(ld, pn, "points must list one point on each body");
    for (int k = 0; k < 2; k++)
        if ((st = get_spoint(ld, node_at(ld, pn->data.sequence.items.start[k]), body[k], &point[k]))) return st;
    return KD_OK;
}

static kd_status read_joint(loader* ld, const node_t* v) {
    kd_sdesc* s = ld->d->sdesc;
    int nt;
    const kd_field* t = kd_sjoint_fields(&nt);
    field f[16];
    fields_of(t, nt, f);
    kd_status st = read_fields(ld, v, "joint", f);
    if (st) return st;
    kd_sjoint_desc* j = kd_sdesc_add_joint(s);
    if (!j) return NOMEM(ld);
    j->loc = loc_of(v);
    node_t *name, *type, *x;
    if ((st = require(ld, v, f, "name", "joint", &name)) || (st = get_name(ld, name, "joint name", j->name)) ||
        (st = require(ld, v, f, "type", "joint", &type)) ||
        (st = get_choice(ld, type, "joint type (spatial)", kd_sjoint_type_names, KD_SJOINT_TYPE_COUNT, &j->type)))
        return st;
    if (kd_sdesc_find_joint(s, j->name) != s->njoints - 1) return fail(ld, name, "joint '%s' is defined twice", j->name);
    char what[KD_NAME_MAX + 16];
    snprintf(what, sizeof(what), "joint '%s'", j->name);
    if ((st = get_pair(ld, v, f, what, j->body, j->point))) return st;
    const kd_sjoint_type jt = (kd_sjoint_type)j->type;
    const int axial = jt != KD_SJOINT_SPHERICAL && jt != KD_SJOINT_DISTANCE && jt != KD_SJOINT_UNIVERSAL;
    if ((x = field_value(f, "axis"))) {
        if (!axial) return fail(ld, x, "'axis' does not apply to a %s joint", kd_sjoint_type_names[j->type]);
        if ((st = get3(ld, x, "axis", j->axis[0]))) return st;
        if (!(norm3(j->axis[0]) > 0)) return fail(ld, x, "the axis of joint '%s' has zero length", j->name);
        j->loc_axis = loc_of(x);
    } else if (axial) {
        return fail(ld, v, "missing required key 'axis' in %s (%s)", what, kd_sjoint_type_names[j->type]);
    }
    if ((x = field_value(f, "axes"))) {
        if (jt != KD_SJOINT_UNIVERSAL) return fail(ld, x, "'axes' applies to universal joints only");
        if (seq_len(x) != 2) return fail(ld, x, "axes must list two axes [[..], [..]]");
        for (int k = 0; k < 2; k++) {
            node_t* a = node_at(ld, x->data.sequence.items.start[k]);
            if ((st = get3(ld, a, "axis", j->axis[k]))) return st;
            if (!(norm3(j->axis[k]) > 0)) return fail(ld, a, "axis %d of joint '%s' has zero length", k + 1, j->name);
        }
        j->loc_axis = loc_of(x);
    } else if (jt == KD_SJOINT_UNIVERSAL) {
        return fail(ld, v, "missing required key 'axes' in %s (universal)", what);
    }
    if ((x = field_value(f, "length"))) {
        if (jt != KD_SJOINT_DISTANCE) return fail(ld, x, "'length' applies to distance joints only");
        if ((st = get_positive(ld, x, "length", &j->length))) return st;
    }
    return KD_OK;
}

static kd_status read_driver(loader* ld, const node_t* v) {
    kd_sdesc* s = ld->d->sdesc;
    int nt;
    const kd_field* t = kd_driver_fields(&nt);
    field f[8];
    fields_of(t, nt, f);
    kd_status st = read_fields(ld, v, "driver", f);
    if (st) return st;
    kd_sdriver_desc* dr = kd_sdesc_add_driver(s);
    if (!dr) return NOMEM(ld);
    dr->loc = loc_of(v);
    node_t *jn, *law, *x;
    char name[KD_NAME_MAX];
    if ((st = require(ld, v, f, "joint", "driver", &jn)) || (st = get_name(ld, jn, "joint", name))) return st;
    dr->joint = kd_sdesc_find_joint(s, name);
    if (dr->joint < 0) return fail(ld, jn, "unknown joint '%s'", name);
    const kd_sjoint_type jt = (kd_sjoint_type)s->joints[dr->joint].type;
    if (jt != KD_SJOINT_REVOLUTE && jt != KD_SJOINT_PRISMATIC && jt != KD_SJOINT_CYLINDRICAL)
        return fail(ld, jn, "joint '%s' is %s; drivers act on revolute, prismatic and cylindrical joints", name,
                    kd_sjoint_type_names[jt]);
    for (const kd_sdriver_desc* o = s->drivers; o < dr; o++)
        if (o->joint == dr->joint) return fail(ld, jn, "joint '%s' has two drivers", name);
    if ((x = field_value(f, "initial")) && (st = get_number(ld, x, "initial", &dr->initial))) return st;
    if ((st = require(ld, v, f, "law", "driver", &law)) || (st = read_law(ld, law, "law", &dr->law))) return st;
    if (kd_law_smoothness(&dr->law) < 2)
        return fail(ld, law, "a driver law needs accelerations: use a spline table, not linear interpolation");
    return KD_OK;
}

static kd_status read_laws3(loader* ld, const node_t* x, kd_law v[3]) {
    if (seq_len(x) != 3) return fail(ld, x, "value must list the three global components [x, y, z] (numbers or laws)");
    static const char* const comp[3] = {"x component", "y component", "z component"};
    for (int c = 0; c < 3; c++) {
        kd_status st = read_law(ld, node_at(ld, x->data.sequence.items.start[c]), comp[c], &v[c]);
        if (st) return st;
    }
    return KD_OK;
}

static kd_status read_force(loader* ld, const node_t* v) {
    kd_sdesc* s = ld->d->sdesc;
    int nt;
    const kd_field* t = kd_sforce_fields(&nt);
    field f[16];
    fields_of(t, nt, f);
    kd_status st = read_fields(ld, v, "force", f);
    if (st) return st;
    kd_sforce_desc* F = kd_sdesc_add_force(s);
    if (!F) return NOMEM(ld);
    F->loc = loc_of(v);
    node_t *type, *x;
    int kind;
    if ((st = require(ld, v, f, "type", "force", &type)) ||
        (st = get_choice(ld, type, "force type (spatial)", kd_sforce_kind_names, KD_SF_KINDS, &kind)))
        return st;
    F->kind = (kd_sforce_kind)kind;
    /* keys of each kind */
    static const char* const keys[KD_SF_KINDS][6] = {{"g"},
                                                     {"body", "value"},
                                                     {"body", "point", "value"},
                                                     {"bodies", "points", "k", "length", "c"}};
    for (field* p = f; p->key; p++) {
        if (!p->value || !strcmp(p->key, "type")) continue;
        int ok = 0;
        for (int k = 0; k < 6 && keys[kind][k]; k++) ok |= !strcmp(keys[kind][k], p->key);
        if (!ok) return fail(ld, p->key_node, "'%s' does not apply to a %s force", p->key, kd_sforce_kind_names[kind]);
    }
    node_t *b, *val;
    switch (F->kind) {
    case KD_SF_GRAVITY:
        if ((st = require(ld, v, f, "g", "gravity", &x)) || (st = get3(ld, x, "g", F->g))) return st;
        break;
    case KD_SF_TORQUE:
    case KD_SF_FORCE:
        if ((st = require(ld, v, f, "body", "force", &b)) || (st = get_sbody(ld, b, &F->body[0]))) return st;
        if (s->bodies[F->body[0]].ground) return fail(ld, b, "a %s acts on a rigid body", kd_sforce_kind_names[kind]);
        if (F->kind == KD_SF_FORCE &&
            ((st = require(ld, v, f, "point", "force", &x)) || (st = get_spoint(ld, x, F->body[0], &F->point[0]))))
            return st;
        if ((st = require(ld, v, f, "value", "force", &val)) || (st = read_laws3(ld, val, F->value))) return st;
        break;
    default:
        if ((st = get_pair(ld, v, f, "spring", F->body, F->point))) return st;
        if ((x = field_value(f, "k")) && (st = get_number(ld, x, "k", &F->k))) return st;
        if ((x = field_value(f, "length")) && (st = get_number(ld, x, "length", &F->length))) return st;
        if ((x = field_value(f, "c")) && (st = get_number(ld, x, "c", &F->c))) return st;
        if (F->k < 0 || F->length < 0 || F->c < 0) return fail(ld, v, "k, length and c of a spring must be >= 0");
        break;
    }
    return KD_OK;
}

static kd_status each(loader* ld, const node_t* seq, const char* what, kd_status (*fn)(loader*, const node_t*)) {
    kd_status st = expect(ld, seq, YAML_SEQUENCE_NODE, what);
    for (yaml_node_item_t* it = seq->data.sequence.items.start; !st && it < seq->data.sequence.items.top; it++)
        st = fn(ld, node_at(ld, *it));
    return st;
}

kd_status yaml_read_spatial(loader* ld, const node_t* root, field* f) {
    static const char* const planar_only[] = {"supports", "motion", "damping", "output"};
    node_t *x, *bodies;
    for (size_t i = 0; i < sizeof planar_only / sizeof planar_only[0]; i++)
        if ((x = field_value(f, planar_only[i])))
            return fail(ld, x, "'%s' does not apply to a spatial mechanism (rigid bodies only)", planar_only[i]);
    ld->d->sdesc = kd_sdesc_new();
    if (!ld->d->sdesc) return NOMEM(ld);
    kd_status st;
    if ((st = require(ld, root, f, "bodies", "the model", &bodies)) || (st = each(ld, bodies, "bodies", read_body)))
        return st;
    int moving = 0;
    for (int b = 0; b < ld->d->sdesc->nbodies; b++) moving += !ld->d->sdesc->bodies[b].ground;
    if (!moving) return fail(ld, bodies, "a spatial mechanism needs a rigid body");
    if ((x = field_value(f, "joints")) && (st = each(ld, x, "joints", read_joint))) return st;
    if ((x = field_value(f, "drivers")) && (st = each(ld, x, "drivers", read_driver))) return st;
    if ((x = field_value(f, "forces")) && (st = each(ld, x, "forces", read_force))) return st;
    return KD_OK;
}

/* After the analyses: the spatial analyses only, then compile and assemble (located errors). */
kd_status yaml_check_spatial(loader* ld, const node_t* root, field* f) {
    for (int i = 0; i < ld->d->nanalyses; i++) {
        const kd_analysis_desc* a = &ld->d->analyses[i];
        const int links = kd_desc_elastic_links(ld->d) > 0;
        if (a->type != KD_ANALYSIS_KINEMATICS && a->type != KD_ANALYSIS_INVERSE_DYNAMICS &&
            a->type != KD_ANALYSIS_DYNAMICS && !(links && a->type == KD_ANALYSIS_MODES_ALONG_MOTION))
            return kd_error_set(ld->err, KD_ERR_INPUT, ld->file, a->loc,
                                "a spatial mechanism runs kinematics, inverse_dynamics and dynamics%s, not %s",
                                links ? " (with elastic links modes_along_motion)" : "",
                                kd_analysis_type_name(a->type));
        if (a->type == KD_ANALYSIS_MODES_ALONG_MOTION &&
            (a->modes_along_motion.speed > 0 || a->modes_along_motion.settle > 0 || a->modes_along_motion.body >= 0))
            return kd_error_set(ld->err, KD_ERR_INPUT, ld->file, a->loc,
                                "speed, settle and body are not taken by the elastic links of a spatial mechanism");
        if (a->type == KD_ANALYSIS_DYNAMICS && kd_desc_elastic_links(ld->d) > 0) {
            if (a->dynamics.speed > 0 || a->dynamics.settle > 0)
                return kd_error_set(ld->err, KD_ERR_INPUT, ld->file, a->loc,
                                    "speed and settle are not taken by the elastic links of a spatial mechanism");
        }
        /* static_correction: soft is a two-way link's basis (theory.md sec. 17, F12) */
        const int one_way = a->type == KD_ANALYSIS_MODES_ALONG_MOTION ||
                            (a->type == KD_ANALYSIS_DYNAMICS && a->dynamics.coupling != KD_COUPLING_TWO_WAY);
        for (int b = 0; one_way && b < ld->d->sdesc->nbodies; b++)
            if (ld->d->sdesc->bodies[b].statics == 3)
                return kd_error_set(ld->err, KD_ERR_INPUT, ld->file, ld->d->sdesc->bodies[b].loc,
                                    "static_correction: soft applies to two-way links (analysis %d takes the links one-way)",
                                    i + 1);
    }
    kd_smech* m = NULL;
    kd_status st = kd_smech_compile(ld->d, &m, ld->err);
    if (st) return st;
    double* q = malloc(sizeof(double) * (size_t)m->n);
    if (!q) {
        kd_smech_free(&m);
        return NOMEM(ld);
    }
    memcpy(q, m->q0, sizeof(double) * (size_t)m->n);
    kd_error e;
    node_t* at = field_value(f, "joints");
    if (kd_smech_solve_position(m, 0.0, q, NULL, &e))
        st = fail(ld, at ? at : root, "the mechanism cannot assemble from the initial guesses: %s", e.msg);
    /* two-way links (kedyn/ffr3d.h): what the coupled system does not take, located */
    for (int i = 0; !st && i < ld->d->nanalyses; i++)
        if (ld->d->analyses[i].type == KD_ANALYSIS_DYNAMICS && kd_desc_elastic_links(ld->d) > 0 &&
            ld->d->analyses[i].dynamics.coupling == KD_COUPLING_TWO_WAY) {
            kd_ffr3d_system* s3 = NULL;
            double *q3 = NULL, *qd3 = NULL;
            st = kd_ffr3d_from_smech(ld->d, m, &s3, &q3, &qd3, ld->err);
            kd_ffr3d_free(&s3), free(q3), free(qd3);
            break;
        }
    free(q);
    kd_smech_free(&m);
    return st;
}
