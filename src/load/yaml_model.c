/* The model-file loader: YAML -> checked description (kedyn/load_yaml.h).
 *
 * libyaml's document API gives a tree whose nodes carry their line and
 * column. A small schema layer walks it: each mapping lists its allowed keys
 * (an unknown key is an error at the key), each value is converted by a typed
 * getter that reports wrong types and out-of-range values at the value, and
 * names are resolved to indices. kd_desc_check then checks the description
 * as a whole. Every error stops the load with FILE:LINE:COL.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "kedyn/load_yaml.h"
#include "kedyn/model_check.h"
#include "yaml_limits.h"
#include "yaml_plate.h"
#include "yaml_records.h"
#include "yaml_schema.h"

/* ---- model sections ----------------------------------------------------- */

static kd_status read_materials(loader* ld, const node_t* map) {
    int n = 0;
    const kd_field* table = kd_material_fields(&n);
    kd_status st = expect(ld, map, YAML_MAPPING_NODE, "materials");
    for (yaml_node_pair_t* p = map->data.mapping.pairs.start; !st && p < map->data.mapping.pairs.top; p++) {
        node_t *k = node_at(ld, p->key), *v = node_at(ld, p->value);
        kd_material_desc* m = kd_desc_add_material(ld->d);
        if (!m) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
        field f[8];
        char what[KD_NAME_MAX + 16];
        m->loc = loc_of(v);
        if ((st = get_name(ld, k, "material name", m->name))) break;
        snprintf(what, sizeof(what), "material '%s'", m->name);
        if (v->type != YAML_MAPPING_NODE) return fail(ld, v, "expected a mapping for material");
        if ((st = read_table(ld, v, what, table, n, 0, m, f, (int)(sizeof f / sizeof f[0])))) break;
        if (kd_desc_find_material(ld->d, m->name) != ld->d->nmaterials - 1)
            st = fail(ld, k, "material '%s' is defined twice", m->name);
    }
    return st;
}

static kd_status read_sections(loader* ld, const node_t* map) {
    int n = 0;
    const kd_field* table = kd_section_fields(&n);
    const kd_field* shape_field = kd_field_find(table, n, "shape");
    kd_status st = expect(ld, map, YAML_MAPPING_NODE, "sections");
    for (yaml_node_pair_t* p = map->data.mapping.pairs.start; !st && p < map->data.mapping.pairs.top; p++) {
        node_t *k = node_at(ld, p->key), *v = node_at(ld, p->value), *sh;
        kd_section_desc* s = kd_desc_add_section(ld->d);
        if (!s) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
        s->loc = loc_of(v);
        if ((st = get_name(ld, k, "section name", s->name))) break;
        if (v->type != YAML_MAPPING_NODE) return fail(ld, v, "expected a mapping for section '%s'", s->name);
        /* the shape first, then the keys that shape takes (their `only` in the table) */
        sh = NULL;
        for (yaml_node_pair_t* q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++)
            if (scalar(node_at(ld, q->key)) && strcmp(scalar(node_at(ld, q->key)), "shape") == 0) sh = node_at(ld, q->value);
        if (!sh) return fail(ld, v, "missing required key 'shape' in section '%s'", s->name);
        int shape;
        if ((st = get_choice(ld, sh, "shape", shape_field->names, shape_field->nnames, &shape))) break;
        s->shape = (kd_shape)shape;
        field f[16];
        char what[96];
        snprintf(what, sizeof(what), "%s section", kd_shape_str(s->shape));
        if ((st = read_table(ld, v, what, table, n, 1u << shape, s, f, (int)(sizeof f / sizeof f[0])))) break;
        node_t* sv;
        if ((sv = field_value(f, "shear")) && !(st = get_positive(ld, sv, "shear", &s->shear_y))) s->shear_z = s->shear_y;
        if (!st && kd_desc_find_section(ld->d, s->name) != ld->d->nsections - 1)
            st = fail(ld, k, "section '%s' is defined twice", s->name);
    }
    return st;
}

/* A body: name and type first, then the keys its type takes (the body key
 * table's `only`), then what the table cannot say (references, points). */
static kd_status read_body(loader* ld, const node_t* v) {
    kd_body_desc* b = kd_desc_add_body(ld->d);
    if (!b) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
    b->loc = loc_of(v);
    if (v->type != YAML_MAPPING_NODE) return fail(ld, v, "expected a mapping for body");
    node_t *name = NULL, *type = NULL, *x;
    for (yaml_node_pair_t* q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++) {
        const char* k = scalar(node_at(ld, q->key));
        if (k && strcmp(k, "name") == 0) name = node_at(ld, q->value);
        if (k && strcmp(k, "type") == 0) type = node_at(ld, q->value);
    }
    int n = 0;
    const kd_field* table = kd_body_fields(&n);
    const kd_field* type_field = kd_field_find(table, n, "type");
    int t = 0;
    kd_status st;
    if (!name) return fail(ld, v, "missing required key 'name' in body");
    if ((st = get_name(ld, name, "body name", b->name))) return st;
    if (!type) return fail(ld, v, "missing required key 'type' in body '%s'", b->name);
    if ((st = get_choice(ld, type, "type", type_field->names, type_field->nnames, &t))) return st;
    if (kd_desc_find_body(ld->d, b->name) != ld->d->nbodies - 1) return fail(ld, name, "body '%s' is defined twice", b->name);
    char what[KD_NAME_MAX + 16];
    snprintf(what, sizeof(what), "body '%s'", b->name);
    field f[32];
    if ((st = read_table(ld, v, what, table, n, 1u << t, b, f, (int)(sizeof f / sizeof f[0])))) return st;
    if (b->type == KD_BODY_RIGID) return yaml_read_rigid_body(ld, f, b);
    if (b->type == KD_BODY_GROUND) return (x = field_value(f, "points")) ? read_points(ld, x, b) : KD_OK;
    if (b->type == KD_BODY_PLATE) return yaml_read_plate_body(ld, v, f, b);
    node_t *mat, *sec;
    char ref[KD_NAME_MAX];
    if ((st = require(ld, v, f, "material", what, &mat)) || (st = get_name(ld, mat, "material", ref))) return st;
    b->material = kd_desc_find_material(ld->d, ref);
    b->loc_material = loc_of(mat);
    if (b->material < 0) return fail(ld, mat, "unknown material '%s'", ref);
    if ((st = require(ld, v, f, "section", what, &sec)) || (st = get_name(ld, sec, "section", ref))) return st;
    b->section = kd_desc_find_section(ld->d, ref);
    b->loc_section = loc_of(sec);
    if (b->section < 0) return fail(ld, sec, "unknown section '%s'", ref);
    node_t *len = field_value(f, "length"), *pts = field_value(f, "points");
    if (!!len == !!pts) return fail(ld, v, "body '%s' needs exactly one of 'length' and 'points'", b->name);
    if (pts) {
        if ((st = read_points(ld, pts, b))) return st;
        if (b->npoints < 2) return fail(ld, pts, "a beam needs at least 2 points");
        double l2 = 0;
        for (int k = 0; k < 3; k++) l2 += pow(b->points[b->npoints - 1].x[k] - b->points[0].x[k], 2);
        b->length = sqrt(l2);
        if (!(b->length > 0)) return fail(ld, pts, "the first and last points of body '%s' coincide", b->name);
    }
    if ((x = field_value(f, "frame")) && (st = yaml_read_beam_frame(ld, x, b))) return st;
    if ((x = field_value(f, "y_axis"))) {
        int ny;
        if (b->planar) return fail(ld, x, "y_axis applies to 3D beams (planar: false)");
        if ((st = get_numbers(ld, x, "y_axis", 3, 3, b->y_axis, &ny))) return st;
    }
    return KD_OK;
}

/* A support through its key table (body, node), then `fix`. */
static kd_status read_support(loader* ld, const node_t* v) {
    kd_support_desc* s = kd_desc_add_support(ld->d);
    if (!s) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
    int nt = 0;
    const kd_field* table = kd_support_fields(&nt);
    field f[8];
    node_t* fx;
    kd_status st;
    s->loc = loc_of(v);
    if ((st = read_table(ld, v, "support", table, nt, 0, s, f, (int)(sizeof f / sizeof f[0]))) ||
        (st = require(ld, v, f, "fix", "support", &fx)))
        return st;
    node_t *node = field_value(f, "node"), *set = field_value(f, "nodes");
    if (!!node == !!set) return fail(ld, v, "support needs exactly one of 'node' and 'nodes' (a node set)");
    s->loc_node = loc_of(node ? node : set);
    s->loc_fix = loc_of(fx);
    if (scalar(fx) && strcmp(scalar(fx), "all") == 0) {
        s->fix = KD_FIX_ALL;
    } else {
        if (fx->type != YAML_SEQUENCE_NODE) return fail(ld, fx, "fix must be 'all' or a list of DOF names");
        for (yaml_node_item_t* it = fx->data.sequence.items.start; it < fx->data.sequence.items.top; it++) {
            kd_dof_name k;
            if ((st = get_dof(ld, node_at(ld, *it), &k))) return st;
            s->fix |= 1u << k;
        }
    }
    const kd_body_desc* b = &ld->d->bodies[s->body];
    if (node) return yaml_body_node(ld, node, b, s->node, &s->node);
    /* a node set: one support per node of the set */
    const kd_node_set_desc* ns;
    if ((st = yaml_node_set(ld, set, b, &ns))) return st;
    const kd_support_desc one = *s;
    ld->d->nsupports--;
    for (int k = 0; k < ns->nnodes; k++) {
        kd_support_desc* sk = kd_desc_add_support(ld->d);
        if (!sk) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
        *sk = one;
        sk->node = ns->nodes[k];
    }
    return KD_OK;
}

/* A list of n triples [a, b, c] into out[k][i] (k = 0..2, i < n). */
static kd_status get_triples(loader* ld, const node_t* n, const char* what, int count, double* out[3]) {
    if (n->type != YAML_SEQUENCE_NODE) return fail(ld, n, "%s must be a list of [x, y, z] triples", what);
    const int len = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (len != count) return fail(ld, n, "%s has %d entries, t has %d", what, len, count);
    for (int i = 0; i < len; i++) {
        double v[3];
        int got;
        kd_status st = get_numbers(ld, node_at(ld, n->data.sequence.items.start[i]), what, 3, 3, v, &got);
        if (st) return st;
        for (int k = 0; k < 3; k++) out[k][i] = v[k];
    }
    return KD_OK;
}

/* A tabulated 3D pose (kedyn/frame.h): {t: [...], origin: [[x, y, z], ...],
 * rotation: [[phi_x, phi_y, phi_z], ...]} or {file: F} with the columns t,
 * x, y, z, phi_x, phi_y, phi_z (by header name); every component splined. */
static kd_status read_pose(loader* ld, const node_t* v, kd_motion* mo) {
    static const char* const cols[6] = {"x", "y", "z", "phi_x", "phi_y", "phi_z"};
    int nt = 0;
    const kd_field* table = kd_pose_fields(&nt);
    field g[8];
    kd_status st = read_table(ld, v, "pose", table, nt, 0, mo, g, 8);
    if (st) return st;
    mo->type = KD_MOTION_POSE;
    node_t* file = field_value(g, "file");
    if (file) {
        if (field_value(g, "t") || field_value(g, "origin") || field_value(g, "rotation"))
            return fail(ld, v, "pose: give either 'file' or 't', 'origin' and 'rotation'");
        if (!scalar(file)) return fail(ld, file, "pose: file must be a file name");
        for (int k = 0; k < 6 && !st; k++) st = read_table_file(ld, file, scalar(file), cols[k], &mo->pose[k], 0);
        return st;
    }
    node_t *tn, *on, *rn;
    if ((st = require(ld, v, g, "t", "pose", &tn)) || (st = require(ld, v, g, "origin", "pose", &on)) ||
        (st = require(ld, v, g, "rotation", "pose", &rn)))
        return st;
    const int cap = 100000;
    int n = 0;
    double* buf = malloc(sizeof(double) * 7 * (size_t)cap);
    if (!buf) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
    double* c[7];
    for (int k = 0; k < 7; k++) c[k] = buf + (size_t)k * cap;
    if (!(st = get_numbers(ld, tn, "t", 2, cap, c[0], &n)) && !(st = get_triples(ld, on, "origin", n, c + 1)))
        st = get_triples(ld, rn, "rotation", n, c + 4);
    for (int k = 0; k < 6 && !st; k++) {
        kd_error e;
        if (kd_law_table(&mo->pose[k], n, c[0], c[1 + k], 0, &e)) st = fail(ld, tn, "pose: %s", e.msg);
    }
    free(buf);
    return st;
}

static kd_status read_motion(loader* ld, const node_t* v) {
    kd_motion_desc* md = kd_desc_add_motion(ld->d);
    if (!md) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
    md->loc = loc_of(v);
    int nt = 0, nr = 0, np = 0;
    const kd_field* table = kd_motion_fields(&nt);
    const kd_field* rtable = kd_rotation_fields(&nr);
    const kd_field* ptable = kd_planar_motion_fields(&np);
    field f[8];
    kd_status st;
    if ((st = read_table(ld, v, "motion", table, nt, 0, md, f, 8))) return st;
    kd_motion* mo = &md->motion;
    node_t *rot = field_value(f, "rotation"), *pl = field_value(f, "planar"), *pose = field_value(f, "pose");
    if (!!rot + !!pl + !!pose != 1) return fail(ld, v, "motion needs exactly one of 'rotation', 'planar' and 'pose'");
    if (pose) {
        if (field_value(f, "hub")) return fail(ld, field_value(f, "hub"), "hub applies to a rotation");
        return read_pose(ld, pose, mo);
    }
    if (rot) {
        field g[8];
        node_t *ax, *law, *x;
        mo->type = KD_MOTION_ROTATION;
        if ((st = read_table(ld, rot, "rotation", rtable, nr, 0, mo, g, 8)) ||
            (st = require(ld, rot, g, "axis", "rotation", &ax)) ||
            (st = require(ld, rot, g, "law", "rotation", &law)) || (st = read_law(ld, law, "law", &mo->angle)))
            return st;
        const char* as = scalar(ax);
        if (as && strlen(as) == 1 && strchr("xyz", as[0])) {
            mo->axis[as[0] - 'x'] = 1.0;
        } else {
            int n;
            if ((st = get_numbers(ld, ax, "axis", 3, 3, mo->axis, &n))) return fail(ld, ax, "axis must be x, y, z or 3 numbers");
            const double nrm = sqrt(mo->axis[0] * mo->axis[0] + mo->axis[1] * mo->axis[1] + mo->axis[2] * mo->axis[2]);
            if (!(nrm > 0)) return fail(ld, ax, "axis must not be zero");
            for (int k = 0; k < 3; k++) mo->axis[k] /= nrm;
        }
        int n;
        if ((x = field_value(g, "center")) && (st = get_numbers(ld, x, "center", 2, 3, mo->center, &n))) return st;
        return KD_OK;  /* hub: read through the motion table */
    }
    if (field_value(f, "hub")) return fail(ld, field_value(f, "hub"), "hub applies to a rotation");
    field g[8];
    node_t *xn, *yn, *pn;
    mo->type = KD_MOTION_PLANAR;
    if ((st = read_table(ld, pl, "planar motion", ptable, np, 0, mo, g, 8)) ||
        (st = require(ld, pl, g, "x", "planar motion", &xn)) ||
        (st = require(ld, pl, g, "y", "planar motion", &yn)) || (st = require(ld, pl, g, "phi", "planar motion", &pn)) ||
        (st = read_law(ld, xn, "x", &mo->x)) || (st = read_law(ld, yn, "y", &mo->y)) ||
        (st = read_law(ld, pn, "phi", &mo->phi)))
        return st;
    return KD_OK;
}

/* A damping through its key table (body), then `rayleigh` through its own. */
static kd_status read_damping(loader* ld, const node_t* v) {
    kd_damping_desc* dm = kd_desc_add_damping(ld->d);
    if (!dm) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
    dm->loc = loc_of(v);
    int nt = 0, nr = 0;
    const kd_field* table = kd_damping_fields(&nt);
    const kd_field* rayleigh = kd_rayleigh_fields(&nr);
    field f[4], g[4];
    node_t* r;
    kd_status st;
    if ((st = read_table(ld, v, "damping", table, nt, 0, dm, f, 4)) || (st = require(ld, v, f, "rayleigh", "damping", &r)))
        return st;
    return read_table(ld, r, "rayleigh", rayleigh, nr, 0, dm, g, 4);
}

/* A force: its `type` selects its key table (src/core/desc_fields.c); the
 * table's defaults, then its keys; the mechanism forces continue in
 * yaml_mechanism.c, nodal and gravity here. */
static kd_status read_force(loader* ld, const node_t* v) {
    const char* types[KD_LOAD_TYPES];
    for (int k = 0; k < KD_LOAD_TYPES; k++) types[k] = kd_load_type_name((kd_load_type)k);
    node_t* tn = NULL;
    if (v->type == YAML_MAPPING_NODE)
        for (yaml_node_pair_t* q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++)
            if (scalar(node_at(ld, q->key)) && strcmp(scalar(node_at(ld, q->key)), "type") == 0) tn = node_at(ld, q->value);
    if (!tn) return fail(ld, v, "missing required key 'type' in force");
    int t = 0;
    kd_status st = get_choice(ld, tn, "force type", types, KD_LOAD_TYPES, &t);
    if (st) return st;
    kd_load_desc* l = kd_desc_add_load(ld->d);
    if (!l) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
    l->loc = loc_of(v);
    l->type = (kd_load_type)t;
    l->value = kd_law_constant(0.0);
    l->value_y = kd_law_constant(0.0);
    if (l->type >= KD_LOAD_SPRING) l->joint = l->body2 = -1;
    int nt = 0;
    const kd_field* table = kd_load_fields(l->type, &nt);
    kd_fields_defaults(table, nt, l);
    field f[8];
    static const char* const what[KD_LOAD_TYPES] = {[KD_LOAD_NODAL] = "nodal force", [KD_LOAD_GRAVITY] = "gravity"};
    if ((st = read_table(ld, v, what[t] ? what[t] : types[t], table, nt, 0, l, f, 8))) return st;
    if (l->type >= KD_LOAD_SPRING) return yaml_read_mech_force(ld, v, f, l);
    node_t *g, *dof, *val;
    if (l->type == KD_LOAD_GRAVITY) {
        int n;
        if ((st = require(ld, v, f, "g", "gravity", &g))) return st;
        return get_numbers(ld, g, "g", 2, 3, l->g, &n);
    }
    if ((st = require(ld, v, f, "dof", "nodal force", &dof)) || (st = get_dof(ld, dof, &l->dof)) ||
        (st = require(ld, v, f, "value", "nodal force", &val)) || (st = read_law(ld, val, "value", &l->value)))
        return st;
    node_t *node = field_value(f, "node"), *set = field_value(f, "nodes");
    if (!!node == !!set) return fail(ld, v, "nodal force needs exactly one of 'node' and 'nodes' (a node set)");
    const kd_body_desc* b = &ld->d->bodies[l->body];
    if (node) return yaml_body_node(ld, node, b, l->node, &l->node);
    /* a node set: the value at every node of the set */
    const kd_node_set_desc* ns;
    if ((st = yaml_node_set(ld, set, b, &ns))) return st;
    for (int k = 1; k < ns->nnodes; k++) {
        kd_load_desc* lk = kd_desc_add_load(ld->d);
        if (!lk) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
        l = &ld->d->loads[ld->d->nloads - 2];  /* (the array moved) */
        *lk = *l;
        lk->node = ns->nodes[k];
        if (kd_law_copy(&lk->value, &l->value)) {
            lk->value = kd_law_constant(0.0);
            return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
        }
        lk->value_y = kd_law_constant(0.0);
    }
    ld->d->loads[ld->d->nloads - ns->nnodes].node = ns->nodes[0];
    return KD_OK;
}

static kd_status read_output(loader* ld, const node_t* v) {
    int nt = 0;
    const kd_field* table = kd_output_fields(&nt);
    field f[4];
    kd_status st = read_table(ld, v, "output", table, nt, 0, NULL, f, 4);
    node_t* nodes = field_value(f, "nodes");
    if (st || !nodes) return st;
    if ((st = expect(ld, nodes, YAML_MAPPING_NODE, "output nodes"))) return st;
    for (yaml_node_pair_t* p = nodes->data.mapping.pairs.start; !st && p < nodes->data.mapping.pairs.top; p++) {
        kd_output_nodes_desc* o = kd_desc_add_output_nodes(ld->d);
        if (!o) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
        node_t* list = node_at(ld, p->value);
        o->loc = loc_of(list);
        if ((st = get_body(ld, node_at(ld, p->key), &o->body))) break;
        for (int k = 0; k + 1 < ld->d->noutput_nodes; k++)  /* the same body twice: a duplicate key */
            if (ld->d->output_nodes[k].body == o->body)
                return fail(ld, node_at(ld, p->key), "body '%s' is given twice in output nodes",
                            ld->d->bodies[o->body].name);
        if ((st = expect(ld, list, YAML_SEQUENCE_NODE, "output nodes of a body"))) break;
        const int n = (int)(list->data.sequence.items.top - list->data.sequence.items.start);
        const kd_body_desc* b = &ld->d->bodies[o->body];
        /* node numbers, and node sets (plates) by name */
        int total = 0;
        for (int i = 0; i < n && !st; i++) {
            node_t* item = node_at(ld, list->data.sequence.items.start[i]);
            const kd_node_set_desc* ns;
            char* end = NULL;
            if (scalar(item) && (strtol(scalar(item), &end, 10), *end != '\0') && !(st = yaml_node_set(ld, item, b, &ns)))
                total += ns->nnodes;
            else
                total++;
        }
        o->nodes = calloc((size_t)(total ? total : 1), sizeof(int));
        if (!o->nodes) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
        for (int i = 0; i < n && !st; i++) {
            node_t* item = node_at(ld, list->data.sequence.items.start[i]);
            const kd_node_set_desc* ns;
            char* end = NULL;
            int tag;
            if (scalar(item) && (strtol(scalar(item), &end, 10), *end != '\0')) {
                if (!(st = yaml_node_set(ld, item, b, &ns)))
                    for (int k = 0; k < ns->nnodes; k++) o->nodes[o->nnodes++] = ns->nodes[k];
            } else if (!(st = get_int(ld, item, "node", 1, &tag))) {
                st = yaml_body_node(ld, item, b, tag, &o->nodes[o->nnodes++]);
            }
        }
    }
    return st;
}

/* Run `fn` on each item of a sequence. */
static kd_status each_item(loader* ld, const node_t* seq, const char* what, kd_status (*fn)(loader*, const node_t*)) {
    kd_status st = expect(ld, seq, YAML_SEQUENCE_NODE, what);
    for (yaml_node_item_t* it = seq->data.sequence.items.start; !st && it < seq->data.sequence.items.top; it++)
        st = fn(ld, node_at(ld, *it));
    return st;
}

static kd_status read_model(loader* ld) {
    node_t* root = yaml_document_get_root_node(&ld->doc);
    if (!root) return fail(ld, NULL, "the model file is empty");
    int nt = 0;
    const kd_field* table = kd_model_fields(&nt);
    field f[24];
    kd_status st = read_table(ld, root, "the model", table, nt, 0, ld->d, f, 24);
    node_t *ver, *bodies, *x;
    if (st || (st = require(ld, root, f, "kedyn", "the model", &ver))) return st;
    if (!scalar(ver) || strcmp(scalar(ver), "1") != 0) return fail(ld, ver, "unsupported format version (expected kedyn: 1)");
    if ((x = field_value(f, "title"))) {
        if (!scalar(x)) return fail(ld, x, "title must be text");
        snprintf(ld->d->title, sizeof(ld->d->title), "%s", scalar(x));
    }
    if ((x = field_value(f, "spatial")) && (st = get_bool(ld, x, "spatial", &ld->d->spatial))) return st;
    if (ld->d->spatial) {  /* a spatial rigid mechanism: its own reader (yaml_spatial.c) */
        /* materials and sections of elastic links (beam bodies) */
        if ((x = field_value(f, "materials")) && (st = read_materials(ld, x))) return st;
        if ((x = field_value(f, "sections")) && (st = read_sections(ld, x))) return st;
        if ((st = yaml_read_spatial(ld, root, f))) return st;
        if ((x = field_value(f, "analyses")) && (st = each_item(ld, x, "analyses", yaml_read_analysis))) return st;
        if ((st = kd_desc_check(ld->d, ld->err))) return st;
        return yaml_check_spatial(ld, root, f);
    }
    if ((x = field_value(f, "materials")) && (st = read_materials(ld, x))) return st;
    if ((x = field_value(f, "sections")) && (st = read_sections(ld, x))) return st;
    if ((st = require(ld, root, f, "bodies", "the model", &bodies)) || (st = each_item(ld, bodies, "bodies", read_body)))
        return st;
    if ((x = field_value(f, "supports")) && (st = each_item(ld, x, "supports", read_support))) return st;
    if ((x = field_value(f, "joints")) && (st = each_item(ld, x, "joints", yaml_read_joint))) return st;
    if ((x = field_value(f, "drivers")) && (st = each_item(ld, x, "drivers", yaml_read_driver))) return st;
    if ((x = field_value(f, "motion")) && (st = each_item(ld, x, "motion", read_motion))) return st;
    if ((x = field_value(f, "damping")) && (st = each_item(ld, x, "damping", read_damping))) return st;
    if ((x = field_value(f, "forces")) && (st = each_item(ld, x, "forces", read_force))) return st;
    if ((x = field_value(f, "records")) && (st = each_item(ld, x, "records", yaml_read_record))) return st;
    if ((x = field_value(f, "sensors")) && (st = each_item(ld, x, "sensors", yaml_read_sensor))) return st;
    if ((x = field_value(f, "analyses")) && (st = each_item(ld, x, "analyses", yaml_read_analysis))) return st;
    if ((x = field_value(f, "output")) && (st = read_output(ld, x))) return st;
    kd_status st2 = kd_desc_check(ld->d, ld->err);
    /* the DOF names against the element kinds (src/fe), located here as in compilation */
    if (st2 || (st2 = kd_model_check_dofs(ld->d, ld->err))) return st2;
    if ((st2 = yaml_check_assembly(ld))) return st2;
    return yaml_check_explicit_step(ld);
}

/* Load text (len bytes) named `name`: the limits first (yaml_limits.c),
 * then libyaml's document, then the sections. */
static kd_status load(const char* text, size_t len, const char* name, kd_desc** out, kd_error* err) {
    *out = NULL;
    kd_status st = yaml_check_limits(text, len, name, err);
    if (st) return st;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) return kd_error_set(err, KD_ERR_NOMEM, name, KD_LOC_NONE, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char*)text, len);
    loader ld;
    memset(&ld, 0, sizeof(ld));
    ld.err = err;
    ld.file = name;
    const char* slash = strrchr(name, '/');
    if (slash) snprintf(ld.dir, sizeof(ld.dir), "%.*s", (int)(slash - name), name);
    if (!yaml_parser_load(&parser, &ld.doc)) {
        const kd_loc loc = {(int)parser.problem_mark.line + 1, (int)parser.problem_mark.column + 1};
        st = kd_error_set(err, KD_ERR_INPUT, name, loc, "YAML syntax: %s%s%s", parser.problem ? parser.problem : "error",
                          parser.context ? " " : "", parser.context ? parser.context : "");
        yaml_parser_delete(&parser);
        return st;
    }
    yaml_parser_delete(&parser);
    ld.d = kd_desc_new();
    st = ld.d ? KD_OK : kd_error_set(err, KD_ERR_NOMEM, name, KD_LOC_NONE, "out of memory");
    if (!st) {
        snprintf(ld.d->file, sizeof(ld.d->file), "%s", name);
        st = read_model(&ld);
    }
    yaml_document_delete(&ld.doc);
    if (st) kd_desc_free(&ld.d);
    *out = ld.d;
    return st;
}

kd_status kd_load_yaml_string(const char* text, size_t len, const char* name, kd_desc** out, kd_error* err) {
    return load(text, len, name, out, err);
}

kd_status kd_load_yaml_file(const char* path, kd_desc** out, kd_error* err) {
    *out = NULL;
    char* text = NULL;
    size_t len = 0;
    kd_status st = yaml_read_whole_file(path, "model file", 0, &text, &len, err);
    if (st) return st;
    st = load(text, len, path, out, err);
    free(text);
    return st;
}
