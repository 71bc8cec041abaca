/* A spatial description (kedyn/sdesc.h) compiled into a kd_smech (kedyn/smech.h). */
#include <math.h>
#include <string.h>

#include "kedyn/sdesc.h"
#include "spatial_internal.h"

kd_status kd_smech_compile(const kd_desc* d, kd_smech** out, kd_error* err) {
    *out = NULL;
    const kd_sdesc* s = d->sdesc;
    if (!s) return kd_error_set(err, KD_ERR_INPUT, d->file, KD_LOC_NONE, "not a spatial mechanism");
    kd_smech* m = kd_smech_new();
    if (!m) return kd_error_set(err, KD_ERR_NOMEM, d->file, KD_LOC_NONE, "out of memory");
    int idx[256];
    kd_status st = KD_OK;
    if (s->nbodies > 256) st = kd_error_set(err, KD_ERR_INPUT, d->file, KD_LOC_NONE, "more than 256 bodies");
    for (int b = 0; !st && b < s->nbodies; b++) {
        const kd_sbody_desc* bd = &s->bodies[b];
        idx[b] = -1;
        if (bd->ground) continue;
        double J[9];
        kd_inertia_tensor(bd->inertia, J);
        idx[b] = kd_smech_add_body(m, bd->name, bd->mass, J, bd->com, bd->position, bd->R);
        if (idx[b] < 0) st = kd_error_set(err, KD_ERR_NOMEM, d->file, KD_LOC_NONE, "out of memory");
        else kd_smech_set_velocity(m, idx[b], bd->velocity, bd->angular_velocity);
    }
    for (int k = 0; !st && k < s->njoints; k++) {
        const kd_sjoint_desc* j = &s->joints[k];
        const kd_sbody_desc *b0 = &s->bodies[j->body[0]], *b1 = &s->bodies[j->body[1]];
        if (j->type == KD_SJOINT_UNIVERSAL) {
            double a0[3], a1[3];
            for (int i = 0; i < 3; i++) {
                a0[i] = b0->R[3 * i] * j->axis[0][0] + b0->R[3 * i + 1] * j->axis[0][1] + b0->R[3 * i + 2] * j->axis[0][2];
                a1[i] = b1->R[3 * i] * j->axis[1][0] + b1->R[3 * i + 1] * j->axis[1][1] + b1->R[3 * i + 2] * j->axis[1][2];
            }
            const double c = (a0[0] * a1[0] + a0[1] * a1[1] + a0[2] * a1[2]) /
                             (sqrt(a0[0] * a0[0] + a0[1] * a0[1] + a0[2] * a0[2]) *
                              sqrt(a1[0] * a1[0] + a1[1] * a1[1] + a1[2] * a1[2]));
            if (fabs(c) > 1e-6) {
                st = kd_error_set(err, KD_ERR_INPUT, d->file, j->loc_axis,
                                  "the axes of universal joint '%s' are not orthogonal in the initial pose (cos = %.3g)",
                                  j->name, c);
                break;
            }
        }
        if (kd_smech_add_joint(m, j->name, (kd_sjoint_type)j->type, idx[j->body[0]], idx[j->body[1]],
                               b0->points[j->point[0]].x, b1->points[j->point[1]].x, j->axis[0], j->axis[1],
                               j->length) < 0)
            st = kd_error_set(err, KD_ERR_NOMEM, d->file, KD_LOC_NONE, "out of memory");
    }
    for (int k = 0; !st && k < s->ndrivers; k++)
        if (kd_smech_add_driver(m, s->drivers[k].joint, &s->drivers[k].law, s->drivers[k].initial) < 0)
            st = kd_error_set(err, KD_ERR_NOMEM, d->file, KD_LOC_NONE, "out of memory");
    for (int k = 0; !st && k < s->nforces; k++) {
        const kd_sforce_desc* F = &s->forces[k];
        int r = 0;
        switch (F->kind) {
        case KD_SF_GRAVITY:
            for (int i = 0; i < 3; i++) m->g[i] += F->g[i];
            break;
        case KD_SF_TORQUE: r = kd_smech_add_torque(m, idx[F->body[0]], F->value); break;
        case KD_SF_FORCE:
            r = kd_smech_add_force(m, idx[F->body[0]], s->bodies[F->body[0]].points[F->point[0]].x, F->value);
            break;
        default:
            r = kd_smech_add_spring(m, idx[F->body[0]], s->bodies[F->body[0]].points[F->point[0]].x, idx[F->body[1]],
                                    s->bodies[F->body[1]].points[F->point[1]].x, F->k, F->length, F->c);
            break;
        }
        if (r < 0) st = kd_error_set(err, KD_ERR_NOMEM, d->file, KD_LOC_NONE, "out of memory");
    }
    if (!st) {
        kd_error e;
        if (kd_smech_finish(m, &e)) {
            /* locate it at the joint it names */
            kd_loc at = KD_LOC_NONE;
            for (int k = 0; k < s->njoints; k++)
                if (strstr(e.msg, s->joints[k].name)) at = s->joints[k].loc;
            st = kd_error_set(err, e.status, d->file, at, "%s", e.msg);
        }
    }
    if (st) {
        kd_smech_free(&m);
        return st;
    }
    *out = m;
    return KD_OK;
}
