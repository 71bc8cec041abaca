/* A mechanism with elastic links as a two-way coupled floating-frame system (kedyn/ffr.h,
 * kd_ffr_from_mechanism): the compiled rigid mechanism of kedyn/ked.h (its links as rigid
 * bodies, coordinates of the centres of mass) gives the bodies, joints, drivers, gravity and the
 * initial state; each link becomes a beam in its floating frame with its joints at the nodes the
 * one-way route found for them, so that both routes model the same mechanism. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floating_internal.h"
#include "kedyn/analysis.h"
#include "kedyn/ked.h"

static const char* const frame_text = "two-way coupling takes a chord frame between the end nodes or frame: 1";

/* The ked link of moving body b, or -1. */
static int link_of(const kd_ked* k, int b) {
    for (int l = 0; l < k->nlinks; l++)
        if (k->link[l].mbody == b) return l;
    return -1;
}

/* The point of joint j on side s: a beam node, a rigid body's point from its centre of mass, or a
 * ground point. */
static kd_ffr_point joint_point(const kd_ked* k, const int* fb, int j, int side) {
    const kd_mjoint* mj = &k->mech->joint[j];
    kd_ffr_point p = {.body = -1};
    const int b = mj->body[side];
    p.p[0] = mj->s[side][0], p.p[1] = mj->s[side][1];
    if (b < 0) return p;
    p.body = fb[b];
    const int l = link_of(k, b);
    if (l >= 0)
        for (int i = 0; i < k->link[l].njoint; i++)
            if (k->link[l].joint[i] == j) p.node = k->link[l].joint_node[i] - 1;
    return p;
}

static kd_status add_body(const kd_desc* d, const kd_ked* k, int b, kd_ffr_system* s, kd_error* err) {
    const kd_mech* m = k->mech;
    const int l = link_of(k, b);
    if (l < 0) return kd_ffr_add_rigid(s, m->body_name[b], m->mass[3 * b], m->mass[3 * b + 2], err) < 0 ? err->status : KD_OK;
    const kd_ked_link* L = &k->link[l];
    const kd_body_desc* bd = &d->bodies[L->body];
    if (!(bd->theory == KD_THEORY_EULER_BERNOULLI || bd->theory == KD_THEORY_RAYLEIGH) ||
        bd->interpolation != KD_INTERP_CUBIC || !bd->planar)
        return kd_error_set(err, KD_ERR_INPUT, d->file, bd->loc,
                            "body '%s': two-way coupling takes planar cubic euler-bernoulli or rayleigh links",
                            bd->name);
    int first = bd->elements + 1, last = 1;
    for (int i = 0; i < L->njoint; i++) first = L->joint_node[i] < first ? L->joint_node[i] : first;
    for (int i = 0; i < L->njoint; i++) last = L->joint_node[i] > last ? L->joint_node[i] : last;
    kd_ffr_frame frame;
    if (L->frame_node == 1) frame = KD_FFR_ROOT;
    else if (L->frame_node == 0 && first == 1 && last == bd->elements + 1) frame = KD_FFR_CHORD;
    else return kd_error_set(err, KD_ERR_INPUT, d->file, bd->loc_frame.line ? bd->loc_frame : bd->loc, "body '%s': %s",
                             bd->name, frame_text);
    const kd_material_desc* mat = &d->materials[bd->material];
    kd_element_consts c;
    memset(&c, 0, sizeof(c));
    kd_section_properties(&d->sections[bd->section], mat->nu, &c);
    kd_ffr_beam beam = {.length = bd->length, .elements = bd->elements, .theory = bd->theory, .E = mat->E,
                        .rho = mat->rho, .A = c.A, .Iz = c.Iz, .frame = frame, .geometric = bd->geometric_stiffness};
    return kd_ffr_add_beam(s, bd->name, &beam, err) < 0 ? err->status : KD_OK;
}

static kd_status add_joint(const kd_desc* d, const kd_ked* k, const int* fb, int j, kd_ffr_system* s, kd_error* err) {
    const kd_mjoint* mj = &k->mech->joint[j];
    const kd_joint_desc* jd = &d->joints[mj->desc];
    const kd_ffr_point a = joint_point(k, fb, j, 0), b = joint_point(k, fb, j, 1);
    const int link_a = mj->body[0] >= 0 && link_of(k, mj->body[0]) >= 0;
    const int link_b = mj->body[1] >= 0 && link_of(k, mj->body[1]) >= 0;
    kd_status st = KD_OK;
    const int first = ffr_joint_count(s);
    switch (mj->type) {
    case KD_JOINT_REVOLUTE: st = kd_ffr_add_revolute(s, a, b, err); break;
    case KD_JOINT_FIXED:
        st = kd_ffr_add_revolute(s, a, b, err);
        if (!st) st = kd_ffr_add_angle(s, a, b, mj->ref, NULL, err);
        break;
    case KD_JOINT_PRISMATIC:
        if (mj->body[0] >= 0 || link_b)
            return kd_error_set(err, KD_ERR_INPUT, d->file, jd->loc,
                                "joint '%s': two-way coupling takes prismatic joints of a rigid body on the ground "
                                "(ground first)",
                                jd->name);
        st = kd_ffr_add_line(s, b, mj->s[0], mj->axis, err);
        if (!st) st = kd_ffr_add_angle(s, a, b, mj->ref, NULL, err);
        break;
    default:
        return kd_error_set(err, KD_ERR_INPUT, d->file, jd->loc,
                            "joint '%s': two-way coupling takes revolute, fixed and prismatic joints", jd->name);
    }
    (void)link_a;
    if (!st) ffr_tag_joints(s, first, j);
    if (st) {
        char why[512];
        snprintf(why, sizeof(why), "%s", err->msg);
        return kd_error_set(err, st, d->file, jd->loc, "joint '%s': %s", jd->name, why);
    }
    if (mj->driver >= 0) {
        const kd_mdriver* dr = &k->mech->driver[mj->driver];
        const kd_driver_desc* dd = &d->drivers[mj->driver];
        if (mj->type != KD_JOINT_REVOLUTE)
            return kd_error_set(err, KD_ERR_INPUT, d->file, dd->loc,
                                "driver of joint '%s': two-way coupling drives revolute joints only", jd->name);
        /* the relative angle phi_j - phi_i = initial + law(t); its torque is part of the joint's
         * reaction moment */
        const int drv = ffr_joint_count(s);
        st = kd_ffr_add_angle(s, a, b, dr->initial, &dr->law, err);
        if (!st) ffr_tag_joints(s, drv, j);
    }
    return st;
}

kd_status kd_ffr_from_mechanism(const kd_desc* d, const kd_ked* k, kd_ffr_system** out, double** q0, double** qd0,
                                kd_error* err) {
    *out = NULL, *q0 = *qd0 = NULL;
    const kd_mech* m = k->mech;
    if (m->nforce > 0)
        for (int i = 0; i < d->nloads; i++)
            if (d->loads[i].type != KD_LOAD_GRAVITY && d->loads[i].type != KD_LOAD_NODAL)
                return kd_error_set(err, KD_ERR_INPUT, d->file, d->loads[i].loc,
                                    "two-way coupling takes gravity only (no springs, friction, torques or forces)");
    kd_ffr_system* s = kd_ffr_new(m->g[0], m->g[1]);
    int* fb = malloc(sizeof(int) * (size_t)(m->nbody + 1));
    if (!s || !fb) {
        kd_ffr_free(&s), free(fb);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    kd_status st = KD_OK;
    for (int b = 0; b < m->nbody && !st; b++) {
        fb[b] = b;
        st = add_body(d, k, b, s, err);
    }
    for (int j = 0; j < m->njoint && !st; j++) st = add_joint(d, k, fb, j, s, err);
    if (!st) st = kd_ffr_finish(s, err);
    if (!st) {
        const int n = kd_ffr_size(s);
        *q0 = calloc((size_t)n, sizeof(double)), *qd0 = calloc((size_t)n, sizeof(double));
        if (!*q0 || !*qd0) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    if (!st) {
        /* the rigid solution at t = 0; a link's frame origin is its first node, its centre of mass at
         * (L/2, 0) of the frame: R = r_c - A (L/2, 0), R' = r_c' - phi' J A (L/2, 0); undeformed */
        const double* qr = k->rigid.q;
        const double* vr = k->rigid.qd;
        for (int b = 0; b < m->nbody; b++) {
            const int o = kd_ffr_body_offset(s, b);
            double* q = *q0 + o;
            double* v = *qd0 + o;
            memcpy(q, qr + 3 * b, sizeof(double) * 3);
            memcpy(v, vr + 3 * b, sizeof(double) * 3);
            const int l = link_of(k, b);
            if (l < 0) continue;
            const double h = 0.5 * d->bodies[k->link[l].body].length, c = cos(q[2]), sn = sin(q[2]);
            q[0] -= h * c, q[1] -= h * sn;
            v[0] += v[2] * h * sn, v[1] -= v[2] * h * c;
        }
    }
    free(fb);
    if (st) {
        kd_ffr_free(&s);
        free(*q0), free(*qd0);
        *q0 = *qd0 = NULL;
        return st;
    }
    *out = s;
    return KD_OK;
}

typedef struct qs_capture {
    const kd_ked* k;
    double* disp;                 /* (3 nnode) */
    int done;
} qs_capture;

static int qs_first(void* ctx, int link, double t, const double* q, const double* v, const double* a) {
    (void)t, (void)v, (void)a;
    qs_capture* c = ctx;
    if (!c->done) kd_ked_link_displacements(c->k, link, q, c->disp), c->done = 1;
    return 0;
}

kd_status kd_ffr_quasi_static_start(kd_ked* k, const kd_analysis_desc* ad, const kd_ffr_system* s, double* q0,
                                    kd_error* err) {
    kd_analysis_desc a1 = *ad;
    a1.dynamics.t_end = ad->dynamics.dt, a1.dynamics.output_every = 1;
    static const kd_dof_name dofs[3] = {KD_DOF_U, KD_DOF_V, KD_DOF_RZ};
    for (int l = 0; l < k->nlinks; l++) {
        const int b = k->link[l].mbody, nn = kd_ffr_body_nodes(s, b);
        qs_capture c = {k, calloc(3 * (size_t)nn, sizeof(double)), 0};
        if (!c.disp) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
        kd_status st = kd_ked_link_dynamics(k, l, &a1, qs_first, &c, NULL, err);
        for (int n = 0; !st && n < nn; n++)
            for (int d = 0; d < 3; d++) {
                const int i = kd_ffr_node_coordinate(s, b, n, dofs[d]);
                if (i >= 0) q0[i] = c.disp[3 * n + d];
            }
        free(c.disp);
        if (st) return st;
    }
    return KD_OK;
}
