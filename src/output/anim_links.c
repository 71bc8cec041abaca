/* A mechanism with elastic links in the animation (src/output/anim_links.h). */
#include "anim_links.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim_mech.h"

kd_status anim_links_init(anim_links* a, kd_anim_recorder* rec, const kd_desc* d, const kd_ked* k, kd_error* err) {
    memset(a, 0, sizeof(*a));
    if (!rec) return KD_OK;
    const kd_model* model = kd_anim_recorder_model(rec);
    int neq_links = 0, nmax = 1;
    for (int l = 0; l < k->nlinks; l++) {
        const int nn = k->link[l].model->nnode;
        neq_links += 3 * nn;
        nmax = nn > nmax ? nn : nmax;
    }
    a->pose = malloc(sizeof(double) * 12 * (size_t)(d->nbodies ? d->nbodies : 1));
    a->q = calloc((size_t)(model->neq ? model->neq : 1), sizeof(double));
    a->mq = calloc((size_t)(k->mech->n ? k->mech->n : 1), sizeof(double));
    a->disp = calloc(3 * (size_t)nmax, sizeof(double));
    a->eq = malloc(sizeof(int) * (size_t)(neq_links ? neq_links : 1));
    a->eq_adr = calloc((size_t)k->nlinks + 1, sizeof(int));
    if (!a->pose || !a->q || !a->mq || !a->disp || !a->eq || !a->eq_adr) {
        anim_links_free(a);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    a->rec = rec, a->d = d, a->model = model, a->k = k;
    /* the link's nodes are the beam's nodes of the whole model, in order */
    static const kd_dof_name dofs[3] = {KD_DOF_U, KD_DOF_V, KD_DOF_RZ};
    for (int l = 0; l < k->nlinks; l++) {
        const kd_body* b = &model->body[k->link[l].body];
        const int nn = k->link[l].model->nnode;
        int* eq = a->eq + a->eq_adr[l];
        for (int n = 0; n < nn; n++)
            for (int c = 0; c < 3; c++) {
                eq[3 * n + c] = -1;
                if (b->type != KD_BODY_BEAM || n >= b->node_num) continue;
                const int node = b->node_adr + n;
                for (int j = 0; j < model->node_dof_num[node]; j++)
                    if (model->dof_name[model->node_dof_adr[node] + j] == dofs[c])
                        eq[3 * n + c] = model->dof_eq[model->node_dof_adr[node] + j];
            }
        a->eq_adr[l + 1] = a->eq_adr[l] + 3 * nn;
    }
    anim_mech_pose(d, model, k->mech, k->mech->q0, a->pose);  /* the ground's frame, once */
    return KD_OK;
}

void anim_links_free(anim_links* a) {
    if (!a) return;
    free(a->pose), free(a->q), free(a->mq), free(a->disp), free(a->eq), free(a->eq_adr);
    memset(a, 0, sizeof(*a));
}

int anim_links_due(const anim_links* a, double t) { return a && kd_anim_recorder_due(a->rec, t); }

/* The rigid solution at t: cubic Hermite through the samples bracketing t. */
static void rigid_at(anim_links* a, double t) {
    const kd_ked_rigid* r = &a->k->rigid;
    const int n = r->n;
    if (r->nsamples < 2) {
        memcpy(a->mq, r->q, sizeof(double) * (size_t)n);
        return;
    }
    int i = a->cursor < r->nsamples - 1 && r->t[a->cursor] <= t ? a->cursor : 0;
    while (i + 2 < r->nsamples && r->t[i + 1] <= t) i++;
    a->cursor = i;
    const double h = r->t[i + 1] - r->t[i];
    const double s = h > 0 ? fmin(fmax((t - r->t[i]) / h, 0.0), 1.0) : 0.0;
    const double h00 = (1 + 2 * s) * (1 - s) * (1 - s), h10 = s * (1 - s) * (1 - s);
    const double h01 = s * s * (3 - 2 * s), h11 = s * s * (s - 1);
    const double *q0 = r->q + (size_t)i * n, *q1 = q0 + n;
    const double *v0 = r->qd + (size_t)i * n, *v1 = v0 + n;
    for (int c = 0; c < n; c++) a->mq[c] = h00 * q0[c] + h10 * h * v0[c] + h01 * q1[c] + h11 * h * v1[c];
}

void anim_links_begin(anim_links* a, double t, const double* mq) {
    if (!a->rec) return;
    if (mq) memcpy(a->mq, mq, sizeof(double) * (size_t)a->k->mech->n);
    else rigid_at(a, t);
    const kd_mech* m = a->k->mech;
    for (int b = 0; b < m->nbody; b++) anim_mech_body_pose(a->d, m, b, a->mq, a->pose + 12 * (size_t)m->body_desc[b]);
    memset(a->q, 0, sizeof(double) * (size_t)a->model->neq);
}

void anim_links_link(anim_links* a, int l, const double frame[3], const double* disp) {
    if (!a->rec) return;
    if (!disp) disp = a->disp;
    /* the link's beam body: origin at node 1, rotation Rz(phi) (its x axis along the chord) */
    const double c = cos(frame[2]), s = sin(frame[2]);
    const double p[12] = {frame[0], frame[1], 0.0, c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0};
    memcpy(a->pose + 12 * (size_t)a->k->link[l].body, p, sizeof(p));
    const int* eq = a->eq + a->eq_adr[l];
    for (int i = 0; i < a->eq_adr[l + 1] - a->eq_adr[l]; i++)
        if (eq[i] >= 0) a->q[eq[i]] = disp[i];
}

void anim_links_commit(anim_links* a, double t) {
    if (a->rec) kd_anim_record_pose(a->rec, t, a->pose, a->q);
}

void anim_links_offer_ffr(anim_links* a, const kd_ffr_system* s, double t, const double* q) {
    if (!anim_links_due(a, t)) return;
    const kd_ked* k = a->k;
    /* the floating-frame bodies are the mechanism's moving bodies, in order: a rigid body's
     * reference coordinates are its centre of mass and angle, as in kedyn/mech.h */
    for (int b = 0; b < kd_ffr_body_count(s) && b < k->mech->nbody; b++)
        memcpy(a->mq + 3 * b, q + kd_ffr_body_offset(s, b), 3 * sizeof(double));
    anim_links_begin(a, t, a->mq);
    static const kd_dof_name dofs[3] = {KD_DOF_U, KD_DOF_V, KD_DOF_RZ};
    for (int l = 0; l < k->nlinks; l++) {
        const int b = k->link[l].mbody, nn = k->link[l].model->nnode;
        for (int n = 0; n < nn; n++)
            for (int c = 0; c < 3; c++) {
                const int i = n < kd_ffr_body_nodes(s, b) ? kd_ffr_node_coordinate(s, b, n, dofs[c]) : -1;
                a->disp[3 * n + c] = i >= 0 ? q[i] : 0.0;
            }
        anim_links_link(a, l, q + kd_ffr_body_offset(s, b), NULL);
    }
    anim_links_commit(a, t);
}
