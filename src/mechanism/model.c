/* The compiled mechanism (kedyn/mech.h): bodies, joints, drivers, forces and
 * the fixed sparsity pattern of Phi_q, from a checked description. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/element.h"
#include "kedyn/mech.h"
#include "mechanism_internal.h"

#define FAIL(loc, ...) kd_error_set(err, KD_ERR_INPUT, d->file, (loc), __VA_ARGS__)

/* Rows of each joint type (theory.md sec. 6; src/mechanism/joints.c). */
int mech_joint_rows(kd_joint_type t) { return joint_rows(mech_joint_type(t)); }

/* A moving body of the mechanism: a rigid body, or a beam taking part in
 * joints (an elastic link, taken as rigid here; kedyn/ked.h). */
static int moving(const kd_desc* d, int b) {
    return d->bodies[b].type == KD_BODY_RIGID || kd_desc_beam_in_joints(d, b);
}

void kd_mech_link_rigid(const kd_desc* d, int b, double* mass, double* inertia, double* angle) {
    const kd_body_desc* bd = &d->bodies[b];
    const kd_material_desc* mat = &d->materials[bd->material];
    kd_element_consts c;
    kd_section_properties(&d->sections[bd->section], mat->nu, &c);
    const double L = bd->length, m = mat->rho * c.A * L;
    *mass = m;
    /* uniform bar about its centre, with the section's rotary inertia where the theory has it */
    *inertia = m * L * L / 12.0 + (bd->theory == KD_THEORY_EULER_BERNOULLI ? 0.0 : mat->rho * c.Iz * L);
    const double* x0 = bd->points[0].x;
    const double* x1 = bd->points[bd->npoints - 1].x;
    *angle = atan2(x1[1] - x0[1], x1[0] - x0[0]);
}

/* Point `p` of desc body `b` relative to its centre of mass, in its frame
 * (ground: global). A beam's body frame has its origin at its first point
 * and its x axis along the beam, its centre of mass at (L/2, 0). */
static void point_s(const kd_desc* d, int b, int p, double s[2]) {
    const kd_body_desc* bd = &d->bodies[b];
    const double* x = bd->points[p].x;
    if (bd->type == KD_BODY_RIGID) {
        s[0] = x[0] - bd->com[0], s[1] = x[1] - bd->com[1];
    } else if (bd->type == KD_BODY_BEAM) {
        const double* x0 = bd->points[0].x;
        const double* x1 = bd->points[bd->npoints - 1].x;
        const double a = atan2(x1[1] - x0[1], x1[0] - x0[0]), c = cos(a), sn = sin(a);
        const double dx = x[0] - x0[0], dy = x[1] - x0[1];
        s[0] = c * dx + sn * dy - 0.5 * bd->length;
        s[1] = -sn * dx + c * dy;
    } else {
        s[0] = x[0], s[1] = x[1];
    }
}

void kd_mech_free(kd_mech** pm) {
    if (!pm || !*pm) return;
    kd_mech* m = *pm;
    for (int i = 0; i < m->ndriver; i++) kd_law_free(&m->driver[i].law);
    for (int i = 0; i < m->nforce; i++) {
        kd_law_free(&m->force[i].value);
        kd_law_free(&m->force[i].value_y);
    }
    free(m->body_name);
    free(m->bodies);
    free(m->body_desc);
    free(m->desc_body);
    free(m->mass);
    free(m->q0);
    free(m->joint);
    free(m->driver);
    free(m->force);
    free(m->row_joint);
    free(m->jdef);
    free(m->jac_rowptr);
    free(m->jac_col);
    free(m->jac_slot);
    free(m->point_body);
    free(m->point_s);
    free(m->point_name);
    free(m);
    *pm = NULL;
}

/* Sparsity pattern: each row spans the three reference coordinates of each moving body of its
 * joint, in ascending column order (src/mechanism/joints.c: joint_pattern_row). */
static kd_status build_pattern(kd_mech* m) {
    m->jac_rowptr = calloc((size_t)m->nc + 1, sizeof(int));
    if (!m->jac_rowptr) return KD_ERR_NOMEM;
    for (int r = 0; r < m->nc; r++) {
        const kd_mjoint* j = &m->joint[m->row_joint[r]];
        m->jac_rowptr[r + 1] = m->jac_rowptr[r] + 3 * ((j->body[0] >= 0) + (j->body[1] >= 0));
    }
    m->jac_nnz = m->jac_rowptr[m->nc];
    m->jac_col = malloc(sizeof(int) * (size_t)(m->jac_nnz ? m->jac_nnz : 1));
    m->jac_slot = malloc(sizeof(int) * (size_t)(m->jac_nnz ? m->jac_nnz : 1));
    if (!m->jac_col || !m->jac_slot) return KD_ERR_NOMEM;
    const unsigned mask[2] = {JOINT_REFERENCE_SLOTS, JOINT_REFERENCE_SLOTS};
    for (int r = 0; r < m->nc; r++) {
        const kd_mjoint* j = &m->joint[m->row_joint[r]];
        const int e = m->jac_rowptr[r];
        joint_pattern_row(m->bodies, j->point, mask, m->jac_col + e, m->jac_slot + e);
    }
    return KD_OK;
}

static kd_status compile_joints(const kd_desc* d, kd_mech* m, kd_error* err) {
    int row = 0;
    for (int k = 0; k < d->njoints; k++) {
        const kd_joint_desc* jd = &d->joints[k];
        kd_mjoint* j = &m->joint[k];
        snprintf(j->name, sizeof(j->name), "%s", jd->name);
        j->type = jd->type;
        j->desc = k;
        j->driver = -1;
        for (int s = 0; s < 2; s++) {
            if (jd->body[s] < 0 || jd->body[s] >= d->nbodies || jd->point[s] < 0 ||
                jd->point[s] >= d->bodies[jd->body[s]].npoints)
                return FAIL(jd->loc, "joint '%s': unknown body or point", jd->name);
            j->body[s] = m->desc_body[jd->body[s]];
            point_s(d, jd->body[s], jd->point[s], j->s[s]);
            j->point[s] = (kd_mpoint){j->body[s], -1, {j->s[s][0], j->s[s][1]}};
            const kd_body_desc* bd = &d->bodies[jd->body[s]];
            if (bd->type == KD_BODY_BEAM) {
                /* an elastic link: the joint acts at a node, on the beam's axis */
                const double h = bd->length / bd->elements, x = j->s[s][0] + 0.5 * bd->length;
                if (fabs(j->s[s][1]) > 1e-9 * bd->length || fabs(x / h - floor(x / h + 0.5)) > 1e-6)
                    return FAIL(bd->points[jd->point[s]].loc,
                                "joint '%s': point '%s' of beam '%s' is not at a node (nodes every %g m along its axis)",
                                jd->name, bd->points[jd->point[s]].name, bd->name, h);
            }
        }
        if (j->body[0] < 0 && j->body[1] < 0) return FAIL(jd->loc, "joint '%s' connects two ground bodies", jd->name);
        j->axis[0] = jd->axis[0], j->axis[1] = jd->axis[1];
        if (j->type == KD_JOINT_PRISMATIC || j->type == KD_JOINT_ROLLING) {
            const double len = hypot(j->axis[0], j->axis[1]);
            if (!(len > 0)) return FAIL(jd->loc, "joint '%s': axis must not be zero", jd->name);
            j->axis[0] /= len, j->axis[1] /= len;
        }
        if (j->type == KD_JOINT_ROLLING && !(jd->radius > 0))
            return FAIL(jd->loc, "joint '%s': radius must be positive", jd->name);
        /* References taken from the initial guess (kedyn/mech.h). */
        double r0[2], r1[2], v[2];
        kd_mech_point(m, j->body[0], j->s[0], m->q0, NULL, r0, v);
        kd_mech_point(m, j->body[1], j->s[1], m->q0, NULL, r1, v);
        const double phi0 = j->body[0] >= 0 ? m->q0[3 * j->body[0] + 2] : 0.0;
        const double phi1 = j->body[1] >= 0 ? m->q0[3 * j->body[1] + 2] : 0.0;
        const double dd[2] = {r1[0] - r0[0], r1[1] - r0[1]};
        j->ref = phi1 - phi0;
        j->length = jd->length > 0 ? jd->length : hypot(dd[0], dd[1]);
        if (j->type == KD_JOINT_DISTANCE && !(j->length > 0))
            return FAIL(jd->loc, "joint '%s': the points coincide in the initial guess; give its length", jd->name);
        if (j->type == KD_JOINT_ROLLING) {
            /* the disc lies on the side of the line where the guess puts it; the
             * radius is signed accordingly (src/mechanism/constraints.c) */
            const double u[2] = {cos(phi0) * j->axis[0] - sin(phi0) * j->axis[1],
                                 sin(phi0) * j->axis[0] + cos(phi0) * j->axis[1]};
            const double n[2] = {-u[1], u[0]};
            j->radius = (n[0] * dd[0] + n[1] * dd[1] >= 0 ? 1.0 : -1.0) * jd->radius;
            j->ref = u[0] * dd[0] + u[1] * dd[1] + j->radius * (phi1 - phi0);
        }
        j->row = row;
        j->nrow = mech_joint_rows(j->type);
        for (int r = 0; r < j->nrow; r++) m->row_joint[row + r] = k;
        row += j->nrow;
    }
    m->nc_joint = row;
    for (int k = 0; k < d->ndrivers; k++) {
        const kd_driver_desc* dd = &d->drivers[k];
        kd_mdriver* dr = &m->driver[k];
        if (dd->joint < 0 || dd->joint >= d->njoints) return FAIL(dd->loc, "driver: unknown joint");
        kd_mjoint* j = &m->joint[dd->joint];
        if (j->type != KD_JOINT_REVOLUTE && j->type != KD_JOINT_PRISMATIC)
            return FAIL(dd->loc, "driver: joint '%s' is %s; drivers act on revolute and prismatic joints", j->name,
                        kd_joint_type_str(j->type));
        if (j->driver >= 0) return FAIL(dd->loc, "driver: joint '%s' has two drivers", j->name);
        if (kd_law_smoothness(&dd->law) < 2)
            return FAIL(dd->loc, "driver of joint '%s': the law needs accelerations (use a spline table)", j->name);
        j->driver = k;
        dr->joint = dd->joint;
        dr->initial = dd->initial;
        dr->row = row;
        m->row_joint[row++] = dd->joint;
        kd_status st = kd_law_copy(&dr->law, &dd->law);
        if (st) return st;
        m->ndriver = k + 1;  /* laws owned so far, for kd_mech_free */
    }
    return KD_OK;
}

/* The joint equations' data of every joint and driver row (src/mechanism/joints.c), once. */
static kd_status joint_defs(kd_mech* m) {
    m->jdef = calloc((size_t)(m->njoint + m->ndriver + 1), sizeof(joint_def));
    if (!m->jdef) return KD_ERR_NOMEM;
    for (int k = 0; k < m->njoint + m->ndriver; k++) {
        const int drv = k >= m->njoint;
        const kd_mjoint* j = &m->joint[drv ? m->driver[k - m->njoint].joint : k];
        joint_def* def = &m->jdef[k];
        *def = (joint_def){mech_joint_type(j->type), {j->axis[0], j->axis[1]}, j->length, j->radius, j->ref};
        if (drv) def->type = j->type == KD_JOINT_REVOLUTE ? JOINT_ANGLE : JOINT_SLIDE;
    }
    return KD_OK;
}

static kd_status compile_forces(const kd_desc* d, kd_mech* m, kd_error* err) {
    for (int i = 0; i < d->nloads; i++) {
        const kd_load_desc* l = &d->loads[i];
        if (l->type == KD_LOAD_GRAVITY) {
            m->g[0] += l->g[0], m->g[1] += l->g[1];
            continue;
        }
        if (l->type < KD_LOAD_SPRING) continue;  /* nodal loads belong to beams */
        kd_mforce* f = &m->force[m->nforce];
        f->value = kd_law_constant(0.0), f->value_y = kd_law_constant(0.0);
        f->body[0] = f->body[1] = -1;
        f->joint = -1;
        m->nforce++;
        kd_status st = KD_OK;
        switch (l->type) {
        case KD_LOAD_SPRING:
            f->type = KD_MFORCE_SPRING;
            f->body[0] = m->desc_body[l->body], f->body[1] = m->desc_body[l->body2];
            point_s(d, l->body, l->point[0], f->s[0]);
            point_s(d, l->body2, l->point[1], f->s[1]);
            f->k = l->k, f->length = l->length, f->c = l->c;
            break;
        case KD_LOAD_FRICTION:
            f->type = KD_MFORCE_FRICTION;
            if (l->joint < 0 || l->joint >= m->njoint) return FAIL(l->loc, "friction: unknown joint");
            f->joint = l->joint;
            f->force = l->force;
            f->v_smooth = l->v_smooth > 0 ? l->v_smooth : KD_FRICTION_V_SMOOTH_DEFAULT;
            if (m->joint[l->joint].type != KD_JOINT_REVOLUTE && m->joint[l->joint].type != KD_JOINT_PRISMATIC)
                return FAIL(l->loc, "friction acts at revolute and prismatic joints");
            break;
        case KD_LOAD_TORQUE:
        case KD_LOAD_FORCE:
            f->type = l->type == KD_LOAD_TORQUE ? KD_MFORCE_TORQUE : KD_MFORCE_FORCE;
            f->body[0] = m->desc_body[l->body];
            if (f->body[0] < 0) return FAIL(l->loc, "a %s acts on a rigid body", l->type == KD_LOAD_TORQUE ? "torque" : "force");
            if (l->type == KD_LOAD_FORCE) point_s(d, l->body, l->point[0], f->s[0]);
            st = kd_law_copy(&f->value, &l->value);
            if (!st) st = kd_law_copy(&f->value_y, &l->value_y);
            break;
        default: break;
        }
        if (st) return st;
    }
    return KD_OK;
}

kd_status kd_mech_compile(const kd_desc* d, kd_mech** out, kd_error* err) {
    *out = NULL;
    kd_mech* m = calloc(1, sizeof(*m));
    if (!m) return kd_error_set(err, KD_ERR_NOMEM, d->file, KD_LOC_NONE, "out of memory");
    for (int b = 0; b < d->nbodies; b++) m->nbody += moving(d, b);
    m->n = 3 * m->nbody;
    m->njoint = d->njoints;
    for (int k = 0; k < d->njoints; k++) m->nc += mech_joint_rows(d->joints[k].type);
    m->nc += d->ndrivers;
    int nf = 0;
    for (int i = 0; i < d->nloads; i++) nf += d->loads[i].type >= KD_LOAD_SPRING;
    const size_t nb = (size_t)(m->nbody ? m->nbody : 1), nn = (size_t)(m->n ? m->n : 1);
    m->body_name = calloc(nb, sizeof(*m->body_name));
    m->bodies = calloc(nb, sizeof(kd_mbody));
    m->body_desc = calloc(nb, sizeof(int));
    m->desc_body = calloc((size_t)(d->nbodies ? d->nbodies : 1), sizeof(int));
    m->mass = calloc(nn, sizeof(double));
    m->q0 = calloc(nn, sizeof(double));
    m->joint = calloc((size_t)(d->njoints ? d->njoints : 1), sizeof(kd_mjoint));
    m->driver = calloc((size_t)(d->ndrivers ? d->ndrivers : 1), sizeof(kd_mdriver));
    m->force = calloc((size_t)(nf ? nf : 1), sizeof(kd_mforce));
    m->row_joint = calloc((size_t)(m->nc ? m->nc : 1), sizeof(int));
    kd_status st = (m->body_name && m->bodies && m->body_desc && m->desc_body && m->mass && m->q0 && m->joint && m->driver &&
                    m->force && m->row_joint)
                       ? KD_OK
                       : KD_ERR_NOMEM;
    if (!st && m->nbody == 0) st = FAIL(KD_LOC_START, "the mechanism has no moving body (a body of type rigid)");

    /* Bodies: M = diag(m, m, J_G); q0 from the guessed frame and the centre of mass. */
    m->length_scale = 0.0;
    for (int b = 0, k = 0; b < d->nbodies && !st; b++) {
        const kd_body_desc* bd = &d->bodies[b];
        m->desc_body[b] = -1;
        for (int p = 0; p < bd->npoints; p++) {
            double s[2];
            point_s(d, b, p, s);
            m->length_scale = fmax(m->length_scale, hypot(s[0], s[1]));
        }
        if (!moving(d, b)) continue;
        m->desc_body[b] = k;
        m->body_desc[k] = b;
        m->bodies[k] = (kd_mbody){.kind = KD_MBODY_RIGID, .pose = KD_POSE_PLANAR, .off = 3 * k, .nref = KD_POSE_PLANAR_SIZE};
        snprintf(m->body_name[k], KD_NAME_MAX, "%s", bd->name);
        double mass = bd->mass, inertia = bd->inertia, angle = bd->angle, pos[2] = {bd->position[0], bd->position[1]};
        double com[2] = {bd->com[0], bd->com[1]};
        if (bd->type == KD_BODY_BEAM) {  /* an elastic link, rigid here: its frame from its points */
            kd_mech_link_rigid(d, b, &mass, &inertia, &angle);
            pos[0] = bd->points[0].x[0], pos[1] = bd->points[0].x[1];
            com[0] = 0.5 * bd->length, com[1] = 0.0;
        }
        m->mass[3 * k] = m->mass[3 * k + 1] = mass;
        m->mass[3 * k + 2] = inertia;
        const double c = cos(angle), s = sin(angle);
        m->q0[3 * k] = pos[0] + c * com[0] - s * com[1];
        m->q0[3 * k + 1] = pos[1] + s * com[0] + c * com[1];
        m->q0[3 * k + 2] = angle;
        k++;
    }
    if (!(m->length_scale > 0)) m->length_scale = 1.0;
    /* named points of the moving bodies */
    int np = 0;
    for (int b = 0; b < d->nbodies; b++) np += moving(d, b) ? d->bodies[b].npoints : 0;
    m->point_body = calloc((size_t)(np + 1), sizeof(int));
    m->point_s = calloc((size_t)(2 * np + 2), sizeof(double));
    m->point_name = calloc((size_t)(np + 1), sizeof(*m->point_name));
    if (!st && (!m->point_body || !m->point_s || !m->point_name)) st = KD_ERR_NOMEM;
    for (int b = 0; b < d->nbodies && !st; b++) {
        if (!moving(d, b)) continue;
        for (int p = 0; p < d->bodies[b].npoints; p++, m->npoint++) {
            m->point_body[m->npoint] = m->desc_body[b];
            point_s(d, b, p, m->point_s + 2 * m->npoint);
            snprintf(m->point_name[m->npoint], KD_NAME_MAX, "%s", d->bodies[b].points[p].name);
        }
    }
    if (!st) st = compile_joints(d, m, err);
    if (!st) st = compile_forces(d, m, err);
    if (!st) st = build_pattern(m);
    if (!st) st = joint_defs(m);
    if (st) {
        if (st == KD_ERR_NOMEM) kd_error_set(err, st, d->file, KD_LOC_NONE, "out of memory");
        kd_mech_free(&m);
        return st;
    }
    *out = m;
    return KD_OK;
}
