/* Floating-frame elastic bodies (src/links/floating_*.c) on the forward solvers with block-diagonal M(q)
 * (src/constrained/), against references independent of the floating-frame equations:
 *   - a free-floating elastic beam (no gravity, no joints), deformed and spinning: linear and
 *     angular momentum and T + U constant (conservation laws, not computed from M q'' = Q);
 *   - a pendulum made of an elastic beam pinned at its root: its period tends to the rigid
 *     compound pendulum's exact period 4 sqrt(I_O / (m g d)) K(sin(theta0 / 2)) as E grows, with an
 *     error falling like 1/E;
 *   - a slider-crank with a driven rigid crank, an elastic connecting rod (chord frame) and a
 *     rigid slider: the slider follows the rigid closed form r cos(phi) + sqrt(l^2 - r^2 sin^2 phi)
 *     as the rod stiffens; Newton-Euler with multipliers (augmented) and Kane's projection on the
 *     independent speeds (maggi), which share no linear algebra, give the same motion, and the
 *     energy balance T + V - T0 - V0 = work of the driver holds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/analysis.h"
#include "kedyn/ffr.h"
#include "kedyn/ked.h"
#include "kedyn/load_yaml.h"
#include "kedyn/mbs.h"
#include "test_util.h"

#define G 9.81

static double ellipk(double k) {
    double a = 1, b = sqrt(1 - k * k);
    for (int i = 0; i < 30; i++) {
        const double an = 0.5 * (a + b);
        b = sqrt(a * b), a = an;
    }
    return PI / (2 * a);
}

/* ---- a recorder of the output samples ---- */
typedef struct rec {
    const kd_ffr_system* s;
    int n, cap, count;
    double* t;
    double *q, *qd;
    double *lam;
    int nc;
} rec;

static int record(void* ctx, const kd_mbs_sample* smp) {
    rec* r = ctx;
    if (r->count == r->cap) return 1;
    r->t[r->count] = smp->t;
    memcpy(r->q + (size_t)r->n * r->count, smp->q, sizeof(double) * r->n);
    memcpy(r->qd + (size_t)r->n * r->count, smp->qd, sizeof(double) * r->n);
    if (r->nc) memcpy(r->lam + (size_t)r->nc * r->count, smp->lambda, sizeof(double) * r->nc);
    r->count++;
    return 0;
}

static rec* rec_new(const kd_ffr_system* s, int cap) {
    rec* r = calloc(1, sizeof(rec));
    r->s = s, r->n = kd_ffr_size(s), r->cap = cap, r->nc = kd_ffr_cms(s)->nc;
    r->t = malloc(sizeof(double) * cap);
    r->q = malloc(sizeof(double) * cap * r->n);
    r->qd = malloc(sizeof(double) * cap * r->n);
    r->lam = malloc(sizeof(double) * cap * (r->nc + 1));
    return r;
}

static void rec_free(rec* r) {
    free(r->t), free(r->q), free(r->qd), free(r->lam), free(r);
}

static kd_mbs_opts opts(kd_mbs_formulation f, double t_end, double dt, int every) {
    kd_mbs_opts o;
    kd_mbs_opts_default(&o);
    o.formulation = f, o.t_end = t_end, o.dt = dt, o.output_every = every;
    o.stabilization = KD_MBS_STAB_PROJECTION;
    return o;
}

static kd_ffr_beam beam(double L, int ne, double E, kd_ffr_frame frame) {
    kd_ffr_beam b = {.length = L, .elements = ne, .theory = KD_THEORY_EULER_BERNOULLI, .E = E, .rho = 2700,
                     .A = 4e-4, .Iz = 1.3333e-8, .frame = frame};
    return b;
}

/* ---- Lagrange's equations: Q_v = -M' q' + dT/dq, by central differences of T = q'^T M(q) q' / 2 ---- */
static void test_quadratic_velocity_is_lagrangian(void** state) {
    (void)state;
    kd_ffr_system* s = kd_ffr_new(0, 0);
    kd_ffr_beam b = beam(0.8, 3, 7e9, KD_FFR_CHORD);
    kd_ffr_add_beam(s, "beam", &b, NULL);
    kd_ffr_add_rigid(s, "block", 0.4, 2e-3, NULL);
    assert_int_equal(kd_ffr_finish(s, NULL), KD_OK);
    const kd_cms* c = kd_ffr_cms(s);
    const int n = c->n;
    size_t nm = 0;
    for (int k = 0; k < c->nblocks; k++) {
        const size_t d = (size_t)(c->block_start[k + 1] - c->block_start[k]);
        nm += d * d;
    }
    double *q = malloc(sizeof(double) * n), *v = malloc(sizeof(double) * n), *z = calloc(n, sizeof(double));
    double *Q1 = malloc(sizeof(double) * n), *Q0 = malloc(sizeof(double) * n), *qp = malloc(sizeof(double) * n);
    double *Mp = malloc(sizeof(double) * nm), *Mm = malloc(sizeof(double) * nm);
    srand(7);
    for (int i = 0; i < n; i++) q[i] = 0.05 * (rand() / (double)RAND_MAX - 0.5), v[i] = rand() / (double)RAND_MAX - 0.5;
    q[2] = 0.7;
    c->force(c->ctx, 0, q, v, Q1);
    c->force(c->ctx, 0, q, z, Q0);     /* the velocity-free part: elastic forces */
    const double h = 1e-6;
    double emax = 0, qmax = 0;
    /* v^T M v / 2 and (dM/dq_k v) block by block */
    for (int i = 0; i < n; i++) {
        double dTdq = 0, mdot = 0;
        for (int k = 0; k < n; k++) {
            memcpy(qp, q, sizeof(double) * n);
            qp[k] += h;
            c->mass_blocks(c->ctx, 0, qp, Mp);
            qp[k] -= 2 * h;
            c->mass_blocks(c->ctx, 0, qp, Mm);
            size_t o = 0;
            for (int bk = 0; bk < c->nblocks; bk++) {
                const int s0 = c->block_start[bk], d = c->block_start[bk + 1] - s0;
                for (int a = 0; a < d; a++)
                    for (int bb = 0; bb < d; bb++) {
                        const double dM = (Mp[o + a + (size_t)d * bb] - Mm[o + a + (size_t)d * bb]) / (2 * h);
                        if (k == i) dTdq += 0.5 * v[s0 + a] * dM * v[s0 + bb];
                        if (s0 + a == i) mdot += dM * v[k] * v[s0 + bb];
                    }
                o += (size_t)d * d;
            }
        }
        const double Qv = Q1[i] - Q0[i], ref = -mdot + dTdq;
        emax = fmax(emax, fabs(Qv - ref));
        qmax = fmax(qmax, fabs(ref));
    }
    printf("quadratic-velocity vector against Lagrange's equations: max error %.2e (max |Q_v| %.3g)\n", emax, qmax);
    assert_true(qmax > 1e-3);
    assert_true(emax < 1e-7 * qmax);
    free(q), free(v), free(z), free(Q1), free(Q0), free(qp), free(Mp), free(Mm);
    kd_ffr_free(&s);
}

/* ---- a free-floating elastic beam: momentum and energy (0.1 s) ---- */
static double free_beam_conservation(int geometric, double dt) {
    kd_ffr_system* s = kd_ffr_new(0, 0);
    kd_ffr_beam b = beam(1.0, 4, 7e9, KD_FFR_CHORD);
    b.geometric = geometric;
    assert_int_equal(kd_ffr_add_beam(s, "beam", &b, NULL), 0);
    assert_int_equal(kd_ffr_finish(s, NULL), KD_OK);
    const kd_cms* cms = kd_ffr_cms(s);
    const int n = kd_ffr_size(s);
    assert_int_equal(n, 3 + 3 * 5 - 3);
    assert_int_equal(cms->nc, 0);
    double* q = calloc(n, sizeof(double));
    double* qd = calloc(n, sizeof(double));
    /* a bent, stretched, moving and spinning beam: v = 0.02 sin(pi x), u = 1e-3 x, rates alike */
    q[0] = 0.3, q[1] = -0.2, q[2] = 0.4;
    qd[0] = 1.5, qd[1] = -0.7, qd[2] = 3.0;
    for (int k = 0; k < 5; k++) {
        const double x = k / 4.0;
        const int iu = kd_ffr_node_coordinate(s, 0, k, KD_DOF_U), iv = kd_ffr_node_coordinate(s, 0, k, KD_DOF_V),
                  ir = kd_ffr_node_coordinate(s, 0, k, KD_DOF_RZ);
        if (iu >= 0) q[iu] = 2e-5 * x, qd[iu] = 0.01 * x;
        if (iv >= 0) q[iv] = 0.01 * sin(PI * x), qd[iv] = -0.3 * sin(2 * PI * x);
        if (ir >= 0) q[ir] = 0.01 * PI * cos(PI * x), qd[ir] = -0.6 * PI * cos(2 * PI * x);
    }
    rec* r = rec_new(s, 1100);
    kd_mbs_opts o = opts(KD_MBS_AUGMENTED, 0.1, dt, (int)(1e-4 / dt + 0.5));
    kd_mbs_stats st;
    kd_error err;
    assert_int_equal(kd_mbs_forward(cms, &o, q, qd, record, r, &st, &err), KD_OK);
    double p0[2], L0, T0, U0, pmax = 0, Lmax = 0, Emax = 0, Umax = 0;
    kd_ffr_momentum(s, r->q, r->qd, p0, &L0);
    kd_ffr_energy(s, r->q, r->qd, &T0, NULL, &U0);
    for (int k = 1; k < r->count; k++) {
        double p[2], L, T, U;
        kd_ffr_momentum(s, r->q + (size_t)n * k, r->qd + (size_t)n * k, p, &L);
        kd_ffr_energy(s, r->q + (size_t)n * k, r->qd + (size_t)n * k, &T, NULL, &U);
        pmax = fmax(pmax, hypot(p[0] - p0[0], p[1] - p0[1]));
        Lmax = fmax(Lmax, fabs(L - L0));
        Emax = fmax(Emax, fabs(T + U - T0 - U0));
        Umax = fmax(Umax, U);
    }
    printf("free beam (geometric %d): %d samples, |p| %.6g, L %.6g, E %.6g, max strain energy %.3g; drifts: p %.2e, L %.2e, E %.2e\n",
           geometric, r->count, hypot(p0[0], p0[1]), L0, T0 + U0, Umax, pmax, Lmax, Emax);
    assert_int_equal(r->count, 1001);
    assert_true(Umax > 1e-3 * (T0 + U0));    /* the elastic motion is not negligible */
    assert_true(pmax < 1e-8 * hypot(p0[0], p0[1]));
    assert_true(Lmax < 1e-8 * fabs(L0));
    rec_free(r), free(q), free(qd);
    kd_ffr_free(&s);
    return Emax / (T0 + U0);
}

static void test_free_beam_conservation(void** state) {
    (void)state;
    /* RK4's damping of the axial modes: relative energy error 2.8e-7 at dt = 1e-5 s; with geometric
     * stiffness the bending-axial coupling excites them more (2.6e-4 at 1e-5 s, 8.2e-6 at 5e-6 s),
     * with fifth-order convergence: the force is the gradient of the energy */
    assert_true(free_beam_conservation(0, 1e-5) < 1e-6);
    const double e1 = free_beam_conservation(1, 1e-5), e2 = free_beam_conservation(1, 5e-6);
    assert_true(e1 / e2 > 16);
    assert_true(e2 < 2e-5);
}

/* ---- an elastic pendulum: the rigid limit ---- */
/* Period from the crossings of the hanging angle (interpolated). */
static double pendulum_period(kd_ffr_system* s, double E, double th0, double* T_rigid) {
    (void)s;
    kd_ffr_system* p = kd_ffr_new(0, -G);
    kd_ffr_beam b = beam(1.0, 2, E, KD_FFR_ROOT);
    kd_ffr_add_beam(p, "rod", &b, NULL);
    kd_ffr_add_revolute(p, (kd_ffr_point){.body = 0, .node = 0}, (kd_ffr_point){.body = -1}, NULL);
    assert_int_equal(kd_ffr_finish(p, NULL), KD_OK);
    const int n = kd_ffr_size(p);
    double* q = calloc(n, sizeof(double));
    double* qd = calloc(n, sizeof(double));
    q[2] = -PI / 2 + th0;
    /* the static deflection under gravity at the release is small: start undeformed */
    const double m = b.rho * b.A * b.length, IO = m * b.length * b.length / 3 + b.rho * b.Iz * b.length;
    *T_rigid = 4 * sqrt(IO / (m * G * b.length / 2)) * ellipk(sin(th0 / 2));
    rec* r = rec_new(p, 40000);
    kd_mbs_opts o = opts(KD_MBS_AUGMENTED, 0.85 * *T_rigid, 4e-5, 1);
    kd_error err;
    const kd_status st = kd_mbs_forward(kd_ffr_cms(p), &o, q, qd, record, r, NULL, &err);
    if (st) printf("%s\n", err.msg);
    assert_int_equal(st, KD_OK);
    double tc[2];
    int nc = 0;
    for (int k = 1; k < r->count && nc < 2; k++) {
        const double a = r->q[(size_t)n * (k - 1) + 2] + PI / 2, c = r->q[(size_t)n * k + 2] + PI / 2;
        if ((a > 0) != (c > 0)) tc[nc++] = r->t[k - 1] + (r->t[k] - r->t[k - 1]) * a / (a - c);
    }
    assert_int_equal(nc, 2);
    rec_free(r), free(q), free(qd);
    kd_ffr_free(&p);
    return 2 * (tc[1] - tc[0]);
}

static void test_pendulum_rigid_limit(void** state) {
    (void)state;
    const double th0 = 1.2, Es[2] = {7e9, 7e10};
    double err[2], Tr = 0;
    for (int i = 0; i < 2; i++) {
        const double T = pendulum_period(NULL, Es[i], th0, &Tr);
        err[i] = fabs(T - Tr) / Tr;
        printf("elastic pendulum E = %.1e: period %.9f rigid %.9f rel %.2e\n", Es[i], T, Tr, err[i]);
    }
    /* the compliance adds a period error proportional to 1/E */
    assert_true(err[1] < 1e-5);
    assert_true(err[0] / err[1] > 7 && err[0] / err[1] < 13);
}

/* The elastic pendulum by IDA (the GGL index-2 DAE, BDF with a sparse Newton matrix) and by the
 * augmented form (Runge-Kutta): no shared linear algebra, no shared integrator. */
static void test_pendulum_ida_agrees(void** state) {
    (void)state;
    double th[2], w[2], vtip[2];
    for (int f = 0; f < 2; f++) {
        kd_ffr_system* p = kd_ffr_new(0, -G);
        kd_ffr_beam b = beam(1.0, 2, 7e8, KD_FFR_ROOT);
        kd_ffr_add_beam(p, "rod", &b, NULL);
        kd_ffr_add_revolute(p, (kd_ffr_point){.body = 0, .node = 0}, (kd_ffr_point){.body = -1}, NULL);
        assert_int_equal(kd_ffr_finish(p, NULL), KD_OK);
        const int n = kd_ffr_size(p);
        double* q = calloc(n, sizeof(double));
        double* qd = calloc(n, sizeof(double));
        q[2] = -PI / 2 + 1.2;
        rec* r = rec_new(p, 400);
        kd_mbs_opts o = opts(f ? KD_MBS_IDA : KD_MBS_AUGMENTED, 0.3, f ? 1e-3 : 1e-5, f ? 1 : 100);
        o.rtol = 1e-10, o.atol = 1e-12;
        kd_error err;
        const kd_status st = kd_mbs_forward(kd_ffr_cms(p), &o, q, qd, record, r, NULL, &err);
        if (st) printf("%s\n", err.msg);
        assert_int_equal(st, KD_OK);
        const double* qe = r->q + (size_t)n * (r->count - 1);
        th[f] = qe[2], w[f] = r->qd[(size_t)n * (r->count - 1) + 2];
        vtip[f] = qe[kd_ffr_node_coordinate(p, 0, 2, KD_DOF_V)];
        rec_free(r), free(q), free(qd);
        kd_ffr_free(&p);
    }
    printf("elastic pendulum at 0.3 s: augmented theta %.10f, tip v %.6e; ida theta %.10f, tip v %.6e\n", th[0], vtip[0],
           th[1], vtip[1]);
    assert_true(fabs(th[0] - th[1]) < 1e-6);
    assert_true(fabs(w[0] - w[1]) < 1e-5);
    assert_true(fabs(vtip[0] - vtip[1]) < 1e-3 * fabs(vtip[0]));
}

/* ---- a beam driven at its root: the moving-frame result of src/engine ---- */
/* The same beam (1 m, 5 elements, 7 GPa, clamped at its root) spun up about its root by the same
 * law, once as a floating-frame body pinned at node 1 with its angle driven (root frame), once by
 * the moving-frame system's equations (prescribed rotation, no geometric stiffness: the
 * floating-frame model here is linear elastic too), generalized-alpha without damping. With theta
 * prescribed both are the same linear equations reached by independent code paths. */
typedef struct tip_rec {
    int eq, n;
    double t[2001], v[2001];
} tip_rec;

static int tip_out(void* ctx, double t, const double* q, const double* v, const double* a, const double* e) {
    (void)v, (void)a, (void)e;
    tip_rec* r = ctx;
    if (r->n < 2001) r->t[r->n] = t, r->v[r->n++] = q[r->eq];
    return 0;
}

static void test_driven_beam_matches_moving_frame(void** state) {
    (void)state;
    const double E = 7e9, L = 1.0, W = 20, TS = 0.4, t_end = 0.6;
    const int ne = 5;
    kd_law spin = kd_law_constant(0);
    spin.type = KD_LAW_SPIN_UP, spin.spin_omega = W, spin.spin_T = TS;
    /* moving frame (src/engine) */
    kd_section_desc sec = {0};
    sec.shape = KD_SHAPE_GENERIC, sec.A = 4e-4, sec.Iy = sec.Iz = 1.3333e-8, sec.J = 2.6666e-8;
    kd_desc* d = one_beam(E, 2700, 0.3, sec, L, ne, KD_THEORY_EULER_BERNOULLI, KD_INTERP_CUBIC, 1);
    d->bodies[0].geometric_stiffness = 0;
    fix(d, 1, KD_FIX_ALL);
    kd_motion_desc* md = kd_desc_add_motion(d);
    md->body = 0, md->motion.type = KD_MOTION_ROTATION, md->motion.axis[2] = 1;
    md->motion.angle = spin;
    kd_error err;
    kd_model* m = NULL;
    assert_int_equal(kd_model_compile(d, &m, &err), KD_OK);
    static tip_rec r;
    memset(&r, 0, sizeof(r));
    r.eq = m->neq - 2;   /* v at the tip */
    kd_analysis_desc a;
    kd_analysis_desc_init(&a, KD_ANALYSIS_DYNAMICS);
    a.dynamics.t_end = t_end, a.dynamics.dt = 5e-5, a.dynamics.integrator = KD_INTEGRATOR_GENERALIZED_ALPHA;
    a.dynamics.rho_inf = 1.0, a.dynamics.output_every = 10, a.dynamics.rtol = 1e-8, a.dynamics.atol = 1e-12;
    if (kd_dynamics_run(m, &a, tip_out, &r, NULL, NULL, 0, &err)) fail_msg("%s", err.msg);
    kd_model_free(&m);
    kd_desc_free(&d);
    /* floating frame */
    kd_ffr_system* s = kd_ffr_new(0, 0);
    kd_ffr_beam b = beam(L, ne, E, KD_FFR_ROOT);
    kd_ffr_add_beam(s, "beam", &b, NULL);
    kd_ffr_add_revolute(s, (kd_ffr_point){.body = 0, .node = 0}, (kd_ffr_point){.body = -1}, NULL);
    kd_ffr_add_driver(s, 0, 0, &spin, NULL);
    assert_int_equal(kd_ffr_finish(s, NULL), KD_OK);
    const int n = kd_ffr_size(s), iv = kd_ffr_node_coordinate(s, 0, ne, KD_DOF_V);
    double* q = calloc(n, sizeof(double));
    double* qd = calloc(n, sizeof(double));
    rec* out = rec_new(s, 2100);
    kd_mbs_opts o = opts(KD_MBS_AUGMENTED, t_end, 2e-5, 25);
    assert_int_equal(kd_mbs_forward(kd_ffr_cms(s), &o, q, qd, record, out, NULL, &err), KD_OK);
    assert_int_equal(out->count, r.n);
    double dmax = 0, vmax = 0;
    for (int k = 0; k < r.n; k++) {
        assert_true(fabs(out->t[k] - r.t[k]) < 1e-9);
        dmax = fmax(dmax, fabs(out->q[(size_t)n * k + iv] - r.v[k]));
        vmax = fmax(vmax, fabs(r.v[k]));
    }
    printf("driven beam: tip deflection up to %.4e m (moving frame); floating frame differs by %.2e m (%.1e)\n", vmax,
           dmax, dmax / vmax);
    assert_true(vmax > 1e-4);
    assert_true(dmax < 1e-5 * vmax);
    rec_free(out), free(q), free(qd);
    kd_ffr_free(&s);
}

/* ---- a slider-crank with an elastic connecting rod ---- */
typedef struct crank_rig {
    kd_ffr_system* s;
    int n;
    double* q;
    double* qd;
} crank_rig;

static const double CR = 0.15, CL = 0.30, OMEGA = 150.0;

static void slider_crank(crank_rig* c, double E, int ne) {
    kd_ffr_system* s = kd_ffr_new(0, -G);
    const double mc = 0.5, ms = 0.3;
    const int crank = kd_ffr_add_rigid(s, "crank", mc, mc * CR * CR / 12, NULL);
    kd_ffr_beam b = beam(CL, ne, E, KD_FFR_CHORD);
    const int rod = kd_ffr_add_beam(s, "rod", &b, NULL);
    const int slider = kd_ffr_add_rigid(s, "slider", ms, 1e-4, NULL);
    kd_ffr_add_revolute(s, (kd_ffr_point){.body = crank, .p = {-CR / 2, 0}}, (kd_ffr_point){.body = -1}, NULL);
    kd_ffr_add_revolute(s, (kd_ffr_point){.body = crank, .p = {CR / 2, 0}}, (kd_ffr_point){.body = rod, .node = 0},
                        NULL);
    kd_ffr_add_revolute(s, (kd_ffr_point){.body = rod, .node = ne}, (kd_ffr_point){.body = slider}, NULL);
    const double c0[2] = {0, 0}, dx[2] = {1, 0};
    kd_ffr_add_line(s, (kd_ffr_point){.body = slider}, c0, dx, NULL);
    kd_law spin = {.type = KD_LAW_SPEED, .value = OMEGA};
    kd_law still = kd_law_constant(0);
    kd_ffr_add_driver(s, crank, 0, &spin, NULL);
    kd_ffr_add_driver(s, slider, 0, &still, NULL);
    assert_int_equal(kd_ffr_finish(s, NULL), KD_OK);
    c->s = s, c->n = kd_ffr_size(s);
    c->q = calloc(c->n, sizeof(double));
    c->qd = calloc(c->n, sizeof(double));
    /* crank along x, rod along x from (r, 0) to (r + l, 0), moving as a rigid mechanism at phi = 0 */
    double* q = c->q;
    double* qd = c->qd;
    const int oc = kd_ffr_body_offset(s, crank), orod = kd_ffr_body_offset(s, rod), os = kd_ffr_body_offset(s, slider);
    q[oc] = CR / 2, q[orod] = CR, q[os] = CR + CL;
    qd[oc + 1] = OMEGA * CR / 2, qd[oc + 2] = OMEGA;
    qd[orod + 1] = OMEGA * CR, qd[orod + 2] = -OMEGA * CR / CL;
}

static void crank_free(crank_rig* c) {
    kd_ffr_free(&c->s);
    free(c->q), free(c->qd);
}

/* Largest deviation of the slider from the rigid closed form over the run, and the largest rod
 * midspan deflection. */
static void slider_error(const crank_rig* c, const rec* r, double* dev, double* defl) {
    const int os = kd_ffr_body_offset(c->s, 2), ne = kd_ffr_body_nodes(c->s, 1) - 1;
    const int iv = kd_ffr_node_coordinate(c->s, 1, ne / 2, KD_DOF_V);
    *dev = 0, *defl = 0;
    for (int k = 0; k < r->count; k++) {
        const double phi = OMEGA * r->t[k];
        const double x = CR * cos(phi) + sqrt(CL * CL - CR * CR * sin(phi) * sin(phi));
        *dev = fmax(*dev, fabs(r->q[(size_t)r->n * k + os] - x));
        *defl = fmax(*defl, fabs(r->q[(size_t)r->n * k + iv]));
    }
}

static void test_slider_crank(void** state) {
    (void)state;
    const double t_end = 2 * PI / OMEGA;
    /* the rigid limit */
    const double Es[2] = {7e9, 7e10};
    double dev[2], defl[2];
    for (int i = 0; i < 2; i++) {
        crank_rig c;
        slider_crank(&c, Es[i], 4);
        rec* r = rec_new(c.s, 2000);
        kd_mbs_opts o = opts(KD_MBS_AUGMENTED, t_end, 4e-6, 20);
        kd_error err;
        kd_mbs_stats st;
        const kd_status ks = kd_mbs_forward(kd_ffr_cms(c.s), &o, c.q, c.qd, record, r, &st, &err);
        if (ks) printf("%s\n", err.msg);
        assert_int_equal(ks, KD_OK);
        assert_int_equal(st.dof, kd_ffr_size(c.s) - 9);
        slider_error(&c, r, &dev[i], &defl[i]);
        printf("slider-crank E = %.1e: slider off the rigid law by %.3e m, rod midspan deflection %.3e m\n", Es[i],
               dev[i], defl[i]);
        rec_free(r);
        crank_free(&c);
    }
    /* the deviation is the rod's compliance: it falls like 1/E */
    assert_true(dev[1] < 1e-4);
    assert_true(dev[0] / dev[1] > 7 && dev[0] / dev[1] < 13);
}

static void test_slider_crank_formulations_agree(void** state) {
    (void)state;
    const double t_end = 2 * PI / OMEGA;
    const kd_mbs_formulation forms[2] = {KD_MBS_AUGMENTED, KD_MBS_MAGGI};
    rec* r[2];
    crank_rig c[2];
    for (int f = 0; f < 2; f++) {
        slider_crank(&c[f], 7e9, 4);
        r[f] = rec_new(c[f].s, 2000);
        kd_mbs_opts o = opts(forms[f], t_end, 4e-6, 20);
        kd_error err;
        const kd_status ks = kd_mbs_forward(kd_ffr_cms(c[f].s), &o, c[f].q, c[f].qd, record, r[f], NULL, &err);
        if (ks) printf("%s\n", err.msg);
        assert_int_equal(ks, KD_OK);
    }
    assert_int_equal(r[0]->count, r[1]->count);
    const int n = r[0]->n, ne = 4;
    const int iv = kd_ffr_node_coordinate(c[0].s, 1, ne / 2, KD_DOF_V);
    double dq = 0, dv = 0, vmax = 0;
    for (int k = 0; k < r[0]->count; k++) {
        for (int i = 0; i < n; i++) dq = fmax(dq, fabs(r[0]->q[(size_t)n * k + i] - r[1]->q[(size_t)n * k + i]));
        dv = fmax(dv, fabs(r[0]->q[(size_t)n * k + iv] - r[1]->q[(size_t)n * k + iv]));
        vmax = fmax(vmax, fabs(r[0]->q[(size_t)n * k + iv]));
    }
    printf("slider-crank augmented vs maggi: max |dq| %.3e, midspan deflection %.3e (max %.3e)\n", dq, dv, vmax);
    assert_true(vmax > 1e-6);
    assert_true(dv < 1e-3 * vmax);
    assert_true(dq < 1e-7);
    for (int f = 0; f < 2; f++) rec_free(r[f]), crank_free(&c[f]);
}

/* Spin-up with geometric stiffness (Simo and Vu-Quoc's beam: L = 10 m, EI = 1.4e4 N m^2,
 * EA = 2.8e7 N, rho A = 1.2 kg/m, driven to 6 rad/s in 15 s; 5 elements): the elastic axial force
 * of the floating-frame model stiffens bending like the moving-frame system's geometric stiffness of the
 * centrifugal force (src/engine, an independent route that takes the axial force from the frame
 * motion), so the tip lags by the same amount; without it the linear model diverges once the speed
 * passes the first bending frequency (3.8 rad/s). */
static void test_spin_up_geometric_stiffness(void** state) {
    (void)state;
    const double t_end = 8.0;
    const int ne = 5;
    kd_law spin = kd_law_constant(0);
    spin.type = KD_LAW_SPIN_UP, spin.spin_omega = 6, spin.spin_T = 15;
    kd_section_desc sec = {0};
    sec.shape = KD_SHAPE_GENERIC, sec.A = 1e-4, sec.Iy = sec.Iz = 5e-8, sec.J = 1e-7;
    kd_desc* d = one_beam(2.8e11, 12000, 0.3, sec, 10.0, ne, KD_THEORY_EULER_BERNOULLI, KD_INTERP_CUBIC, 1);
    d->bodies[0].geometric_stiffness = 1;
    fix(d, 1, KD_FIX_ALL);
    kd_motion_desc* md = kd_desc_add_motion(d);
    md->body = 0, md->motion.type = KD_MOTION_ROTATION, md->motion.axis[2] = 1;
    md->motion.angle = spin;
    kd_error err;
    kd_model* m = NULL;
    assert_int_equal(kd_model_compile(d, &m, &err), KD_OK);
    static tip_rec r;
    memset(&r, 0, sizeof(r));
    r.eq = m->neq - 2;
    kd_analysis_desc a;
    kd_analysis_desc_init(&a, KD_ANALYSIS_DYNAMICS);
    a.dynamics.t_end = t_end, a.dynamics.dt = 1e-3, a.dynamics.integrator = KD_INTEGRATOR_GENERALIZED_ALPHA;
    a.dynamics.rho_inf = 1.0, a.dynamics.output_every = 10, a.dynamics.rtol = 1e-8, a.dynamics.atol = 1e-12;
    if (kd_dynamics_run(m, &a, tip_out, &r, NULL, NULL, 0, &err)) fail_msg("%s", err.msg);
    kd_model_free(&m);
    kd_desc_free(&d);
    double peak[2] = {0, 0}, dmax = 0;
    for (int geo = 1; geo >= 0; geo--) {
        kd_ffr_system* s = kd_ffr_new(0, 0);
        kd_ffr_beam b = {.length = 10, .elements = ne, .theory = KD_THEORY_EULER_BERNOULLI, .E = 2.8e11, .rho = 12000,
                         .A = 1e-4, .Iz = 5e-8, .frame = KD_FFR_ROOT, .geometric = geo};
        kd_ffr_add_beam(s, "beam", &b, NULL);
        kd_ffr_add_revolute(s, (kd_ffr_point){.body = 0, .node = 0}, (kd_ffr_point){.body = -1}, NULL);
        kd_ffr_add_driver(s, 0, 0, &spin, NULL);
        assert_int_equal(kd_ffr_finish(s, NULL), KD_OK);
        const int n = kd_ffr_size(s), iv = kd_ffr_node_coordinate(s, 0, ne, KD_DOF_V);
        double* q = calloc(n, sizeof(double));
        double* qd = calloc(n, sizeof(double));
        rec* out = rec_new(s, 900);
        kd_mbs_opts o = opts(KD_MBS_AUGMENTED, t_end, 2.5e-4, 40);
        assert_int_equal(kd_mbs_forward(kd_ffr_cms(s), &o, q, qd, record, out, NULL, &err), KD_OK);
        assert_int_equal(out->count, r.n);
        for (int k = 0; k < out->count; k++) {
            const double v = out->q[(size_t)n * k + iv];
            peak[geo] = fmax(peak[geo], fabs(v));
            if (geo) dmax = fmax(dmax, fabs(v - r.v[k]));
        }
        rec_free(out), free(q), free(qd);
        kd_ffr_free(&s);
    }
    double peak_ref = 0;
    for (int k = 0; k < r.n; k++) peak_ref = fmax(peak_ref, fabs(r.v[k]));
    printf("spin-up to 8 s: tip lag peak %.4f m (floating frame, geometric), %.4f m (moving frame), largest "
           "difference %.2e m; without geometric stiffness %.3g m\n",
           peak[1], peak_ref, dmax, peak[0]);
    assert_true(fabs(peak[1] - peak_ref) < 0.01 * peak_ref);
    assert_true(dmax < 0.02 * peak_ref);
    assert_true(peak[0] > 3 * peak[1]);
}

/* ---- one-way KED against two-way for stiff links ---- */
/* The flexible slider-crank of examples/slider_crank_flexible.yaml by the one-way route
 * (src/ked: the rigid mechanism's motion and joint forces drive the rod, implicit
 * generalized-alpha, quasi-static start; geometric stiffness off, as in the floating-frame model)
 * and by the coupled floating-frame system started from the same quasi-static deflection. The
 * difference is the coupling, of the order of the deflection over the rod length: it falls as the
 * rod stiffens. */
typedef struct ked_rec {
    const kd_ked* k;
    int n;
    double t[400], v[400];
} ked_rec;

static int ked_out(void* ctx, int link, double t, const double* q, const double* v, const double* a) {
    (void)v, (void)a;
    ked_rec* r = ctx;
    double disp[3 * 64];
    kd_ked_link_displacements(r->k, link, q, disp);
    if (r->n < 400) r->t[r->n] = t, r->v[r->n++] = disp[3 * 2 + 1];   /* node 3 of 5: midspan v */
    return 0;
}

static double one_way_vs_two_way(double Escale, double* vmax_out) {
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_file(KD_EXAMPLES_DIR "/slider_crank_flexible.yaml", &d, &err)) fail_msg("%s", err.msg);
    d->materials[0].E *= Escale;
    for (int b = 0; b < d->nbodies; b++) d->bodies[b].geometric_stiffness = 0;
    kd_analysis_desc* ad = &d->analyses[0];
    ad->dynamics.coupling = KD_COUPLING_ONE_WAY;
    ad->dynamics.integrator = KD_INTEGRATOR_GENERALIZED_ALPHA, ad->dynamics.rho_inf = 1.0;
    ad->dynamics.output_every = 50;
    kd_ked_opts ko = {ad->dynamics.t_end, 200, 0.0, 1e8};
    kd_ked* k = NULL;
    if (kd_ked_new(d, &ko, &k, &err)) fail_msg("%s", err.msg);
    static ked_rec one;
    memset(&one, 0, sizeof(one));
    one.k = k;
    if (kd_ked_link_dynamics(k, 0, ad, ked_out, &one, NULL, &err)) fail_msg("%s", err.msg);
    /* two-way from the one-way quasi-static state at t = 0 */
    kd_ffr_system* s = NULL;
    double *q0 = NULL, *qd0 = NULL;
    if (kd_ffr_from_mechanism(d, k, &s, &q0, &qd0, &err)) fail_msg("%s", err.msg);
    const int rod = 1, iv = kd_ffr_node_coordinate(s, rod, 2, KD_DOF_V);
    rec* r = rec_new(s, 400);
    kd_mbs_opts o = opts(KD_MBS_AUGMENTED, ad->dynamics.t_end, ad->dynamics.dt, ad->dynamics.output_every);
    if (kd_ffr_quasi_static_start(k, ad, s, q0, &err) || kd_ffr_assemble(s, 0.0, q0, qd0, &err)) fail_msg("%s", err.msg);
    assert_true(fabs(q0[iv] - one.v[0]) < 1e-15);
    if (kd_mbs_forward(kd_ffr_cms(s), &o, q0, qd0, record, r, NULL, &err)) fail_msg("%s", err.msg);
    assert_int_equal(r->count, one.n);
    double dmax = 0, vmax = 0;
    for (int i = 0; i < r->count; i++) {
        assert_true(fabs(r->t[i] - one.t[i]) < 1e-9);
        dmax = fmax(dmax, fabs(r->q[(size_t)r->n * i + iv] - one.v[i]));
        vmax = fmax(vmax, fabs(one.v[i]));
    }
    printf("slider-crank E x %g: midspan deflection up to %.4e m one-way; two-way differs by %.3e m (%.2e)\n", Escale,
           vmax, dmax, dmax / vmax);
    rec_free(r), free(q0), free(qd0);
    kd_ffr_free(&s);
    kd_ked_free(&k);
    kd_desc_free(&d);
    *vmax_out = vmax;
    return dmax / vmax;
}

static void test_one_way_agrees_for_stiff_links(void** state) {
    (void)state;
    double v1, v2;
    const double e1 = one_way_vs_two_way(0.25, &v1), e2 = one_way_vs_two_way(1, &v2);
    assert_true(v2 < 0.4 * v1);
    assert_true(e2 < 0.5 * e1);
    assert_true(e2 < 5e-3);
}

/* The joint forces of the two-way system (kd_ffr_reaction, mapped from the multipliers by the
 * joints' own normals and directions) obey Newton's second law on the slider of a slider-crank
 * whose slider line is inclined by 30 degrees, under gravity: m a = F(jB) + F(jS) + m g, with the
 * slider's acceleration as the solver computes it from M q'' + Phi_q^T lambda = Q. The prismatic
 * joint becomes a point-on-line row (its normal has both components) and an angle row. */
typedef struct slider_balance {
    const kd_ffr_system* s;
    int os, jB, jS, count;
    double m, g, worst, scale, normal;
} slider_balance;

static int slider_balance_out(void* ctx, const kd_mbs_sample* smp) {
    slider_balance* b = ctx;
    double FB[3], FS[3];
    kd_ffr_reaction(b->s, b->jB, smp->lambda, FB);
    kd_ffr_reaction(b->s, b->jS, smp->lambda, FS);
    for (int c = 0; c < 2; c++) {
        const double resid = b->m * smp->qdd[b->os + c] - (FB[c] + FS[c] + (c == 1 ? b->m * b->g : 0.0));
        b->worst = fmax(b->worst, fabs(resid));
        b->scale = fmax(b->scale, fabs(FB[c]));
    }
    b->normal = fmax(b->normal, hypot(FS[0], FS[1]));
    b->count++;
    return 0;
}

static void test_joint_forces_balance_the_slider(void** state) {
    (void)state;
    static const char* model =
        "kedyn: 1\n"
        "materials: {aluminium: {E: 70e9, rho: 2700, nu: 0.33}}\n"
        "sections: {rod: {shape: circle, d: 0.008}}\n"
        "bodies:\n"
        "  - {name: ground, type: ground, points: {O: [0, 0], S: [0, 0]}}\n"
        "  - {name: crank, type: rigid, mass: 0.2, inertia: 4.0e-4, com: [0.075, 0], points: {O: [0, 0], A: [0.15, 0]},\n"
        "     angle: 0.5235987755982988}\n"
        "  - {name: rod, type: beam, material: aluminium, section: rod, elements: 4,\n"
        "     points: {A: [0.12990381056766580, 0.075], B: [0.38971143170299740, 0.225]}}\n"
        "  - {name: slider, type: rigid, mass: 0.03, inertia: 1.0e-6, points: {B: [0, 0]},\n"
        "     position: [0.38971143170299740, 0.225], angle: 0.5235987755982988}\n"
        "joints:\n"
        "  - {name: jO, type: revolute, bodies: [ground, crank], points: [O, O]}\n"
        "  - {name: jA, type: revolute, bodies: [crank, rod], points: [A, A]}\n"
        "  - {name: jB, type: revolute, bodies: [rod, slider], points: [B, B]}\n"
        "  - {name: jS, type: prismatic, bodies: [ground, slider], points: [S, B],\n"
        "     axis: [0.86602540378443865, 0.5]}\n"
        "drivers:\n"
        "  - {joint: jO, law: {speed: 150.0}}\n"
        "forces:\n"
        "  - {type: gravity, g: [0, -9.81]}\n"
        "analyses:\n"
        "  - {type: dynamics, coupling: two-way, t_end: 0.004, dt: 4.0e-6}\n";
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_string(model, strlen(model), "slider.yaml", &d, &err)) fail_msg("%s", err.msg);
    kd_ked_opts ko = {0.004, 20, 0.0, 1e8};
    kd_ked* k = NULL;
    if (kd_ked_new(d, &ko, &k, &err)) fail_msg("%s", err.msg);
    kd_ffr_system* s = NULL;
    double *q0 = NULL, *qd0 = NULL;
    if (kd_ffr_from_mechanism(d, k, &s, &q0, &qd0, &err)) fail_msg("%s", err.msg);
    int slider = -1;
    for (int b = 0; b < kd_ffr_body_count(s); b++)
        if (strcmp(kd_ffr_body_name(s, b), "slider") == 0) slider = b;
    assert_true(slider >= 0);
    slider_balance bal = {s, kd_ffr_body_offset(s, slider), kd_desc_find_joint(d, "jB"), kd_desc_find_joint(d, "jS"),
                          0, 0.03, -9.81, 0, 0, 0};
    kd_mbs_opts o = opts(KD_MBS_AUGMENTED, 0.004, 4e-6, 10);
    if (kd_mbs_forward(kd_ffr_cms(s), &o, q0, qd0, slider_balance_out, &bal, NULL, &err)) fail_msg("%s", err.msg);
    printf("slider on a 30-degree line, %d instants: |m a - F(jB) - F(jS) - m g| up to %.3e N, joint forces up to "
           "%.3e N, line normal force up to %.3e N\n", bal.count, bal.worst, bal.scale, bal.normal);
    assert_true(bal.count > 90);
    assert_true(bal.normal > 0.05 * bal.scale);   /* the line carries a force of its own */
    assert_true(bal.worst < 1e-9 * bal.scale);
    free(q0), free(qd0);
    kd_ffr_free(&s);
    kd_ked_free(&k);
    kd_desc_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quadratic_velocity_is_lagrangian),
        cmocka_unit_test(test_free_beam_conservation),
        cmocka_unit_test(test_pendulum_rigid_limit),
        cmocka_unit_test(test_pendulum_ida_agrees),
        cmocka_unit_test(test_driven_beam_matches_moving_frame),
        cmocka_unit_test(test_spin_up_geometric_stiffness),
        cmocka_unit_test(test_slider_crank),
        cmocka_unit_test(test_slider_crank_formulations_agree),
        cmocka_unit_test(test_one_way_agrees_for_stiff_links),
        cmocka_unit_test(test_joint_forces_balance_the_slider),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
