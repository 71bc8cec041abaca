/* One-way elastic links of a spatial mechanism in the runner (`spatial: true` with `beam`
 * bodies, a `dynamics` or `modes_along_motion` analysis; kedyn/sked.h): the rigid solution, each
 * link's integration in its moving frame or its frequencies along the motion, dynamics.csv or
 * modes_along_motion.csv and the summary's link statistics (docs/model-format.md,
 * "Spatial mechanisms", "Elastic links"). */
#include "run_spatial.h"
#include "run_spatial_two_way.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/atomic_file.h"
#include "kedyn/sdesc.h"
#include "kedyn/sked.h"
#include "output/anim_spatial.h"
#include "output/output_util.h"

int run_spatial_has_links(const kd_desc* d) {
    for (int b = 0; d->sdesc && b < d->sdesc->nbodies; b++)
        if (d->sdesc->bodies[b].beam || d->sdesc->bodies[b].plate) return 1;
    return 0;
}

#define NOMEM() kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory")

typedef struct store {
    int n, cap, neq;
    double* t;                    /* (cap) */
    double* q;                    /* (cap x 3 neq): q, v, a */
} store;

static int keep(void* ctx, int link, double t, const double* q, const double* v, const double* a) {
    (void)link;
    store* s = ctx;
    if (s->n >= s->cap) return 0;
    s->t[s->n] = t;
    double* x = s->q + (size_t)s->n * 3 * (size_t)s->neq;
    memcpy(x, q, sizeof(double) * (size_t)s->neq);
    memcpy(x + s->neq, v, sizeof(double) * (size_t)s->neq);
    memcpy(x + 2 * s->neq, a, sizeof(double) * (size_t)s->neq);
    s->n++;
    return kd_interrupted();
}

/* The rigid joint wrenches at t, linear between the rigid instants. */
static void rigid_F(const kd_sked_rigid* r, double t, int j, double F[6]) {
    int i = 0;
    while (i + 2 < r->nsamples && r->t[i + 1] < t) i++;
    const double w = fmin(1.0, fmax(0.0, (t - r->t[i]) / (r->t[i + 1] - r->t[i])));
    const double *a = r->F + (size_t)i * 6 * r->njoint + 6 * j, *b = a + 6 * r->njoint;
    for (int c = 0; c < 6; c++) F[c] = (1 - w) * a[c] + w * b[c];
}

/* The link of beam body b (moving body index mb) on the rigid solution r (errors located at the body). */
static kd_status new_link(const kd_desc* d, int b, int mb, const kd_smech* m, const kd_sked_rigid* r,
                          kd_sked_link** L, kd_error* err) {
    kd_sked_link_spec sp;
    kd_sked_link_spec_of(d, b, mb, &sp);
    const kd_status st = kd_sked_link_new(m, r, &sp, L, err);
    if (st && err->loc.line == 0) err->loc = d->sdesc->bodies[b].loc, snprintf(err->file, sizeof(err->file), "%s", d->file);
    return st;
}

/* `modes_along_motion` of the spatial links (theory.md sec. 12.9): the rigid solution at steps +
 * 1 instants over t_end, each link's frequencies followed along it; modes_along_motion.csv as the
 * planar analysis writes it (`t, LINK.omega_K`, rad/s) and the summary's ranges. */
static kd_status run_spatial_modes(const kd_desc* d, const kd_analysis_desc* an, const kd_smech* m,
                                   const char* outdir, int ordinal, kd_analysis_report* a, kd_error* err) {
    const kd_sdesc* sd = d->sdesc;
    kd_modes_along_motion_desc md = an->modes_along_motion;
    kd_modes_along_motion_resolve(&md);
    if (md.speed > 0 || md.settle > 0 || md.body >= 0)
        return kd_error_set(err, KD_ERR_INPUT, d->file, an->loc,
                            "speed, settle and body are not taken by the elastic links of a spatial mechanism");
    const int route = md.gyroscopic == KD_GYROSCOPIC_FALSE   ? KD_KED_GYRO_OFF
                      : md.gyroscopic == KD_GYROSCOPIC_DENSE ? KD_KED_GYRO_DENSE
                                                             : KD_KED_GYRO_REFINE;
    kd_sked_rigid r;
    kd_status st = kd_sked_rigid_solve(m, md.t_end, md.steps, md.cond_max, &r, err);
    if (st) return st;
    int nl = 0;
    for (int b = 0; b < sd->nbodies; b++) nl += sd->bodies[b].beam || sd->bodies[b].plate;
    kd_ked_modes* res = calloc((size_t)nl + 1, sizeof(kd_ked_modes));
    char(*names)[KD_NAME_MAX] = calloc((size_t)nl + 1, KD_NAME_MAX);
    if (!res || !names) st = NOMEM();
    for (int b = 0, mb = 0, l = 0; b < sd->nbodies && !st; b++) {
        const kd_sbody_desc* B = &sd->bodies[b];
        if (B->ground) continue;
        if (B->beam || B->plate) {
            kd_sked_link* L = NULL;
            st = new_link(d, b, mb, m, &r, &L, err);
            if (!st) st = kd_sked_modes_along_motion(L, &r, md.count, route, &res[l], err);
            snprintf(names[l++], KD_NAME_MAX, "%s", B->name);
            kd_sked_link_free(&L);
        }
        mb++;
    }
    kd_ked_run_stats* s = &a->ked;
    s->links = nl, s->samples = r.nsamples, s->forward = r.forward, s->count = md.count, s->mac_min = 1.0;
    a->t_end = md.t_end;
    for (int l = 0; l < nl && !st; l++) {
        s->swaps += res[l].swaps;
        s->mac_min = fmin(s->mac_min, res[l].mac_min);
        if (l >= KD_KED_REPORT_LINKS) continue;
        snprintf(s->link_name[l], sizeof(s->link_name[0]), "%s", names[l]);
        for (int k = 0; k < res[l].count && k < KD_KED_REPORT_MODES; k++) {
            double lo = INFINITY, hi = -INFINITY;
            for (int i = 0; i < res[l].nsamples; i++) {
                const double w = res[l].omega[(size_t)i * res[l].count + k];
                lo = fmin(lo, w), hi = fmax(hi, w);
            }
            s->omega_min[l][k] = lo, s->omega_max[l][k] = hi;
        }
    }
    kd_atomic_file f;
    if (!st) st = io_open_result(&f, outdir, "modes_along_motion", ordinal, a, err);
    if (!st) {
        fprintf(f.fp, "t");
        for (int l = 0; l < nl; l++)
            for (int k = 1; k <= res[l].count; k++) fprintf(f.fp, ",%s.omega_%d", names[l], k);
        fprintf(f.fp, "\n");
        for (int i = 0; i < r.nsamples; i++) {
            fprintf(f.fp, "%.10g", r.t[i]);
            for (int l = 0; l < nl; l++)
                for (int k = 0; k < res[l].count; k++) fprintf(f.fp, ",%.10e", res[l].omega[(size_t)i * res[l].count + k]);
            fprintf(f.fp, "\n");
        }
        st = io_finish_file(&f, KD_OK, a, err);
    }
    for (int l = 0; res && l < nl; l++) kd_ked_modes_free(&res[l]);
    free(res), free(names);
    kd_sked_rigid_free(&r);
    return st;
}

kd_status run_spatial_links(const kd_desc* d, const kd_analysis_desc* ad, const kd_smech* m, const char* outdir,
                            int ordinal, anim_spatial* anim, kd_analysis_report* a, kd_error* err) {
    if (ad->type == KD_ANALYSIS_MODES_ALONG_MOTION) return run_spatial_modes(d, ad, m, outdir, ordinal, a, err);
    const kd_sdesc* sd = d->sdesc;
    kd_dynamics_desc dy = ad->dynamics;
    if (dy.coupling == KD_COUPLING_TWO_WAY)  /* the 3D floating frame (src/run/run_spatial_two_way.c) */
        return run_spatial_two_way(d, ad, m, outdir, ordinal, anim, a, err);
    kd_dynamics_resolve(&dy, KD_ROUTE_ONE_WAY);
    if (!kd_dynamics_route_takes(KD_ROUTE_ONE_WAY, dy.integrator))
        return kd_error_set(err, KD_ERR_INPUT, d->file, ad->loc, "one-way elastic links integrate with %s",
                            kd_dynamics_route_integrators(KD_ROUTE_ONE_WAY));
    if (dy.speed > 0 || dy.settle > 0)
        return kd_error_set(err, KD_ERR_INPUT, d->file, ad->loc,
                            "speed and settle are not taken by the elastic links of a spatial mechanism");
    const int steps = dy.steps > 0 ? dy.steps : 100;
    a->t_end = dy.t_end;
    a->integrator = dy.integrator;
    kd_sked_rigid r;
    kd_status st = kd_sked_rigid_solve(m, dy.t_end, steps, 1e8, &r, err);
    if (st) return st;
    int nl = 0;
    for (int b = 0; b < sd->nbodies; b++) nl += sd->bodies[b].beam || sd->bodies[b].plate;
    kd_sked_link** L = calloc((size_t)nl, sizeof(*L));
    store* S = calloc((size_t)nl, sizeof(*S));
    if (!L || !S) st = NOMEM();
    /* the links in the order of the bodies; the mechanism's body index counts the moving bodies */
    for (int b = 0, mb = 0, l = 0; b < sd->nbodies && !st; b++) {
        const kd_sbody_desc* B = &sd->bodies[b];
        if (B->ground) continue;
        if (B->beam || B->plate) {
            st = new_link(d, b, mb, m, &r, &L[l], err);
            if (!st) {
                const int nsteps = (int)ceil((r.t[r.nsamples - 1] - r.t[0]) / dy.dt - 1e-9);
                S[l].cap = nsteps / (dy.output_every > 0 ? dy.output_every : 1) + 3;
                S[l].neq = L[l]->model->neq;
                S[l].t = malloc(sizeof(double) * (size_t)S[l].cap);
                S[l].q = malloc(sizeof(double) * (size_t)S[l].cap * (size_t)(3 * S[l].neq + 1));
                if (!S[l].t || !S[l].q) st = NOMEM();
            }
            l++;
        }
        mb++;
    }
    kd_integrate_stats is;
    memset(&is, 0, sizeof(is));
    for (int l = 0; l < nl && !st; l++) {
        kd_integrate_stats s1;
        memset(&s1, 0, sizeof(s1));
        st = kd_sked_link_dynamics(L[l], &dy, keep, &S[l], &s1, err);
        is.steps += s1.steps, is.factorizations += s1.factorizations;
    }
    a->dynamics.steps = is.steps, a->dynamics.factorizations = is.factorizations;
    kd_atomic_file f;
    if (!st) st = io_open_result(&f, outdir, "dynamics", ordinal, a, err);
    if (!st) {
        FILE* fp = f.fp;
        fprintf(fp, "t");
        static const char* const dn[6] = {"u", "v", "w", "rx", "ry", "rz"};
        static const char* const sn[4] = {"N", "My", "Mz", "sigma"};
        static const char* const jn[6] = {"Fx", "Fy", "Fz", "Mx", "My", "Mz"};
        for (int l = 0; l < nl; l++) {
            const char* nm = L[l]->spec.name;
            if (L[l]->spec.shell) {  /* shell links: the output set's nodes by their numbers in the model file */
                const kd_body_desc* P = L[l]->spec.shell;
                const kd_node_set_desc* os = L[l]->spec.output_set >= 0 ? &P->node_sets[L[l]->spec.output_set] : NULL;
                for (int i = 0; i < (os ? os->nnodes : P->mesh.nnodes); i++)
                    for (int c = 0; c < 6; c++)
                        fprintf(fp, ",%s.%d.%s", nm, P->mesh.node_tag[os ? os->nodes[i] - 1 : i], dn[c]);
                fprintf(fp, ",%s.sigma_max", nm);
                continue;
            }
            for (int i = 0; i < L[l]->model->nnode; i++) {
                for (int c = 0; c < 6; c++) fprintf(fp, ",%s.%d.%s", nm, i + 1, dn[c]);
                for (int c = 0; c < 4; c++) fprintf(fp, ",%s.%d.%s", nm, i + 1, sn[c]);
            }
        }
        for (int j = 0; j < m->njoint; j++)
            for (int c = 0; c < 6; c++) fprintf(fp, ",%s.%s", m->joint[j].name, jn[c]);
        for (int j = 0; j < m->njoint; j++)
            for (int c = 0; c < 3; c++) fprintf(fp, ",%s.d%s", m->joint[j].name, jn[c]);
        fprintf(fp, "\n");
        int nnmax = 0, nemax = 0;
        for (int l = 0; l < nl; l++) nnmax = L[l]->model->nnode > nnmax ? L[l]->model->nnode : nnmax;
        for (int l = 0; l < nl; l++) nemax = L[l]->model->nelem > nemax ? L[l]->model->nelem : nemax;
        /* plate links: the element stresses of a row; which elements touch the output set */
        double* ps = malloc(sizeof(double) * KD_PLATE_STRESS * ((size_t)nemax + 1));
        unsigned char* eo = calloc((size_t)nl * ((size_t)nemax + 1), 1);
        unsigned char* no = calloc((size_t)nnmax + 1, 1);
        for (int l = 0; l < nl && eo && no; l++) {
            if (!L[l]->spec.shell) continue;
            const kd_model* lm = L[l]->model;
            const int os = L[l]->spec.output_set;
            const kd_node_set_desc* ns = os >= 0 ? &L[l]->spec.shell->node_sets[os] : NULL;
            memset(no, ns ? 0 : 1, (size_t)lm->nnode);
            for (int i = 0; ns && i < ns->nnodes; i++) no[ns->nodes[i] - 1] = 1;
            for (int e = 0; e < lm->nelem; e++)
                for (int k = lm->elem_node_adr[e]; k < lm->elem_node_adr[e + 1]; k++)
                    if (no[lm->elem_node[k]]) eo[(size_t)l * (nemax + 1) + e] = 1;
        }
        if (!no) free(eo), eo = NULL;
        free(no);
        double* u = malloc(sizeof(double) * 6 * (size_t)nnmax);
        double* sf = malloc(sizeof(double) * 4 * (size_t)nnmax);
        double* dF = calloc(3 * (size_t)m->njoint + 1, sizeof(double));
        double dFl[3 * KD_KED_LINK_JOINTS];
        const int rows = nl ? S[0].n : 0;
        double dmax = 0, smax = 0, Fmax = 0, dFmax = 0;
        if (!u || !sf || !dF || !ps || !eo) st = NOMEM();
        for (int i = 0; i < rows && !st; i++) {
            const double t = S[0].t[i];
            fprintf(fp, "%.10g", t);
            memset(dF, 0, sizeof(double) * 3 * (size_t)m->njoint);
            for (int l = 0; l < nl; l++) {
                const int k = i < S[l].n ? i : S[l].n - 1;
                const double* q = S[l].q + (size_t)k * 3 * (size_t)S[l].neq;
                kd_sked_link_displacements(L[l], q, u);
                /* the elastic part of the joint forces, on the joint's second body (plate links: the
                 * support set's, theory.md sec. 22, SL7) */
                kd_sked_link_reactions(L[l], S[l].t[k], q, q + S[l].neq, q + 2 * S[l].neq, dFl);
                for (int j = 0; j < L[l]->njoint; j++)
                    for (int c = 0; c < 3; c++) dF[3 * L[l]->joint[j] + c] += L[l]->joint_sign[j] * dFl[3 * j + c];
                if (L[l]->spec.shell) {  /* the output set's u .. rz; the largest |(u, v, w)| of any node */
                    const kd_body_desc* P = L[l]->spec.shell;
                    const kd_node_set_desc* os =
                        L[l]->spec.output_set >= 0 ? &P->node_sets[L[l]->spec.output_set] : NULL;
                    for (int nn = 0; nn < (os ? os->nnodes : P->mesh.nnodes); nn++)
                        for (int c = 0; c < 6; c++) fprintf(fp, ",%.8e", u[6 * (os ? os->nodes[nn] - 1 : nn) + c]);
                    /* the largest von Mises stress of the output set's elements; over all for the summary */
                    kd_sked_plate_stress(L[l], q, ps);
                    double so = 0;
                    for (int e = 0; e < L[l]->model->nelem; e++) {
                        const double se = ps[KD_PLATE_STRESS * e + 6];
                        if (eo[(size_t)l * (nemax + 1) + e]) so = fmax(so, se);
                        if (se > smax) {
                            smax = se;
                            snprintf(a->ked.max_sigma_at, sizeof(a->ked.max_sigma_at), "%s element %d at t = %.6g s",
                                     L[l]->spec.name, e + 1, t);
                        }
                    }
                    fprintf(fp, ",%.8e", so);
                    for (int nn = 0; nn < L[l]->model->nnode; nn++) {
                        const double* un = u + 6 * nn;
                        const double dfl = sqrt(un[0] * un[0] + un[1] * un[1] + un[2] * un[2]);
                        if (dfl > dmax) {
                            dmax = dfl;
                            snprintf(a->ked.max_deflection_at, sizeof(a->ked.max_deflection_at),
                                     "%s node %d at t = %.6g s", L[l]->spec.name, P->mesh.node_tag[nn], t);
                        }
                    }
                    anim_spatial_link(anim, t, L[l]->spec.body, u, L[l]->model->nnode, l + 1 == nl ? &r : NULL);
                    continue;
                }
                /* the animation: each link's nodes; the last one records the instant */
                anim_spatial_link(anim, t, L[l]->spec.body, u, L[l]->model->nnode, l + 1 == nl ? &r : NULL);
                kd_sked_link_section_forces(L[l], q, sf);
                for (int nn = 0; nn < L[l]->model->nnode; nn++) {
                    for (int c = 0; c < 6; c++) fprintf(fp, ",%.8e", u[6 * nn + c]);
                    for (int c = 0; c < 4; c++) fprintf(fp, ",%.8e", sf[4 * nn + c]);
                    const double dfl = hypot(u[6 * nn + 1], u[6 * nn + 2]);
                    if (dfl > dmax) {
                        dmax = dfl;
                        snprintf(a->ked.max_deflection_at, sizeof(a->ked.max_deflection_at), "%s node %d at t = %.6g s",
                                 L[l]->spec.name, nn + 1, t);
                    }
                    if (sf[4 * nn + 3] > smax) {
                        smax = sf[4 * nn + 3];
                        snprintf(a->ked.max_sigma_at, sizeof(a->ked.max_sigma_at), "%s node %d at t = %.6g s",
                                 L[l]->spec.name, nn + 1, t);
                    }
                }
            }
            for (int j = 0; j < m->njoint; j++) {
                double F[6];
                rigid_F(&r, t, j, F);
                for (int c = 0; c < 6; c++) fprintf(fp, ",%.8e", F[c]);
                Fmax = fmax(Fmax, sqrt(F[0] * F[0] + F[1] * F[1] + F[2] * F[2]));
            }
            for (int j = 0; j < m->njoint; j++) {
                for (int c = 0; c < 3; c++) fprintf(fp, ",%.8e", dF[3 * j + c]);
                dFmax = fmax(dFmax, sqrt(dF[3 * j] * dF[3 * j] + dF[3 * j + 1] * dF[3 * j + 1] + dF[3 * j + 2] * dF[3 * j + 2]));
            }
            fprintf(fp, "\n");
        }
        free(u), free(sf), free(dF), free(ps), free(eo);
        a->ked.links = nl, a->ked.samples = r.nsamples, a->ked.forward = r.forward, a->ked.coupling = "one-way";
        a->ked.max_deflection = dmax, a->ked.max_sigma = smax, a->ked.max_F = Fmax, a->ked.max_dF = dFmax;
        a->dynamics.t_reached = rows ? S[0].t[rows - 1] : 0;
        st = io_finish_file(&f, st, a, err);
    }
    for (int l = 0; l < nl; l++) {
        if (L && L[l]) kd_sked_link_free(&L[l]);
        if (S) free(S[l].t), free(S[l].q);
    }
    free(L), free(S);
    kd_sked_rigid_free(&r);
    return st;
}
