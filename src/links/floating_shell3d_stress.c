/* Stresses of two-way shell links (kedyn/ffr3d_shell_stress.h; theory.md sec. 22, SL6): each
 * shell body keeps the model of its mesh in the body frame with the support set clamped (the
 * one-way plate link's, spatial_plate_link.c), and its stresses are SL5's (kd_sked_plate_stress)
 * on the model's equations gathered from the body's nodal displacements in its floating frame. */
#include "kedyn/ffr3d_shell_stress.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floating3d_internal.h"
#include "kedyn/model.h"
#include "kedyn/sdesc.h"
#include "kedyn/sked.h"
#include "spatial_plate_link.h"

typedef struct shell_out {
    kd_desc* ld;                  /* the link alone (its model's description) */
    kd_sked_link L;               /* spec and model: what kd_sked_plate_stress reads */
    unsigned char* eo;            /* (nelem) 1: the element touches the output set */
    double* q;                    /* (neq) the model's equations */
    double* out;                  /* (KD_PLATE_STRESS x nelem) */
} shell_out;

struct kd_ffr3d_shell_stress {
    const kd_ffr3d_system* s;
    int nb;
    shell_out* b;                 /* (nb) NULL model: not a shell */
};

/* Description body b (moving body mb) as the one-way link's model: the mesh in the body frame,
 * the support set clamped (the model kd_ffr3d_from_smech built the shell body from). */
static kd_status shell_model(const kd_desc* d, int b, int mb, shell_out* o, kd_error* err) {
    kd_sked_link_spec_of(d, b, mb, &o->L.spec);
    const kd_status st = splate_link_model(&o->L.spec, d->sdesc->bodies[b].geometric_stiffness, &o->ld, &o->L.model, err);
    if (st) return st;
    const kd_model* md = o->L.model;
    o->eo = calloc((size_t)md->nelem + 1, 1);
    o->q = calloc((size_t)md->neq + 1, sizeof(double));
    o->out = calloc((size_t)KD_PLATE_STRESS * ((size_t)md->nelem + 1), sizeof(double));
    unsigned char* no = calloc((size_t)md->nnode + 1, 1);
    if (!o->eo || !o->q || !o->out || !no) {
        free(no);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    /* the elements of the output set's nodes (every element without one), as for one-way links */
    const kd_body_desc* P = o->L.spec.shell;
    const kd_node_set_desc* ns = o->L.spec.output_set >= 0 ? &P->node_sets[o->L.spec.output_set] : NULL;
    memset(no, ns ? 0 : 1, (size_t)md->nnode);
    for (int i = 0; ns && i < ns->nnodes; i++) no[ns->nodes[i] - 1] = 1;
    for (int e = 0; e < md->nelem; e++)
        for (int k = md->elem_node_adr[e]; k < md->elem_node_adr[e + 1]; k++)
            if (no[md->elem_node[k]]) o->eo[e] = 1;
    free(no);
    return KD_OK;
}

kd_status kd_ffr3d_shell_stress_new(const kd_desc* d, const kd_ffr3d_system* s, kd_ffr3d_shell_stress** out,
                                    kd_error* err) {
    *out = NULL;
    kd_ffr3d_shell_stress* p = calloc(1, sizeof(*p));
    const int nb = kd_ffr3d_body_count(s);
    if (p) p->b = calloc((size_t)nb + 1, sizeof(shell_out));
    if (!p || !p->b) {
        free(p);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    p->s = s, p->nb = nb;
    kd_status st = KD_OK;
    const kd_sdesc* sd = d->sdesc;
    for (int b = 0, mb = 0; sd && b < sd->nbodies && mb < nb && !st; b++) {
        if (sd->bodies[b].ground) continue;
        if (kd_ffr3d_body_shell(s, mb)) st = shell_model(d, b, mb, &p->b[mb], err);
        mb++;
    }
    if (st) kd_ffr3d_shell_stress_free(&p);
    *out = p;
    return st;
}

void kd_ffr3d_shell_stress_free(kd_ffr3d_shell_stress** pp) {
    kd_ffr3d_shell_stress* p = *pp;
    if (!p) return;
    for (int b = 0; b < p->nb; b++) {
        shell_out* o = &p->b[b];
        kd_model_free(&o->L.model);
        kd_desc_free(&o->ld);
        free(o->eo), free(o->q), free(o->out);
    }
    free(p->b);
    free(p);
    *pp = NULL;
}

const double* kd_ffr3d_shell_stress_eval(kd_ffr3d_shell_stress* p, int b, const double* q, int* nelem) {
    *nelem = 0;
    if (b < 0 || b >= p->nb || !p->b[b].L.model) return NULL;
    shell_out* o = &p->b[b];
    const kd_model* md = o->L.model;
    /* SL6: q_f in the floating frame are the model's nodal displacements (body axes) */
    for (int n = 0; n < md->nnode; n++) {
        double u[6];
        kd_ffr3d_node_displacement(p->s, b, n, q, u);
        for (int a = 0; a < md->node_dof_num[n]; a++) {
            const int k = md->node_dof_adr[n] + a, c = f3_shell_dof_component(md->dof_name[k]), eq = md->dof_eq[k];
            if (c >= 0 && eq >= 0) o->q[eq] = u[c];
        }
    }
    kd_sked_plate_stress(&o->L, o->q, o->out);   /* SL5 */
    *nelem = md->nelem;
    return o->out;
}

double kd_ffr3d_shell_sigma_max(kd_ffr3d_shell_stress* p, int b, const double* q, double* all, int* at) {
    int ne;
    const double* ps = kd_ffr3d_shell_stress_eval(p, b, q, &ne);
    double so = 0;
    *all = 0, *at = -1;
    for (int e = 0; e < ne; e++) {
        const double se = ps[KD_PLATE_STRESS * e + 6];
        if (p->b[b].eo[e]) so = fmax(so, se);
        if (se > *all) *all = se, *at = e;
    }
    return so;
}
