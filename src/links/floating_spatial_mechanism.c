/* The two-way coupled system of a spatial mechanism with `beam` bodies (kedyn/ffr3d.h,
 * kd_ffr3d_from_smech; theory.md sec. 17, F7): the compiled rigid mechanism (links as rigid
 * bodies) is assembled at t = 0 and its bodies, joints, drivers and gravity become floating-frame
 * bodies (rigid ones, and each link a 3D beam with its frame clamped at its first point) and their
 * joints (every joint type of kedyn/smech.h), starting from the rigid state with undeformed links. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floating3d_internal.h"
#include "kedyn/element.h"
#include "kedyn/model.h"
#include "kedyn/sdesc.h"
#include "kedyn/sked.h"
#include "kedyn/smech.h"
#include "spatial_plate_link.h"

static void rotate(const double R[9], const double x[3], double y[3]) {
    for (int i = 0; i < 3; i++) y[i] = R[3 * i] * x[0] + R[3 * i + 1] * x[1] + R[3 * i + 2] * x[2];
}

/* F11: a link with `modes` reduced on the constraint modes of its joint nodes and its lowest
 * fixed-interface modes (the nodes of its joints as the joint loop below finds them). */
static kd_status reduce_link(const kd_desc* d, const kd_smech* m, kd_ffr3d_system* s, int bi, int mb,
                             const kd_sbody_desc* B, kd_error* err) {
    const int ne = B->elements > 0 ? B->elements : 10;
    int* nodes = malloc(sizeof(int) * (2 * (size_t)m->njoint + 1));
    if (!nodes) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    int nn = 0;
    for (int k = 0; k < m->njoint; k++)
        for (int side = 0; side < 2; side++)
            if (m->joint[k].body[side] == mb) {
                const double x = m->joint[k].s[side][0] + m->com[3 * mb] - B->p1[0];
                const int node = (int)lround(x / (B->length / ne));
                if (node >= 0 && node <= ne) nodes[nn++] = node;   /* others: the joint loop's error */
            }
    /* static_correction (F12): none = F11 alone, soft = all but the mainly axial
     * responses to the linearly growing loads, output or basis = all of them */
    const int sv = B->statics == 0 ? 0 : (B->statics == 3 ? 2 : 1);
    const kd_status st = kd_ffr3d_reduce_basis(s, bi, B->modes, nodes, nn, sv, err);
    free(nodes);
    if (st && err->loc.line == 0) err->loc = B->loc, snprintf(err->file, sizeof(err->file), "%s", d->file);
    return st;
}

/* SL6: description body b (moving body mb of the mechanism), a `plate`, as a shell body of s from
 * the model of its mesh (the one-way link's: spatial_plate_link.c); SL9: with `modes`, reduced on
 * the constraint modes of the mesh nodes of its joints. Returns its index or -1. */
static int add_shell_link(const kd_desc* d, const kd_smech* m, kd_ffr3d_system* s, int b, int mb, kd_error* err) {
    const kd_sbody_desc* B = &d->sdesc->bodies[b];
    kd_sked_link_spec sp;
    kd_sked_link_spec_of(d, b, mb, &sp);
    kd_desc* ld = NULL;
    kd_model* md = NULL;
    int k = -1;
    const int built = !splate_link_model(&sp, B->geometric_stiffness, &ld, &md, err);   /* SL8, SL10 */
    if (built && B->modes <= 0) k = kd_ffr3d_add_shell(s, B->name, md, err);
    else if (built) {   /* SL9: the joints' nodes (a node off the mesh: the joint loop's error) */
        int* nodes = malloc(sizeof(int) * (2 * (size_t)m->njoint + 1));
        int nn = 0;
        for (int j = 0; nodes && j < m->njoint; j++)
            for (int side = 0; side < 2; side++)
                if (m->joint[j].body[side] == mb) {
                    const double x[3] = {m->joint[j].s[side][0] + m->com[3 * mb],
                                         m->joint[j].s[side][1] + m->com[3 * mb + 1],
                                         m->joint[j].s[side][2] + m->com[3 * mb + 2]};
                    nodes[nn++] = kd_splate_node_at(B->shell, x) - 1;
                }
        if (!nodes) kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
        else k = kd_ffr3d_add_shell_reduced(s, B->name, md, B->modes, nodes, nn, 1, err);
        free(nodes);
    }
    if (k < 0 && err->loc.line == 0) err->loc = B->loc, snprintf(err->file, sizeof(err->file), "%s", d->file);
    kd_model_free(&md);
    kd_desc_free(&ld);
    return k;
}

kd_status kd_ffr3d_from_smech(const kd_desc* d, const kd_smech* m, kd_ffr3d_system** out, double** q0, double** qd0,
                              kd_error* err) {
    const kd_sdesc* sd = d->sdesc;
    *out = NULL, *q0 = *qd0 = NULL;
    double g[3] = {0, 0, 0};
    for (int i = 0; i < sd->nforces; i++) {
        const kd_sforce_desc* F = &sd->forces[i];
        if (F->kind != KD_SF_GRAVITY)
            return kd_error_set(err, KD_ERR_INPUT, d->file, F->loc,
                                "two-way elastic links of a spatial mechanism take gravity only, not a %s",
                                kd_sforce_kind_names[F->kind]);
        for (int c = 0; c < 3; c++) g[c] += F->g[c];
    }
    /* the moving description bodies in the mechanism's order */
    int* sb = malloc(sizeof(int) * (size_t)(m->nbody + 1));
    double* q = malloc(sizeof(double) * (size_t)(m->n + 1));
    double* qd = malloc(sizeof(double) * (size_t)(m->n + 1));
    kd_ffr3d_system* s = kd_ffr3d_new(g);
    kd_status st = sb && q && qd && s ? KD_OK : kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    for (int b = 0, mb = 0; !st && b < sd->nbodies; b++)
        if (!sd->bodies[b].ground) sb[mb++] = b;
    /* the rigid state at t = 0: positions assembled, velocities projected */
    if (!st) {
        memcpy(q, m->q0, sizeof(double) * (size_t)m->n);
        memcpy(qd, m->qd0, sizeof(double) * (size_t)m->n);
        st = kd_smech_solve_position(m, 0.0, q, NULL, err);
        if (!st) st = kd_smech_solve_velocity(m, 0.0, q, qd, 1, err);
    }
    for (int mb = 0; !st && mb < m->nbody; mb++) {
        const kd_sbody_desc* B = &sd->bodies[sb[mb]];
        if (B->plate) {   /* SL6: a shell link, its mesh in the body frame, the support set clamped */
            if (B->modes > 0 && (B->statics == 0 || B->statics == 3))   /* SL9: every static vector kept */
                st = kd_error_set(err, KD_ERR_INPUT, d->file, B->loc,
                                  "two-way shell link '%s': static_correction: %s is not available (a reduced "
                                  "two-way shell keeps every static vector of F12 in its basis: output or basis)",
                                  B->name, B->statics == 0 ? "none" : "soft");
            else if (add_shell_link(d, m, s, sb[mb], mb, err) < 0) st = err->status;
            continue;
        }
        if (!B->beam) {
            if (kd_ffr3d_add_rigid(s, B->name, m->mass[mb], m->J + 9 * mb, err) < 0) st = err->status;
            continue;
        }
        const kd_material_desc* mt = &d->materials[B->material];
        kd_element_consts c;
        memset(&c, 0, sizeof(c));
        kd_section_properties(&d->sections[B->section], mt->nu, &c);
        if (B->theory != KD_THEORY_EULER_BERNOULLI && B->theory != KD_THEORY_RAYLEIGH) {
            st = kd_error_set(err, KD_ERR_INPUT, d->file, B->loc,
                              "a two-way link is an euler-bernoulli or rayleigh beam ('%s')", B->name);
            break;
        }
        const kd_ffr3d_beam bm = {B->length, B->elements > 0 ? B->elements : 10, B->theory,
                                  mt->E, mt->G > 0 ? mt->G : mt->E / (2 * (1 + mt->nu)), mt->rho,
                                  c.A, c.Iy, c.Iz, c.J, B->geometric_stiffness};
        const int bi = kd_ffr3d_add_beam(s, B->name, &bm, err);
        if (bi < 0) st = err->status;
        else if (B->modes > 0) st = reduce_link(d, m, s, bi, mb, B, err);
    }
    /* poses: a rigid body's frame at its centre of mass, a link's at its first point; the initial
     * guesses give the joints' triads (kd_ffr3d_finish), the assembled state the start */
    double* qg = NULL;
    if (!st) {
        const int n = kd_ffr3d_size(s);
        qg = calloc((size_t)n + 1, sizeof(double));
        *q0 = calloc((size_t)n + 1, sizeof(double)), *qd0 = calloc((size_t)n + 1, sizeof(double));
        if (!qg || !*q0 || !*qd0) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    for (int b = 0; !st && b < m->nbody; b++) {
        const kd_sbody_desc* B = &sd->bodies[sb[b]];
        for (int pass = 0; pass < 2; pass++) {
            const double* xb = (pass == 0 ? m->q0 : q) + KD_SPOSE * b;
            double R[9], w[3] = {0, 0, 0}, r[3], v[3] = {0, 0, 0}, arm[3], rel[3];
            kd_rot_from_quat(xb + 3, R);
            for (int i = 0; i < 3; i++)
                rel[i] = B->beam ? B->p1[i] - m->com[3 * b + i] : B->plate ? -m->com[3 * b + i] : 0.0;
            rotate(R, rel, arm);
            for (int i = 0; i < 3; i++) r[i] = xb[i] + arm[i];
            if (pass == 0) {
                kd_ffr3d_set_pose(s, b, r, R, NULL, NULL, qg, NULL);
                continue;
            }
            /* v = v_G + w x (A (P1 - com)) */
            kd_smech_omega(m, b, q, qd, w);
            const double* vc = qd + KD_SPOSE * b;
            v[0] = vc[0] + w[1] * arm[2] - w[2] * arm[1];
            v[1] = vc[1] + w[2] * arm[0] - w[0] * arm[2];
            v[2] = vc[2] + w[0] * arm[1] - w[1] * arm[0];
            kd_ffr3d_set_pose(s, b, r, R, v, w, *q0, *qd0);
        }
    }
    /* joints: points from the centre of mass (mechanism) to the floating frames */
    for (int k = 0; !st && k < m->njoint; k++) {
        const kd_sjoint* J = &m->joint[k];
        const kd_sjoint_desc* JD = &sd->joints[k];
        /* every joint of kedyn/smech.h (the two enumerations differ in order) */
        static const kd_ffr3d_joint_type map[KD_SJOINT_TYPES] = {
            [KD_SJOINT_SPHERICAL] = KD_FFR3D_SPHERICAL,          [KD_SJOINT_REVOLUTE] = KD_FFR3D_REVOLUTE,
            [KD_SJOINT_UNIVERSAL] = KD_FFR3D_UNIVERSAL,          [KD_SJOINT_CYLINDRICAL] = KD_FFR3D_CYLINDRICAL,
            [KD_SJOINT_PRISMATIC] = KD_FFR3D_PRISMATIC,          [KD_SJOINT_FIXED] = KD_FFR3D_FIXED,
            [KD_SJOINT_POINT_ON_LINE] = KD_FFR3D_POINT_ON_LINE, [KD_SJOINT_POINT_ON_PLANE] = KD_FFR3D_POINT_ON_PLANE,
            [KD_SJOINT_DISTANCE] = KD_FFR3D_DISTANCE};
        const kd_ffr3d_joint_type t = map[J->type];
        kd_ffr3d_point pt[2];
        for (int side = 0; side < 2; side++) {
            const int b = J->body[side];
            kd_ffr3d_point* P = &pt[side];
            memset(P, 0, sizeof(*P));
            P->body = b;
            if (b < 0) {
                memcpy(P->p, J->s[side], sizeof(P->p));
                continue;
            }
            const kd_sbody_desc* B = &sd->bodies[sb[b]];
            if (B->plate) {   /* SL6: the mesh node at the joint's point (body frame) */
                const double x[3] = {J->s[side][0] + m->com[3 * b], J->s[side][1] + m->com[3 * b + 1],
                                     J->s[side][2] + m->com[3 * b + 2]};
                P->node = kd_splate_node_at(B->shell, x) - 1;
                if (P->node < 0) {
                    st = kd_error_set(err, KD_ERR_INPUT, d->file, JD->loc,
                                      "joint '%s' is not at a node of the mesh of plate link '%s'", J->name, B->name);
                    break;
                }
                continue;
            }
            if (!B->beam) {
                memcpy(P->p, J->s[side], sizeof(P->p));
                continue;
            }
            /* a link node: the point along the axis from the first point, at a node */
            const int ne = B->elements > 0 ? B->elements : 10;
            const double x = J->s[side][0] + m->com[3 * b] - B->p1[0], h = B->length / ne;
            const int node = (int)lround(x / h);
            if (node < 0 || node > ne || fabs(x - node * h) > 1e-6 * B->length) {
                st = kd_error_set(err, KD_ERR_INPUT, d->file, JD->loc,
                                  "joint '%s' is not at a node of link '%s' (nodes every %g m from its first point)",
                                  J->name, B->name, h);
                break;
            }
            P->node = node;
        }
        if (st) break;
        /* the axes in global components at the initial guess (body 0's axes there; a universal
         * joint's second axis in body 1's) */
        double ax[2][3];
        for (int side = 0; side < 2; side++) {
            memcpy(ax[side], J->u[side], sizeof(ax[side]));
            if (J->body[side] >= 0) {
                double R[9];
                kd_rot_from_quat(m->q0 + KD_SPOSE * J->body[side] + 3, R);
                rotate(R, J->u[side], ax[side]);
            }
        }
        const int j = kd_ffr3d_add_joint_ex(s, t, pt[0], pt[1], ax[0], ax[1], J->length, err);
        if (j < 0) {
            if (err->loc.line == 0) err->loc = JD->loc, snprintf(err->file, sizeof(err->file), "%s", d->file);
            st = err->status;
            break;
        }
        f3_set_joint_tag(s, j, k);
        if (J->driver >= 0) {
            const kd_sdriver* D = &m->driver[J->driver];
            st = kd_ffr3d_add_driver(s, j, &D->law, D->initial, err);
            if (st && err->loc.line == 0)
                err->loc = sd->drivers[J->driver].loc, snprintf(err->file, sizeof(err->file), "%s", d->file);
        }
    }
    if (!st) st = kd_ffr3d_finish(s, qg, err);
    free(sb), free(q), free(qd), free(qg);
    if (st) {
        kd_ffr3d_free(&s);
        free(*q0), free(*qd0);
        *q0 = *qd0 = NULL;
        return st;
    }
    *out = s;
    return KD_OK;
}
