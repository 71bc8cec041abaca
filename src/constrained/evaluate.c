/* One evaluation of the forward-dynamics accelerations at a given consistent state, without time
 * integration (kedyn/mbs.h, kd_mbs_evaluator): the same kernels as the integrating formulations
 * (mbs_accel for augmented and Udwadia-Kalaba, maggi.c for Maggi and routes of their own through
 * opts->reduced), so that routes can be compared state by state and their cost per evaluation
 * measured. */
#include <stdlib.h>
#include <string.h>

#include "constrained_internal.h"

struct kd_mbs_evaluator {
    mbs_ws w;
    kd_mbs_opts o;                /* the caller's, without stabilisation terms */
    kd_mbs_stats local;
    maggi* g;                     /* maggi only */
    int uk;
};

void kd_mbs_evaluator_free(kd_mbs_evaluator** ep) {
    kd_mbs_evaluator* e = *ep;
    if (!e) return;
    mbs_maggi_free(&e->g);
    mbs_ws_free(&e->w);
    free(e);
    *ep = NULL;
}

kd_status kd_mbs_evaluator_new(const kd_cms* sys, const kd_mbs_opts* opts, double t0, const double* q0,
                               kd_mbs_stats* stats, kd_mbs_evaluator** out, kd_error* err) {
    kd_error_clear(err);
    *out = NULL;
    if (!sys || sys->n <= 0 || (!sys->mass && !sys->mass_blocks) || !sys->force || (sys->nc > 0 && (!sys->jacobian || !sys->gamma)))
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "evaluator: incomplete system");
    kd_mbs_evaluator* e = calloc(1, sizeof(*e));
    if (!e) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    e->o = *opts;
    e->o.stabilization = KD_MBS_STAB_NONE;
    e->uk = opts->formulation == KD_MBS_UDWADIA_KALABA;
    kd_mbs_stats* st = stats ? stats : &e->local;
    memset(st, 0, sizeof(*st));
    kd_status s = mbs_ws_init(&e->w, sys, &e->o, st, err);
    if (!s) s = mbs_schur_check_rank(&e->w, t0, q0, e->uk, err);
    if (!s && opts->formulation == KD_MBS_MAGGI && sys->nc > 0) s = mbs_maggi_new(&e->w, t0, q0, &e->g, err);
    if (s) {
        kd_mbs_evaluator_free(&e);
        return s;
    }
    *out = e;
    return KD_OK;
}

kd_status kd_mbs_evaluate(kd_mbs_evaluator* e, double t, const double* q, const double* qd, double* qdd,
                          double* lambda, kd_error* err) {
    mbs_ws* w = &e->w;
    w->failed = 0;
    const int bad = e->g ? mbs_maggi_eval(e->g, t, q, qd) : mbs_accel(w, t, q, qd, e->uk);
    if (bad) return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: %s", w->fail_t, w->why);
    memcpy(qdd, w->qdd, sizeof(double) * w->n);
    if (lambda && w->nc > 0) memcpy(lambda, w->lambda, sizeof(double) * w->nc);
    return KD_OK;
}
