/* Stresses of two-way shell links (kedyn/ffr3d_shell_stress.h; theory.md sec. 22, SL6): each
 * shell body keeps the model of its mesh in the body frame with the support set clamped (the
 * one-way plate link's, spatial_plate_link.c), and its stresses are SL5's (kd_sked_plate_stress)
 * on the model's equations gathered from the body's nodal displacements in its floating frame;
 * with the membrane stress stiffening of SL8 on, the membrane resultants take SL8's strain
 * e_l + e_n, as the elastic force does (e_n the element's mean over the force's points). */
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
    double* gn;                   /* SL8 on (NULL: off): from goff[e], element e's points (shell_geo_rows) */
    size_t* goff;                 /* (nelem + 1) */
    double *relax, *rq, *rout;    /* SL10 (SL8 on): the relaxation field (6 nnode), its equations
                                   * (neq), its SL5 stresses */
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

/* SL8: each shell element's points of its own rule (the elastic force's, floating_shell3d.c), with
 * the weight w det J / A (A the element's area) and the displacement-gradient rows G_dc (d = 0, 1
 * its in-plane axes, c = 0..2 its own axes: 6 nd doubles), then its D_m (the membrane rows of D come
 * first, sec. 10.7). */
static kd_status shell_geo_rows(shell_out* o, kd_error* err) {
    const kd_model* md = o->L.model;
    o->goff = malloc(sizeof(size_t) * ((size_t)md->nelem + 1));
    kd_element_point* pt = malloc(sizeof(*pt));
    if (!o->goff || !pt) {
        free(pt);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    size_t total = 0;
    for (int e = 0; e < md->nelem; e++) {
        const kd_element_props* pr = &md->prop[md->elem_prop[e]];
        o->goff[e] = total;
        if (kd_element_kind_family(pr->kind) == KD_FAMILY_SHELL)
            total += (size_t)pr->family->quadrature(pr)->n * (1 + 6 * (size_t)pr->ndof) + 9;
    }
    o->goff[md->nelem] = total;
    o->gn = malloc(sizeof(double) * (total + 1));
    if (!o->gn) {
        free(pt);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    for (int e = 0; e < md->nelem; e++) {
        const kd_element_props* pr = &md->prop[md->elem_prop[e]];
        if (kd_element_kind_family(pr->kind) != KD_FAMILY_SHELL) continue;
        const kd_quadrature* qr = pr->family->quadrature(pr);
        const int nd = pr->ndof;
        double* g = o->gn + o->goff[e];
        double area = 0;
        for (int k = 0; k < qr->n; k++) {
            pr->family->eval(pr, qr->xi[k], pt);
            double* gk = g + (size_t)k * (1 + 6 * (size_t)nd);
            area += gk[0] = qr->w[k] * pt->measure;
            for (int d = 0; d < 2; d++)
                for (int c = 0; c < 3; c++) memcpy(gk + 1 + (size_t)(3 * d + c) * nd, pt->G[d][c], sizeof(double) * (size_t)nd);
        }
        for (int k = 0; k < qr->n; k++) g[(size_t)k * (1 + 6 * (size_t)nd)] /= area;
        double* D = g + (size_t)qr->n * (1 + 6 * (size_t)nd);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) D[3 * i + j] = pr->D[i * pr->nstrain + j];
    }
    free(pt);
    return KD_OK;
}

/* SL10: room for the relaxation field of a reduced shell with SL8 (used only when the body has one) */
static kd_status shell_relax_init(const kd_ffr3d_system* s, int b, shell_out* o, kd_error* err) {
    const kd_model* md = o->L.model;
    o->relax = malloc(sizeof(double) * 6 * ((size_t)kd_ffr3d_body_nodes(s, b) + 1));
    o->rq = calloc((size_t)md->neq + 1, sizeof(double));
    o->rout = calloc((size_t)KD_PLATE_STRESS * ((size_t)md->nelem + 1), sizeof(double));
    if (!o->relax || !o->rq || !o->rout) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    return KD_OK;
}

/* SL8: (N_x, N_y, N_xy) += D_m mean(e_n), e_n = (g0.g0 / 2, g1.g1 / 2, g0.g1), g_d = (G_dc q_e)_c,
 * the element's mean over its rule (SL5's e_l at the centre is the mean of the linear strain), and
 * the surfaces' von Mises stress again (SL5). */
static void shell_geo_stress(const shell_out* o) {
    const kd_model* md = o->L.model;
    for (int e = 0; e < md->nelem; e++) {
        const kd_element_props* pr = &md->prop[md->elem_prop[e]];
        if (kd_element_kind_family(pr->kind) != KD_FAMILY_SHELL) continue;
        int eqs[KD_ELEM_DOF_MAX];
        double de[KD_ELEM_DOF_MAX];
        const int nd = kd_model_elem_eqs(md, e, eqs), npt = pr->family->quadrature(pr)->n;
        for (int a = 0; a < nd; a++) de[a] = eqs[a] >= 0 ? o->q[eqs[a]] : 0.0;
        const double* g = o->gn + o->goff[e];
        double en[3] = {0, 0, 0};
        for (int k = 0; k < npt; k++, g += 1 + 6 * (size_t)nd) {
            double gr[6];
            for (int i = 0; i < 6; i++) {
                double x = 0;
                for (int a = 0; a < nd; a++) x += g[1 + (size_t)i * nd + a] * de[a];
                gr[i] = x;
            }
            en[0] += g[0] * 0.5 * (gr[0] * gr[0] + gr[1] * gr[1] + gr[2] * gr[2]);
            en[1] += g[0] * 0.5 * (gr[3] * gr[3] + gr[4] * gr[4] + gr[5] * gr[5]);
            en[2] += g[0] * (gr[0] * gr[3] + gr[1] * gr[4] + gr[2] * gr[5]);
        }
        const double* D = g;
        double* s = o->out + (size_t)KD_PLATE_STRESS * e;
        for (int i = 0; i < 3; i++) s[i] += D[3 * i] * en[0] + D[3 * i + 1] * en[1] + D[3 * i + 2] * en[2];
        const double t = pr->c.t;
        s[6] = 0.0;
        for (int side = -1; side <= 1; side += 2) {
            const double sx = s[0] / t + side * 6 * s[3] / (t * t), sy = s[1] / t + side * 6 * s[4] / (t * t),
                         txy = s[2] / t + side * 6 * s[5] / (t * t);
            s[6] = fmax(s[6], sqrt(sx * sx + sy * sy - sx * sy + 3 * txy * txy));
        }
    }
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
        if (!st && kd_ffr3d_body_geometric(s, mb)) st = shell_geo_rows(&p->b[mb], err);   /* SL8 */
        if (!st && kd_ffr3d_body_geometric(s, mb)) st = shell_relax_init(s, mb, &p->b[mb], err);   /* SL10 */
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
        free(o->eo), free(o->q), free(o->out), free(o->gn), free(o->goff);
        free(o->relax), free(o->rq), free(o->rout);
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
    if (o->relax && kd_ffr3d_shell_relaxation(p->s, b, q, o->relax)) {
        /* SL10: N* takes the membrane strain of the relaxation field B_m (T s - y) too */
        for (int n = 0; n < md->nnode; n++)
            for (int a = 0; a < md->node_dof_num[n]; a++) {
                const int k = md->node_dof_adr[n] + a, c = f3_shell_dof_component(md->dof_name[k]), eq = md->dof_eq[k];
                if (c >= 0 && eq >= 0) o->rq[eq] = o->relax[6 * n + c];
            }
        kd_sked_plate_stress(&o->L, o->rq, o->rout);
        for (int e = 0; e < md->nelem; e++)
            for (int i = 0; i < 3; i++) o->out[(size_t)KD_PLATE_STRESS * e + i] += o->rout[(size_t)KD_PLATE_STRESS * e + i];
    }
    if (o->gn) shell_geo_stress(o);              /* SL8: the membrane strain of the elastic force */
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
