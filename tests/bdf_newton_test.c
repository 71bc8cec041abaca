/* CVODE BDF with the Newton corrector (src/constrained/ode_newton.c) on constrained systems built
 * here, against references independent of the solvers:
 *   - a stiff linear slider pair: two masses on an inclined straight guide (two linear
 *     constraints), a soft spring to ground and a stiff spring between them, released in the slow
 *     mode shape. Exact solution s(t) = A phi cos(omega_s t) (the 2 x 2 eigenproblem in closed
 *     form). Every formulation run by CVODE (augmented with Baumgarte, Udwadia-Kalaba with
 *     projection, Maggi) matches it, and Newton takes far fewer steps and evaluations than the
 *     fixed-point corrector, whose steps are bounded by h omega_f ~ 1;
 *   - an undamped rigid pendulum (a point mass on a rod, one quadratic constraint) at 2 rad:
 *     the energy balance T - T0 = W (the work of gravity) within a small multiple of the
 *     tolerances, and the exact large-amplitude period 4 sqrt(L/g) K(sin(theta0/2));
 *   - the model-file key nonlinear_solver: parsed, and rejected where it does not apply. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/load_yaml.h"
#include "kedyn/mbs.h"
#include "test_util.h"

/* ---- the slider pair: q = (x1, y1, x2, y2) on the line through the origin at angle ALPHA ---- */
#define ALPHA 0.5236
#define M1 1.0
#define K1 1.0                    /* N/m, ground - mass 1 */
#define K2 1.0e6                  /* N/m, mass 1 - mass 2 */

static const double slider_mass[4] = {M1, M1, M1, M1};
static const int slider_rowptr[3] = {0, 2, 4};
static const int slider_col[4] = {0, 1, 2, 3};

static int slider_phi(void* ctx, double t, const double* q, double* phi) {
    (void)ctx, (void)t;
    for (int i = 0; i < 2; i++) phi[i] = -sin(ALPHA) * q[2 * i] + cos(ALPHA) * q[2 * i + 1];
    return 0;
}
static int slider_jac(void* ctx, double t, const double* q, double* jac) {
    (void)ctx, (void)t, (void)q;
    for (int i = 0; i < 2; i++) jac[2 * i] = -sin(ALPHA), jac[2 * i + 1] = cos(ALPHA);
    return 0;
}
static int zero2(void* ctx, double t, const double* q, double* v) {
    (void)ctx, (void)t, (void)q;
    v[0] = v[1] = 0;
    return 0;
}
static int zero_gamma(void* ctx, double t, const double* q, const double* qd, double* g) {
    (void)qd;
    return zero2(ctx, t, q, g);
}
/* zero-length springs: -K1 P1 on mass 1, -K2 (P2 - P1) on mass 2 and its opposite on mass 1 */
static int slider_force(void* ctx, double t, const double* q, const double* qd, double* Q) {
    (void)ctx, (void)t, (void)qd;
    for (int c = 0; c < 2; c++) {
        const double f12 = K2 * (q[2 + c] - q[c]);
        Q[c] = -K1 * q[c] + f12;
        Q[2 + c] = -f12;
    }
    return 0;
}
static const kd_cms SLIDER = {.n = 4, .nc = 2, .mass = slider_mass, .jac_nnz = 4, .jac_rowptr = slider_rowptr,
                              .jac_col = slider_col, .phi = slider_phi, .jacobian = slider_jac,
                              .phi_t = zero2, .gamma = zero_gamma, .force = slider_force};

/* slow mode of M s'' + K s = 0, K = [[K1 + K2, -K2], [-K2, K2]]: lambda = omega^2, phi = (1, r) */
static void slow_mode(double* omega, double* r) {
    const double b = (K1 + 2 * K2) / M1, c = K1 * K2 / (M1 * M1);
    const double lam = 0.5 * (b - sqrt(b * b - 4 * c));
    *omega = sqrt(lam), *r = K2 / (K2 - M1 * lam);
}

typedef struct slider_rec {
    double A, omega, r;
    double err;                   /* largest |s_i - exact| over the output instants */
    double drift;
} slider_rec;

static int slider_out(void* ctx, const kd_mbs_sample* s) {
    slider_rec* sr = ctx;
    const double c = cos(sr->omega * s->t);
    for (int i = 0; i < 2; i++) {
        const double si = cos(ALPHA) * s->q[2 * i] + sin(ALPHA) * s->q[2 * i + 1];
        const double exact = sr->A * (i ? sr->r : 1) * c;
        sr->err = fmax(sr->err, fabs(si - exact));
    }
    sr->drift = fmax(sr->drift, s->drift_pos);
    return 0;
}

static kd_mbs_opts cv_opts(kd_mbs_formulation f, kd_mbs_stabilization s, kd_mbs_nonlinear nls, double t_end,
                           double dt) {
    kd_mbs_opts o;
    kd_mbs_opts_default(&o);
    o.formulation = f, o.stabilization = s, o.integrator = KD_MBS_CVODE, o.nonlinear = nls;
    o.t_end = t_end, o.dt = dt, o.rtol = 1e-8, o.atol = 1e-10;
    return o;
}

static slider_rec run_slider(const kd_mbs_opts* o, kd_mbs_stats* st) {
    slider_rec sr = {.A = 0.1};
    slow_mode(&sr.omega, &sr.r);
    double q[4], qd[4] = {0};
    for (int i = 0; i < 2; i++) {
        const double s0 = sr.A * (i ? sr.r : 1);
        q[2 * i] = s0 * cos(ALPHA), q[2 * i + 1] = s0 * sin(ALPHA);
    }
    kd_error err;
    memset(st, 0, sizeof(*st));
    if (kd_mbs_forward(&SLIDER, o, q, qd, slider_out, &sr, st, &err)) fail_msg("%s", err.msg);
    return sr;
}

static void test_stiff_slider(void** state) {
    (void)state;
    double omega, r;
    slow_mode(&omega, &r);
    const double t_end = 2 * (2 * PI / omega);   /* two slow periods, 17.8 s; omega_f = 1414 rad/s */
    const struct {
        kd_mbs_formulation f;
        kd_mbs_stabilization s;
    } forms[] = {{KD_MBS_AUGMENTED, KD_MBS_STAB_BAUMGARTE},
                 {KD_MBS_UDWADIA_KALABA, KD_MBS_STAB_PROJECTION},
                 {KD_MBS_MAGGI, KD_MBS_STAB_NONE}};
    for (int k = 0; k < 3; k++) {
        kd_mbs_stats sn, sf;
        kd_mbs_opts o = cv_opts(forms[k].f, forms[k].s, KD_MBS_NLS_AUTO, t_end, 0.01);
        slider_rec rn = run_slider(&o, &sn);
        o.nonlinear = KD_MBS_NLS_FIXED_POINT;
        slider_rec rf = run_slider(&o, &sf);
        printf("slider %-14s newton: %6ld steps %7ld evals %4ld jac %5ld nli %3ld ncf err %.2e | fixed point: %6ld "
               "steps %7ld evals err %.2e\n",
               kd_mbs_formulation_name(forms[k].f), sn.steps, sn.evaluations, sn.jacobians, sn.nonlinear_iterations,
               sn.nonlinear_failures, rn.err, sf.steps, sf.evaluations, rf.err);
        /* both match the closed form (amplitude 0.1 m) */
        assert_true(rn.err < 1e-5);
        assert_true(rf.err < 1e-5);
        /* Newton was used (the Jacobian evaluated), fixed point has none */
        assert_true(sn.jacobians > 0);
        assert_int_equal(sf.jacobians, 0);
        /* the stiff spring bounds the fixed-point steps (h omega_f < 1), not Newton's */
        assert_true(sf.steps > 20 * sn.steps);
        assert_true(sf.evaluations > 10 * sn.evaluations);
        /* Newton converges: few corrector iterations per step and few failures */
        assert_true(sn.nonlinear_iterations < 2 * sn.steps);
        assert_true(sn.nonlinear_failures < sn.steps / 20 + 2);
    }
}

/* ---- pendulum: a point mass on a rod of length L about the origin, gravity -y ---- */
#define PL 0.8
#define PM 2.0
#define GRAV 9.81
static const double pend_mass[2] = {PM, PM};
static const int pend_rowptr[2] = {0, 2};
static const int pend_col[2] = {0, 1};
static int pend_phi(void* ctx, double t, const double* q, double* phi) {
    (void)ctx, (void)t;
    phi[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] - PL * PL);
    return 0;
}
static int pend_jac(void* ctx, double t, const double* q, double* jac) {
    (void)ctx, (void)t;
    jac[0] = q[0], jac[1] = q[1];
    return 0;
}
static int pend_phit(void* ctx, double t, const double* q, double* v) {
    (void)ctx, (void)t, (void)q;
    v[0] = 0;
    return 0;
}
/* Phi_q q'' = gamma = -(x'^2 + y'^2) */
static int pend_gamma(void* ctx, double t, const double* q, const double* qd, double* g) {
    (void)ctx, (void)t, (void)q;
    g[0] = -(qd[0] * qd[0] + qd[1] * qd[1]);
    return 0;
}
static int pend_force(void* ctx, double t, const double* q, const double* qd, double* Q) {
    (void)ctx, (void)t, (void)q, (void)qd;
    Q[0] = 0, Q[1] = -PM * GRAV;
    return 0;
}
static const kd_cms PENDULUM = {.n = 2, .nc = 1, .mass = pend_mass, .jac_nnz = 2, .jac_rowptr = pend_rowptr,
                                .jac_col = pend_col, .phi = pend_phi, .jacobian = pend_jac, .phi_t = pend_phit,
                                .gamma = pend_gamma, .force = pend_force};

typedef struct pend_rec {
    double T0, energy_err;
    double t_prev, x_prev, first, last;
    int crossings;
} pend_rec;

static int pend_out(void* ctx, const kd_mbs_sample* s) {
    pend_rec* p = ctx;
    if (s->t == 0) p->T0 = s->kinetic, p->first = -1;
    p->energy_err = fmax(p->energy_err, fabs(s->kinetic - p->T0 - s->work));
    /* upward zero crossings of x (the mass passes the bottom moving to +x) */
    if (s->t > 0 && p->x_prev < 0 && s->q[0] >= 0) {
        const double tc = p->t_prev + (s->t - p->t_prev) * (-p->x_prev) / (s->q[0] - p->x_prev);
        if (p->first < 0) p->first = tc;
        else p->crossings++;
        p->last = tc;
    }
    p->t_prev = s->t, p->x_prev = s->q[0];
    return 0;
}

static double ellipk(double k) {
    double a = 1, b = sqrt(1 - k * k);
    for (int i = 0; i < 30; i++) {
        const double an = 0.5 * (a + b);
        b = sqrt(a * b), a = an;
    }
    return PI / (2 * a);
}

static pend_rec run_pendulum(kd_mbs_stabilization stab, kd_mbs_nonlinear nls, double rtol, kd_mbs_stats* st) {
    const double th0 = 2.0;
    const double q[2] = {PL * sin(th0), -PL * cos(th0)}, qd[2] = {0, 0};
    kd_mbs_opts o = cv_opts(KD_MBS_AUGMENTED, stab, nls, 10.0, 1e-3);
    o.rtol = rtol, o.atol = 1e-2 * rtol;
    pend_rec p = {0};
    kd_error err;
    memset(st, 0, sizeof(*st));
    if (kd_mbs_forward(&PENDULUM, &o, q, qd, pend_out, &p, st, &err)) fail_msg("%s", err.msg);
    return p;
}

static void test_pendulum_energy(void** state) {
    (void)state;
    const double T_exact = 4 * sqrt(PL / GRAV) * ellipk(sin(2.0 / 2));   /* released at 2 rad */
    const double scale = PM * GRAV * PL;                                 /* the energy scale, J */
    const kd_mbs_stabilization stab[2] = {KD_MBS_STAB_BAUMGARTE, KD_MBS_STAB_PROJECTION};
    for (int k = 0; k < 2; k++) {
        double e[2];
        for (int tol = 0; tol < 2; tol++) {
            const double rtol = tol ? 1e-10 : 1e-8;
            kd_mbs_stats st, sf;
            const pend_rec p = run_pendulum(stab[k], KD_MBS_NLS_NEWTON, rtol, &st);
            const pend_rec pf = run_pendulum(stab[k], KD_MBS_NLS_FIXED_POINT, rtol, &sf);
            const double Tm = (p.last - p.first) / p.crossings;
            e[tol] = p.energy_err / scale;
            printf("pendulum %-10s rtol %.0e: newton %ld steps, %ld evals, %ld jac, |T - T0 - W| / (m g L) = %.2e, "
                   "period error %.1e | fixed point %ld steps, %.2e\n",
                   kd_mbs_stabilization_name(stab[k]), rtol, st.steps, st.evaluations, st.jacobians, e[tol],
                   fabs(Tm - T_exact) / T_exact, sf.steps, pf.energy_err / scale);
            assert_true(st.jacobians > 0);
            /* undamped: the energy balance holds to the global error the tolerance allows (BDF's
             * global error ~ 10^2 - 10^3 rtol over four periods), like the fixed-point corrector's */
            assert_true(e[tol] < 1e3 * rtol);
            assert_true(e[tol] < 10 * pf.energy_err / scale);
            assert_true(fabs(Tm - T_exact) / T_exact < 1e3 * rtol);
        }
        /* and it converges with the tolerance */
        assert_true(e[1] < 0.1 * e[0]);
    }
}

/* ---- the model-file key ---- */
static const char* MODEL = "kedyn: 1\n"
                           "bodies:\n"
                           "  - {name: ground, type: ground, points: {O: [0, 0]}}\n"
                           "  - {name: arm, type: rigid, mass: 2.0, inertia: 0.1, com: [0.4, 0], points: {O: [0, 0]}}\n"
                           "joints:\n"
                           "  - {name: pivot, type: revolute, bodies: [ground, arm], points: [O, O]}\n"
                           "forces:\n"
                           "  - {type: gravity, g: [0, -9.81]}\n"
                           "analyses:\n"
                           "  - {type: dynamics, t_end: 1.0, integrator: %s%s}\n";

static kd_status load(const char* integrator, const char* extra, kd_desc** d, kd_error* err) {
    char text[1024];
    snprintf(text, sizeof(text), MODEL, integrator, extra);
    return kd_load_yaml_string(text, strlen(text), "m.yaml", d, err);
}

static void test_model_key(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_error err;
    kd_status st = load("cvode-bdf", ", nonlinear_solver: fixed-point", &d, &err);
    if (st) fail_msg("%s", err.msg);
    kd_mbs_opts o;
    kd_mbs_opts_from_dynamics(&o, &d->analyses[0].dynamics, 1.0);
    assert_int_equal(o.nonlinear, KD_MBS_NLS_FIXED_POINT);
    assert_int_equal(o.adams, 0);
    kd_desc_free(&d);
    st = load("cvode-adams", "", &d, &err);
    if (st) fail_msg("%s", err.msg);
    kd_mbs_opts_from_dynamics(&o, &d->analyses[0].dynamics, 1.0);
    assert_int_equal(o.nonlinear, KD_MBS_NLS_AUTO);
    assert_int_equal(o.adams, 1);
    kd_desc_free(&d);
    /* rk4 has no corrector; an unknown name; ida has its own Newton; Adams with projection */
    const char* bad[4][2] = {{"rk4, dt: 0.001", ", nonlinear_solver: newton"},
                             {"cvode-bdf", ", nonlinear_solver: broyden"},
                             {"cvode-bdf", ", formulation: ida, nonlinear_solver: newton"},
                             {"cvode-adams", ", stabilization: projection"}};
    for (int i = 0; i < 4; i++) {
        st = load(bad[i][0], bad[i][1], &d, &err);
        printf("rejected: %s\n", err.msg);
        assert_int_not_equal(st, KD_OK);
        assert_int_equal(err.loc.line, 10);
        kd_desc_free(&d);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stiff_slider),
        cmocka_unit_test(test_pendulum_energy),
        cmocka_unit_test(test_model_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
