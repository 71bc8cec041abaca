/* Planar rigid mechanisms (src/mechanism/): constraints, mobility, kinematics,
 * against independent references:
 *   - Phi_q, Phi_t and gamma of every joint type against finite differences
 *     of Phi (gamma = Phi_q q'' - d2Phi/dt2 along q(t) = q + q' t + q'' t^2/2);
 *   - slider-crank: the closed-form position, velocity and acceleration of
 *     the slider and the rod angle;
 *   - four-bar: Freudenstein's equation K1 cos(phi4) - K2 cos(phi2) + K3 =
 *     cos(phi2 - phi4) at every step, and a non-Grashof linkage stopped at its
 *     geometric limit position (crank tip at distance b + c from the rocker
 *     pivot), reported with the time; an isosceles slider-crank's change
 *     point (Phi_q singular at 90 degrees) reported between the instants
 *     around it;
 *   - DOF from the rank against Grübler's count; redundant constraints named
 *     (parallelogram with a third parallel link; a disc both guided and
 *     rolling), the rolling condition phi = phi0 - x / R;
 *   - the two-DOF wind water pump of seed 004 (examples/wind_pump.yaml)
 *     against the closed-form kinematics of its appendix B. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/load_yaml.h"
#include "kedyn/mech.h"
#include "test_util.h"

static kd_mech* load_mech(const char* yaml, kd_desc** dout) {
    kd_desc* d = NULL;
    kd_error err;
    kd_error_clear(&err);
    if (kd_load_yaml_string(yaml, strlen(yaml), "test.yaml", &d, &err)) fail_msg("load: %d:%d %s", err.loc.line, err.loc.col, err.msg);
    kd_mech* m = NULL;
    if (kd_mech_compile(d, &m, &err)) fail_msg("compile: %s", err.msg);
    if (dout) *dout = d;
    else kd_desc_free(&d);
    return m;
}

/* A recorded kinematic history. */
typedef struct history {
    int n, count, cap;
    double *t, *q, *qd, *qdd;
} history;

static int record(void* ctx, double t, const double* q, const double* qd, const double* qdd, const kd_mech_kin_info* info) {
    (void)info;
    history* h = ctx;
    if (h->count == h->cap) return 1;
    h->t[h->count] = t;
    memcpy(h->q + (size_t)h->count * h->n, q, sizeof(double) * (size_t)h->n);
    memcpy(h->qd + (size_t)h->count * h->n, qd, sizeof(double) * (size_t)h->n);
    memcpy(h->qdd + (size_t)h->count * h->n, qdd, sizeof(double) * (size_t)h->n);
    h->count++;
    return 0;
}

static history history_new(int n, int cap) {
    history h = {n, 0, cap, NULL, NULL, NULL, NULL};
    h.t = calloc((size_t)cap, sizeof(double));
    h.q = calloc((size_t)cap * n, sizeof(double));
    h.qd = calloc((size_t)cap * n, sizeof(double));
    h.qdd = calloc((size_t)cap * n, sizeof(double));
    return h;
}

static void history_free(history* h) { free(h->t), free(h->q), free(h->qd), free(h->qdd); }

/* ---- Jacobian and gamma against finite differences ---------------------- */

static const char* ALL_JOINTS =
    "kedyn: 1\n"
    "bodies:\n"
    "  - {name: g, type: ground, points: {O: [0.1, -0.2], L: [0, 0]}}\n"
    "  - {name: a, type: rigid, mass: 1, inertia: 0.1, com: [0.1, 0.02], points: {O: [0, 0], P: [0.3, 0.1]},"
    " position: [0.1, -0.2], angle: 0.4}\n"
    "  - {name: b, type: rigid, mass: 1, inertia: 0.1, com: [0.05, -0.01], points: {P: [0, 0], Q: [0.2, 0.05]},"
    " position: [0.3, 0.1], angle: -0.3}\n"
    "  - {name: c, type: rigid, mass: 1, inertia: 0.1, com: [0.0, 0.01], points: {Q: [0, 0], C: [0.02, 0]},"
    " position: [0.5, 0.2], angle: 1.1}\n"
    "joints:\n"
    "  - {name: r, type: revolute, bodies: [g, a], points: [O, O]}\n"
    "  - {name: p, type: prismatic, bodies: [a, b], points: [P, P], axis: [0.6, 0.8]}\n"
    "  - {name: f, type: fixed, bodies: [b, c], points: [Q, Q]}\n"
    "  - {name: d, type: distance, bodies: [a, c], points: [O, C], length: 0.4}\n"
    "  - {name: k, type: rolling, bodies: [b, c], points: [Q, C], axis: [1, 0.2], radius: 0.05}\n"
    "  - {name: k2, type: rolling, bodies: [g, a], points: [L, P], radius: 0.1}\n"
    "drivers:\n"
    "  - {joint: r, law: {sine: {amplitude: 0.5, omega: 3, phase: 0.2}}}\n"
    "  - {joint: p, law: {spin_up: {omega: 2, T: 1.5}}, initial: 0.1}\n";

static void test_jacobian_gamma_fd(void** state) {
    (void)state;
    kd_mech* m = load_mech(ALL_JOINTS, NULL);
    const int n = m->n, nc = m->nc;
    assert_int_equal(nc, 2 + 2 + 3 + 1 + 2 + 2 + 2);
    double q[9], qd[9], qdd[9], qp[9], qm[9];
    srand(7);
    for (int i = 0; i < n; i++) {
        q[i] = m->q0[i] + 0.1 * ((double)rand() / RAND_MAX - 0.5);
        qd[i] = 2.0 * ((double)rand() / RAND_MAX - 0.5);
        qdd[i] = 3.0 * ((double)rand() / RAND_MAX - 0.5);
    }
    const double t = 0.7;
    double* jac = calloc((size_t)m->jac_nnz, sizeof(double));
    double* J = calloc((size_t)nc * n, sizeof(double));
    double *fp = calloc((size_t)nc, sizeof(double)), *fm = calloc((size_t)nc, sizeof(double)), *f0 = calloc((size_t)nc, sizeof(double));
    double *gam = calloc((size_t)nc, sizeof(double)), *pt = calloc((size_t)nc, sizeof(double));
    kd_mech_jacobian(m, t, q, jac);
    kd_mech_jac_dense(m, jac, 0, nc, J, nc);
    /* Phi_q column by column, central differences */
    const double h = 1e-6;
    double worst = 0.0;
    for (int c = 0; c < n; c++) {
        memcpy(qp, q, sizeof(q)), memcpy(qm, q, sizeof(q));
        qp[c] += h, qm[c] -= h;
        kd_mech_phi(m, t, qp, fp);
        kd_mech_phi(m, t, qm, fm);
        for (int r = 0; r < nc; r++) worst = fmax(worst, fabs((fp[r] - fm[r]) / (2 * h) - J[(size_t)c * nc + r]));
    }
    printf("Phi_q vs central differences: max error %.2e\n", worst);
    assert_true(worst < 1e-8);
    /* Phi_t */
    kd_mech_phi_t(m, t, q, pt);
    kd_mech_phi(m, t + h, q, fp);
    kd_mech_phi(m, t - h, q, fm);
    worst = 0.0;
    for (int r = 0; r < nc; r++) worst = fmax(worst, fabs((fp[r] - fm[r]) / (2 * h) - pt[r]));
    assert_true(worst < 1e-8);
    /* gamma: d2/ds2 Phi(q + qd s + qdd s^2/2, t + s) at s = 0 equals Phi_q qdd - gamma */
    const double hs = 1e-4;
    for (int i = 0; i < n; i++) {
        qp[i] = q[i] + qd[i] * hs + 0.5 * qdd[i] * hs * hs;
        qm[i] = q[i] - qd[i] * hs + 0.5 * qdd[i] * hs * hs;
    }
    kd_mech_phi(m, t + hs, qp, fp);
    kd_mech_phi(m, t - hs, qm, fm);
    kd_mech_phi(m, t, q, f0);
    kd_mech_gamma(m, t, q, qd, gam);
    worst = 0.0;
    for (int r = 0; r < nc; r++) {
        double Jq = 0.0;
        for (int c = 0; c < n; c++) Jq += J[(size_t)c * nc + r] * qdd[c];
        worst = fmax(worst, fabs((fp[r] - 2 * f0[r] + fm[r]) / (hs * hs) - (Jq - gam[r])));
    }
    printf("gamma vs second differences: max error %.2e\n", worst);
    assert_true(worst < 1e-5);
    /* the kd_cms view returns the same numbers */
    kd_cms cms;
    kd_mech_cms(m, &cms);
    assert_int_equal(cms.n, n);
    assert_int_equal(cms.nc, nc);
    cms.gamma(cms.ctx, t, q, qd, fp);
    for (int r = 0; r < nc; r++) assert_true(fp[r] == gam[r]);
    free(jac), free(J), free(fp), free(fm), free(f0), free(gam), free(pt);
    kd_mech_free(&m);
}

/* ---- slider-crank: closed form ----------------------------------------- */

static const double SC_R = 0.1, SC_L = 0.3, SC_W = 10.0, SC_TH0 = 0.3;

static void test_slider_crank_closed_form(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_file(KD_TEST_MODELS_DIR "/../../examples/slider_crank.yaml", &d, &err)) fail_msg("%s", err.msg);
    kd_mech* m = NULL;
    assert_int_equal(kd_mech_compile(d, &m, &err), KD_OK);
    history h = history_new(m->n, 400);
    kd_mech_kin_stats ks;
    assert_int_equal(kd_mech_kinematics(m, 2 * PI / SC_W, 360, 1e8, record, &h, &ks, &err), KD_OK);
    assert_int_equal(h.count, 361);
    double ex = 0, ev = 0, ea = 0, eb = 0;
    for (int k = 0; k < h.count; k++) {
        const double th = SC_TH0 + SC_W * h.t[k], s = sin(th), c = cos(th);
        const double D = sqrt(SC_L * SC_L - SC_R * SC_R * s * s);
        const double x = SC_R * c + D;
        const double x1 = -SC_R * s - SC_R * SC_R * s * c / D;
        const double x2 = -SC_R * c - SC_R * SC_R * (c * c - s * s) / D - pow(SC_R, 4) * s * s * c * c / (D * D * D);
        const double* q = h.q + (size_t)k * m->n;
        ex = fmax(ex, fabs(q[6] - x));                                   /* slider = body 2 */
        ev = fmax(ev, fabs(h.qd[(size_t)k * m->n + 6] - x1 * SC_W));
        ea = fmax(ea, fabs(h.qdd[(size_t)k * m->n + 6] - x2 * SC_W * SC_W));
        eb = fmax(eb, fabs(sin(q[5]) + SC_R * s / SC_L));              /* rod angle: sin(beta) = -r sin(theta) / l */
    }
    printf("slider-crank vs closed form: x %.2e m, v %.2e m/s, a %.2e m/s^2, rod angle %.2e\n", ex, ev, ea, eb);
    assert_true(ex < 1e-10 && ev < 1e-9 && ea < 1e-7 && eb < 1e-10);
    /* the crank pin A (point 1 of the crank): r (cos, sin), r w (-sin, cos), -r w^2 (cos, sin) */
    assert_string_equal(m->point_name[1], "A");
    double ep = 0.0;
    for (int k = 0; k < h.count; k++) {
        const double th = SC_TH0 + SC_W * h.t[k], c = cos(th), s = sin(th);
        const size_t o = (size_t)k * m->n;
        double r[2], v[2], a[2];
        kd_mech_point(m, m->point_body[1], m->point_s + 2, h.q + o, h.qd + o, r, v);
        kd_mech_point_acc(m, m->point_body[1], m->point_s + 2, h.q + o, h.qd + o, h.qdd + o, a);
        ep = fmax(ep, fmax(fabs(r[0] - SC_R * c), fabs(r[1] - SC_R * s)));
        ep = fmax(ep, fmax(fabs(v[0] + SC_R * SC_W * s), fabs(v[1] - SC_R * SC_W * c)) / SC_W);
        ep = fmax(ep, fmax(fabs(a[0] + SC_R * SC_W * SC_W * c), fabs(a[1] + SC_R * SC_W * SC_W * s)) / (SC_W * SC_W));
    }
    printf("crank pin position, velocity, acceleration vs closed form: %.2e m\n", ep);
    assert_true(ep < 1e-12);
    history_free(&h);
    kd_mech_free(&m);
    kd_desc_free(&d);
}

/* ---- four-bar: Freudenstein ------------------------------------------- */

/* Ground pivots A (0, 0) and D (d, 0); crank AB = a, coupler BC = b, rocker DC = c. */
static char* four_bar_yaml(double a, double b, double c, double dd, double th0, double guess_c, double guess_r,
                           double w, double t_end, int steps) {
    char* s = malloc(4096);
    snprintf(s, 4096,
             "kedyn: 1\n"
             "bodies:\n"
             "  - {name: ground, type: ground, points: {A: [0, 0], D: [%.17g, 0]}}\n"
             "  - {name: crank, type: rigid, mass: 0.2, inertia: 1e-3, com: [%.17g, 0], points: {A: [0, 0], B: [%.17g, 0]},"
             " angle: %.17g}\n"
             "  - {name: coupler, type: rigid, mass: 0.5, inertia: 4e-3, com: [%.17g, 0], points: {B: [0, 0], C: [%.17g, 0]},"
             " position: [%.17g, %.17g], angle: %.17g}\n"
             "  - {name: rocker, type: rigid, mass: 0.4, inertia: 3e-3, com: [%.17g, 0], points: {D: [0, 0], C: [%.17g, 0]},"
             " position: [%.17g, 0], angle: %.17g}\n"
             "joints:\n"
             "  - {name: jA, type: revolute, bodies: [ground, crank], points: [A, A]}\n"
             "  - {name: jB, type: revolute, bodies: [crank, coupler], points: [B, B]}\n"
             "  - {name: jC, type: revolute, bodies: [coupler, rocker], points: [C, C]}\n"
             "  - {name: jD, type: revolute, bodies: [ground, rocker], points: [D, D]}\n"
             "drivers:\n"
             "  - {joint: jA, law: {speed: %.17g}, initial: %.17g}\n"
             "analyses:\n"
             "  - {type: kinematics, t_end: %.17g, steps: %d}\n",
             dd, a / 2, a, th0, b / 2, b, a * cos(th0), a * sin(th0), guess_c, c / 2, c, dd, guess_r, w, th0, t_end, steps);
    return s;
}

static void test_four_bar_freudenstein(void** state) {
    (void)state;
    /* Grashof crank-rocker: s + l = 0.1 + 0.4 < p + q = 0.3 + 0.35 */
    const double a = 0.1, b = 0.35, c = 0.3, dd = 0.4, w = 5.0;
    char* y = four_bar_yaml(a, b, c, dd, 0.5, 0.3, 1.9, w, 2 * PI / w, 200);
    kd_mech* m = load_mech(y, NULL);
    free(y);
    history h = history_new(m->n, 300);
    kd_mech_kin_stats ks;
    kd_error err;
    assert_int_equal(kd_mech_kinematics(m, 2 * PI / w, 200, 1e8, record, &h, &ks, &err), KD_OK);
    const double K1 = dd / a, K2 = dd / c, K3 = (a * a - b * b + c * c + dd * dd) / (2 * a * c);
    double worst = 0.0;
    for (int k = 0; k < h.count; k++) {
        const double* q = h.q + (size_t)k * m->n;
        const double p2 = q[2], p4 = q[8];
        worst = fmax(worst, fabs(K1 * cos(p4) - K2 * cos(p2) + K3 - cos(p2 - p4)));
    }
    printf("four-bar: Freudenstein residual %.2e over a revolution\n", worst);
    assert_true(worst < 1e-10);
    history_free(&h);
    kd_mech_free(&m);
}

/* Non-Grashof (a + b + c + d with s + l > p + q): the crank cannot turn
 * round; it stops where |B - D| = b + c. */
static void test_four_bar_locking_reported(void** state) {
    (void)state;
    const double a = 0.3, b = 0.25, c = 0.2, dd = 0.4, w = 1.0;
    char* y = four_bar_yaml(a, b, c, dd, 0.2, 0.0, 1.5, w, 3.0, 3000);
    kd_mech* m = load_mech(y, NULL);
    free(y);
    kd_mech_kin_stats ks;
    kd_error err;
    kd_error_clear(&err);
    const kd_status st = kd_mech_kinematics(m, 3.0, 3000, 1e8, NULL, NULL, &ks, &err);
    assert_int_equal(st, KD_ERR_NUMERIC);
    /* limit: a^2 + d^2 - 2 a d cos(th) = (b + c)^2 */
    const double th = acos((a * a + dd * dd - (b + c) * (b + c)) / (2 * a * dd));
    const double t_lim = th - 0.2;
    printf("four-bar locking: %s (geometric limit at t = %.4f s)\n", err.msg, t_lim);
    assert_non_null(strstr(err.msg, "t = "));
    assert_true(ks.t_reached <= t_lim + 1e-12 && ks.t_reached > t_lim - 2e-3);
    assert_true(ks.cond_max > 30.0);
    kd_mech_free(&m);
}

/* An isosceles slider-crank (crank = rod) passes a change point at a crank
 * angle of 90 degrees, where Phi_q is singular: reported between the two
 * instants around it, never answered silently (with the instant on the
 * point, or between instants). */
static void test_change_point_reported(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_file(KD_TEST_MODELS_DIR "/../../examples/isosceles_slider_crank.yaml", &d, &err)) fail_msg("%s", err.msg);
    kd_mech* m = NULL;
    assert_int_equal(kd_mech_compile(d, &m, &err), KD_OK);
    const double t_sing = PI / 2 - 0.2, t_end = PI - 0.4;
    const int steps[3] = {100, 97, 331};
    for (int i = 0; i < 3; i++) {
        kd_mech_kin_stats ks;
        kd_error_clear(&err);
        assert_int_equal(kd_mech_kinematics(m, t_end, steps[i], 1e8, NULL, NULL, &ks, &err), KD_ERR_NUMERIC);
        const double h = t_end / steps[i];
        printf("change point, %d steps: stopped after t = %.4f s (singular at %.4f s)\n", steps[i], ks.t_reached, t_sing);
        assert_true(ks.t_reached < t_sing && ks.t_reached > t_sing - h - 1e-12);
        assert_non_null(strstr(err.msg, "singular position"));
    }
    kd_mech_free(&m);
    kd_desc_free(&d);
}

/* ---- mobility ---------------------------------------------------------- */

static void test_mobility_slider_crank(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_file(KD_TEST_MODELS_DIR "/../../examples/slider_crank.yaml", &d, &err)) fail_msg("%s", err.msg);
    kd_mech* m = NULL;
    assert_int_equal(kd_mech_compile(d, &m, &err), KD_OK);
    kd_mech_mobility mob;
    assert_int_equal(kd_mech_mobility_at(m, 0.0, m->q0, &mob, &err), KD_OK);
    /* 3 bodies: 9 - 3 revolute x 2 - prismatic 2 = 1 */
    assert_int_equal(mob.gruebler, 1);
    assert_int_equal(mob.dof, 1);
    assert_int_equal(mob.dof_undriven, 0);
    assert_int_equal(mob.nredundant, 0);
    kd_mech_free(&m);
    kd_desc_free(&d);
}

/* Parallelogram A-B-C-D with a third link EF parallel to the cranks:
 * Grübler counts 3*4 - 2*6 = 0, the rank says 1 DOF, one equation redundant. */
static void test_redundant_parallelogram(void** state) {
    (void)state;
    const char* y =
        "kedyn: 1\n"
        "bodies:\n"
        "  - {name: ground, type: ground, points: {A: [0, 0], D: [0.4, 0], E: [0.2, 0]}}\n"
        "  - {name: c1, type: rigid, mass: 1, inertia: 0.01, com: [0.1, 0], points: {A: [0, 0], B: [0.2, 0]}, angle: 1.0}\n"
        "  - {name: c2, type: rigid, mass: 1, inertia: 0.01, com: [0.1, 0], points: {D: [0, 0], C: [0.2, 0]},"
        " position: [0.4, 0], angle: 1.0}\n"
        "  - {name: c3, type: rigid, mass: 1, inertia: 0.01, com: [0.1, 0], points: {E: [0, 0], F: [0.2, 0]},"
        " position: [0.2, 0], angle: 1.0}\n"
        "  - {name: top, type: rigid, mass: 1, inertia: 0.01, com: [0.2, 0], points: {B: [0, 0], F: [0.2, 0], C: [0.4, 0]},"
        " position: [0.108, 0.168], angle: 0}\n"
        "joints:\n"
        "  - {name: jA, type: revolute, bodies: [ground, c1], points: [A, A]}\n"
        "  - {name: jD, type: revolute, bodies: [ground, c2], points: [D, D]}\n"
        "  - {name: jE, type: revolute, bodies: [ground, c3], points: [E, E]}\n"
        "  - {name: jB, type: revolute, bodies: [c1, top], points: [B, B]}\n"
        "  - {name: jC, type: revolute, bodies: [c2, top], points: [C, C]}\n"
        "  - {name: jF, type: revolute, bodies: [c3, top], points: [F, F]}\n"
        "drivers:\n"
        "  - {joint: jA, law: {speed: 2.0}, initial: 1.0}\n";
    kd_mech* m = load_mech(y, NULL);
    kd_mech_work* w = kd_mech_work_new(m);
    double q[12];
    memcpy(q, m->q0, sizeof(q));
    kd_error err;
    assert_int_equal(kd_mech_solve_position(m, w, 0.0, q, NULL, &err), KD_OK);
    kd_mech_mobility mob;
    assert_int_equal(kd_mech_mobility_at(m, 0.0, q, &mob, &err), KD_OK);
    char names[256];
    kd_mech_redundant_names(m, &mob, names, sizeof(names));
    printf("parallelogram: Gruebler %d, DOF %d, redundant: %s\n", mob.gruebler, mob.dof, names);
    assert_int_equal(mob.gruebler, 0);
    assert_int_equal(mob.dof, 1);
    assert_int_equal(mob.nredundant, 1);
    assert_non_null(strstr(names, "jF"));
    /* and the consistent redundant system still moves: kinematics over a half turn */
    kd_mech_kin_stats ks;
    assert_int_equal(kd_mech_kinematics(m, 1.0, 50, 1e8, NULL, NULL, &ks, &err), KD_OK);
    kd_mech_work_free(&w);
    kd_mech_free(&m);
}

/* A disc of radius R pinned to a slider driven along the ground and rolling
 * on the ground: its angle is phi0 - x / R; the disc's height is fixed twice
 * (by the slider and by the contact), so one equation is redundant. */
static void test_rolling_disc(void** state) {
    (void)state;
    const char* y =
        "kedyn: 1\n"
        "bodies:\n"
        "  - {name: ground, type: ground, points: {O: [0, 0.05], L: [0, 0]}}\n"
        "  - {name: slider, type: rigid, mass: 1, inertia: 0.01, points: {S: [0, 0]}, position: [0, 0.05]}\n"
        "  - {name: disc, type: rigid, mass: 2, inertia: 0.0025, points: {C: [0, 0]}, position: [0, 0.05], angle: 0.3}\n"
        "joints:\n"
        "  - {name: slide, type: prismatic, bodies: [ground, slider], points: [O, S]}\n"
        "  - {name: pin, type: revolute, bodies: [slider, disc], points: [S, C]}\n"
        "  - {name: roll, type: rolling, bodies: [ground, disc], points: [L, C], radius: 0.05}\n"
        "drivers:\n"
        "  - {joint: slide, law: {sine: {amplitude: 0.2, omega: 4}}}\n";
    kd_mech* m = load_mech(y, NULL);
    kd_mech_mobility mob;
    kd_error err;
    assert_int_equal(kd_mech_mobility_at(m, 0.0, m->q0, &mob, &err), KD_OK);
    assert_int_equal(mob.dof, 1);
    assert_int_equal(mob.nredundant, 1);
    history h = history_new(m->n, 100);
    kd_mech_kin_stats ks;
    assert_int_equal(kd_mech_kinematics(m, 1.5, 60, 1e8, record, &h, &ks, &err), KD_OK);
    double worst = 0.0, worst_w = 0.0;
    for (int k = 0; k < h.count; k++) {
        const double x = 0.2 * sin(4 * h.t[k]), v = 0.8 * cos(4 * h.t[k]);
        worst = fmax(worst, fabs(h.q[(size_t)k * 6 + 5] - (0.3 - x / 0.05)));
        worst_w = fmax(worst_w, fabs(h.qd[(size_t)k * 6 + 5] + v / 0.05));
    }
    printf("rolling disc: angle error %.2e rad, angular velocity error %.2e rad/s\n", worst, worst_w);
    assert_true(worst < 1e-9 && worst_w < 1e-8);
    history_free(&h);
    kd_mech_free(&m);
}

/* ---- wind water pump (seed 004): closed-form kinematics, appendix B ---- */

/* Given phi1 and x_D, B = l1 (cos phi1, sin phi1) and D = (x_D, e) are known;
 * C' closes the triangle B C' D with sides l2 and h (law of cosines), on the
 * side of BD the assembly chose; then phi2 = angle of BC' and the lever angle
 * follows from DC' = A(phi3) (f, g). The loop equations (A6) then hold. */
static void test_wind_pump_closed_form(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_file(KD_TEST_MODELS_DIR "/../../examples/wind_pump.yaml", &d, &err)) fail_msg("%s", err.msg);
    kd_mech* m = NULL;
    assert_int_equal(kd_mech_compile(d, &m, &err), KD_OK);
    kd_mech_mobility mob;
    assert_int_equal(kd_mech_mobility_at(m, 0.0, m->q0, &mob, &err), KD_OK);
    assert_int_equal(mob.dof, 2);
    assert_int_equal(mob.gruebler, 2);
    history h = history_new(m->n, 500);
    kd_mech_kin_stats ks;
    assert_int_equal(kd_mech_kinematics(m, 0.857, 400, 1e8, record, &h, &ks, &err), KD_OK);
    const double l1 = 0.06, l2 = 0.46, f = 0.24, g = 0.07, e = 0.30, hh = sqrt(f * f + g * g), psi = atan2(g, f);
    double side = 0.0, e2 = 0.0, e3 = 0.0, loop = 0.0;
    for (int k = 0; k < h.count; k++) {
        const double* q = h.q + (size_t)k * m->n;
        /* bodies in file order: crank 0, rod 1, lever 2, weight 3, slide 4 */
        const double p1 = q[2], xD = q[12];
        const double B[2] = {l1 * cos(p1), l1 * sin(p1)}, D[2] = {xD, e};
        const double bd[2] = {D[0] - B[0], D[1] - B[1]}, L = hypot(bd[0], bd[1]);
        const double alpha = acos((l2 * l2 + L * L - hh * hh) / (2 * l2 * L));
        if (k == 0) {  /* the branch of the assembly */
            const double c2[2] = {cos(q[5]), sin(q[5])};
            side = (bd[0] * c2[1] - bd[1] * c2[0]) > 0 ? 1.0 : -1.0;
        }
        const double phi2 = atan2(bd[1], bd[0]) + side * alpha;
        const double C[2] = {B[0] + l2 * cos(phi2), B[1] + l2 * sin(phi2)};
        const double phi3 = atan2(C[1] - D[1], C[0] - D[0]) - psi;
        e2 = fmax(e2, fabs(remainder(q[5] - phi2, 2 * PI)));
        e3 = fmax(e3, fabs(remainder(q[8] - phi3, 2 * PI)));
        /* seed 004 (A6) in this layout: the loop A B C' D closes on (x_D, e) */
        const double lx = l1 * cos(p1) + l2 * cos(q[5]) - hh * cos(q[8] + psi) - xD;
        const double ly = l1 * sin(p1) + l2 * sin(q[5]) - hh * sin(q[8] + psi) - e;
        loop = fmax(loop, fmax(fabs(lx), fabs(ly)));
    }
    printf("wind pump vs closed form: rod angle %.2e rad, lever angle %.2e rad, loop (A6) %.2e m\n", e2, e3, loop);
    assert_true(e2 < 1e-9 && e3 < 1e-9 && loop < 1e-10);  /* Newton tolerance 1e-11 (1 + L) */
    history_free(&h);
    kd_mech_free(&m);
    kd_desc_free(&d);
}

/* An undriven mechanism cannot be analysed kinematically: said, not guessed. */
static void test_kinematics_needs_drivers(void** state) {
    (void)state;
    const char* y =
        "kedyn: 1\n"
        "bodies:\n"
        "  - {name: ground, type: ground, points: {O: [0, 0]}}\n"
        "  - {name: bob, type: rigid, mass: 1, inertia: 0.01, points: {O: [0, 0.5]}, position: [0, -0.5]}\n"
        "joints:\n"
        "  - {name: pivot, type: revolute, bodies: [ground, bob], points: [O, O]}\n";
    kd_mech* m = load_mech(y, NULL);
    kd_mech_kin_stats ks;
    kd_error err;
    assert_int_equal(kd_mech_kinematics(m, 1.0, 10, 1e8, NULL, NULL, &ks, &err), KD_ERR_INPUT);
    assert_non_null(strstr(err.msg, "1 DOF"));
    kd_mech_free(&m);
}

/* Located loader errors of mechanism items. */
static void expect_load_error(const char* yaml, int line, int col, const char* text) {
    kd_desc* d = NULL;
    kd_error err;
    kd_error_clear(&err);
    assert_int_equal(kd_load_yaml_string(yaml, strlen(yaml), "bad.yaml", &d, &err), KD_ERR_INPUT);
    printf("  %d:%d %s\n", err.loc.line, err.loc.col, err.msg);
    if (err.loc.line != line || err.loc.col != col || !strstr(err.msg, text))
        fail_msg("got %d:%d '%s'; want %d:%d '%s'", err.loc.line, err.loc.col, err.msg, line, col, text);
}

static void test_loader_errors(void** state) {
    (void)state;
    const char* head =
        "kedyn: 1\n"
        "bodies:\n"
        "  - {name: ground, type: ground, points: {O: [0, 0]}}\n"
        "  - {name: bar, type: rigid, mass: 1, inertia: 0.01, points: {O: [0, 0], P: [1, 0]}}\n";
    char y[2048];
    snprintf(y, sizeof(y), "%sjoints:\n  - {name: j, type: revolute, bodies: [ground, bar], points: [O, Q]}\n", head);
    expect_load_error(y, 6, 66, "body 'bar' has no point 'Q'");
    snprintf(y, sizeof(y), "%sjoints:\n  - {name: j, type: distance, bodies: [ground, bar], points: [O, P]}\n"
             "drivers:\n  - {joint: j, law: 1.0}\n", head);
    expect_load_error(y, 8, 13, "drivers act on revolute and prismatic joints");
    snprintf(y, sizeof(y), "%sjoints:\n  - {name: j, type: revolute, bodies: [ground, bar], points: [O, O]}\n"
             "forces:\n  - {type: friction, joint: k, force: 1}\n", head);
    expect_load_error(y, 8, 29, "unknown joint 'k'");
    snprintf(y, sizeof(y), "%s  - {name: b2, type: rigid, mass: 0, inertia: 0.01}\n", head);
    expect_load_error(y, 5, 35, "mass must be a positive number");
    snprintf(y, sizeof(y), "%sjoints:\n  - {name: j, type: hinge, bodies: [ground, bar], points: [O, O]}\n", head);
    expect_load_error(y, 6, 21, "joint type must be one of");
}

/* Coulomb friction at a revolute joint, smoothed as -F tanh(w / v_smooth) with the documented
 * default v_smooth = 1e-3 rad/s (docs/model-format.md, "Mechanism forces") when the model omits
 * it, and the same when a description built in code leaves it 0. */
static void test_friction_default_smoothing(void** state) {
    (void)state;
    const char* yaml =
        "kedyn: 1\n"
        "bodies:\n"
        "  - {name: ground, type: ground, points: {O: [0, 0]}}\n"
        "  - {name: bar, type: rigid, mass: 1, inertia: 0.01, points: {O: [0, 0], P: [1, 0]}}\n"
        "joints:\n"
        "  - {name: j, type: revolute, bodies: [ground, bar], points: [O, O]}\n"
        "forces:\n"
        "  - {type: friction, joint: j, force: 2.0}\n";
    kd_desc* d = NULL;
    kd_error err;
    assert_int_equal(kd_load_yaml_string(yaml, strlen(yaml), "friction.yaml", &d, &err), KD_OK);
    const double w = 1.5e-3, want = -2.0 * tanh(w / 1e-3);
    for (int built_in_code = 0; built_in_code < 2; built_in_code++) {
        if (built_in_code) d->loads[0].v_smooth = 0.0;
        kd_mech* m = NULL;
        assert_int_equal(kd_mech_compile(d, &m, &err), KD_OK);
        assert_int_equal(m->n, 3);
        const double q[3] = {0, 0, 0}, qd[3] = {0, 0, w};
        double Q[3];
        kd_mech_force(m, 0.0, q, qd, Q);
        printf("friction torque at %g rad/s: %.12g (want %.12g)\n", w, Q[2], want);
        assert_true(fabs(Q[2] - want) < 1e-12);
        kd_mech_free(&m);
    }
    kd_desc_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jacobian_gamma_fd),        cmocka_unit_test(test_slider_crank_closed_form),
        cmocka_unit_test(test_four_bar_freudenstein),    cmocka_unit_test(test_four_bar_locking_reported),
        cmocka_unit_test(test_mobility_slider_crank),    cmocka_unit_test(test_redundant_parallelogram),
        cmocka_unit_test(test_rolling_disc),             cmocka_unit_test(test_kinematics_needs_drivers),
        cmocka_unit_test(test_loader_errors),            cmocka_unit_test(test_wind_pump_closed_form),
        cmocka_unit_test(test_change_point_reported),   cmocka_unit_test(test_friction_default_smoothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
