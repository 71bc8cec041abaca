/* Forward dynamics entry point (kedyn/mbs.h): options, names, the initial projection and the
 * augmented and Udwadia-Kalaba formulations as first-order ODEs in y = (q, q', W), W the work of
 * the applied forces (W' = Q^T q', so that T(t) - T(t0) = W(t) is the energy balance of a
 * system whose constraints do no work). Maggi (maggi.c) and IDA (ida.c) have their own files. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "constrained_internal.h"

void kd_mbs_opts_default(kd_mbs_opts* o) {
    memset(o, 0, sizeof(*o));
    o->formulation = KD_MBS_AUGMENTED;
    o->stabilization = KD_MBS_STAB_BAUMGARTE;
    o->integrator = KD_MBS_RK4;
    o->t0 = 0, o->t_end = 1, o->dt = 1e-3;
    o->rtol = 1e-8, o->atol = 1e-10;
    o->alpha = 10, o->beta = 10;
    o->proj_tol = 1e-12;
    o->output_every = 1;
}

static const char* const formulation_names[] = {"augmented", "udwadia-kalaba", "maggi", "ida"};
static const char* const stabilization_names[] = {"baumgarte", "projection", "none"};
static const char* const integrator_names[] = {"rk4", "cvode"};

static int parse(const char* const* names, int count, const char* s) {
    for (int i = 0; i < count; i++)
        if (s && strcmp(s, names[i]) == 0) return i;
    return -1;
}

const char* kd_mbs_formulation_name(kd_mbs_formulation f) {
    return (unsigned)f < 4 ? formulation_names[f] : "?";
}
int kd_mbs_formulation_parse(const char* s) { return parse(formulation_names, 4, s); }
const char* kd_mbs_stabilization_name(kd_mbs_stabilization s) {
    return (unsigned)s < 3 ? stabilization_names[s] : "?";
}
int kd_mbs_stabilization_parse(const char* s) { return parse(stabilization_names, 3, s); }
const char* kd_mbs_integrator_name(kd_mbs_integrator i) { return (unsigned)i < 2 ? integrator_names[i] : "?"; }
int kd_mbs_integrator_parse(const char* s) { return parse(integrator_names, 2, s); }

/* ---- augmented and Udwadia-Kalaba: y = (q, q', W) ---- */
typedef struct aug_ctx {
    mbs_ws* w;
    int uk;
    kd_mbs_output_fn out;
    void* out_ctx;
} aug_ctx;

static int aug_rhs(void* ctx, double t, const double* y, double* yd) {
    aug_ctx* a = ctx;
    mbs_ws* w = a->w;
    const int n = w->n;
    if (mbs_accel(w, t, y, y + n, a->uk)) return -1;
    double p = 0;
    for (int i = 0; i < n; i++) {
        yd[i] = y[n + i];
        yd[n + i] = w->qdd[i];
        p += w->Q[i] * y[n + i];
    }
    yd[2 * n] = p;
    return 0;
}

static int aug_project(void* ctx, double t, double* y) {
    aug_ctx* a = ctx;
    return mbs_project(a->w, t, y, y + a->w->n);
}

static int aug_project_err(void* ctx, double t, double* e) {
    aug_ctx* a = ctx;
    return mbs_project_tangent(a->w, t, e) || mbs_project_tangent(a->w, t, e + a->w->n) ? -1 : 0;
}

static int aug_output(void* ctx, double t, double* y, int* reinit) {
    aug_ctx* a = ctx;
    mbs_ws* w = a->w;
    *reinit = 0;
    if (mbs_accel(w, t, y, y + w->n, a->uk)) return -1;
    return mbs_emit(w, t, y, y + w->n, y[2 * w->n], a->out, a->out_ctx);
}

static kd_status run_augmented(mbs_ws* w, const double* q0, const double* qd0, kd_mbs_output_fn out, void* ctx,
                               kd_error* err) {
    const int n = w->n;
    double* y = malloc(sizeof(double) * (2 * n + 1));
    if (!y) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    memcpy(y, q0, sizeof(double) * n);
    memcpy(y + n, qd0, sizeof(double) * n);
    y[2 * n] = 0;
    aug_ctx a = {w, w->opts->formulation == KD_MBS_UDWADIA_KALABA, out, ctx};
    const int proj = w->opts->stabilization == KD_MBS_STAB_PROJECTION;
    mbs_ode ode = {2 * n + 1, &w->failed, &a, aug_rhs, proj ? aug_project : NULL, proj ? aug_project_err : NULL,
                   aug_output, n};
    kd_status st = mbs_ode_run(w, &ode, y, err);
    free(y);
    return st;
}

static kd_status check_opts(const kd_cms* s, const kd_mbs_opts* o, kd_error* err) {
    const char* bad = NULL;
    if (!s || s->n <= 0 || s->nc < 0 || !(s->mass || s->mass_blocks) || !s->force)
        bad = "system without coordinates, masses or forces";
    else if (s->mass_blocks && (s->nblocks < 1 || !s->block_start || s->block_start[0] != 0 ||
                                s->block_start[s->nblocks] != s->n))
        bad = "mass blocks must cover the coordinates: block_start[0] = 0, block_start[nblocks] = n";
    else if (s->nc > 0 && (!s->jac_rowptr || !s->jac_col || !s->phi || !s->jacobian || !s->phi_t || !s->gamma))
        bad = "constraint callbacks or Jacobian pattern missing";
    else if (!o || !(o->t_end > o->t0) || !(o->dt > 0) || o->output_every < 1) bad = "need t_end > t0, dt > 0, output_every >= 1";
    else if ((unsigned)o->formulation > KD_MBS_IDA || (unsigned)o->stabilization > KD_MBS_STAB_NONE ||
             (unsigned)o->integrator > KD_MBS_CVODE)
        bad = "unknown formulation, stabilisation or integrator";
    else if ((unsigned)o->nonlinear > KD_MBS_NLS_FIXED_POINT) bad = "unknown nonlinear solver";
    else if (o->integrator == KD_MBS_CVODE && o->adams && o->stabilization == KD_MBS_STAB_PROJECTION &&
             (o->formulation == KD_MBS_AUGMENTED || o->formulation == KD_MBS_UDWADIA_KALABA))
        bad = "CVODE projects only with BDF: cvode-adams takes baumgarte or none";
    else if ((o->integrator == KD_MBS_CVODE || o->formulation == KD_MBS_IDA) && !(o->rtol > 0 && o->atol > 0))
        bad = "adaptive integration needs rtol > 0 and atol > 0";
    else if (!(o->proj_tol > 0)) bad = "proj_tol must be > 0";
    if (!bad && s && s->mass_blocks)
        for (int b = 0; b < s->nblocks; b++)
            if (s->block_start[b + 1] <= s->block_start[b]) {
                bad = "every mass block must hold at least one coordinate";
                break;
            }
    if (!bad && s && !s->mass_blocks)
        for (int i = 0; i < s->n; i++)
            if (!(s->mass[i] > 0)) {
                bad = "every diagonal mass must be positive";
                break;
            }
    return bad ? kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "forward dynamics: %s", bad) : KD_OK;
}

kd_status kd_mbs_forward(const kd_cms* sys, const kd_mbs_opts* opts, const double* q0, const double* qd0,
                         kd_mbs_output_fn output, void* ctx, kd_mbs_stats* stats, kd_error* err) {
    kd_mbs_stats local;
    if (!stats) stats = &local;
    memset(stats, 0, sizeof(*stats));
    kd_error_clear(err);
    kd_status st = check_opts(sys, opts, err);
    if (st) return st;
    stats->t_reached = opts->t0;
    mbs_ws w;
    st = mbs_ws_init(&w, sys, opts, stats, err);
    if (!st) st = mbs_schur_check_rank(&w, opts->t0, q0, opts->formulation == KD_MBS_UDWADIA_KALABA, err);
    /* a consistent initial state: project (q0, q0') onto Phi = 0, Phi_q q' = -Phi_t */
    double* q = malloc(sizeof(double) * 2 * sys->n);
    if (!st && !q) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    if (!st) {
        memcpy(q, q0, sizeof(double) * sys->n);
        memcpy(q + sys->n, qd0, sizeof(double) * sys->n);
        if (mbs_project(&w, opts->t0, q, q + sys->n))
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                              "t = %g: inconsistent initial state: %s", w.fail_t, w.why);
    }
    if (!st) {
        switch (opts->formulation) {
        case KD_MBS_AUGMENTED:
        case KD_MBS_UDWADIA_KALABA: st = run_augmented(&w, q, q + sys->n, output, ctx, err); break;
        case KD_MBS_MAGGI:
            /* without constraints every coordinate is independent: M q'' = Q directly */
            st = sys->nc > 0 ? mbs_run_maggi(&w, q, q + sys->n, output, ctx, err)
                             : run_augmented(&w, q, q + sys->n, output, ctx, err);
            break;
        case KD_MBS_IDA: st = mbs_run_ida(&w, q, q + sys->n, output, ctx, err); break;
        }
    }
    free(q);
    mbs_ws_free(&w);
    return st;
}
