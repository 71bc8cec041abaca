/* `kedyn compare` on a mechanism (kedyn/mech_compare.h): each formalism's forward dynamics from
 * the same initial state, the trajectories against the first one, and the cost of an evaluation
 * and of the integration. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/integrate.h"
#include "kedyn/mech_compare.h"
#include "kedyn/smech_formalism.h"
#include "core/util.h"

#define BUILD_BATCHES 7           /* one evaluation's time: the fastest mean of 7 batches... */
#define BUILD_REPS 50             /* ...of 50 evaluations each */

/* The trajectory of one run: q at every output instant. */
typedef struct track {
    int n, cap, rows;
    double* q;                    /* (cap x n) */
    double max_drift;
} track;

static int keep(void* ctx, const kd_mbs_sample* s) {
    track* k = ctx;
    if (k->rows < k->cap) memcpy(k->q + (size_t)k->rows * k->n, s->q, sizeof(double) * k->n);
    k->rows++;
    k->max_drift = fmax(k->max_drift, s->drift_pos);
    return 0;
}

/* One formalism's run from (q0, q0') into t, with its statistics in row (both model kinds). */
static kd_status integrate_row(const kd_cms* cms, const kd_mbs_opts* o, const double* q0, track* t,
                               kd_mech_compare_row* row, kd_error* err) {
    row->formulation = kd_mbs_formulation_name(o->formulation);
    row->method = o->formulation == KD_MBS_IDA ? "ida" : kd_mbs_integrator_name(o->integrator);
    kd_mbs_stats ms;
    const double t0 = util_now_s();
    const kd_status st = kd_mbs_forward(cms, o, q0, q0 + t->n, keep, t, &ms, err);
    row->integrate_s = util_now_s() - t0;
    row->steps = ms.steps, row->evaluations = ms.evaluations, row->factorizations = ms.factorizations;
    row->max_drift = t->max_drift;
    /* IDA's Newton iterations are SUNDIALS' own dense linear algebra, not counted */
    row->flops_run = o->formulation == KD_MBS_IDA ? NAN : ms.flops;
    return st;
}

/* Each trajectory against the first formalism's, over the instants both reached. */
static void trajectory_diffs(const track* tr, int nforms, int cap, kd_mech_compare* out) {
    const track* ref = &tr[0];
    const size_t n = (size_t)ref->n;
    const int rows0 = ref->rows < cap ? ref->rows : cap;
    double scale = 0;
    for (size_t i = 0; i < (size_t)rows0 * n; i++) scale = fmax(scale, fabs(ref->q[i]));
    for (int k = 0; k < nforms; k++) {
        const int rows = tr[k].rows < rows0 ? tr[k].rows : rows0;
        double dmax = 0;
        for (size_t i = 0; i < (size_t)rows * n; i++) dmax = fmax(dmax, fabs(tr[k].q[i] - ref->q[i]));
        out->rows[k].max_rel_diff = scale > 0 ? dmax / scale : dmax;
    }
}

/* The integration options of the analysis, as the runner takes them (src/run/run_mechanism.c). */
static void analysis_opts(const kd_analysis_desc* ad, double t_end, kd_mbs_opts* o) {
    kd_mbs_opts_from_dynamics(o, &ad->dynamics, t_end);
}

/* Mean wall time and flops of one evaluation at (0, q0, 0). */
static kd_status time_build(const kd_mech* m, kd_mech_formalism f, const double* q0, kd_mech_compare_row* row,
                            kd_error* err) {
    kd_mech_route* r = NULL;
    const int n = m->n;
    double* buf = calloc((size_t)(3 * n + m->nc + 1), sizeof(double));
    if (!buf) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    double *qd = buf, *qdd = buf + n, *lam = buf + 2 * n;
    kd_status st = kd_mech_route_new(f, m, 0.0, q0, &r, err);
    /* the fastest of several batches: timings on a shared machine are noisy */
    double best = INFINITY;
    for (int batch = 0; !st && batch < BUILD_BATCHES; batch++) {
        const double t0 = util_now_s();
        for (int k = 0; !st && k < BUILD_REPS; k++) st = kd_mech_route_eval(r, 0.0, q0, qd, qdd, lam, err);
        best = fmin(best, (util_now_s() - t0) / BUILD_REPS);
    }
    if (!st) {
        long evals = 0;
        double flops = 0;
        kd_mech_route_work(r, &evals, &flops);
        row->build_s = best;
        row->flops_eval = evals > 0 ? flops / evals : 0;
    }
    kd_mech_route_free(&r);
    free(buf);
    return st;
}

void kd_mech_compare_free(kd_mech_compare* c) {
    free(c->rows);
    memset(c, 0, sizeof(*c));
}

/* ---- spatial mechanisms (kedyn/smech_formalism.h) ------------------------------------------- */

/* Mean wall time and flops of one evaluation at (0, q0, q0'). */
static kd_status time_build_spatial(const kd_smech* m, kd_mech_formalism f, const double* q0, const double* qd0,
                                    kd_mech_compare_row* row, kd_error* err) {
    kd_smech_route* r = NULL;
    double* qdd = calloc((size_t)m->n + 1, sizeof(double));
    if (!qdd) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    kd_status st = kd_smech_route_new(f, m, 0.0, q0, &r, err);
    double best = INFINITY;
    for (int batch = 0; !st && batch < BUILD_BATCHES; batch++) {
        const double t0 = util_now_s();
        for (int k = 0; !st && k < BUILD_REPS; k++) st = kd_smech_route_eval(r, 0.0, q0, qd0, qdd, err);
        best = fmin(best, (util_now_s() - t0) / BUILD_REPS);
    }
    if (!st) {
        long evals = 0;
        double flops = 0;
        kd_smech_route_work(r, &evals, &flops);
        row->build_s = best;
        row->flops_eval = evals > 0 ? flops / evals : 0;
    }
    kd_smech_route_free(&r);
    free(qdd);
    return st;
}

/* As the planar comparison, from the assembled position and the model's initial velocities
 * projected onto the velocity constraints (as `kedyn run` starts a spatial mechanism). */
static kd_status compare_spatial(const kd_desc* d, const kd_analysis_desc* ad, double t_end,
                                 const kd_mech_formalism* forms, int nforms, kd_mech_compare_progress progress,
                                 void* progress_ctx, kd_mech_compare* out, kd_error* err) {
    kd_smech* m = NULL;
    kd_status st = kd_smech_compile(d, &m, err);
    if (st) return st;
    const int n = m->n;
    kd_dynamics_desc dy = ad->dynamics;
    kd_dynamics_resolve(&dy, KD_ROUTE_MECHANISM);
    kd_mbs_opts base;
    kd_mbs_opts_from_dynamics(&base, &dy, t_end);
    const int cap = (int)ceil(t_end / (base.dt * base.output_every) - 1e-6) + 2;
    out->rows = calloc((size_t)nforms, sizeof(kd_mech_compare_row));
    double* q0 = calloc((size_t)(2 * n), sizeof(double));
    track* tr = calloc((size_t)nforms, sizeof(track));
    double* store = calloc((size_t)nforms * cap * n, sizeof(double));
    if (!out->rows || !q0 || !tr || !store) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the comparison");
        goto done;
    }
    memcpy(q0, m->q0, sizeof(double) * n);
    memcpy(q0 + n, m->qd0, sizeof(double) * n);
    if ((st = kd_smech_solve_position(m, 0.0, q0, NULL, err))) goto done;
    if ((st = kd_smech_solve_velocity(m, 0.0, q0, q0 + n, 1, err))) goto done;
    kd_smech_mobility mob;
    if ((st = kd_smech_mobility_at(m, 0.0, q0, &mob, err))) goto done;
    out->n = n, out->nc = m->nc, out->dof = mob.dof_undriven, out->t_end = t_end, out->nrows = nforms;
    out->spatial = 1;
    for (int k = 0; k < nforms; k++) {
        kd_mech_compare_row* row = &out->rows[k];
        const kd_mech_formalism f = forms[k];
        if (progress) progress(progress_ctx, k, nforms, f);
        row->formalism = f;
        row->bodies = m->nbody, row->n = n, row->nc = m->nc, row->dof = mob.dof_undriven;
        row->max_rel_diff = NAN, row->build_s = NAN, row->flops_eval = NAN;
        kd_mbs_opts o = base;
        kd_smech_formalism_opts(f, m, &o);
        kd_cms cms;
        kd_cms_rows* kept = NULL;  /* an over-constrained mechanism: its independent rows */
        if ((st = kd_smech_formalism_system(f, m, 0.0, q0, &cms, &kept, err))) goto done;
        kd_error rerr;
        kd_error_clear(&rerr);
        tr[k] = (track){n, cap, 0, store + (size_t)k * cap * n, 0};
        row->status = integrate_row(&cms, &o, q0, &tr[k], row, &rerr);
        kd_cms_rows_free(&kept);
        if (!row->status) row->status = time_build_spatial(m, f, q0, q0 + n, row, &rerr);
        if (row->status) {
            snprintf(row->message, sizeof(row->message), "%s", rerr.msg);
            if (row->status != KD_ERR_NUMERIC) {
                *err = rerr, st = row->status;
                goto done;
            }
        }
    }
    trajectory_diffs(tr, nforms, cap, out);
done:
    free(q0), free(tr), free(store);
    kd_smech_free(&m);
    if (st) kd_mech_compare_free(out);
    return st;
}

kd_status kd_mech_compare_run(const kd_desc* d, int analysis, const kd_mech_formalism* forms, int nforms,
                              double t_end_override, kd_mech_compare_progress progress, void* progress_ctx,
                              kd_mech_compare* out, kd_error* err) {
    memset(out, 0, sizeof(*out));
    kd_error_clear(err);
    if (analysis < 0 || analysis >= d->nanalyses || d->analyses[analysis].type != KD_ANALYSIS_DYNAMICS || nforms < 1)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "compare: no dynamics analysis or no formalism");
    const kd_analysis_desc* ad = &d->analyses[analysis];
    const double t_end = t_end_override > 0 ? t_end_override : ad->dynamics.t_end;
    if (d->spatial) return compare_spatial(d, ad, t_end, forms, nforms, progress, progress_ctx, out, err);
    kd_mech* m = NULL;
    kd_status st = kd_mech_compile(d, &m, err);
    if (st) return st;
    const int n = m->n;
    kd_mbs_opts base;
    analysis_opts(ad, t_end, &base);
    const int cap = (int)ceil(t_end / (base.dt * base.output_every) - 1e-6) + 2;
    out->rows = calloc((size_t)nforms, sizeof(kd_mech_compare_row));
    double* q0 = calloc((size_t)(2 * n), sizeof(double));
    track* tr = calloc((size_t)nforms, sizeof(track));
    double* store = calloc((size_t)nforms * cap * n, sizeof(double));
    kd_mech_work* w = kd_mech_work_new(m);
    if (!out->rows || !q0 || !tr || !store || !w) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the comparison");
        goto done;
    }
    /* the assembled initial position, at rest, as `kedyn run` starts */
    memcpy(q0, m->q0, sizeof(double) * n);
    if ((st = kd_mech_solve_position(m, w, 0.0, q0, NULL, err))) goto done;
    kd_mech_mobility mob;
    if ((st = kd_mech_mobility_at(m, 0.0, q0, &mob, err))) goto done;
    out->n = n, out->nc = m->nc, out->dof = mob.dof_undriven, out->t_end = t_end, out->nrows = nforms;
    kd_cms cms;
    kd_mech_cms(m, &cms);
    for (int k = 0; k < nforms; k++) {
        kd_mech_compare_row* row = &out->rows[k];
        const kd_mech_formalism f = forms[k];
        if (progress) progress(progress_ctx, k, nforms, f);
        row->formalism = f;
        row->bodies = m->nbody, row->n = n, row->nc = m->nc, row->dof = mob.dof_undriven;
        row->max_rel_diff = NAN, row->build_s = NAN, row->flops_eval = NAN;
        kd_mbs_opts o = base;
        kd_mech_formalism_opts(f, m, &o);
        kd_error rerr;
        kd_error_clear(&rerr);
        tr[k] = (track){n, cap, 0, store + (size_t)k * cap * n, 0};
        row->status = integrate_row(&cms, &o, q0, &tr[k], row, &rerr);
        if (!row->status) row->status = time_build(m, f, q0, row, &rerr);
        if (row->status) {
            snprintf(row->message, sizeof(row->message), "%s", rerr.msg);
            if (row->status != KD_ERR_NUMERIC) {
                *err = rerr, st = row->status;
                goto done;
            }
        }
    }
    trajectory_diffs(tr, nforms, cap, out);
done:
    free(q0), free(tr), free(store);
    kd_mech_work_free(&w);
    kd_mech_free(&m);
    if (st) kd_mech_compare_free(out);
    return st;
}
