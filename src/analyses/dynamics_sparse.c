/* The sparse route of the dynamics analysis (theory.md sec. 13.4, 13.5, 20, 21; docs/architecture.md):
 * a model whose elastic bodies are at rest or turn at a constant speed about a fixed axis,
 * integrated by Newmark or the alpha family on one factorisation in compressed columns instead of
 * the band storage of kd_system, whose five band matrices do not fit for the large plates. At rest,
 * and in a steady rotation without gyroscopic coupling and with mass-proportional damping only,
 * the iteration matrix is symmetric (CHOLMOD, kd_newmark_csc); with the Coriolis matrix G or a
 * damping of the elastic stiffness (beta) it is not (UMFPACK, kd_newmark_gcsc). Taken above
 * KD_DYNAMICS_SPARSE_DOF equations or when those band matrices would exceed
 * KD_DYNAMICS_BAND_BYTES; the environment variable KEDYN_DYNAMICS_SPARSE_MIN_DOF lowers the
 * threshold (tests only). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/dynamics_sparse.h"
#include "kedyn/band.h"
#include "kedyn/inertia.h"
#include "kedyn/modes_gyro_sparse.h"
#include "kedyn/modes_speed.h"
#include "kedyn/newmark_gyro.h"

#define KD_DYNAMICS_SPARSE_DOF 20000
#define KD_DYNAMICS_BAND_BYTES 2e9

typedef struct sparse_dyn {
    const kd_model* m;
    kd_csc K, M, K0;              /* effective and elastic stiffness, mass (upper, compressed columns) */
    kd_csc C;                     /* general route: G + Rayleigh damping (both triangles; p NULL: none) */
    int general;                  /* 1: C above and kd_newmark_gcsc; 0: C = alpha M + beta K0, kd_newmark_csc */
    double alpha, beta;           /* the bodies' common Rayleigh damping (general = 0) */
    double* f_frame;              /* (n) the constant inertia load of the frames and gravity */
    double *f, *w1, *w2;          /* (n) scratch */
    int energy, started;
    double e0, work, p_prev, t_prev;
} sparse_dyn;

static double dot(const double* a, const double* b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

static int elastic(const kd_body* b) { return b->type != KD_BODY_GROUND && b->type != KD_BODY_RIGID; }

/* A steady motion (theory.md sec. 8.2.1): a rotation at constant speed from t = 0 about a fixed
 * axis. omega_L = R0^T omega, eps_L = 0 and a_O,L = R0^T W W p0 (p0 the arm from the axis to the
 * origin at t = 0: Q(t) commutes with W) hold at every t, so K, C and the inertia load are
 * constant, also when the origin is off the axis (src/fe/system.c frames_steady re-evaluates
 * those frames instead). */
static int steady_rotation(const kd_body* b) {
    return b->motion.type == KD_MOTION_ROTATION && b->motion.angle.type == KD_LAW_SPEED;
}

int dynamics_sparse_applies(const kd_model* m, const kd_dynamics_desc* ad) {
    const kd_dynamics_integrator in = ad->integrator;
    if ((in != KD_INTEGRATOR_NEWMARK && in != KD_INTEGRATOR_HHT && in != KD_INTEGRATOR_GENERALIZED_ALPHA) ||
        ad->formalism != KD_DYN_FORMALISM_INVARIANTS || m->elem_rot || m->neq <= 0)
        return 0;
    int first = 1, moving = 0, uniform = 1;
    double da = 0, db = 0;
    for (int b = 0; b < m->nbody; b++) {
        const kd_body* bd = &m->body[b];
        if (!elastic(bd)) continue;
        if (bd->motion.type != KD_MOTION_NONE) {
            if (!steady_rotation(bd)) return 0;
            moving = 1;
        }
        if (first) da = bd->damp_alpha, db = bd->damp_beta, first = 0;
        else if (bd->damp_alpha != da || bd->damp_beta != db) uniform = 0;
    }
    const int weight = m->gravity[0] != 0.0 || m->gravity[1] != 0.0 || m->gravity[2] != 0.0;
    /* at rest: one Rayleigh damping, none of a gravity-stiffened structure (the band route damps
     * with the elastic stiffness only, kd_newmark_csc with K); moving: no gravity (it turns with
     * respect to the body: the frames do not hold) */
    if (moving ? weight : !uniform || (db != 0.0 && weight)) return 0;
    const char* env = getenv("KEDYN_DYNAMICS_SPARSE_MIN_DOF");
    const long threshold = env && *env ? strtol(env, NULL, 10) : KD_DYNAMICS_SPARSE_DOF;
    const double band_bytes = 5.0 * (2.0 * m->bandwidth + 1.0) * (double)m->neq * sizeof(double);
    return m->neq >= threshold || band_bytes > KD_DYNAMICS_BAND_BYTES;
}

int kd_dynamics_sparse_route(const kd_model* m, const kd_analysis_desc* a) {
    if (a->type != KD_ANALYSIS_DYNAMICS) return 0;
    kd_dynamics_desc r = a->dynamics;
    kd_dynamics_resolve(&r, KD_ROUTE_ELASTIC);
    return dynamics_sparse_applies(m, &r);
}

/* f(t): the constant inertia load plus the nodal loads with their laws (kd_system_force). */
static void sparse_force(const sparse_dyn* d, double t, double* f) {
    memcpy(f, d->f_frame, sizeof(double) * (size_t)d->K.n);
    for (int i = 0; i < d->m->nnodal; i++) f[d->m->nodal[i].eq] += kd_law_value(&d->m->nodal[i].value, t);
}

/* y = C v: the general C, or alpha M v + beta K0 v; w scratch (n). */
static void damping_product(const sparse_dyn* d, const double* v, double* y, double* w) {
    const int n = d->K.n;
    if (d->general) {
        if (d->C.p) kd_csc_matvec_general(&d->C, v, y);
        else memset(y, 0, sizeof(double) * (size_t)n);
        return;
    }
    kd_csc_matvec(&d->M, v, y);
    kd_csc_matvec(&d->K0, v, w);
    for (int i = 0; i < n; i++) y[i] = d->alpha * y[i] + d->beta * w[i];
}

/* The energy balance of the band route (dynamics.c on_output): T = v^T M v / 2,
 * V = q^T K0 q / 2, P = v^T (f - C v - (K - K0) q) (v^T G v = 0: G is skew). */
static void sparse_energy(sparse_dyn* d, double t, const double* q, const double* v, double e[4]) {
    const int n = d->K.n;
    sparse_force(d, t, d->f);
    kd_csc_matvec(&d->M, v, d->w1);
    const double T = 0.5 * dot(v, d->w1, n);
    damping_product(d, v, d->w1, d->w2);
    double P = 0;
    for (int i = 0; i < n; i++) P += v[i] * (d->f[i] - d->w1[i]);
    kd_csc_matvec(&d->K0, q, d->w1);
    const double V = 0.5 * dot(q, d->w1, n);
    kd_csc_matvec(&d->K, q, d->w2);
    for (int i = 0; i < n; i++) P -= v[i] * (d->w2[i] - d->w1[i]);
    if (!d->started) d->e0 = T + V, d->started = 1;
    else d->work += 0.5 * (P + d->p_prev) * (t - d->t_prev);
    d->p_prev = P, d->t_prev = t;
    e[0] = T, e[1] = V, e[2] = d->work, e[3] = T + V - d->e0 - d->work;
}

/* K0 = the elastic stiffness on K's pattern; f_frame = -sum q_e, each element's inertia load at
 * its place r0 in the frame at t = 0 (theory.md sec. 3: [m_Oi] a + q_i(eps) + q_i(omega), gravity
 * a frame acceleration -g; src/fe/system.c kd_system_force). */
static kd_status frame_terms(sparse_dyn* d) {
    const kd_model* m = d->m;
    const int n = d->K.n;
    const size_t nnz = (size_t)d->K.p[n];
    d->K0.n = n;
    d->K0.p = malloc(sizeof(int) * ((size_t)n + 1));
    d->K0.i = malloc(sizeof(int) * (nnz ? nnz : 1));
    d->K0.x = calloc(nnz ? nnz : 1, sizeof(double));
    kd_frame* frame = calloc((size_t)m->nbody, sizeof(*frame));
    kd_inertia_terms* it = malloc(sizeof(*it));
    if (!d->K0.p || !d->K0.i || !d->K0.x || !frame || !it) {
        free(frame), free(it);
        return KD_ERR_NOMEM;
    }
    memcpy(d->K0.p, d->K.p, sizeof(int) * ((size_t)n + 1));
    memcpy(d->K0.i, d->K.i, sizeof(int) * nnz);
    for (int b = 0; b < m->nbody; b++) {
        if (!elastic(&m->body[b])) continue;
        kd_frame* f = &frame[b];
        kd_motion_eval(&m->body[b].motion, m->body[b].rot, m->body[b].origin, 0.0, f);
        const double *R = f->R, *g = m->gravity;
        for (int i = 0; i < 3; i++) f->aO_L[i] -= R[i] * g[0] + R[3 + i] * g[1] + R[6 + i] * g[2];
    }
    for (int e = 0; e < m->nelem; e++) {
        const kd_frame* f = &frame[m->elem_body[e]];
        const kd_element_props* pr = &m->prop[m->elem_prop[e]];
        int eqs[KD_ELEM_DOF_MAX];
        const int ne = kd_model_elem_eqs(m, e, eqs);
        kd_csc_add_element(&d->K0, pr->k, eqs, ne);
        const double *w = f->omega_L, *ep = f->eps_L, *a = f->aO_L;
        if (w[0] == 0.0 && w[1] == 0.0 && w[2] == 0.0 && ep[0] == 0.0 && ep[1] == 0.0 && ep[2] == 0.0 && a[0] == 0.0 &&
            a[1] == 0.0 && a[2] == 0.0)
            continue;
        kd_element_place at;
        kd_model_elem_place(m, e, &at);
        kd_inertia_terms_place(pr, &at, w, ep, a, it);
        for (int k = 0; k < ne; k++)
            if (eqs[k] >= 0) d->f_frame[eqs[k]] -= it->q[k];
    }
    free(frame), free(it);
    return KD_OK;
}

/* The equation of a node DOF (body b, 1-based node), -1 if none. */
static int dof_equation(const kd_model* m, int b, int node, kd_dof_name dof) {
    const int n = m->body[b].node_adr + node - 1;
    for (int i = m->node_dof_adr[n]; i < m->node_dof_adr[n] + m->node_dof_num[n]; i++)
        if (m->dof_name[i] == dof) return m->dof_eq[i];
    return -1;
}

/* q0 += mode k's shape scaled so that its largest translation is `amplitude`
 * (dynamics_add_scaled_mode): the modes of K x = omega^2 M x at rest, the real part of the state-space mode
 * of a moving structure (sparse solver). */
static kd_status add_mode_shape(const kd_model* m, int moving, int k, double amplitude, double* q0, kd_error* err) {
    kd_modes r;
    kd_status st = moving ? kd_modes_state_space_sparse(m, NULL, 0.0, k, &r, err)
                          : kd_modes_solve(m, k, KD_EIGEN_AUTO, &r, err);
    return st ? st : dynamics_add_scaled_mode(m, &r, k, amplitude, q0, m->neq, err);
}

kd_status dynamics_sparse_run(const kd_model* m, const kd_dynamics_desc* ad, kd_dynamics_output out, void* ctx,
                              kd_integrate_stats* stats, char* warning, int nwarning, kd_error* err) {
    sparse_dyn d;
    memset(&d, 0, sizeof(d));
    d.m = m, d.energy = ad->energy;
    const int n = m->neq;
    int moving = 0, first = 1, uniform = 1;
    for (int b = 0; b < m->nbody; b++) {
        const kd_body* bd = &m->body[b];
        if (!elastic(bd)) continue;
        moving |= bd->motion.type != KD_MOTION_NONE;
        if (first) d.alpha = bd->damp_alpha, d.beta = bd->damp_beta, first = 0;
        else if (bd->damp_alpha != d.alpha || bd->damp_beta != d.beta) uniform = 0;
    }
    int gyro = 0;
    kd_status st = kd_system_stiffness_csc(m, 0.0, &d.K, &d.M, &gyro, err);
    if (st) return st;
    /* kd_newmark_csc damps with beta K: the effective stiffness of a moving body is not the elastic one */
    d.general = moving && (gyro || !uniform || d.beta != 0.0);
    double* buf = calloc(7 * (size_t)n, sizeof(double));
    double *q = buf, *v = buf + n, *a = v + n;
    if (!buf) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the dynamics");
    if (!st) {
        d.f_frame = a + n, d.f = d.f_frame + n, d.w1 = d.f + n, d.w2 = d.w1 + n;
        if (frame_terms(&d)) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the dynamics");
    }
    int nonzero = 0;
    if (!st && d.general) st = kd_system_damping_csc(m, 0.0, &d.K, &d.C, &nonzero, err);
    /* a speed above a critical one (K not positive definite): the band route's warning, from the
     * Cholesky factorisation of the quasi-static start or of a trial solve */
    int indefinite = 0;
    if (!st && (ad->initial_static || (moving && warning))) {
        sparse_force(&d, 0.0, d.w1);
        const kd_status sp = kd_csc_solve_spd(&d.K, 1, d.w1);
        if (sp == KD_ERR_NOMEM) st = kd_error_set(err, sp, "", KD_LOC_NONE, "out of memory for the dynamics");
        indefinite = sp == KD_ERR_NUMERIC;
        if (!st && indefinite && warning)
            snprintf(warning, (size_t)nwarning,
                     "at t = 0 s the effective stiffness is not positive definite (a speed above the critical one?): "
                     "the linearised response may diverge");
        if (!st && ad->initial_static) {  /* quasi-static start: K q0 = f(0) */
            if (indefinite)
                st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "the quasi-static initial state could not be solved");
            else memcpy(q, d.w1, sizeof(double) * (size_t)n);
        }
    }
    if (!st && ad->initial_mode > 0) st = add_mode_shape(m, moving, ad->initial_mode, ad->initial_amplitude, q, err);
    for (int i = 0; i < ad->ninitial && !st; i++) {
        const kd_initial_value* iv = &ad->initial[i];
        const int e = dof_equation(m, iv->body, iv->node, iv->dof);
        if (e < 0) st = kd_error_set(err, KD_ERR_INPUT, "", iv->loc, "initial value on a fixed DOF");
        else (iv->velocity ? v : q)[e] = iv->value;
    }
    /* the checks and steps of kd_integrate (step_alpha.c): a whole number, the last on t_end */
    if (!st && !(ad->t_end > 0))
        st = kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "t_end (%g) must be later than t0 (0)", ad->t_end);
    if (!st && !(ad->dt > 0)) st = kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "dt must be positive (got %g)", ad->dt);
    if (!st && ad->output_every < 1)
        st = kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "output_every must be >= 1");
    const double ratio = st ? 1.0 : ad->t_end / ad->dt;
    const long nsteps = ratio < 1e15 && lround(ratio) > 0 ? lround(ratio) : 1;
    const double dt = ad->t_end / (double)nsteps;
    /* the alpha family's parameters (step_alpha.c) */
    double am = 0, af = 0, beta = ad->newmark_beta, gamma = ad->newmark_gamma;
    if (ad->integrator == KD_INTEGRATOR_HHT) {
        af = -ad->hht_alpha;
        gamma = 0.5 - ad->hht_alpha;
        beta = 0.25 * (1 - ad->hht_alpha) * (1 - ad->hht_alpha);
    } else if (ad->integrator == KD_INTEGRATOR_GENERALIZED_ALPHA) {
        const double r = ad->rho_inf;
        am = (2 * r - 1) / (r + 1);
        af = r / (r + 1);
        gamma = 0.5 - am + af;
        beta = 0.25 * (1 - am + af) * (1 - am + af);
    }
    memset(stats, 0, sizeof(*stats));
    if (!st) {  /* M a0 = f(0) - C v0 - K q0 */
        sparse_force(&d, 0.0, a);
        kd_csc_matvec(&d.K, q, d.w1);
        for (int i = 0; i < n; i++) a[i] -= d.w1[i];
        damping_product(&d, v, d.w1, d.w2);
        for (int i = 0; i < n; i++) a[i] -= d.w1[i];
        int rest = 1;  /* a structure starting at rest without load: a0 = 0 without a factorisation of M */
        for (int i = 0; i < n && rest; i++) rest = a[i] == 0.0;
        if (!rest) st = kd_csc_solve_spd(&d.M, 1, a);
        if (st) kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = 0 s: the mass matrix is singular");
        stats->rhs_evals++;
    }
    kd_newmark_csc* w = NULL;
    kd_newmark_gcsc* wg = NULL;
    if (!st && d.general) {
        const kd_status s2 = kd_newmark_gcsc_init(&d.K, &d.M, d.C.p ? &d.C : NULL, dt, beta, gamma, am, af, &wg);
        if (s2) st = kd_error_set(err, s2 == KD_ERR_NOMEM ? s2 : KD_ERR_NUMERIC, "", KD_LOC_NONE,
                                  s2 == KD_ERR_NOMEM ? "out of memory for the iteration matrix" : "the iteration matrix is singular");
    } else if (!st && kd_newmark_csc_init_alpha(&d.K, &d.M, d.alpha, d.beta, dt, beta, gamma, am, af, &w)) {
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "the iteration matrix is not positive definite");
    }
    if (!st) stats->factorizations = 1;
    double e[4];
    if (!st) {
        if (d.energy) sparse_energy(&d, 0.0, q, v, e);
        if (out(ctx, 0.0, q, v, a, d.energy ? e : NULL))
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = 0 s: output stopped the integration");
    }
    for (long step = 1; step <= nsteps && !st; step++) {
        const double t1 = step == nsteps ? ad->t_end : (double)step * dt, t = (double)(step - 1) * dt;
        sparse_force(&d, t1 - af * (t1 - t), d.f);  /* at t_{n+1-af}; no allocation in a step */
        stats->rhs_evals++;
        if (wg ? kd_newmark_gcsc_step(wg, d.f, q, v, a) : kd_newmark_csc_step(w, d.f, q, v, a)) {
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: the solve failed", t1);
            break;
        }
        stats->steps++;
        stats->t_reached = t1;
        if (step % ad->output_every == 0 || step == nsteps) {
            if (d.energy) sparse_energy(&d, t1, q, v, e);
            if (out(ctx, t1, q, v, a, d.energy ? e : NULL))
                st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: output stopped the integration", t1);
        }
    }
    kd_newmark_csc_free(&w);
    kd_newmark_gcsc_free(&wg);
    kd_csc_free(&d.K), kd_csc_free(&d.M), kd_csc_free(&d.K0), kd_csc_free(&d.C);
    free(buf);
    return st;
}
