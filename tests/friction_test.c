/* Friction, dampers and springs of mechanisms (src/mechanism/forces.c) against closed forms,
 * through the forward dynamics (kd_mbs_forward, augmented, rk4): a block on a slide
 * (prismatic joint to the ground) under
 *   - smoothed Coulomb friction F tanh(v / v_s) (docs/model-format.md, "Mechanism forces"):
 *     m v' = -F tanh(v / v_s) integrates in closed form, sinh(v / v_s) = sinh(v0 / v_s)
 *     exp(-a t / v_s), a = F / m; its Coulomb limit stops at t_s = v0 / a after v0^2 / (2 a);
 *   - the same on a line inclined by 30 degrees under gravity: up at -(g sin th + a), back down at
 *     -(g sin th - a) (Newton's law along the line, the friction turning with the speed);
 *   - a linear damper (a zero-length spring with k = 0): v = v0 exp(-c t / m), travel m v0 / c;
 *   - a spring of free length l0 along a vertical slide under gravity: equilibrium stretch m g / k,
 *     oscillation at sqrt(k / m) about it; with a damper, the damped oscillator's closed form;
 *   - a wheel on a revolute joint driven by a constant torque against the joint's friction
 *     torque: J_O w' = T - F_r (Newton's law for rotation about a fixed axis). */
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

#define NREC 20001

typedef struct slide_rec {
    int n;
    double ux, uy;                /* the slide's direction: s = u . (x, y) of the block */
    double t[NREC], s[NREC], v[NREC];
} slide_rec;

static int slide_out(void* ctx, const kd_mbs_sample* smp) {
    slide_rec* r = ctx;
    if (r->n < NREC) {
        r->t[r->n] = smp->t;
        r->s[r->n] = r->ux * smp->q[0] + r->uy * smp->q[1];
        r->v[r->n++] = r->ux * smp->qd[0] + r->uy * smp->qd[1];
    }
    return 0;
}

/* A block of mass `mass` on a slide through the origin along (cos th, sin th), with the forces of
 * `forces` (YAML list items) and gravity g downwards, started at s = 0 with speed v0 along the
 * slide; rk4 with step dt to t_end, every step recorded. */
static void run_block(double mass, double th, double g, const char* forces, double v0, double t_end, double dt,
                      slide_rec* r) {
    char yaml[2048];
    snprintf(yaml, sizeof(yaml),
             "kedyn: 1\n"
             "bodies:\n"
             "  - {name: ground, type: ground, points: {O: [0, 0], K: [0, 0]}}\n"
             "  - {name: block, type: rigid, mass: %.17g, inertia: 0.01, points: {B: [0, 0]}, angle: %.17g}\n"
             "joints:\n"
             "  - {name: slide, type: prismatic, bodies: [ground, block], points: [O, B], axis: [%.17g, %.17g]}\n"
             "forces:\n"
             "  - {type: gravity, g: [0, %.17g]}\n"
             "%s",
             mass, th, cos(th), sin(th), -g, forces);
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_string(yaml, strlen(yaml), "block.yaml", &d, &err)) fail_msg("%s", err.msg);
    kd_mech* m = NULL;
    if (kd_mech_compile(d, &m, &err)) fail_msg("compile: %s", err.msg);
    assert_int_equal(m->n, 3);
    kd_cms cms;
    kd_mech_cms(m, &cms);
    kd_mbs_opts o;
    kd_mbs_opts_default(&o);
    o.formulation = KD_MBS_AUGMENTED, o.stabilization = KD_MBS_STAB_PROJECTION, o.integrator = KD_MBS_RK4;
    o.t_end = t_end, o.dt = dt, o.output_every = 1;
    const double q0[3] = {0, 0, th}, qd0[3] = {v0 * cos(th), v0 * sin(th), 0};
    memset(r, 0, sizeof(*r));
    r->ux = cos(th), r->uy = sin(th);
    if (kd_mbs_forward(&cms, &o, q0, qd0, slide_out, r, NULL, &err)) fail_msg("%s", err.msg);
    kd_mech_free(&m);
    kd_desc_free(&d);
}

/* v(t) of m v' = -F tanh(v / vs) from v0 > 0: vs asinh(sinh(v0 / vs) exp(-a t / vs)), written
 * with exponentials that cannot overflow for v0 / vs up to ~700. */
static double smoothed_speed(double v0, double vs, double a, double t) {
    const double y = 0.5 * (exp((v0 - a * t) / vs) - exp((-v0 - a * t) / vs));
    return vs * asinh(y);
}

/* A block sliding to rest on a rough horizontal line: F = mu m g, mu = 0.3, v0 = 2 m/s. The
 * smoothing (v_s = 0.01 m/s) changes the Coulomb answer by an amount known in closed form: the
 * block still moves at v_s asinh(1/2) = 0.481 v_s at t_s, and its travel grows by
 * pi^2 v_s^2 / (12 a) (integral of v coth(v / v_s) - v): 2.8e-5 m, 4.1e-5 of v0^2 / (2 a). */
static void test_block_sliding_to_rest(void** state) {
    (void)state;
    const double mass = 2.0, g = 9.81, mu = 0.3, v0 = 2.0, vs = 0.01, F = mu * mass * g, a = F / mass;
    const double ts = v0 / a, xs = v0 * v0 / (2 * a), dx_smooth = PI * PI * vs * vs / (12 * a);
    char forces[256];
    snprintf(forces, sizeof(forces), "  - {type: friction, joint: slide, force: %.17g, v_smooth: %.17g}\n", F, vs);
    static slide_rec r;
    const double dt = 2e-4;
    run_block(mass, 0.0, g, forces, v0, ts + 0.1, dt, &r);
    /* the speed against the smoothed closed form, all along */
    double ev = 0;
    int i_ts = 0;
    for (int i = 0; i < r.n; i++) {
        ev = fmax(ev, fabs(r.v[i] - smoothed_speed(v0, vs, a, r.t[i])));
        if (r.t[i] <= ts) i_ts = i;
    }
    /* stopping time: the Coulomb block stops at t_s; the smoothed one passes v_s / 10 a little after
     * (closed form: at a t / v_s = v0 / v_s - ln(2 sinh(0.1))), i.e. t_s + 1.61 v_s / a */
    double t_stop = -1;
    for (int i = 1; i < r.n && t_stop < 0; i++)
        if (r.v[i] < 0.1 * vs) t_stop = r.t[i - 1] + (r.t[i] - r.t[i - 1]) * (r.v[i - 1] - 0.1 * vs) / (r.v[i - 1] - r.v[i]);
    const double t_stop_ref = ts - vs / a * log(2 * sinh(0.1));
    /* the speed at t_s, interpolated between the steps about it */
    const double x_end = r.s[r.n - 1];
    const double v_at_ts = r.v[i_ts] + (r.v[i_ts + 1] - r.v[i_ts]) * (ts - r.t[i_ts]) / (r.t[i_ts + 1] - r.t[i_ts]);
    print_message("block sliding to rest: speed within %.2e m/s of the smoothed closed form; v(t_s) %.4e m/s "
                  "(closed form %.4e = 0.481 v_s); |v| < v_s/10 at %.6f s (closed form %.6f, Coulomb t_s %.6f); "
                  "travel %.8f m (Coulomb %.8f, + smoothing %.2e = %.8f): error %.2e\n",
                  ev, v_at_ts, vs * asinh(0.5), t_stop, t_stop_ref, ts, x_end, xs, dx_smooth, xs + dx_smooth,
                  fabs(x_end - xs - dx_smooth) / xs);
    assert_true(ev < 1e-8 * v0);
    assert_true(fabs(v_at_ts - vs * asinh(0.5)) < 1e-2 * vs);  /* linear interpolation: (a dt)^2 / (8 v_s) */
    assert_true(fabs(t_stop - t_stop_ref) < dt);
    assert_true(fabs(t_stop - ts) < 3 * vs / a);               /* Coulomb: within the smoothing's delay */
    assert_true(fabs(x_end - xs - dx_smooth) < 1e-6 * xs);
    assert_true(fabs(x_end - xs) < 1e-4 * xs);                 /* the Coulomb distance, to 4e-5 */
}

/* The same block on a line inclined by 30 degrees, thrown up the slope at 3 m/s with a friction
 * F = 0.2 m g cos th (below m g sin th: it slides back). Newton's law along the line: up at
 * s'' = -(g sin th + F/m) until it stops at t1 = v0 / (g sin th + F/m), then down at
 * s'' = -(g sin th - F/m). The smoothing shifts the turn by ~ v_s / a (asserted within 5 v_s / a). */
static void test_friction_on_inclined_line(void** state) {
    (void)state;
    const double mass = 1.5, g = 9.81, th = PI / 6, v0 = 3.0, vs = 1e-3, F = 0.2 * mass * g * cos(th);
    const double a_up = g * sin(th) + F / mass, a_down = g * sin(th) - F / mass, t1 = v0 / a_up;
    const double s1 = v0 * v0 / (2 * a_up), t_end = t1 + 0.5;
    char forces[256];
    snprintf(forces, sizeof(forces), "  - {type: friction, joint: slide, force: %.17g, v_smooth: %.17g}\n", F, vs);
    static slide_rec r;
    run_block(mass, th, g, forces, v0, t_end, 1e-4, &r);
    /* the turning point (v crosses zero) and the top of the path */
    double t_turn = -1, s_top = -1e9;
    for (int i = 1; i < r.n; i++) {
        if (t_turn < 0 && r.v[i] <= 0) t_turn = r.t[i - 1] + (r.t[i] - r.t[i - 1]) * r.v[i - 1] / (r.v[i - 1] - r.v[i]);
        s_top = fmax(s_top, r.s[i]);
    }
    /* the two accelerations: slopes of v over the middle of each phase */
    int i1 = 0, i2 = 0, i3 = 0, i4 = 0;
    for (int i = 0; i < r.n; i++) {
        if (r.t[i] <= 0.25 * t1) i1 = i;
        if (r.t[i] <= 0.75 * t1) i2 = i;
        if (r.t[i] <= t1 + 0.1) i3 = i;
        if (r.t[i] <= t1 + 0.4) i4 = i;
    }
    const double acc_up = (r.v[i2] - r.v[i1]) / (r.t[i2] - r.t[i1]), acc_down = (r.v[i4] - r.v[i3]) / (r.t[i4] - r.t[i3]);
    /* the end: s(t_end) = s1 - a_down (t_end - t1)^2 / 2 (the smoothing delays the start down by ~v_s/a) */
    const double s_end_ref = s1 - a_down * (t_end - t1) * (t_end - t1) / 2;
    print_message("inclined line: acceleration up %.10f (Newton %.10f), down %.10f (Newton %.10f); turn at %.6f s "
                  "(Coulomb %.6f), top %.8f m (Coulomb %.8f); s(t_end) %.6f m (Coulomb %.6f)\n",
                  -acc_up, a_up, -acc_down, a_down, t_turn, t1, s_top, s1, r.s[r.n - 1], s_end_ref);
    assert_true(fabs(-acc_up - a_up) < 1e-9 * a_up);
    assert_true(fabs(-acc_down - a_down) < 1e-9 * a_down);
    assert_true(fabs(t_turn - t1) < 5 * vs / a_down);
    assert_true(fabs(s_top - s1) < 1e-6 * s1);
    assert_true(fabs(r.s[r.n - 1] - s_end_ref) < 5 * vs / a_down * a_down * (t_end - t1) + 1e-6);
}

/* A damped slider: a zero-length spring with k = 0 and c = 4 N s/m from the ground to a 2 kg
 * block on a horizontal slide: m v' = -c v, v = v0 exp(-c t / m), travel m v0 / c (1 - exp(-c t / m)). */
static void test_damped_slider(void** state) {
    (void)state;
    const double mass = 2.0, c = 4.0, v0 = 1.5, tau = mass / c, t_end = 3.0;
    char forces[256];
    snprintf(forces, sizeof(forces), "  - {type: spring, bodies: [ground, block], points: [K, B], k: 0, c: %.17g}\n", c);
    static slide_rec r;
    run_block(mass, 0.0, 9.81, forces, v0, t_end, 1e-3, &r);
    double ev = 0, ex = 0;
    for (int i = 0; i < r.n; i++) {
        ev = fmax(ev, fabs(r.v[i] - v0 * exp(-r.t[i] / tau)));
        ex = fmax(ex, fabs(r.s[i] - v0 * tau * (1 - exp(-r.t[i] / tau))));
    }
    /* the decay rate from the log of the speed (a line's slope: -c/m) */
    const int i1 = r.n / 4, i2 = 3 * r.n / 4;
    const double rate = -log(r.v[i2] / r.v[i1]) / (r.t[i2] - r.t[i1]);
    print_message("damped slider: decay rate %.12f 1/s (c/m = %.12f), speed within %.2e, travel within %.2e m\n", rate,
                  1 / tau, ev, ex);
    assert_true(fabs(rate - 1 / tau) < 1e-9 / tau);
    assert_true(ev < 1e-10 * v0);
    assert_true(ex < 1e-10 * v0 * tau);
}

/* A spring of free length l0 = 0.3 m from a ground point 0.5 m above the block's start, along a
 * vertical slide, under gravity: tension k (l - l0) along the spring (compression below l0; the
 * block stays below the point, l = 0.5 - s > 0). Equilibrium where k (l - l0) = m g, i.e. at
 * s_eq = (0.5 - l0) - m g / k; from s = 0 at rest the block oscillates
 * about s_eq at w = sqrt(k / m) (closed form s(t) = s_eq (1 - cos w t)); with c = 2 zeta sqrt(k m)
 * the damped oscillator s_eq (1 - exp(-zeta w t) (cos wd t + zeta w / wd sin wd t)). */
static void spring_case(double zeta, double* err_s, double* scale) {
    const double mass = 0.5, k = 200.0, g = 9.81, l0 = 0.3, w = sqrt(k / mass), c = 2 * zeta * sqrt(k * mass);
    const double s_eq = (0.5 - l0) - mass * g / k, wd = w * sqrt(1 - zeta * zeta);
    char forces[512];
    snprintf(forces, sizeof(forces),
             "  - {type: spring, bodies: [ground, block], points: [T, B], k: %.17g, length: %.17g, c: %.17g}\n", k, l0, c);
    /* the ground point T above the start: a second ground point through the body list */
    char all[640];
    snprintf(all, sizeof(all), "%s", forces);
    static slide_rec r;
    /* the slide is vertical (th = 90 degrees): s is the height; the spring pulls it up towards T */
    const double th = PI / 2, T_end = 4 * 2 * PI / w;
    char yaml[2048];
    snprintf(yaml, sizeof(yaml),
             "kedyn: 1\n"
             "bodies:\n"
             "  - {name: ground, type: ground, points: {O: [0, 0], T: [0, 0.5]}}\n"
             "  - {name: block, type: rigid, mass: %.17g, inertia: 0.01, points: {B: [0, 0]}, angle: %.17g}\n"
             "joints:\n"
             "  - {name: slide, type: prismatic, bodies: [ground, block], points: [O, B], axis: [0, 1]}\n"
             "forces:\n"
             "  - {type: gravity, g: [0, %.17g]}\n"
             "%s",
             mass, th, -g, all);
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_string(yaml, strlen(yaml), "spring.yaml", &d, &err)) fail_msg("%s", err.msg);
    kd_mech* m = NULL;
    if (kd_mech_compile(d, &m, &err)) fail_msg("compile: %s", err.msg);
    kd_cms cms;
    kd_mech_cms(m, &cms);
    kd_mbs_opts o;
    kd_mbs_opts_default(&o);
    o.stabilization = KD_MBS_STAB_PROJECTION, o.t_end = T_end, o.dt = 1e-4, o.output_every = 1;
    const double q0[3] = {0, 0, th}, qd0[3] = {0, 0, 0};
    memset(&r, 0, sizeof(r));
    r.ux = 0, r.uy = 1;
    if (kd_mbs_forward(&cms, &o, q0, qd0, slide_out, &r, NULL, &err)) fail_msg("%s", err.msg);
    *err_s = 0, *scale = s_eq;
    for (int i = 0; i < r.n; i++) {
        const double t = r.t[i];
        const double ref = s_eq * (1 - exp(-zeta * w * t) * (cos(wd * t) + zeta * w / wd * sin(wd * t)));
        *err_s = fmax(*err_s, fabs(r.s[i] - ref));
    }
    kd_mech_free(&m);
    kd_desc_free(&d);
}

static void test_spring_and_damper_oscillator(void** state) {
    (void)state;
    double e0, s0, e1, s1;
    spring_case(0.0, &e0, &s0);
    spring_case(0.1, &e1, &s1);
    print_message("spring of free length 0.3 m on a vertical slide: undamped within %.2e of %.4f m; zeta 0.1 within "
                  "%.2e\n", e0 / s0, s0, e1 / s1);
    /* rk4 at w dt = 2e-3: phase error ~ (w dt)^4 w t / 120, far below */
    assert_true(e0 < 1e-8 * s0);
    assert_true(e1 < 1e-8 * s1);
}

/* A zero-length spring-damper (F = -k d - c d') from the origin to a 0.8 kg block on a line
 * inclined by 30 degrees through the origin, under gravity, released at rest at the origin: along
 * the line s'' = -(k/m) s - (c/m) s' - g sin th, so s oscillates about s_eq = -m g sin th / k at
 * w = sqrt(k/m), damped at zeta = c / (2 sqrt(k m)): s = s_eq (1 - e^(-zeta w t) (cos wd t +
 * zeta w / wd sin wd t)) (both components of the spring force act along the line). */
static void test_zero_length_spring_on_inclined_line(void** state) {
    (void)state;
    const double mass = 0.8, k = 300.0, g = 9.81, th = PI / 6;
    for (int damped = 0; damped < 2; damped++) {
        const double zeta = damped ? 0.05 : 0.0, c = 2 * zeta * sqrt(k * mass), w = sqrt(k / mass);
        const double wd = w * sqrt(1 - zeta * zeta), s_eq = -mass * g * sin(th) / k, T = 2 * PI / w;
        char forces[256];
        snprintf(forces, sizeof(forces), "  - {type: spring, bodies: [ground, block], points: [K, B], k: %.17g, c: %.17g}\n",
                 k, c);
        static slide_rec r;
        run_block(mass, th, g, forces, 0.0, 3 * T, T / 2000, &r);
        double e = 0;
        for (int i = 0; i < r.n; i++) {
            const double t = r.t[i];
            const double ref = s_eq - s_eq * exp(-zeta * w * t) * (cos(wd * t) + zeta * w / wd * sin(wd * t));
            e = fmax(e, fabs(r.s[i] - ref));
        }
        print_message("zero-length spring%s on a 30-degree line: s within %.2e of the closed form (amplitude %.4f m)\n",
                      damped ? "-damper" : "", e, fabs(s_eq));
        assert_true(e < 1e-8 * fabs(s_eq));
    }
}

typedef struct spin_rec {
    int n;
    double t[NREC], w[NREC];
} spin_rec;

static int spin_out(void* ctx, const kd_mbs_sample* smp) {
    spin_rec* r = ctx;
    if (r->n < NREC) r->t[r->n] = smp->t, r->w[r->n++] = smp->qd[2];
    return 0;
}

/* A wheel (J_G = 0.05 kg m^2, centre on the pivot) on a revolute joint to the ground, a torque
 * T = 2 N m and a friction torque F_r = 0.5 N m at the joint, spinning at 1 rad/s at t = 0 (the
 * friction saturated: tanh(1 / 1e-3) = 1): w = 1 + (T - F_r) t / J, then with T reversed (the
 * wheel decelerates through the friction: w' = -(T + F_r) / J) until it stops. */
static void test_torque_and_revolute_friction(void** state) {
    (void)state;
    const double J = 0.05, T = 2.0, Fr = 0.5, w0 = 1.0;
    for (int sign = 1; sign >= -1; sign -= 2) {
        char yaml[1024];
        snprintf(yaml, sizeof(yaml),
                 "kedyn: 1\n"
                 "bodies:\n"
                 "  - {name: ground, type: ground, points: {O: [0, 0]}}\n"
                 "  - {name: wheel, type: rigid, mass: 3.0, inertia: %.17g, points: {O: [0, 0]}}\n"
                 "joints:\n"
                 "  - {name: pivot, type: revolute, bodies: [ground, wheel], points: [O, O]}\n"
                 "forces:\n"
                 "  - {type: gravity, g: [0, -9.81]}\n"
                 "  - {type: torque, body: wheel, value: %.17g}\n"
                 "  - {type: friction, joint: pivot, force: %.17g}\n",
                 J, sign * T, Fr);
        kd_desc* d = NULL;
        kd_error err;
        if (kd_load_yaml_string(yaml, strlen(yaml), "wheel.yaml", &d, &err)) fail_msg("%s", err.msg);
        kd_mech* m = NULL;
        if (kd_mech_compile(d, &m, &err)) fail_msg("compile: %s", err.msg);
        kd_cms cms;
        kd_mech_cms(m, &cms);
        kd_mbs_opts o;
        kd_mbs_opts_default(&o);
        o.stabilization = KD_MBS_STAB_PROJECTION, o.t_end = sign > 0 ? 0.5 : 0.015, o.dt = 1e-4, o.output_every = 1;
        const double q0[3] = {0, 0, 0}, qd0[3] = {0, 0, w0};
        static spin_rec r;
        memset(&r, 0, sizeof(r));
        if (kd_mbs_forward(&cms, &o, q0, qd0, spin_out, &r, NULL, &err)) fail_msg("%s", err.msg);
        const double acc = (sign * T - Fr) / J;  /* friction opposes w > 0 throughout */
        double e = 0;
        for (int i = 0; i < r.n; i++) e = fmax(e, fabs(r.w[i] - (w0 + acc * r.t[i])));
        print_message("wheel, torque %+g N m against friction %g N m: w' %.6f rad/s^2 (Newton %.6f), w within %.2e rad/s\n",
                      sign * T, Fr, (r.w[r.n - 1] - r.w[0]) / (r.t[r.n - 1] - r.t[0]), acc, e);
        assert_true(r.w[r.n - 1] > 0.1);  /* still turning forwards: the friction never changed sign */
        assert_true(e < 1e-9 * fabs(acc) * o.t_end);
        kd_mech_free(&m);
        kd_desc_free(&d);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_sliding_to_rest),
        cmocka_unit_test(test_friction_on_inclined_line),
        cmocka_unit_test(test_damped_slider),
        cmocka_unit_test(test_spring_and_damper_oscillator),
        cmocka_unit_test(test_torque_and_revolute_friction),
        cmocka_unit_test(test_zero_length_spring_on_inclined_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
