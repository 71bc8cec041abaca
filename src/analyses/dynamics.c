/* Transient response of elastic bodies in moving frames (kedyn/analysis.h):
 * the assembled system (system.c) integrated by kd_integrate, with an
 * energy and work balance. */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/analysis.h"
#include "kedyn/hamilton.h"
#include "kedyn/band.h"
#include "numerics/pair.h"
#include "analyses/dynamics_sparse.h"

typedef struct dyn_ctx {
    kd_system* s;
    kd_dynamics_output out;
    void* ctx;
    int energy;
    kd_gband C, K;                /* energy: matrices at the output instant */
    double* f;                    /* (n), then scratch (2 n) and tri (9 n) in the same block */
    double *w1, *w2;
    double e0, work, p_prev, t_prev;
    int started;
    int c_known, c_zero;          /* energy: C = 0 (a bar: no gyroscopic term), while unchanged */
    int gen;                      /* energy: s->frames_gen of C and K (0: none yet) */
    double* tri;                  /* energy of bars: the diagonals of M, K0, K (9 n) */
    int tri_m, tri_k;             /* M and K0 split; the frames_gen of K's */
} dyn_ctx;

static double dot(const double* a, const double* b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

/* The three diagonals of a tridiagonal band (A(i, i-1), A(i, i), A(i, i+1) at lo, di, up[i]; the
 * missing corners zero), copied apart so that the rows below read them with unit stride. */
static void tri_split(const double* ab, int n, double* lo, double* di, double* up) {
    for (int i = 0; i < n; i++) {
        lo[i] = i > 0 ? ab[3 * i - 1] : 0.0;
        di[i] = ab[3 * i + 1];
        up[i] = i < n - 1 ? ab[3 * i + 3] : 0.0;
    }
}

/* The energy terms of on_output (theory.md sec. 8.2, 8.2.1) for tridiagonal M, K0, K (split: 3 n
 * each in tri) and C = 0 (axial bars): the same products and sums in the same order as the
 * matrix-vector and dot products of the general case, so the same bits, in one pass: the three
 * rows and the three sums at once (the products of the inner rows two at a time, each added to
 * the sums in row order as it is formed). kd_gband_matvec sums a row as 0 + A(i, i-1) x(i-1)
 * + ...; without the leading 0 (and the "- 0" of f - C v) a row differs only in the sign of a
 * zero, which a sum started at +0 absorbs (+0 + -0 = +0), so T, V and P keep their bits. n >= 2. */
static void energy_tridiagonal(const double* tri, const double* restrict f, const double* restrict q,
                               const double* restrict v, int n, double* T, double* V, double* P) {
    const size_t N = (size_t)n, L = N - 1;
    const double *restrict ml = tri, *restrict md = tri + N, *restrict mu = tri + 2 * N;
    const double *restrict al = tri + 3 * N, *restrict ad = tri + 4 * N, *restrict au = tri + 5 * N;
    const double *restrict kl = tri + 6 * N, *restrict kd = tri + 7 * N, *restrict ku = tri + 8 * N;
    /* row 0, then the inner rows, then row L, each added to the sums as it is formed (row order) */
    const double m0 = md[0] * v[0] + mu[0] * v[1], a0 = ad[0] * q[0] + au[0] * q[1];
    const double k0 = kd[0] * q[0] + ku[0] * q[1];
    double st = 0.0 + v[0] * m0, sv = 0.0 + q[0] * a0, sp = 0.0 + v[0] * (f[0] - (k0 - a0));
    int i = 1;
#if KD_V2
    for (; i + 1 < n - 1; i += 2) {  /* rows i and i + 1 */
        const kd_v2 vl = ld2(v + i - 1), vi = ld2(v + i), vu = ld2(v + i + 1);
        const kd_v2 ql = ld2(q + i - 1), qi = ld2(q + i), qu = ld2(q + i + 1);
        const kd_v2 m = ld2(ml + i) * vl + ld2(md + i) * vi + ld2(mu + i) * vu;
        const kd_v2 a = ld2(al + i) * ql + ld2(ad + i) * qi + ld2(au + i) * qu;
        const kd_v2 k = ld2(kl + i) * ql + ld2(kd + i) * qi + ld2(ku + i) * qu;
        const kd_v2 tm = vi * m, ta = qi * a, tk = vi * (ld2(f + i) - (k - a));
        st += tm[0], sv += ta[0], sp += tk[0];
        st += tm[1], sv += ta[1], sp += tk[1];
    }
#endif
    for (; i < n - 1; i++) {
        const double m = ml[i] * v[i - 1] + md[i] * v[i] + mu[i] * v[i + 1];
        const double a = al[i] * q[i - 1] + ad[i] * q[i] + au[i] * q[i + 1];
        const double k = kl[i] * q[i - 1] + kd[i] * q[i] + ku[i] * q[i + 1];
        st += v[i] * m, sv += q[i] * a, sp += v[i] * (f[i] - (k - a));
    }
    const double m1 = ml[L] * v[L - 1] + md[L] * v[L], a1 = al[L] * q[L - 1] + ad[L] * q[L];
    const double k1 = kl[L] * q[L - 1] + kd[L] * q[L];
    st += v[L] * m1, sv += q[L] * a1, sp += v[L] * (f[L] - (k1 - a1));
    *T = 0.5 * st, *V = 0.5 * sv, *P = sp;
}

/* Energy terms, then the caller's output. Power of the other terms:
 * P = v^T (f - C v - (K - K_elastic) q). */
static int on_output(void* ctx, double t, const double* q, const double* v, const double* a) {
    dyn_ctx* d = ctx;
    if (!d->energy) return d->out(d->ctx, t, q, v, a, NULL);
    kd_system* s = d->s;
    const int n = s->n;
    int changed = 0;
    kd_system_frames(s, t);  /* C and K only when the frames changed (steady ones hold: system.c) */
    if (d->gen == 0 || d->gen != s->frames_gen) {
        if (kd_system_matrices(s, t, &d->C, &d->K, &changed)) return 1;
        d->gen = s->frames_gen;
    }
    if (kd_system_force(s, t, d->f)) return 1;
    if (changed || !d->c_known) {  /* C v skipped while C is zero: the same P, one product less */
        const size_t nab = (size_t)(d->C.kl + d->C.ku + 1) * (size_t)n;
        d->c_zero = 1;
        for (size_t i = 0; i < nab && d->c_zero; i++) d->c_zero = d->C.ab[i] == 0.0;
        d->c_known = 1;
    }
    double T, V, P;
    if (d->c_zero && s->kd == 1 && n >= 2) {
        const size_t N = (size_t)n;
        if (!d->tri_m) {  /* M and K0 are constant */
            tri_split(s->M.ab, n, d->tri, d->tri + N, d->tri + 2 * N);
            tri_split(s->K0.ab, n, d->tri + 3 * N, d->tri + 4 * N, d->tri + 5 * N);
            d->tri_m = 1;
        }
        if (d->tri_k != d->gen) {  /* K of these frames */
            tri_split(d->K.ab, n, d->tri + 6 * N, d->tri + 7 * N, d->tri + 8 * N);
            d->tri_k = d->gen;
        }
        energy_tridiagonal(d->tri, d->f, q, v, n, &T, &V, &P);
    } else {
        kd_gband_matvec(&s->M, v, d->w1);
        T = 0.5 * dot(v, d->w1, n);
        kd_gband_matvec(&s->K0, q, d->w1);
        V = 0.5 * dot(q, d->w1, n);
        kd_gband_matvec(&d->K, q, d->w2);
        for (int i = 0; i < n; i++) d->w2[i] -= d->w1[i];  /* (K - K0) q */
        if (d->c_zero)
            memset(d->w1, 0, sizeof(double) * (size_t)n);
        else
            kd_gband_matvec(&d->C, v, d->w1);
        P = 0;
        for (int i = 0; i < n; i++) P += v[i] * (d->f[i] - d->w1[i] - d->w2[i]);
    }
    if (!d->started) {
        d->e0 = T + V;
        d->started = 1;
    } else {
        d->work += 0.5 * (P + d->p_prev) * (t - d->t_prev);
    }
    d->p_prev = P, d->t_prev = t;
    const double e[4] = {T, V, d->work, T + V - d->e0 - d->work};
    return d->out(d->ctx, t, q, v, a, e);
}

/* The reduced equation of a node DOF (body b, 1-based node), -1 if none. */
static int dof_equation(const kd_model* m, int b, int node, kd_dof_name dof) {
    const int n = m->body[b].node_adr + node - 1;
    for (int i = m->node_dof_adr[n]; i < m->node_dof_adr[n] + m->node_dof_num[n]; i++)
        if (m->dof_name[i] == dof) return m->dof_eq[i];
    return -1;
}

/* q0 += the shape of mode k at t = 0 (dynamics_add_scaled_mode): a structure at rest takes the
 * modes of K x = omega^2 M x; a moving one the real part of its state-space (gyroscopic) mode. */
static kd_status add_mode_shape(kd_system* s, int k, double amplitude, double* q0, kd_error* err) {
    const kd_model* m = s->m;
    int moves = 0;
    for (int b = 0; b < m->nbody; b++) moves |= m->body[b].motion.type != KD_MOTION_NONE;
    kd_modes r;
    kd_status st = moves ? kd_modes_state_space(s, 0.0, k, &r, err) : kd_modes_solve(m, k, KD_EIGEN_AUTO, &r, err);
    return st ? st : dynamics_add_scaled_mode(m, &r, k, amplitude, q0, s->n, err);
}

/* The initial state: zero or quasi-static, plus a scaled mode shape, plus
 * prescribed nodal values (the loader has checked that each names a free
 * DOF). */
static kd_status initial_state(kd_system* s, const kd_dynamics_desc* ad, double* q0, double* v0, kd_error* err) {
    kd_status st = KD_OK;
    if (ad->initial_static) {  /* quasi-static start: K(0) q = f(0) */
        kd_ode2 ode = kd_system_ode(s);
        ode.matrices = kd_system_matrices;  /* into buffers of its own */
        ode.iteration = NULL;
        st = kd_ode2_static(&ode, 0.0, q0, err);
    }
    if (!st && ad->initial_mode > 0) st = add_mode_shape(s, ad->initial_mode, ad->initial_amplitude, q0, err);
    for (int i = 0; i < ad->ninitial && !st; i++) {
        const kd_initial_value* iv = &ad->initial[i];
        const int e = dof_equation(s->m, iv->body, iv->node, iv->dof);
        if (e < 0) return kd_error_set(err, KD_ERR_INPUT, "", iv->loc, "initial value on a fixed DOF");
        (iv->velocity ? v0 : q0)[e] = iv->value;
    }
    return st;
}

kd_integrator kd_dynamics_method(kd_dynamics_integrator i) {
    switch (i) {
    case KD_INTEGRATOR_NEWMARK: return KD_INT_NEWMARK;
    case KD_INTEGRATOR_HHT: return KD_INT_HHT;
    case KD_INTEGRATOR_GENERALIZED_ALPHA: return KD_INT_GENERALIZED_ALPHA;
    case KD_INTEGRATOR_CVODE_BDF: return KD_INT_CVODE_BDF;
    case KD_INTEGRATOR_CVODE_ADAMS: return KD_INT_CVODE_ADAMS;
    case KD_INTEGRATOR_ARKODE_RK: return KD_INT_ARKODE_RK;
    case KD_INTEGRATOR_HAMILTON_CVODE: return KD_INT_HAMILTON_CVODE;
    case KD_INTEGRATOR_IMPLICIT_MIDPOINT: return KD_INT_IMPLICIT_MIDPOINT;
    case KD_INTEGRATOR_UNSET:
    case KD_INTEGRATOR_RK4:
    case KD_INTEGRATORS: break;
    }
    return (kd_integrator)-1;
}

kd_status kd_dynamics_run(const kd_model* m, const kd_analysis_desc* a, kd_dynamics_output out, void* ctx,
                          kd_integrate_stats* stats, char* warning, int nwarning, kd_error* err) {
    if (a->type != KD_ANALYSIS_DYNAMICS) return kd_error_set(err, KD_ERR_INPUT, "", a->loc, "not a dynamics analysis");
    kd_dynamics_desc r = a->dynamics;  /* the defaults of the elastic route for what is unset */
    kd_dynamics_resolve(&r, KD_ROUTE_ELASTIC);
    const kd_dynamics_desc* ad = &r;
    if (dynamics_sparse_applies(m, ad)) {  /* large models: compressed columns (dynamics_sparse.c) */
        kd_integrate_stats local;
        return dynamics_sparse_run(m, ad, out, ctx, stats ? stats : &local, warning, nwarning, err);
    }
    kd_formalism formalism;
    if (kd_formalism_parse(kd_dynamics_formalism_name(ad->formalism), &formalism) != 0 ||
        (int)kd_dynamics_method(ad->integrator) < 0)
        return kd_error_set(err, KD_ERR_INPUT, "", a->loc, "dynamics of elastic bodies: formalism %s with integrator %s",
                            kd_dynamics_formalism_name(ad->formalism), kd_dynamics_integrator_name(ad->integrator));
    kd_system s;
    kd_status st = kd_system_init_formalism(&s, m, formalism, err);
    if (st) return st;
    const int n = s.n;
    dyn_ctx d;
    memset(&d, 0, sizeof(d));
    d.s = &s, d.out = out, d.ctx = ctx, d.energy = ad->energy;
    double* q0 = calloc(2 * (size_t)n, sizeof(double));
    d.f = malloc(sizeof(double) * 12 * (size_t)n);
    if (!st) st = kd_gband_init(&d.C, n, s.kd, s.kd);
    if (!st) st = kd_gband_init(&d.K, n, s.kd, s.kd);
    if (st || !q0 || !d.f) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the dynamics");
    if (!st) {
        d.w1 = d.f + n, d.w2 = d.w1 + n, d.tri = d.w2 + n;
        /* A linear model beyond a critical speed diverges: say so up front. */
        const double times[2] = {0.0, ad->t_end};
        for (int k = 0; k < 2 && warning; k++)
            if (kd_system_stiffness_definite(&s, times[k]) == 0) {
                snprintf(warning, (size_t)nwarning,
                         "at t = %g s the effective stiffness is not positive definite (a speed above the critical "
                         "one?): the linearised response may diverge",
                         times[k]);
                break;
            }
        st = initial_state(&s, ad, q0, q0 + n, err);
    }
    if (!st) {
        kd_integrate_opts o;
        kd_integrate_opts_default(&o);
        o.method = kd_dynamics_method(ad->integrator);
        o.t0 = 0.0, o.t_end = ad->t_end, o.dt = ad->dt, o.dt_max = ad->dt_max;
        o.rtol = ad->rtol, o.atol = ad->atol;
        o.beta = ad->newmark_beta, o.gamma = ad->newmark_gamma, o.alpha = ad->hht_alpha, o.rho_inf = ad->rho_inf;
        o.output_every = ad->output_every;
        const kd_ode2 ode = kd_system_ode(&s);
        if (o.method == KD_INT_HAMILTON_CVODE || o.method == KD_INT_IMPLICIT_MIDPOINT)
            st = kd_hamilton_integrate(&s, &o, q0, q0 + n, on_output, &d, stats, err);
        else
            st = kd_integrate(&ode, &o, q0, q0 + n, on_output, &d, stats, err);
    }
    kd_gband_free(&d.C);
    kd_gband_free(&d.K);
    free(d.f);
    free(q0);
    kd_system_free(&s);
    return st;
}
