/* The mechanism part of the model-file loader: rigid bodies, joints,
 * drivers and mechanism forces (docs/model-format.md, "Mechanisms"; the
 * kinematics and inverse_dynamics analyses are read through their key tables,
 * src/load/yaml_analysis.c). Called from src/load/yaml_model.c;
 * the cross-checks that need the whole mechanism (point names, body kinds,
 * driven joint kinds) are made here with the location of the item, the
 * rest by kd_mech_compile. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/mech.h"
#include "yaml_schema.h"

#define NOMEM(ld) kd_error_set((ld)->err, KD_ERR_NOMEM, (ld)->file, KD_LOC_NONE, "out of memory")

kd_status yaml_read_rigid_body(loader* ld, field* f, kd_body_desc* b) {
    node_t* x;
    int n;
    kd_status st;
    if ((x = field_value(f, "com")) && (st = get_numbers(ld, x, "com", 2, 2, b->com, &n))) return st;
    if ((x = field_value(f, "position")) && (st = get_numbers(ld, x, "position", 2, 2, b->position, &n))) return st;
    if ((x = field_value(f, "points")) && (st = read_points(ld, x, b))) return st;
    for (int i = 0; i < b->npoints; i++)  /* names are unique (read_points) */
        if (b->points[i].x[2] != 0.0) return fail(ld, x, "points of a rigid body are planar (z = 0)");
    return KD_OK;
}

/* A body of a mechanism (ground or rigid) named at n. */
static kd_status get_mech_body(loader* ld, const node_t* n, int* out) {
    kd_status st = get_body(ld, n, out);
    if (st) return st;
    const kd_body_desc* b = &ld->d->bodies[*out];
    if (b->type == KD_BODY_BEAM)
        return fail(ld, n, "body '%s' is a beam; mechanism forces act on ground and rigid bodies", b->name);
    return KD_OK;
}

/* A point name of body b. */
static kd_status get_point(loader* ld, const node_t* n, int b, int* out) {
    char name[KD_NAME_MAX];
    kd_status st = get_name(ld, n, "point", name);
    if (st) return st;
    *out = kd_desc_find_point(ld->d, b, name);
    if (*out < 0) return fail(ld, n, "body '%s' has no point '%s'", ld->d->bodies[b].name, name);
    return KD_OK;
}

/* `bodies: [A, B]` and `points: [P, Q]`. */
/* A body of a joint: ground, rigid, or a beam (an elastic link, kedyn/ked.h). */
static kd_status get_joint_body(loader* ld, const node_t* n, int* out) {
    kd_status st = get_body(ld, n, out);
    if (st) return st;
    const kd_body_desc* b = &ld->d->bodies[*out];
    if (b->type == KD_BODY_BEAM && b->npoints < 2)
        return fail(ld, n, "beam '%s' is given by length; a beam in joints is given by its points", b->name);
    return KD_OK;
}

static kd_status get_pair(loader* ld, const node_t* v, field* f, const char* what, int body[2], int point[2], int joint) {
    node_t *bn, *pn;
    kd_status st;
    if ((st = require(ld, v, f, "bodies", what, &bn))) return st;
    if (bn->type != YAML_SEQUENCE_NODE || bn->data.sequence.items.top - bn->data.sequence.items.start != 2)
        return fail(ld, bn, "bodies must list two bodies");
    for (int k = 0; k < 2; k++)
        if ((st = (joint ? get_joint_body : get_mech_body)(ld, node_at(ld, bn->data.sequence.items.start[k]), &body[k])))
            return st;
    if (body[0] == body[1]) return fail(ld, bn, "a %s connects two different bodies", what);
    if ((st = require(ld, v, f, "points", what, &pn))) return st;
    if (pn->type != YAML_SEQUENCE_NODE || pn->data.sequence.items.top - pn->data.sequence.items.start != 2)
        return fail(ld, pn, "points must list one point on each body");
    for (int k = 0; k < 2; k++)
        if ((st = get_point(ld, node_at(ld, pn->data.sequence.items.start[k]), body[k], &point[k]))) return st;
    return KD_OK;
}

/* A joint: its keys (unknown ones first), name and type, the bodies and
 * points, then the keys of its type through the joint key table, then axis. */
kd_status yaml_read_joint(loader* ld, const node_t* v) {
    int nt = 0;
    const kd_field* table = kd_joint_fields(&nt);
    const kd_field* type_field = kd_field_find(table, nt, "type");
    kd_joint_desc* j = kd_desc_add_joint(ld->d);
    if (!j) return NOMEM(ld);
    j->loc = loc_of(v);
    field f[16], g[16];
    for (int i = 0; i < nt; i++) f[i] = (field){table[i].key, 0, 0};
    f[nt] = (field){NULL, 0, 0};
    node_t *name, *type, *x;
    int t = 0, n;
    kd_status st;
    if ((st = read_fields(ld, v, "joint", f)) || (st = require(ld, v, f, "name", "joint", &name)) ||
        (st = get_name(ld, name, "joint name", j->name)) || (st = require(ld, v, f, "type", "joint", &type)) ||
        (st = get_choice(ld, type, "joint type", type_field->names, type_field->nnames, &t)))
        return st;
    j->type = (kd_joint_type)t;
    if (kd_desc_find_joint(ld->d, j->name) != ld->d->njoints - 1) return fail(ld, name, "joint '%s' is defined twice", j->name);
    char what[KD_NAME_MAX + 16];
    snprintf(what, sizeof(what), "joint '%s'", j->name);
    if ((st = get_pair(ld, v, f, what, j->body, j->point, 1)) ||
        (st = read_table_kind(ld, v, what, table, nt, t, type_field->names, type_field->nnames, "joints", j, g, 16)))
        return st;
    if ((x = field_value(g, "axis"))) {
        if ((st = get_numbers(ld, x, "axis", 2, 2, j->axis, &n))) return st;
        const double len = hypot(j->axis[0], j->axis[1]);
        if (!(len > 0)) return fail(ld, x, "axis must not be zero");
        j->axis[0] /= len, j->axis[1] /= len;
    } else if (j->type == KD_JOINT_PRISMATIC || j->type == KD_JOINT_ROLLING) {
        j->axis[0] = 1.0;  /* default: the first body's x axis */
    }
    return KD_OK;
}

/* A driver: its key table (initial), then the joint and the law. */
kd_status yaml_read_driver(loader* ld, const node_t* v) {
    kd_driver_desc* dr = kd_desc_add_driver(ld->d);
    if (!dr) return NOMEM(ld);
    dr->loc = loc_of(v);
    dr->law = kd_law_constant(0.0);
    int nt = 0;
    const kd_field* table = kd_driver_fields(&nt);
    field f[8];
    node_t *jn, *law;
    char name[KD_NAME_MAX];
    kd_status st;
    if ((st = read_table(ld, v, "driver", table, nt, 0, dr, f, 8)) || (st = require(ld, v, f, "joint", "driver", &jn)) ||
        (st = get_name(ld, jn, "joint", name)))
        return st;
    dr->joint = kd_desc_find_joint(ld->d, name);
    if (dr->joint < 0) return fail(ld, jn, "unknown joint '%s'", name);
    const kd_joint_type t = ld->d->joints[dr->joint].type;
    if (t != KD_JOINT_REVOLUTE && t != KD_JOINT_PRISMATIC)
        return fail(ld, jn, "joint '%s' is %s; drivers act on revolute and prismatic joints", name, kd_joint_type_str(t));
    for (const kd_driver_desc* o = ld->d->drivers; o < dr; o++)
        if (o->joint == dr->joint) return fail(ld, jn, "joint '%s' has two drivers", name);
    if ((st = require(ld, v, f, "law", "driver", &law))) return st;
    /* {angle: a}: a fixed coordinate (the same as the number a) */
    node_t* angle = NULL;
    if (law->type == YAML_MAPPING_NODE && law->data.mapping.pairs.top - law->data.mapping.pairs.start == 1 &&
        scalar(node_at(ld, law->data.mapping.pairs.start->key)) &&
        strcmp(scalar(node_at(ld, law->data.mapping.pairs.start->key)), "angle") == 0)
        angle = node_at(ld, law->data.mapping.pairs.start->value);
    if (angle) {
        dr->law = kd_law_constant(0.0);
        if ((st = get_number(ld, angle, "angle", &dr->law.value))) return st;
    } else if ((st = read_law(ld, law, "law", &dr->law))) {
        return st;
    }
    if (kd_law_smoothness(&dr->law) < 2)
        return fail(ld, law, "a driver law needs accelerations: use a spline table, not linear interpolation");
    return KD_OK;
}

kd_status yaml_read_mech_force(loader* ld, const node_t* v, field* f, kd_load_desc* l) {
    kd_status st;
    node_t *x, *b;
    if (l->type == KD_LOAD_SPRING) {
        int body[2], point[2];
        if ((st = get_pair(ld, v, f, "spring", body, point, 0))) return st;
        l->body = body[0], l->body2 = body[1], l->point[0] = point[0], l->point[1] = point[1];
        return KD_OK;
    }
    if (l->type == KD_LOAD_FRICTION) {
        char name[KD_NAME_MAX];
        if ((st = require(ld, v, f, "joint", "friction", &x)) || (st = get_name(ld, x, "joint", name))) return st;
        l->joint = kd_desc_find_joint(ld->d, name);
        if (l->joint < 0) return fail(ld, x, "unknown joint '%s'", name);
        const kd_joint_type t = ld->d->joints[l->joint].type;
        if (t != KD_JOINT_REVOLUTE && t != KD_JOINT_PRISMATIC)
            return fail(ld, x, "friction acts at revolute and prismatic joints, not %s", kd_joint_type_str(t));
        return KD_OK;
    }
    if (l->type == KD_LOAD_TORQUE) {
        if ((st = require(ld, v, f, "body", "torque", &b)) || (st = get_mech_body(ld, b, &l->body)) ||
            (st = require(ld, v, f, "value", "torque", &x)) || (st = read_law(ld, x, "value", &l->value)))
            return st;
        if (ld->d->bodies[l->body].type != KD_BODY_RIGID) return fail(ld, b, "a torque acts on a rigid body");
        return KD_OK;
    }
    /* force */
    node_t *p, *val;
    if ((st = require(ld, v, f, "body", "force", &b)) || (st = get_mech_body(ld, b, &l->body)) ||
        (st = require(ld, v, f, "point", "force", &p)) || (st = get_point(ld, p, l->body, &l->point[0])) ||
        (st = require(ld, v, f, "value", "force", &val)))
        return st;
    if (ld->d->bodies[l->body].type != KD_BODY_RIGID) return fail(ld, b, "a force acts on a rigid body");
    if (val->type != YAML_SEQUENCE_NODE || val->data.sequence.items.top - val->data.sequence.items.start != 2)
        return fail(ld, val, "value must list the two global components [Fx, Fy] (numbers or laws)");
    if ((st = read_law(ld, node_at(ld, val->data.sequence.items.start[0]), "Fx", &l->value)) ||
        (st = read_law(ld, node_at(ld, val->data.sequence.items.start[1]), "Fy", &l->value_y)))
        return st;
    return KD_OK;
}

/* kinematics and inverse_dynamics follow the mechanism's motion from its
 * drivers (kd_mech_kinematics) and need every DOF driven: an error at the
 * first of them, before anything runs (the run stopped there with the same
 * words, unlocated, after writing the summary). The elastic links' one-way
 * routes integrate undriven DOF forward instead (src/links/one_way.c). */
static kd_status check_driven(loader* ld, const kd_mech* m, const double* q) {
    const kd_desc* d = ld->d;
    kd_error e;
    kd_mech_mobility mob;
    if (kd_mech_mobility_at(m, 0.0, q, &mob, &e) || mob.dof_undriven <= 0) return KD_OK;
    for (int i = 0; i < d->nanalyses; i++) {
        const kd_analysis_desc* a = &d->analyses[i];
        if (a->type == KD_ANALYSIS_KINEMATICS || a->type == KD_ANALYSIS_INVERSE_DYNAMICS)
            return kd_error_set(ld->err, KD_ERR_INPUT, ld->file, a->loc,
                                "%s needs one driver per degree of freedom: the mechanism has %d DOF and %d of them are "
                                "not driven",
                                kd_analysis_type_name(a->type), mob.dof, mob.dof_undriven);
    }
    return KD_OK;
}

/* The mechanism assembles at t = 0 (kd_mech_solve_position from the bodies'
 * position and angle and the drivers' values): a mechanism whose links
 * cannot close (a four-bar with a link longer than the three others
 * together) is an error of the model, located at the joint (or driver) whose
 * equations stay farthest from zero. Only with analyses (each of them starts
 * from the assembled position; a description without any may be a part).
 * A mechanism that does not compile is left to the caller's kd_mech_compile,
 * which reports it. */
kd_status yaml_check_assembly(loader* ld) {
    const kd_desc* d = ld->d;
    if (!kd_desc_is_mechanism(d) || d->nanalyses == 0) return KD_OK;  /* every analysis starts assembled */
    kd_error e;
    kd_mech* m = NULL;
    if (kd_mech_compile(d, &m, &e)) return KD_OK;
    kd_mech_work* w = kd_mech_work_new(m);
    double* q = malloc(sizeof(double) * (size_t)(m->n + 1));
    double* phi = malloc(sizeof(double) * (size_t)(m->nc + 1));
    kd_status st = KD_OK;
    if (!w || !q || !phi) {
        st = kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
    } else {
        memcpy(q, m->q0, sizeof(double) * (size_t)m->n);
        kd_mech_kin_info info;
        if (kd_mech_solve_position(m, w, 0.0, q, &info, &e) == KD_ERR_NUMERIC) {
            kd_mech_phi(m, 0.0, q, phi);
            double worst = -1.0;
            int joint = -1, driver = -1;
            for (int k = 0; k < m->njoint; k++) {
                double r = 0;
                for (int i = 0; i < m->joint[k].nrow; i++) r += phi[m->joint[k].row + i] * phi[m->joint[k].row + i];
                if (sqrt(r) > worst) worst = sqrt(r), joint = k, driver = -1;
            }
            for (int k = 0; k < m->ndriver && k < d->ndrivers; k++)
                if (fabs(phi[m->driver[k].row]) > worst) worst = fabs(phi[m->driver[k].row]), driver = k, joint = -1;
            const kd_loc loc = driver >= 0 ? d->drivers[driver].loc : joint >= 0 ? d->joints[joint].loc : KD_LOC_START;
            char what[KD_NAME_MAX + 32] = "";
            if (driver >= 0) snprintf(what, sizeof what, "the driver of joint '%s'", d->joints[d->drivers[driver].joint].name);
            else if (joint >= 0) snprintf(what, sizeof what, "joint '%s'", d->joints[joint].name);
            st = kd_error_set(ld->err, KD_ERR_INPUT, ld->file, loc,
                              "the mechanism does not assemble at t = 0: %s stays open by %.3g (|Phi| = %.3g after "
                              "Newton-Raphson from the bodies' position and angle)",
                              what, worst, info.residual);
        } else {
            st = check_driven(ld, m, q);
        }
    }
    free(phi);
    free(q);
    kd_mech_work_free(&w);
    kd_mech_free(&m);
    return st;
}
