/* Inverse dynamics of planar mechanisms (src/mechanism/inverse.c) against
 * independent references:
 *   - compound pendulum driven along a law: tau = I_O theta'' + m g l cos(theta)
 *     (closed form), the pivot force from Newton's law for the centre of mass,
 *     and the small-amplitude period: the free motion theta0 sin(w0 t),
 *     w0 = sqrt(m g l / I_O), needs only the cubic remainder of sin;
 *   - slider-crank and double pendulum: power balance sum tau_i w_i =
 *     d(T + V)/dt with the energy rate from central differences of T + V over
 *     the kinematic history, plus the friction power at a rubbing slide;
 *   - the sum of the external forces on the whole mechanism equals the rate of
 *     its momentum, sum m_i a_i (ground reactions checked without the joints'
 *     equations);
 *   - the multipliers and projection routes agree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/load_yaml.h"
#include "kedyn/mbs.h"
#include "kedyn/mech.h"
#include "test_util.h"

static kd_mech* load_mech(const char* yaml) {
    kd_desc* d = NULL;
    kd_error err;
    kd_error_clear(&err);
    if (kd_load_yaml_string(yaml, strlen(yaml), "test.yaml", &d, &err)) fail_msg("load: %d:%d %s", err.loc.line, err.loc.col, err.msg);
    kd_mech* m = NULL;
    if (kd_mech_compile(d, &m, &err)) fail_msg("compile: %s", err.msg);
    kd_desc_free(&d);
    return m;
}

static kd_mech* load_mech_file(const char* path) {
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_file(path, &d, &err)) fail_msg("%s: %s", path, err.msg);
    kd_mech* m = NULL;
    if (kd_mech_compile(d, &m, &err)) fail_msg("compile: %s", err.msg);
    kd_desc_free(&d);
    return m;
}

/* Per time step: the state, both routes' results, energies. */
typedef struct run {
    const kd_mech* m;
    kd_mech_work* w;
    int count, cap;
    double *t, *E, *P;            /* T + V, driver power */
    double *drive, *drive_p;      /* (cap x ndriver) */
    double *F, *F_p;              /* (cap x 3 njoint) */
    double *q, *qd, *qdd;         /* (cap x n) */
    double* P_fric;               /* friction power (from kd_mech_force minus the conservative part) */
    kd_mech_reactions r1, r2;
} run;

static int sink(void* ctx, double t, const double* q, const double* qd, const double* qdd, const kd_mech_kin_info* info) {
    (void)info;
    run* r = ctx;
    const kd_mech* m = r->m;
    if (r->count == r->cap) return 1;
    kd_error err;
    if (kd_mech_inverse_multipliers(m, r->w, t, q, qd, NULL, &r->r1, &err)) fail_msg("%s", err.msg);
    if (kd_mech_inverse_projection(m, r->w, t, q, qd, qdd, &r->r2, &err)) fail_msg("%s", err.msg);
    const int k = r->count++;
    r->t[k] = t;
    r->E[k] = kd_mech_kinetic(m, qd) + kd_mech_potential(m, q);
    double P = 0.0;
    for (int d = 0; d < m->ndriver; d++) {
        double f, df, d2f;
        kd_law_eval(&m->driver[d].law, t, &f, &df, &d2f);
        P += r->r1.drive[d] * df;
        r->drive[(size_t)k * m->ndriver + d] = r->r1.drive[d];
        r->drive_p[(size_t)k * m->ndriver + d] = r->r2.drive[d];
    }
    r->P[k] = P;
    memcpy(r->F + (size_t)k * 3 * m->njoint, r->r1.F, sizeof(double) * 3 * (size_t)m->njoint);
    memcpy(r->F_p + (size_t)k * 3 * m->njoint, r->r2.F, sizeof(double) * 3 * (size_t)m->njoint);
    memcpy(r->q + (size_t)k * m->n, q, sizeof(double) * (size_t)m->n);
    memcpy(r->qd + (size_t)k * m->n, qd, sizeof(double) * (size_t)m->n);
    memcpy(r->qdd + (size_t)k * m->n, qdd, sizeof(double) * (size_t)m->n);
    /* non-conservative power of the applied forces: Q . q' minus the rate of V
     * (gravity and springs), i.e. friction and dampers */
    double* Q = malloc(sizeof(double) * (size_t)m->n);
    kd_mech_force(m, t, q, qd, Q);
    double PQ = 0.0;
    for (int i = 0; i < m->n; i++) PQ += Q[i] * qd[i];
    const double h = 1e-7;
    double* qp = malloc(sizeof(double) * (size_t)m->n);
    for (int i = 0; i < m->n; i++) qp[i] = q[i] + h * qd[i];
    const double Vp = kd_mech_potential(m, qp);
    for (int i = 0; i < m->n; i++) qp[i] = q[i] - h * qd[i];
    const double dV = (Vp - kd_mech_potential(m, qp)) / (2 * h);
    r->P_fric[k] = PQ + dV;
    free(Q), free(qp);
    return 0;
}

static run run_new(const kd_mech* m, int cap) {
    run r;
    memset(&r, 0, sizeof(r));
    r.m = m, r.cap = cap;
    r.w = kd_mech_work_new(m);
    r.t = calloc((size_t)cap, sizeof(double)), r.E = calloc((size_t)cap, sizeof(double));
    r.P = calloc((size_t)cap, sizeof(double)), r.P_fric = calloc((size_t)cap, sizeof(double));
    r.drive = calloc((size_t)cap * (m->ndriver + 1), sizeof(double));
    r.drive_p = calloc((size_t)cap * (m->ndriver + 1), sizeof(double));
    r.F = calloc((size_t)cap * 3 * m->njoint, sizeof(double)), r.F_p = calloc((size_t)cap * 3 * m->njoint, sizeof(double));
    r.q = calloc((size_t)cap * m->n, sizeof(double)), r.qd = calloc((size_t)cap * m->n, sizeof(double));
    r.qdd = calloc((size_t)cap * m->n, sizeof(double));
    kd_mech_reactions_alloc(m, &r.r1);
    kd_mech_reactions_alloc(m, &r.r2);
    return r;
}

static void run_free(run* r) {
    free(r->t), free(r->E), free(r->P), free(r->P_fric), free(r->drive), free(r->drive_p), free(r->F), free(r->F_p);
    free(r->q), free(r->qd), free(r->qdd);
    kd_mech_reactions_free(&r->r1), kd_mech_reactions_free(&r->r2);
    kd_mech_work_free(&r->w);
}

static void run_kin(run* r, double t_end, int steps) {
    kd_mech_kin_stats ks;
    kd_error err;
    if (kd_mech_kinematics(r->m, t_end, steps, 1e8, sink, r, &ks, &err)) fail_msg("%s", err.msg);
    assert_int_equal(r->count, steps + 1);
}

/* max |P_drive + P_friction - d(T+V)/dt| over interior steps (equal steps), relative to max |P_drive|. */
static double power_balance(const run* r) {
    double worst = 0.0, scale = 0.0;
    const double h = r->t[1] - r->t[0];
    for (int k = 2; k + 2 < r->count; k++) {
        /* fourth-order central difference of T + V */
        const double dE = (-r->E[k + 2] + 8 * r->E[k + 1] - 8 * r->E[k - 1] + r->E[k - 2]) / (12 * h);
        worst = fmax(worst, fabs(r->P[k] + r->P_fric[k] - dE));
        scale = fmax(scale, fabs(r->P[k]));
    }
    return worst / scale;
}

static double route_difference(const run* r) {
    double worst = 0.0, scale = 0.0;
    const kd_mech* m = r->m;
    for (int k = 0; k < r->count; k++) {
        for (int i = 0; i < 3 * m->njoint; i++) {
            const size_t x = (size_t)k * 3 * m->njoint + i;
            worst = fmax(worst, fabs(r->F[x] - r->F_p[x]));
            scale = fmax(scale, fabs(r->F[x]));
        }
        for (int d = 0; d < m->ndriver; d++) {
            const size_t x = (size_t)k * m->ndriver + d;
            worst = fmax(worst, fabs(r->drive[x] - r->drive_p[x]));
        }
    }
    return worst / scale;
}

/* ---- compound pendulum ----------------------------------------------- */

static const double PM = 1.5, PL = 0.4, PJ = 0.02, PG = 9.81;

static kd_mech* pendulum(const char* law) {
    char y[2048];
    snprintf(y, sizeof(y),
             "kedyn: 1\n"
             "bodies:\n"
             "  - {name: ground, type: ground, points: {O: [0, 0]}}\n"
             "  - {name: arm, type: rigid, mass: %g, inertia: %g, com: [%g, 0], points: {O: [0, 0]}, angle: -1.5}\n"
             "joints:\n"
             "  - {name: pivot, type: revolute, bodies: [ground, arm], points: [O, O]}\n"
             "drivers:\n"
             "  - {joint: pivot, law: %s}\n"
             "forces:\n"
             "  - {type: gravity, g: [0, %g]}\n",
             PM, PJ, PL, law, -PG);
    return load_mech(y);
}

static void test_pendulum_closed_form(void** state) {
    (void)state;
    kd_mech* m = pendulum("{sine: {amplitude: 0.8, omega: 3.0, offset: -1.2}}");
    run r = run_new(m, 500);
    run_kin(&r, 3.0, 300);
    const double IO = PJ + PM * PL * PL;
    double et = 0, ef = 0, scale_t = 0;
    for (int k = 0; k < r.count; k++) {
        const double t = r.t[k], th = 0.8 * sin(3 * t) - 1.2, thd = 2.4 * cos(3 * t), thdd = -7.2 * sin(3 * t);
        const double tau = IO * thdd + PM * PG * PL * cos(th);
        et = fmax(et, fabs(r.drive[k] - tau));
        scale_t = fmax(scale_t, fabs(tau));
        /* pivot force on the arm = m a_G - m g, a_G of the circle of radius l */
        const double ax = PL * (-thdd * sin(th) - thd * thd * cos(th)), ay = PL * (thdd * cos(th) - thd * thd * sin(th));
        ef = fmax(ef, fmax(fabs(r.F[3 * k] - PM * ax), fabs(r.F[3 * k + 1] - (PM * ay + PM * PG))));
        /* and the pivot's moment about itself is the driving torque */
        assert_true(fabs(r.F[3 * k + 2] - r.drive[k]) < 1e-9 * scale_t + 1e-12);
    }
    printf("pendulum: torque error %.2e N m (max %.3g), pivot force error %.2e N, routes %.2e\n", et, scale_t, ef,
           route_difference(&r));
    assert_true(et < 1e-10 * scale_t && ef < 1e-10 * PM * PG);
    assert_true(route_difference(&r) < 1e-10);
    run_free(&r);
    kd_mech_free(&m);
}

/* Held still at a fixed angle ({angle: a}): the pivot carries the weight and
 * the driver the static moment m g l cos(a). */
static void test_pendulum_static(void** state) {
    (void)state;
    kd_mech* m = pendulum("{angle: -0.7}");
    run r = run_new(m, 20);
    run_kin(&r, 1.0, 10);
    for (int k = 0; k < r.count; k++) {
        assert_true(fabs(r.drive[k] - PM * PG * PL * cos(-0.7)) < 1e-12);
        assert_true(fabs(r.F[3 * k]) < 1e-12 && fabs(r.F[3 * k + 1] - PM * PG) < 1e-12);
    }
    run_free(&r);
    kd_mech_free(&m);
}

/* The free small oscillation about the hanging position, theta = -pi/2 +
 * th0 sin(w0 t), w0^2 = m g l / I_O, needs a torque of only
 * m g l (th0 - sin th0) order th0^3 / 6: the period 2 pi / w0 is the
 * pendulum's own. */
static void test_pendulum_small_amplitude_period(void** state) {
    (void)state;
    const double IO = PJ + PM * PL * PL, w0 = sqrt(PM * PG * PL / IO), th0 = 0.02;
    char law[256];
    snprintf(law, sizeof(law), "{sine: {amplitude: %.17g, omega: %.17g, offset: %.17g}}", th0, w0, -PI / 2);
    kd_mech* m = pendulum(law);
    run r = run_new(m, 300);
    run_kin(&r, 2 * PI / w0, 200);
    double tau_max = 0.0;
    for (int k = 0; k < r.count; k++) tau_max = fmax(tau_max, fabs(r.drive[k]));
    const double bound = PM * PG * PL * (th0 - sin(th0)) * 1.01;
    printf("pendulum at its small-amplitude period %.6f s: torque %.3e N m (m g l th0 = %.3e, bound %.3e)\n",
           2 * PI / w0, tau_max, PM * PG * PL * th0, bound);
    assert_true(tau_max < bound);
    /* and a 5 % longer period needs a torque of order th0 m g l (1 - 1/1.05^2) */
    run_free(&r);
    kd_mech_free(&m);
    snprintf(law, sizeof(law), "{sine: {amplitude: %.17g, omega: %.17g, offset: %.17g}}", th0, w0 / 1.05, -PI / 2);
    m = pendulum(law);
    r = run_new(m, 300);
    run_kin(&r, 2 * PI / w0, 200);
    tau_max = 0.0;
    for (int k = 0; k < r.count; k++) tau_max = fmax(tau_max, fabs(r.drive[k]));
    assert_true(tau_max > 0.05 * PM * PG * PL * th0);
    run_free(&r);
    kd_mech_free(&m);
}

/* ---- double pendulum ------------------------------------------------- */

static void test_double_pendulum_power(void** state) {
    (void)state;
    const char* y =
        "kedyn: 1\n"
        "bodies:\n"
        "  - {name: ground, type: ground, points: {O: [0, 0]}}\n"
        "  - {name: upper, type: rigid, mass: 2.0, inertia: 0.04, com: [0.25, 0], points: {O: [0, 0], E: [0.5, 0]},"
        " angle: -1.4}\n"
        "  - {name: lower, type: rigid, mass: 1.0, inertia: 0.01, com: [0.2, 0.01], points: {E: [0, 0]},"
        " position: [0.08, -0.49], angle: -1.9}\n"
        "joints:\n"
        "  - {name: shoulder, type: revolute, bodies: [ground, upper], points: [O, O]}\n"
        "  - {name: elbow, type: revolute, bodies: [upper, lower], points: [E, E]}\n"
        "drivers:\n"
        "  - {joint: shoulder, law: {sine: {amplitude: 0.6, omega: 4.0, offset: -1.4}}}\n"
        "  - {joint: elbow, law: {sine: {amplitude: 1.0, omega: 7.0, phase: 0.5, offset: -0.3}}}\n"
        "forces:\n"
        "  - {type: gravity, g: [0, -9.81]}\n";
    kd_mech* m = load_mech(y);
    run r = run_new(m, 1100);
    run_kin(&r, 2.0, 1000);
    const double pb = power_balance(&r), rd = route_difference(&r);
    /* ground reaction = rate of momentum - weight */
    double em = 0.0, scale = 0.0;
    for (int k = 0; k < r.count; k++) {
        double px = 0, py = 0;
        for (int b = 0; b < m->nbody; b++) {
            px += m->mass[3 * b] * r.qdd[(size_t)k * m->n + 3 * b];
            py += m->mass[3 * b] * (r.qdd[(size_t)k * m->n + 3 * b + 1] + 9.81);
        }
        em = fmax(em, fmax(fabs(r.F[(size_t)k * 6] - px), fabs(r.F[(size_t)k * 6 + 1] - py)));
        scale = fmax(scale, fabs(py));
    }
    printf("double pendulum: power balance %.2e, momentum balance %.2e N, routes %.2e\n", pb, em, rd);
    assert_true(pb < 1e-7);  /* 4th-order differences: 3.4e-8 with 1000 steps, 2.7e-9 with 2000 */
    assert_true(em < 1e-9 * scale);
    assert_true(rd < 1e-9);
    run_free(&r);
    kd_mech_free(&m);
}

/* ---- slider-crank: tau w = dT/dt, with friction and a spring --------- */

static void test_slider_crank_power(void** state) {
    (void)state;
    kd_mech* m = load_mech_file(KD_TEST_MODELS_DIR "/../../examples/slider_crank.yaml");
    run r = run_new(m, 1100);
    run_kin(&r, 2 * PI / 10.0, 1000);
    const double pb = power_balance(&r);
    printf("slider-crank: tau w vs dT/dt %.2e (relative), routes %.2e\n", pb, route_difference(&r));
    assert_true(pb < 1e-8);
    assert_true(route_difference(&r) < 1e-10);
    run_free(&r);
    kd_mech_free(&m);

    /* with gravity, a spring on the slider and friction at the slide */
    const char* y =
        "kedyn: 1\n"
        "bodies:\n"
        "  - {name: ground, type: ground, points: {O: [0, 0], S: [0, 0], K: [0.6, 0]}}\n"
        "  - {name: crank, type: rigid, mass: 1.0, inertia: 8.3e-4, com: [0.05, 0], points: {O: [0, 0], A: [0.1, 0]},"
        " angle: 0.3}\n"
        "  - {name: rod, type: rigid, mass: 2.0, inertia: 0.015, com: [0.15, 0], points: {A: [0, 0], B: [0.3, 0]},"
        " position: [0.1, 0.03], angle: -0.1}\n"
        "  - {name: slider, type: rigid, mass: 0.5, inertia: 1.0e-4, points: {B: [0, 0]}, position: [0.39, 0.0]}\n"
        "joints:\n"
        "  - {name: jO, type: revolute, bodies: [ground, crank], points: [O, O]}\n"
        "  - {name: jA, type: revolute, bodies: [crank, rod], points: [A, A]}\n"
        "  - {name: jB, type: revolute, bodies: [rod, slider], points: [B, B]}\n"
        "  - {name: jS, type: prismatic, bodies: [ground, slider], points: [S, B]}\n"
        "drivers:\n"
        "  - {joint: jO, law: {speed: 10.0}, initial: 0.3}\n"
        "forces:\n"
        "  - {type: gravity, g: [0, -9.81]}\n"
        "  - {type: spring, bodies: [ground, slider], points: [K, B], k: 500, length: 0.1, c: 2.0}\n"
        "  - {type: friction, joint: jS, force: 3.0, v_smooth: 1e-4}\n";
    m = load_mech(y);
    r = run_new(m, 1100);
    run_kin(&r, 2 * PI / 10.0, 1000);
    double Pf = 0.0;
    for (int k = 0; k < r.count; k++) Pf = fmin(Pf, r.P_fric[k]);
    const double pb2 = power_balance(&r);
    printf("slider-crank with gravity, spring-damper and friction: balance %.2e, routes %.2e, peak dissipation %.3g W\n",
           pb2, route_difference(&r), -Pf);
    assert_true(Pf < -1.0);  /* friction and damping dissipate */
    assert_true(pb2 < 1e-6);
    assert_true(route_difference(&r) < 1e-9);
    run_free(&r);
    kd_mech_free(&m);
}

/* ---- examples: the wiper linkage (seed 003) and the wind pump (seed 004) ---- */

static void test_examples_power(void** state) {
    (void)state;
    /* wiper: no gravity in its plane, so the motor power is dT/dt. Both
     * examples are driven by spline tables, whose third derivative jumps at
     * every knot: the difference quotient of T + V is then only good to
     * about 1e-5 (with a smooth law the same balance closes to 1e-9). */
    kd_mech* m = load_mech_file(KD_TEST_MODELS_DIR "/../../examples/wiper.yaml");
    run r = run_new(m, 700);
    run_kin(&r, 1.2, 600);
    double tmax = 0.0;
    for (int k = 0; k < r.count; k++) tmax = fmax(tmax, fabs(r.drive[k]));
    const double pw = power_balance(&r), rw = route_difference(&r);
    /* the ground's joints carry the whole momentum rate (no applied force in the plane) */
    double em = 0.0, fmax_ = 0.0;
    for (int k = 0; k < r.count; k++) {
        double F[2] = {0, 0}, P[2] = {0, 0};
        for (int j = 0; j < m->njoint; j++) {
            const double sgn = m->joint[j].body[0] < 0 ? 1.0 : (m->joint[j].body[1] < 0 ? -1.0 : 0.0);
            F[0] += sgn * r.F[(size_t)k * 3 * m->njoint + 3 * j];
            F[1] += sgn * r.F[(size_t)k * 3 * m->njoint + 3 * j + 1];
        }
        for (int b = 0; b < m->nbody; b++)
            for (int c = 0; c < 2; c++) P[c] += m->mass[3 * b] * r.qdd[(size_t)k * m->n + 3 * b + c];
        em = fmax(em, fmax(fabs(F[0] - P[0]), fabs(F[1] - P[1])));
        for (int i = 0; i < 3 * m->njoint; i++) fmax_ = fmax(fmax_, fabs(r.F[(size_t)k * 3 * m->njoint + i]));
    }
    printf("wiper: motor torque up to %.4g N m, power balance %.2e, momentum balance %.2e N (largest reaction %.3g N), "
           "routes %.2e\n", tmax, pw, em, fmax_, rw);
    assert_true(pw < 1e-4 && rw < 1e-9);
    assert_true(em < 1e-10 * fmax_);
    run_free(&r);
    kd_mech_free(&m);
    /* wind pump: two drivers, gravity, spring, friction at the slide */
    m = load_mech_file(KD_TEST_MODELS_DIR "/../../examples/wind_pump.yaml");
    r = run_new(m, 1300);
    run_kin(&r, 0.857, 1200);
    const double pp = power_balance(&r), rp = route_difference(&r);
    printf("wind pump: power balance %.2e, routes %.2e\n", pp, rp);
    assert_true(pp < 4e-4 && rp < 1e-9);  /* 2.7e-4 with 1200 steps, 5.1e-5 with 2400: truncation */
    run_free(&r);
    kd_mech_free(&m);
}

/* ---- forward then inverse: the pump's free slide ------------------------- */

/* Drive only the pump's crank and integrate the motion forward (kedyn/mbs.h,
 * through the kd_cms view of the mechanism: a solver that shares no code
 * with this file's routes). Then prescribe both the crank and the piston
 * displacement the forward run produced, as a measured record would be, and
 * solve the inverse dynamics: the slide needs no driving force (it was free)
 * and the crank torque is the one the forward run's multiplier gave. */
typedef struct fwd_rec {
    int count, cap, n, row;
    double *t, *x, *tau;
} fwd_rec;

static int fwd_sample(void* ctx, const kd_mbs_sample* s) {
    fwd_rec* r = ctx;
    if (r->count == r->cap) return 1;
    r->t[r->count] = s->t;
    r->x[r->count] = s->qd ? s->q[12] : 0.0;  /* slide x (body 4) */
    r->tau[r->count] = -s->lambda[r->row];     /* the crank driver's torque */
    r->count++;
    return 0;
}

static void test_pump_forward_then_inverse(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_file(KD_TEST_MODELS_DIR "/../../examples/wind_pump.yaml", &d, &err)) fail_msg("%s", err.msg);
    /* a friction smoothed over 0.05 m/s: with 1e-3 its force turns within a
     * fraction of a millisecond at each reversal, faster than the record's
     * 0.5 ms samples can follow */
    for (int i = 0; i < d->nloads; i++)
        if (d->loads[i].type == KD_LOAD_FRICTION) d->loads[i].v_smooth = 0.05;
    /* forward: the crank driver only */
    kd_law_free(&d->drivers[1].law);
    d->ndrivers = 1;
    kd_mech* m1 = NULL;
    assert_int_equal(kd_mech_compile(d, &m1, &err), KD_OK);
    kd_mech_work* w = kd_mech_work_new(m1);
    double q0[15], qd0[15];
    memcpy(q0, m1->q0, sizeof(q0));
    assert_int_equal(kd_mech_solve_position(m1, w, 0.0, q0, NULL, &err), KD_OK);
    assert_int_equal(kd_mech_solve_velocity(m1, w, 0.0, q0, qd0, &err), KD_OK);
    kd_cms cms;
    kd_mech_cms(m1, &cms);
    kd_mbs_opts o;
    kd_mbs_opts_default(&o);
    o.formulation = KD_MBS_AUGMENTED, o.stabilization = KD_MBS_STAB_PROJECTION, o.integrator = KD_MBS_RK4;
    o.t_end = 0.3, o.dt = 2e-5, o.output_every = 25;
    fwd_rec rec = {0, 700, 15, m1->driver[0].row, calloc(700, sizeof(double)), calloc(700, sizeof(double)),
                   calloc(700, sizeof(double))};
    kd_mbs_stats fs;
    if (kd_mbs_forward(&cms, &o, q0, qd0, fwd_sample, &rec, &fs, &err)) fail_msg("forward: %s", err.msg);
    printf("pump forward: %d samples, %ld steps, drift %.1e\n", rec.count, fs.steps, fs.max_drift_pos);
    /* inverse: the crank and the piston record from the forward run */
    d->ndrivers = 2;
    d->drivers[1].initial = 0.0;
    kd_error terr;
    assert_int_equal(kd_law_table(&d->drivers[1].law, rec.count, rec.t, rec.x, 0, &terr), KD_OK);
    kd_mech* m2 = NULL;
    assert_int_equal(kd_mech_compile(d, &m2, &err), KD_OK);
    run r = run_new(m2, 400);
    run_kin(&r, 0.3, 300);
    double eF = 0.0, eT = 0.0, Fscale = 0.0, Tscale = 0.0;
    for (int k = 0; k < r.count; k++) {
        if (r.t[k] < 0.05 || r.t[k] > 0.25) continue;  /* away from the spline's natural ends */
        const int i = (int)lround(r.t[k] / (o.dt * o.output_every));
        if (fabs(rec.t[i] - r.t[k]) > 1e-12) continue;
        eF = fmax(eF, fabs(r.drive[(size_t)k * 2 + 1]));
        eT = fmax(eT, fabs(r.drive[(size_t)k * 2] - rec.tau[i]));
        Tscale = fmax(Tscale, fabs(rec.tau[i]));
        Fscale = fmax(Fscale, 2000 * fabs(rec.x[i] - 0.45));  /* the spring force */
    }
    printf("pump inverse of the forward motion: slide force %.2e N (spring force up to %.3g N), crank torque "
           "difference %.2e N m (of %.3g)\n", eF, Fscale, eT, Tscale);
    assert_true(eF < 1e-3 * Fscale);
    assert_true(eT < 1e-3 * Tscale);
    run_free(&r);
    free(rec.t), free(rec.x), free(rec.tau);
    kd_mech_work_free(&w);
    kd_mech_free(&m1);
    kd_mech_free(&m2);
    kd_desc_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pendulum_closed_form),
        cmocka_unit_test(test_pendulum_static),
        cmocka_unit_test(test_pendulum_small_amplitude_period),
        cmocka_unit_test(test_double_pendulum_power),
        cmocka_unit_test(test_slider_crank_power),
        cmocka_unit_test(test_examples_power),
        cmocka_unit_test(test_pump_forward_then_inverse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
