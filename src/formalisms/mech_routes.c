/* The formalisms of a mechanism as routes to its accelerations (kedyn/mech_formalism.h): the
 * names, the formulation each integrates with, and single-state evaluation for comparisons.
 * Newton-Euler, Maggi, Kane and Gibbs-Appell evaluate through the forward solvers' own kernels
 * (kd_mbs_evaluator); Lagrange's equations of the first kind are solved whole, [M Phi_q^T;
 * Phi_q 0] by LU (kd_mech_inverse_multipliers). */
#include <stdlib.h>
#include <string.h>

#include "kedyn/mech_formalism.h"

static const char* const names[KD_MECH_FORMALISM_COUNT] = {"newton-euler", "maggi", "kane", "gibbs-appell",
                                                            "lagrange"};

const char* kd_mech_formalism_name(kd_mech_formalism f) {
    return (unsigned)f < KD_MECH_FORMALISM_COUNT ? names[f] : "?";
}

int kd_mech_formalism_parse(const char* s) {
    for (int i = 0; s && i < KD_MECH_FORMALISM_COUNT; i++)
        if (strcmp(s, names[i]) == 0) return i;
    return -1;
}

int kd_mech_formalism_formulation(kd_mech_formalism f, int given) {
    int own = KD_MBS_AUGMENTED;
    switch (f) {
    case KD_MECH_NEWTON_EULER:
        if (given == KD_MBS_IDA) return KD_MBS_IDA;   /* the same equations as a DAE */
        own = KD_MBS_AUGMENTED;
        break;
    case KD_MECH_MAGGI:
    case KD_MECH_KANE: own = KD_MBS_MAGGI; break;
    case KD_MECH_GIBBS_APPELL:
        if (given == KD_MBS_UDWADIA_KALABA) return KD_MBS_UDWADIA_KALABA;   /* Gauss in closed form */
        own = KD_MBS_MAGGI;
        break;
    case KD_MECH_LAGRANGE: own = KD_MBS_IDA; break;
    default: return -1;
    }
    return given < 0 || given == own ? own : -1;
}

void kd_mech_formalism_opts(kd_mech_formalism f, const kd_mech* m, kd_mbs_opts* o) {
    /* the alternative formulations a formalism allows are kept; any other is replaced */
    const int given = kd_mech_formalism_formulation(f, o->formulation) >= 0 ? (int)o->formulation : -1;
    o->formulation = (kd_mbs_formulation)kd_mech_formalism_formulation(f, given);
    o->reduced = NULL, o->reduced_ctx = NULL;
    if (f == KD_MECH_KANE) o->reduced = kd_mech_kane_reduced, o->reduced_ctx = (void*)m;
    if (f == KD_MECH_GIBBS_APPELL && o->formulation == KD_MBS_MAGGI)
        o->reduced = kd_mech_gibbs_appell_reduced, o->reduced_ctx = (void*)m;
}

struct kd_mech_route {
    kd_mech_formalism f;
    const kd_mech* m;
    kd_cms cms;
    kd_mbs_opts opts;
    kd_mbs_stats stats;
    kd_mbs_evaluator* ev;         /* all but lagrange */
    kd_mech_work* w;              /* lagrange */
    kd_mech_reactions r;
    long evals;
    double flops;                 /* lagrange: dense LU of the (n + nc) augmented matrix */
};

void kd_mech_route_free(kd_mech_route** rp) {
    kd_mech_route* r = *rp;
    if (!r) return;
    kd_mbs_evaluator_free(&r->ev);
    kd_mech_work_free(&r->w);
    kd_mech_reactions_free(&r->r);
    free(r);
    *rp = NULL;
}

kd_status kd_mech_route_new(kd_mech_formalism f, const kd_mech* m, double t0, const double* q0, kd_mech_route** out,
                            kd_error* err) {
    *out = NULL;
    if ((unsigned)f >= KD_MECH_FORMALISM_COUNT)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "unknown mechanism formalism");
    kd_mech_route* r = calloc(1, sizeof(*r));
    if (!r) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    r->f = f, r->m = m;
    kd_mech_cms(m, &r->cms);
    kd_mbs_opts_default(&r->opts);
    kd_mech_formalism_opts(f, m, &r->opts);
    kd_status st = KD_OK;
    if (f == KD_MECH_LAGRANGE) {
        r->w = kd_mech_work_new(m);
        if (!r->w || kd_mech_reactions_alloc(m, &r->r)) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    } else {
        st = kd_mbs_evaluator_new(&r->cms, &r->opts, t0, q0, &r->stats, &r->ev, err);
    }
    if (st) {
        kd_mech_route_free(&r);
        return st;
    }
    *out = r;
    return KD_OK;
}

kd_status kd_mech_route_eval(kd_mech_route* r, double t, const double* q, const double* qd, double* qdd, double* lambda,
                             kd_error* err) {
    r->evals++;
    if (!r->w) return kd_mbs_evaluate(r->ev, t, q, qd, qdd, lambda, err);
    kd_status st = kd_mech_inverse_multipliers(r->m, r->w, t, q, qd, qdd, &r->r, err);
    if (!st && lambda) memcpy(lambda, r->r.lambda, sizeof(double) * (size_t)r->m->nc);
    /* dense LU of the N x N augmented matrix and its two triangular solves */
    const double N = r->m->n + r->m->nc;
    r->flops += 2.0 / 3.0 * N * N * N + 2.0 * N * N;
    return st;
}

void kd_mech_route_work(const kd_mech_route* r, long* evaluations, double* flops) {
    if (evaluations) *evaluations = r->evals;
    if (flops) *flops = r->w ? r->flops : r->stats.flops;
}
