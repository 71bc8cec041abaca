/* The formalisms compared on a model (kedyn/compare.h). */
#include "kedyn/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* The trajectory of one run: every DOF at every output instant (sized for
 * the analysis' output instants; grows only if an integrator gives more). */
typedef struct traj {
    int neq, n, cap;
    double* q;                    /* (cap x neq) */
} traj;

static int record(void* ctx, double t, const double* q, const double* v, const double* a, const double* e) {
    (void)t, (void)v, (void)a, (void)e;
    traj* r = ctx;
    if (r->n == r->cap) {
        const int cap = r->cap ? 2 * r->cap : 256;
        double* q2 = realloc(r->q, sizeof(double) * (size_t)cap * (size_t)r->neq);
        if (!q2) return 1;
        r->q = q2, r->cap = cap;
    }
    memcpy(r->q + (size_t)r->n * r->neq, q, sizeof(double) * (size_t)r->neq);
    r->n++;
    return 0;
}

/* Node k of a body of n0 elements mapped to the nearest of n1 elements. */
static int remap_node(int k, int n0, int n1) { return (int)lround((double)(k - 1) * n1 / n0) + 1; }

/* Time of one assembly of C, K, f at t = 0 and its work. */
static kd_status time_build(const kd_model* m, kd_formalism f, kd_compare_row* row, kd_error* err) {
    kd_system s;
    kd_status st = kd_system_init_formalism(&s, m, f, err);
    if (st) return st;
    kd_gband C = {0}, K = {0};
    double* fv = calloc((size_t)(s.n ? s.n : 1), sizeof(double));
    st = kd_gband_init(&C, s.n, s.kd, s.kd);
    if (!st) st = kd_gband_init(&K, s.n, s.kd, s.kd);
    if (st || !fv) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    if (!st) {
        int changed, reps = 0;
        const kd_formalism_ops before = s.ops;
        const double t0 = util_now_s();
        double t1 = t0;
        do {
            kd_system_invalidate(&s);
            kd_system_matrices(&s, 0.0, &C, &K, &changed);
            kd_system_force(&s, 0.0, fv);
            if (++reps == 1) {
                row->ops.elements = s.ops.elements - before.elements;
                row->ops.points = s.ops.points - before.points;
                row->ops.derivatives = s.ops.derivatives - before.derivatives;
                row->ops.flops = s.ops.flops - before.flops;
            }
            t1 = util_now_s();
        } while (t1 - t0 < 0.02 && reps < 100000);
        row->build_s = (t1 - t0) / reps;
    }
    kd_gband_free(&C);
    kd_gband_free(&K);
    free(fv);
    kd_system_free(&s);
    return st;
}

kd_status kd_compare_run(const kd_desc* d, int analysis, const int* elements, int nelements,
                         const kd_formalism* formalisms, int nformalisms, double t_end_override,
                         kd_compare_progress progress, void* progress_ctx, kd_compare* out, kd_error* err) {
    memset(out, 0, sizeof(*out));
    if (analysis < 0 || analysis >= d->nanalyses || d->analyses[analysis].type != KD_ANALYSIS_DYNAMICS)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "the model has no dynamics analysis to compare with");
    for (int i = 0; i < nelements; i++)
        if (elements[i] < 1) return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "element counts must be >= 1");
    out->rows = calloc((size_t)nelements * (size_t)(nformalisms + 1), sizeof(kd_compare_row));
    /* a shallow copy with its own bodies, supports and loads (laws shared, read only) */
    kd_desc dc = *d;
    dc.bodies = malloc(sizeof(*dc.bodies) * (size_t)(d->nbodies ? d->nbodies : 1));
    dc.supports = malloc(sizeof(*dc.supports) * (size_t)(d->nsupports ? d->nsupports : 1));
    dc.loads = malloc(sizeof(*dc.loads) * (size_t)(d->nloads ? d->nloads : 1));
    dc.noutput_nodes = 0;
    traj ref = {0}, cur = {0};
    kd_status st = KD_OK;
    if (!out->rows || !dc.bodies || !dc.supports || !dc.loads) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the comparison");
        goto done;
    }
    kd_analysis_desc base = d->analyses[analysis];
    if (t_end_override > 0) base.dynamics.t_end = t_end_override;
    base.dynamics.energy = 0;
    kd_analysis_use_formalism(&base, KD_FORMALISM_INVARIANTS);
    out->t_end = base.dynamics.t_end;

    /* the invariants route first: it is the reference */
    kd_formalism order[KD_FORMALISM_COUNT + 1];
    int nf = 0;
    order[nf++] = KD_FORMALISM_INVARIANTS;
    for (int i = 0; i < nformalisms; i++)
        if (formalisms[i] != KD_FORMALISM_INVARIANTS) order[nf++] = formalisms[i];

    for (int ie = 0; ie < nelements && !st; ie++) {
        if (d->nbodies) memcpy(dc.bodies, d->bodies, sizeof(*dc.bodies) * (size_t)d->nbodies);
        if (d->nsupports) memcpy(dc.supports, d->supports, sizeof(*dc.supports) * (size_t)d->nsupports);
        if (d->nloads) memcpy(dc.loads, d->loads, sizeof(*dc.loads) * (size_t)d->nloads);
        for (int b = 0; b < dc.nbodies; b++)
            if (dc.bodies[b].type == KD_BODY_BEAM) dc.bodies[b].elements = elements[ie];
        for (int k = 0; k < dc.nsupports; k++) {
            kd_support_desc* s = &dc.supports[k];
            s->node = remap_node(s->node, d->bodies[s->body].elements, elements[ie]);
        }
        for (int k = 0; k < dc.nloads; k++) {
            kd_load_desc* l = &dc.loads[k];
            if (l->type == KD_LOAD_NODAL) l->node = remap_node(l->node, d->bodies[l->body].elements, elements[ie]);
        }
        kd_model* m = NULL;
        if ((st = kd_model_compile(&dc, &m, err))) break;
        /* the buffers are sized in rows of neq: start them afresh */
        free(ref.q), free(cur.q);
        ref.q = cur.q = NULL;
        ref.cap = cur.cap = ref.n = cur.n = 0;
        ref.neq = cur.neq = m->neq;
        /* room for every output instant up front (no allocation while integrating) */
        const kd_dynamics_desc* bd = &base.dynamics;
        const double dt_out = bd->dt > 0 ? bd->dt * bd->output_every : bd->t_end / 1000.0;
        const int nout = (int)fmin(ceil(bd->t_end / dt_out) + 2.0, 1e7);
        ref.q = malloc(sizeof(double) * (size_t)nout * (size_t)(m->neq ? m->neq : 1));
        cur.q = malloc(sizeof(double) * (size_t)nout * (size_t)(m->neq ? m->neq : 1));
        if (!ref.q || !cur.q) {
            kd_model_free(&m);
            st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the trajectories");
            break;
        }
        ref.cap = cur.cap = nout;
        for (int k = 0; k < nf && !st; k++) {
            if (progress) progress(progress_ctx, out->nrows, nelements * nf, elements[ie], order[k]);
            kd_compare_row* row = &out->rows[out->nrows++];
            row->elements = elements[ie], row->neq = m->neq, row->formalism = order[k];
            kd_analysis_desc a = base;
            kd_analysis_use_formalism(&a, order[k]);
            row->integrator = kd_dynamics_method(a.dynamics.integrator);
            if ((st = time_build(m, order[k], row, err))) break;
            traj* r = k == 0 ? &ref : &cur;
            r->n = 0;
            kd_integrate_stats stats;
            memset(&stats, 0, sizeof(stats));
            kd_error rerr;
            kd_error_clear(&rerr);
            const double t0 = util_now_s();
            row->status = kd_dynamics_run(m, &a, record, r, &stats, NULL, 0, &rerr);
            row->integrate_s = util_now_s() - t0;
            row->steps = stats.steps;
            if (row->status == KD_ERR_NOMEM) {
                *err = rerr, st = KD_ERR_NOMEM;
                break;
            }
            if (row->status) snprintf(row->message, sizeof(row->message), "%s", rerr.msg);
            if (k == 0 || row->status || out->rows[out->nrows - 1 - k].status) {
                row->max_rel_diff = k == 0 ? 0.0 : NAN;
                continue;
            }
            /* trajectory difference over the common output instants */
            const int nrec = r->n < ref.n ? r->n : ref.n;
            double diff = 0, scale = 0;
            for (size_t i = 0; i < (size_t)nrec * (size_t)m->neq; i++) {
                diff = fmax(diff, fabs(r->q[i] - ref.q[i]));
                scale = fmax(scale, fabs(ref.q[i]));
            }
            row->max_rel_diff = scale > 0 ? diff / scale : diff;
            if (r->n != ref.n) row->max_rel_diff = NAN;
        }
        kd_model_free(&m);
    }
done:
    free(dc.bodies);
    free(dc.supports);
    free(dc.loads);
    free(ref.q);
    free(cur.q);
    if (st) kd_compare_free(out);
    return st;
}

void kd_compare_free(kd_compare* c) {
    free(c->rows);
    memset(c, 0, sizeof(*c));
}
