/* One-way kineto-elastodynamics of the elastic links of a mechanism
 * (kedyn/ked.h): the rigid solution, each link's own description in its
 * floating frame, its integration, and the post-processing of its states
 * (displacements, section forces and stresses, elastic joint reactions). */
#include "kedyn/ked.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/analysis.h"
#include "kedyn/element.h"
#include "kedyn/mbs.h"
#include "kedyn/system.h"
#include "link_ode.h"

#define FAIL(loc, ...) kd_error_set(err, KD_ERR_INPUT, d->file, (loc), __VA_ARGS__)
#define NOMEM() kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory")

/* ---- the rigid solution ---------------------------------------------------- */

static kd_status rigid_alloc(kd_ked_rigid* r, const kd_mech* m, int ns) {
    r->nsamples = 0, r->n = m->n, r->njoint = m->njoint, r->ndriver = m->ndriver;
    const size_t s = (size_t)ns;
    r->t = calloc(s, sizeof(double));
    r->q = calloc(s * (size_t)m->n, sizeof(double));
    r->qd = calloc(s * (size_t)m->n, sizeof(double));
    r->qdd = calloc(s * (size_t)m->n, sizeof(double));
    r->F = calloc(s * (size_t)(3 * m->njoint + 1), sizeof(double));
    r->drive = calloc(s * (size_t)(m->ndriver + 1), sizeof(double));
    return r->t && r->q && r->qd && r->qdd && r->F && r->drive ? KD_OK : KD_ERR_NOMEM;
}

static void rigid_free(kd_ked_rigid* r) {
    free(r->t);
    free(r->q);
    free(r->qd);
    free(r->qdd);
    free(r->F);
    free(r->drive);
    memset(r, 0, sizeof(*r));
}

typedef struct rigid_sink {
    kd_ked* k;
    int cap;                      /* samples allocated */
    double t_first;               /* instants before this one (settling) are not kept */
    kd_mech_work* w;
    kd_mech_reactions re;
    double* qdd;                  /* (n) the augmented system's accelerations */
    kd_error* err;
} rigid_sink;

/* The joint reactions by the multipliers (seed 003) at (t, q, q'), stored
 * with the state; qdd = NULL takes the augmented system's accelerations
 * (forward dynamics). */
static int rigid_store(rigid_sink* s, double t, const double* q, const double* qd, const double* qdd) {
    kd_ked_rigid* r = &s->k->rigid;
    const kd_mech* m = s->k->mech;
    if (r->nsamples >= s->cap || t < s->t_first) return 0;  /* settling, or a repeated end instant */
    if (r->nsamples > 0 && !(t > r->t[r->nsamples - 1])) return 0;
    if (kd_mech_inverse_multipliers(m, s->w, t, q, qd, s->qdd, &s->re, s->err)) return 1;
    const int i = r->nsamples++;
    const size_t n = (size_t)m->n;
    r->t[i] = t;
    memcpy(r->q + i * n, q, n * sizeof(double));
    memcpy(r->qd + i * n, qd, n * sizeof(double));
    memcpy(r->qdd + i * n, qdd ? qdd : s->qdd, n * sizeof(double));
    memcpy(r->F + (size_t)i * 3 * (size_t)m->njoint, s->re.F, sizeof(double) * 3 * (size_t)m->njoint);
    if (m->ndriver) memcpy(r->drive + (size_t)i * (size_t)m->ndriver, s->re.drive, sizeof(double) * (size_t)m->ndriver);
    return 0;
}

static int kin_sink(void* ctx, double t, const double* q, const double* qd, const double* qdd, const kd_mech_kin_info* info) {
    (void)info;
    return rigid_store(ctx, t, q, qd, qdd);
}

static int fwd_sink(void* ctx, const kd_mbs_sample* smp) { return rigid_store(ctx, smp->t, smp->q, smp->qd, NULL); }

/* Runge-Kutta steps per sample of a rigid solution by forward dynamics. */
#ifndef KED_RK_SUBSTEPS
#define KED_RK_SUBSTEPS 3
#endif

/* Kinematics when every degree of freedom is driven, else forward dynamics
 * (augmented form, Baumgarte, classical Runge-Kutta with KED_RK_SUBSTEPS steps
 * per sample). */
static kd_status solve_rigid(kd_ked* k, const kd_ked_opts* o, double settle, kd_error* err) {
    const kd_mech* m = k->mech;
    rigid_sink s;
    memset(&s, 0, sizeof(s));
    s.k = k;
    s.cap = o->steps + 1;
    /* settling: a whole number of sample spacings before the first kept instant */
    const double h = o->t_end / o->steps;
    const int nsettle = settle > 0 ? (int)floor(settle / h + 0.5) : 0;
    const double t_total = h * (nsettle + o->steps);
    s.t_first = nsettle > 0 ? h * (nsettle - 0.5) : -INFINITY;
    s.w = kd_mech_work_new(m);
    s.qdd = calloc((size_t)m->n + 1, sizeof(double));
    double* q = calloc(2 * (size_t)m->n + 1, sizeof(double));
    kd_error serr;
    kd_error_clear(&serr);
    s.err = &serr;
    kd_status st = s.w && s.qdd && q && !kd_mech_reactions_alloc(m, &s.re) && !rigid_alloc(&k->rigid, m, s.cap)
                       ? KD_OK
                       : NOMEM();
    kd_mech_mobility mob;
    if (!st) {
        memcpy(q, m->q0, sizeof(double) * (size_t)m->n);
        st = kd_mech_solve_position(m, s.w, 0.0, q, NULL, err);
    }
    if (!st) st = kd_mech_mobility_at(m, 0.0, q, &mob, err);
    if (!st) {
        k->dof_undriven = mob.dof_undriven;
        k->rigid.forward = mob.dof_undriven > 0;
        if (!k->rigid.forward) {
            kd_mech_kin_stats ks;
            st = kd_mech_kinematics(m, t_total, nsettle + o->steps, o->cond_max, kin_sink, &s, &ks, err);
        } else {
            kd_mbs_opts mo;
            kd_mbs_opts_default(&mo);
            mo.t_end = t_total;
            mo.dt = h / KED_RK_SUBSTEPS;
            mo.output_every = KED_RK_SUBSTEPS;
            kd_cms cms;
            kd_mech_cms(m, &cms);
            st = kd_mbs_forward(&cms, &mo, q, q + m->n, fwd_sink, &s, NULL, err);
        }
        if (st && serr.status != KD_OK) *err = serr, st = serr.status;
    }
    if (!st && k->rigid.nsamples < 2)
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "the rigid solution has fewer than 2 instants");
    kd_mech_reactions_free(&s.re);
    kd_mech_work_free(&s.w);
    free(s.qdd);
    free(q);
    return st;
}

/* ---- one link ----------------------------------------------------------------- */

/* Node-1 pose of link L at sample i: position, velocity, acceleration of the
 * point (-L/2, 0) from the centre of mass, and the angle with its rates. */
static void link_sample_pose(const kd_ked* k, const kd_ked_link* L, double len, int i, double p[3], double v[3],
                             double a[3]) {
    const kd_ked_rigid* r = &k->rigid;
    const size_t n = (size_t)r->n;
    const double *q = r->q + i * n, *qd = r->qd + i * n, *qdd = r->qdd + i * n;
    const double s[2] = {-0.5 * len, 0.0};
    kd_mech_point(k->mech, L->mbody, s, q, qd, p, v);
    kd_mech_point_acc(k->mech, L->mbody, s, q, qd, qdd, a);
    p[2] = q[3 * L->mbody + 2], v[2] = qd[3 * L->mbody + 2], a[2] = qdd[3 * L->mbody + 2];
}

/* The link's joints: which, at which node, on which side. */
static kd_status link_joints(const kd_desc* d, const kd_ked* k, kd_ked_link* L, kd_error* err) {
    const kd_body_desc* bd = &d->bodies[L->body];
    const double h = bd->length / bd->elements;
    for (int j = 0; j < k->mech->njoint; j++) {
        const kd_mjoint* mj = &k->mech->joint[j];
        for (int side = 0; side < 2; side++) {
            if (mj->body[side] != L->mbody) continue;
            const kd_joint_desc* jd = &d->joints[mj->desc];
            if (mj->type != KD_JOINT_REVOLUTE && mj->type != KD_JOINT_FIXED)
                return FAIL(jd->loc, "joint '%s': an elastic link (beam '%s') takes revolute and fixed joints", mj->name,
                            bd->name);
            if (L->njoint == KD_KED_LINK_JOINTS)
                return FAIL(jd->loc, "beam '%s' has more than %d joints", bd->name, KD_KED_LINK_JOINTS);
            L->joint[L->njoint] = j;
            L->joint_node[L->njoint] = (int)floor((mj->s[side][0] + 0.5 * bd->length) / h + 0.5) + 1;
            L->joint_sign[L->njoint] = side == 1 ? 1.0 : -1.0;
            L->njoint++;
        }
    }
    return KD_OK;
}

/* The link's description: the beam, its frame supports, its sampled motion,
 * the model's gravity and damping, its joint forces as nodal loads. */
static kd_status build_link(const kd_desc* d, kd_ked* k, kd_ked_link* L, kd_error* err) {
    const kd_body_desc* bd = &d->bodies[L->body];
    const kd_ked_rigid* r = &k->rigid;
    const int ns = r->nsamples;
    kd_status st = link_joints(d, k, L, err);
    if (st) return st;
    int first = bd->elements + 2, last = 0;
    for (int j = 0; j < L->njoint; j++) {
        if (L->joint_node[j] < first) first = L->joint_node[j];
        if (L->joint_node[j] > last) last = L->joint_node[j];
    }
    L->frame_node = bd->frame_node;
    L->modes = bd->modes, L->statics = bd->statics;
    if (L->frame_node == 0 && first == last) L->frame_node = first;  /* one joint: no chord, its node's frame */
    L->node_u = L->frame_node ? L->frame_node : first;

    kd_desc* ld = L->desc = kd_desc_new();
    if (!ld) return NOMEM();
    snprintf(ld->file, sizeof(ld->file), "%s", d->file);
    snprintf(ld->title, sizeof(ld->title), "elastic link %s", bd->name);
    kd_material_desc* mat = kd_desc_add_material(ld);
    kd_section_desc* sec = kd_desc_add_section(ld);
    kd_body_desc* b = kd_desc_add_body(ld);
    if (!mat || !sec || !b) return NOMEM();
    *mat = d->materials[bd->material];
    *sec = d->sections[bd->section];
    *b = *bd;
    b->material = b->section = 0;
    b->frame_node = 0;
    /* supports of the floating frame (kedyn/ked.h) */
    const unsigned U = 1u << KD_DOF_U, V = 1u << KD_DOF_V, RZ = 1u << KD_DOF_RZ;
    if (L->frame_node) st = link_desc_support(ld, L->frame_node, U | V | RZ);
    else if (!(st = link_desc_support(ld, first, U | V))) st = link_desc_support(ld, last, V);
    if (st) return NOMEM();
    /* the motion of node 1: quintic Hermite through the samples */
    double* buf = malloc(sizeof(double) * 10 * (size_t)ns);
    if (!buf) return NOMEM();
    double *pos = buf, *vel = buf + 3 * ns, *acc = buf + 6 * ns, *tmp = buf + 9 * ns;
    for (int i = 0; i < ns; i++) {
        double p[3], v[3], a[3];
        link_sample_pose(k, L, bd->length, i, p, v, a);
        for (int c = 0; c < 3; c++) pos[c * ns + i] = p[c], vel[c * ns + i] = v[c], acc[c * ns + i] = a[c];
    }
    kd_motion_desc* mo = kd_desc_add_motion(ld);
    if (!mo) st = NOMEM();
    if (!st) {
        mo->body = 0;
        mo->motion.type = KD_MOTION_PLANAR;
        kd_law* laws[3] = {&mo->motion.x, &mo->motion.y, &mo->motion.phi};
        for (int c = 0; c < 3 && !st; c++)
            st = kd_law_hermite(laws[c], ns, r->t, pos + c * ns, vel + c * ns, acc + c * ns, err);
    }
    /* joint forces on the link in its frame (theory.md sec. 2: F_L = R^T F) */
    for (int j = 0; j < L->njoint && !st; j++) {
        const kd_mjoint* mj = &k->mech->joint[L->joint[j]];
        double* comp[3] = {vel, vel + ns, vel + 2 * ns};  /* reuse: u, v, rz series */
        for (int i = 0; i < ns; i++) {
            const double* F = r->F + (size_t)i * 3 * (size_t)r->njoint + 3 * (size_t)L->joint[j];
            const double phi = pos[2 * ns + i], c = cos(phi), s = sin(phi), sg = L->joint_sign[j];
            comp[0][i] = sg * (c * F[0] + s * F[1]);
            comp[1][i] = sg * (-s * F[0] + c * F[1]);
            comp[2][i] = sg * F[2];
        }
        for (int c = 0; c < 3 && !st; c++) st = kd_law_table(&L->load[j][c], ns, r->t, comp[c], 0, err);
        if (!st) st = link_desc_nodal(ld, L->joint_node[j], KD_DOF_U, &L->load[j][0]);
        if (!st) st = link_desc_nodal(ld, L->joint_node[j], KD_DOF_V, &L->load[j][1]);
        if (!st && mj->type == KD_JOINT_FIXED) st = link_desc_nodal(ld, L->joint_node[j], KD_DOF_RZ, &L->load[j][2]);
    }
    /* axial force the joints transmit past the node whose u is held */
    if (!st)
        st = link_preload_table(&L->preload, &L->load[0][0], 3, L->njoint, L->joint_node, L->node_u, ns, r->t, tmp,
                                err);
    free(buf);
    /* gravity and the body's damping */
    for (int i = 0; i < d->nloads && !st; i++) {
        if (d->loads[i].type != KD_LOAD_GRAVITY) continue;
        kd_load_desc* g = kd_desc_add_load(ld);
        if (!g) return NOMEM();
        g->type = KD_LOAD_GRAVITY;
        memcpy(g->g, d->loads[i].g, sizeof(g->g));
        g->value = kd_law_constant(0.0), g->value_y = kd_law_constant(0.0);
    }
    for (int i = 0; i < d->ndampings && !st; i++) {
        if (d->dampings[i].body != L->body) continue;
        kd_damping_desc* dm = kd_desc_add_damping(ld);
        if (!dm) return NOMEM();
        *dm = d->dampings[i];
        dm->body = 0;
    }
    if (st) return st == KD_ERR_NOMEM ? NOMEM() : st;
    st = kd_model_compile(ld, &L->model, err);
    /* extreme fibre distance for the bending stress */
    switch (sec->shape) {
    case KD_SHAPE_CIRCLE:
    case KD_SHAPE_TUBE: L->c_y = 0.5 * sec->d; break;
    case KD_SHAPE_RECTANGLE: L->c_y = 0.5 * sec->h; break;
    case KD_SHAPE_GENERIC: L->c_y = 0.0; break;
    }
    return st;
}

/* What the one-way route does not take on a link. */
static kd_status check_link_items(const kd_desc* d, int b, kd_error* err) {
    const char* name = d->bodies[b].name;
    for (int i = 0; i < d->nsupports; i++)
        if (d->supports[i].body == b)
            return FAIL(d->supports[i].loc, "beam '%s' is an elastic link: its joints hold it, not supports", name);
    for (int i = 0; i < d->nmotions; i++)
        if (d->motions[i].body == b)
            return FAIL(d->motions[i].loc, "beam '%s' is an elastic link: the mechanism moves it, not a motion", name);
    for (int i = 0; i < d->nloads; i++)
        if (d->loads[i].type == KD_LOAD_NODAL && d->loads[i].body == b)
            return FAIL(d->loads[i].loc, "nodal loads on an elastic link (beam '%s') are not taken by the one-way route",
                        name);
    return KD_OK;
}

kd_status kd_ked_new(const kd_desc* d, const kd_ked_opts* o, kd_ked** out, kd_error* err) {
    return kd_ked_new_settled(d, o, 0.0, out, err);
}

kd_status kd_ked_new_settled(const kd_desc* d, const kd_ked_opts* o, double settle, kd_ked** out, kd_error* err) {
    *out = NULL;
    kd_ked* k = calloc(1, sizeof(*k));
    if (!k) return NOMEM();
    kd_status st = kd_mech_compile(d, &k->mech, err);
    for (int b = 0; b < d->nbodies && !st; b++)
        if (kd_desc_beam_in_joints(d, b)) {
            k->nlinks++;
            st = check_link_items(d, b, err);
        }
    if (!st && k->nlinks == 0) st = FAIL(KD_LOC_START, "the mechanism has no elastic link (a beam in joints)");
    /* a constant speed replaces the law of the first driver */
    if (!st && o->speed > 0) {
        if (k->mech->ndriver == 0) st = FAIL(KD_LOC_START, "speed: the mechanism has no driver");
        else {
            kd_law_free(&k->mech->driver[0].law);
            k->mech->driver[0].law = kd_law_constant(0.0);
            k->mech->driver[0].law.type = KD_LAW_SPEED;
            k->mech->driver[0].law.value = o->speed;
        }
    }
    if (!st) st = solve_rigid(k, o, settle, err);
    if (!st) {
        k->link = calloc((size_t)k->nlinks, sizeof(kd_ked_link));
        if (!k->link) st = NOMEM();
    }
    for (int b = 0, l = 0; b < d->nbodies && !st; b++) {
        if (!kd_desc_beam_in_joints(d, b)) continue;
        kd_ked_link* L = &k->link[l++];
        snprintf(L->name, sizeof(L->name), "%s", d->bodies[b].name);
        L->body = b;
        L->mbody = k->mech->desc_body[b];
        for (int j = 0; j < KD_KED_LINK_JOINTS; j++)
            for (int c = 0; c < 3; c++) L->load[j][c] = kd_law_constant(0.0);
        L->preload = kd_law_constant(0.0);
        st = build_link(d, k, L, err);
    }
    if (st) {
        kd_ked_free(&k);
        return st;
    }
    *out = k;
    return KD_OK;
}

void kd_ked_free(kd_ked** pk) {
    if (!pk || !*pk) return;
    kd_ked* k = *pk;
    for (int l = 0; k->link && l < k->nlinks; l++) {
        kd_ked_link* L = &k->link[l];
        kd_model_free(&L->model);
        kd_desc_free(&L->desc);
        for (int j = 0; j < KD_KED_LINK_JOINTS; j++)
            for (int c = 0; c < 3; c++) kd_law_free(&L->load[j][c]);
        kd_law_free(&L->preload);
    }
    free(k->link);
    rigid_free(&k->rigid);
    kd_mech_free(&k->mech);
    free(k);
    *pk = NULL;
}

void kd_ked_link_pose(const kd_ked* k, int link, double t, double pose[3]) {
    const kd_motion* mo = &k->link[link].model->body[0].motion;
    double d1, d2;
    kd_law_eval(&mo->x, t, &pose[0], &d1, &d2);
    kd_law_eval(&mo->y, t, &pose[1], &d1, &d2);
    kd_law_eval(&mo->phi, t, &pose[2], &d1, &d2);
}

/* ---- integration of a link ------------------------------------------------------ */

kd_status kd_ked_link_dynamics(kd_ked* k, int link, const kd_analysis_desc* ad, kd_ked_output out, void* ctx,
                               kd_integrate_stats* stats, kd_error* err) {
    kd_ked_link* L = &k->link[link];
    link_ode lo;
    kd_status st = link_ode_init(&lo, L->model, &L->preload, L->name, L->modes > 0 || !L->plain_step, err);
    if (!st && L->modes > 0 && (st = link_ode_reduce(&lo, L->modes, L->statics, err))) link_ode_free(&lo);
    if (st) return st;
    const int n = lo.s.n;
    /* start on the quasi-static path: at t = 0 at rest relative to the frame (the moving-frame system's
     * `initial: static`); after a settling time with the path's rate as well (forward
     * difference over a hundredth of a sample spacing), so that joining a running
     * mechanism excites no vibration */
    double* q0 = calloc(3 * (size_t)n, sizeof(double));
    const double t0 = k->rigid.t[0], eps = 1e-2 * (k->rigid.t[1] - k->rigid.t[0]);
    if (!q0) st = NOMEM();
    if (!st) st = link_ode_static(&lo, t0, q0, err);
    if (!st && t0 > 0) st = link_ode_static(&lo, t0 + eps, q0 + 2 * n, err);
    for (int i = 0; i < n && !st && t0 > 0; i++) q0[n + i] = (q0[2 * n + i] - q0[i]) / eps;
    if (!st)
        st = link_ode_integrate(&lo, &ad->dynamics, t0, k->rigid.t[k->rigid.nsamples - 1], q0, q0 + n, out, ctx, link,
                                stats, err);
    free(q0);
    link_ode_free(&lo);
    return st;
}

/* ---- post-processing ------------------------------------------------------------ */

static double dof_value(const kd_model* m, const double* q, int dof) {
    return dof >= 0 && m->dof_eq[dof] >= 0 ? q[m->dof_eq[dof]] : 0.0;
}

void kd_ked_link_displacements(const kd_ked* k, int link, const double* q, double* out) {
    const kd_model* m = k->link[link].model;
    static const kd_dof_name names[3] = {KD_DOF_U, KD_DOF_V, KD_DOF_RZ};
    for (int n = 0; n < m->nnode; n++)
        for (int c = 0; c < 3; c++) out[3 * n + c] = dof_value(m, q, link_node_dof(m, n, names[c]));
}

void kd_ked_link_section_forces(const kd_ked* k, int link, const double* q, double* out) {
    const kd_ked_link* L = &k->link[link];
    const kd_model* m = L->model;
    memset(out, 0, sizeof(double) * 3 * (size_t)m->nnode);
    for (int e = 0; e < m->nelem; e++) {
        const kd_element_props* pr = &m->prop[m->elem_prop[e]];
        double de[KD_ELEM_DOF_MAX];
        const int nd = link_elem_values(m, e, q, de);
        for (int end = 0; end < 2; end++) {
            double N[KD_NFIELD][KD_ELEM_DOF_MAX], dN[KD_NFIELD][KD_ELEM_DOF_MAX];
            kd_element_shape(pr->kind, &pr->c, pr->L, (double)end, N, dN);
            double du = 0.0, dth = 0.0;
            for (int a = 0; a < nd; a++) du += dN[0][a] * de[a], dth += dN[5][a] * de[a];
            const int node = m->elem_node[m->elem_node_adr[e] + end];
            /* inner nodes: the mean of the two elements' end values */
            const int inner = node > 0 && node < m->nnode - 1;
            const double w = inner ? 0.5 : 1.0;
            out[3 * node] += w * pr->c.E * pr->c.A * du;       /* N = EA u' */
            out[3 * node + 1] += w * pr->c.E * pr->c.Iz * dth; /* M = EI theta' (= EI v'') */
        }
    }
    const kd_element_props* pr = &m->prop[0];
    for (int n = 0; n < m->nnode; n++)
        out[3 * n + 2] = L->c_y > 0 ? fabs(out[3 * n]) / pr->c.A + fabs(out[3 * n + 1]) * L->c_y / pr->c.Iz : 0.0;
}

void kd_ked_link_reactions(kd_ked* k, int link, double t, const double* q, const double* v, const double* a,
                           double* out) {
    kd_ked_link* L = &k->link[link];
    const kd_body* body = &L->model->body[0];
    kd_frame f;
    kd_motion_eval(&body->motion, body->rot, body->origin, t, &f);
    double R[2 * KD_KED_LINK_JOINTS];  /* frame components */
    link_support_reactions(L->model, &f, &L->preload, &L->load[0][0], 3, L->njoint, L->joint_node, 2, t, q, v, a, R);
    for (int j = 0; j < L->njoint; j++) {  /* to global components */
        out[2 * j] = f.R[0] * R[2 * j] + f.R[1] * R[2 * j + 1];
        out[2 * j + 1] = f.R[3] * R[2 * j] + f.R[4] * R[2 * j + 1];
    }
}
