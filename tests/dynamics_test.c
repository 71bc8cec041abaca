/* Transient response in moving frames (src/analyses/dynamics.c, src/fe/system.c):
 *   - the rotating bar of seed 001: the quasi-static centrifugal stretch
 *     against the closed form of EA u'' + rho A W^2 (u + x) = 0, and the
 *     response to the tip force F sin(nu t) against the modal series of the
 *     continuous rotating bar (eigenfunctions sin((2k-1) pi x / 2L),
 *     omega_k^2 = (E/rho)((2k-1) pi / 2L)^2 - W^2);
 *   - the spin-up of a flexible beam: bounded with geometric stiffness,
 *     spurious divergence without; the energy and work balance closes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/analysis.h"
#include "kedyn/load_yaml.h"
#include "kedyn/modes.h"
#include "kedyn/system.h"
#include "test_util.h"
#include "rotating_bar.h"

typedef struct tip_rec {
    int eq, n;
    double t[20001], u[20001], emax, balance;
} tip_rec;

static int tip_out(void* ctx, double t, const double* q, const double* v, const double* a, const double* e) {
    (void)v, (void)a;
    tip_rec* r = ctx;
    if (r->n < 20001) r->t[r->n] = t, r->u[r->n++] = q[r->eq];
    if (e) {
        r->emax = fmax(r->emax, fmax(e[0] + e[1], fabs(e[2])));
        r->balance = fmax(r->balance, fabs(e[3]));
    }
    return 0;
}

static kd_analysis_desc dyn(double t_end, double dt, int initial_static) {
    kd_analysis_desc a;
    kd_analysis_desc_init(&a, KD_ANALYSIS_DYNAMICS);
    a.dynamics.t_end = t_end, a.dynamics.dt = dt, a.dynamics.integrator = KD_INTEGRATOR_GENERALIZED_ALPHA;
    a.dynamics.rho_inf = 1.0, a.dynamics.output_every = 1, a.dynamics.initial_static = initial_static, a.dynamics.energy = 1;
    a.dynamics.rtol = 1e-8, a.dynamics.atol = 1e-12;
    return a;
}


static void test_centrifugal_stretch(void** state) {
    (void)state;
    double prev = 0;
    for (int n = 10; n <= 40; n *= 2) {
        kd_model* m = rotating_bar(n, 0.0);
        static tip_rec r;
        memset(&r, 0, sizeof(r));
        r.eq = m->neq - 1;
        kd_analysis_desc a = dyn(1e-4, 1e-5, 1);
        kd_error err;
        if (kd_dynamics_run(m, &a, tip_out, &r, NULL, NULL, 0, &err)) fail_msg("%s", err.msg);
        const double e = rel_err(r.u[0], static_stretch_exact());
        /* at rest it stays: a static state under constant loads */
        assert_true(fabs(r.u[r.n - 1] - r.u[0]) < 1e-9 * fabs(r.u[0]));
        print_message("centrifugal stretch, %d elements: %.6e m, rel. error %.2e\n", n, r.u[0], e);
        if (prev > 0) assert_true(fabs(log2(prev / e) - 2.0) < 0.1);  /* linear elements: O(h^2) */
        assert_true(e < 2e-4);
        prev = e;
        kd_model_free(&m);
    }
}

static void test_forced_rotating_bar(void** state) {
    (void)state;
    kd_model* m = rotating_bar(80, BF);
    static tip_rec r;
    memset(&r, 0, sizeof(r));
    r.eq = m->neq - 1;
    kd_analysis_desc a = dyn(0.02, 2e-6, 1);
    kd_integrate_stats stats;
    kd_error err;
    if (kd_dynamics_run(m, &a, tip_out, &r, &stats, NULL, 0, &err)) fail_msg("%s", err.msg);
    const double u0 = static_stretch_exact();
    double emax = 0, umax = 0;
    for (int i = 0; i < r.n; i += 10) {
        const double ref = tip_series(r.t[i]);
        emax = fmax(emax, fabs(r.u[i] - u0 - ref));
        umax = fmax(umax, fabs(ref));
    }
    print_message("rotating bar, 80 elements: tip response max error %.2e of amplitude %.3e m; balance %.1e of %.1e J\n",
                  emax / umax, umax, r.balance, r.emax);
    assert_true(emax < 5e-3 * umax);
    assert_true(r.balance < 1e-6 * r.emax);
    assert_int_equal(stats.factorizations, 1);  /* constant speed: one factorisation */
    kd_model_free(&m);
}

/* Spin-up (Simo & Vu-Quoc 1987): L = 10 m, EI = 1.4e4, rho A = 1.2, to
 * 6 rad/s in 15 s. */
static double spin_up_peak(int geometric, double* balance, double* emax) {
    kd_section_desc s = {0};
    s.shape = KD_SHAPE_GENERIC, s.A = 1e-4, s.Iy = s.Iz = 5e-8, s.J = 1e-7;
    kd_desc* d = one_beam(2.8e11, 12000, 0.3, s, 10.0, 10, KD_THEORY_EULER_BERNOULLI, KD_INTERP_CUBIC, 1);
    d->bodies[0].geometric_stiffness = geometric;
    fix(d, 1, KD_FIX_ALL);
    kd_motion_desc* md = kd_desc_add_motion(d);
    md->body = 0, md->motion.type = KD_MOTION_ROTATION, md->motion.axis[2] = 1;
    md->motion.angle = kd_law_constant(0);
    md->motion.angle.type = KD_LAW_SPIN_UP, md->motion.angle.spin_omega = 6, md->motion.angle.spin_T = 15;
    kd_error err;
    kd_model* m = NULL;
    assert_int_equal(kd_model_compile(d, &m, &err), KD_OK);
    static tip_rec r;
    memset(&r, 0, sizeof(r));
    r.eq = m->neq - 2;  /* v at the tip (u v rz per node) */
    kd_analysis_desc a = dyn(20, 1e-3, 0);
    a.dynamics.rho_inf = 0.9, a.dynamics.output_every = 1;
    char warning[256] = "";
    kd_dynamics_run(m, &a, tip_out, &r, NULL, warning, (int)sizeof(warning), &err);
    double peak = 0;
    for (int i = 0; i < r.n; i++) peak = fmax(peak, fabs(r.u[i]));
    *balance = r.balance, *emax = r.emax;
    if (!geometric) assert_non_null(strstr(warning, "not positive definite"));
    kd_model_free(&m);
    kd_desc_free(&d);
    return peak;
}

/* The tip lag of the spin-up, quasi-statically (the load varies over 15 s, the first period is
 * 1.65 s): the hub's angular acceleration th'' loads the beam with rho A th'' x, whose static tip
 * deflection is 11 rho A th'' L^5 / (120 EI); the spin changes the first mode's stiffness in the
 * plane of rotation by (K_s - 1) Omega^2, K_s = 1.193 (Southwell coefficient of a uniform
 * cantilever, centrifugal stiffening K_s Omega^2 minus the in-plane softening Omega^2), so
 * v_tip(t) = 11 rho A th''(t) L^5 / (120 EI) w0^2 / (w0^2 + (K_s - 1) Omega(t)^2) with one mode;
 * its largest value over the spin-up law (Omega = (W/T)(t - T/2pi sin 2pi t/T)). */
static double spin_up_quasi_static_peak(void) {
    const double rA = 1.2, EI = 1.4e4, L = 10, Ws = 6, T = 15, Ks = 1.193;
    const double w0sq = pow(1.8751040687119611, 4) * EI / (rA * pow(L, 4));
    double peak = 0;
    for (int i = 0; i <= 15000; i++) {
        const double t = i * 1e-3, acc = Ws / T * (1 - cos(2 * PI * t / T));
        const double W = Ws / T * (t - T / (2 * PI) * sin(2 * PI * t / T));
        peak = fmax(peak, 11 * rA * acc * pow(L, 5) / (120 * EI) * w0sq / (w0sq + (Ks - 1) * W * W));
    }
    return peak;
}

static void test_spin_up(void** state) {
    (void)state;
    double bal, emax;
    const double with = spin_up_peak(1, &bal, &emax), ref = spin_up_quasi_static_peak();
    print_message("spin-up with geometric stiffness: peak tip deflection %.4f m (quasi-static one-mode estimate %.4f m, "
                  "%.2e), balance %.1e of %.1e J\n", with, ref, rel_err(with, ref), bal, emax);
    /* the estimate neglects the dynamic lag and the higher modes' part of the static deflection
     * (stiffened differently): measured 0.7 %, asserted 2 % */
    assert_true(rel_err(with, ref) < 0.02);
    assert_true(bal < 1e-4 * emax);
    const double without = spin_up_peak(0, &bal, &emax);
    print_message("spin-up without: peak tip deflection %.3e m (divergence)\n", without);
    assert_true(without > 1e3);
}

/* Free vibration from the first mode shape of a cantilever at rest
 * (initial: {mode: 1, amplitude: A}): the tip oscillates as A cos(w1 t)
 * with w1 = (1.87510407)^2 sqrt(EI / rho A) / L^2 (closed form); the
 * average-acceleration rule keeps the amplitude and lengthens the period by
 * (w dt)^2 / 12. */
typedef struct osc_rec {
    int eq, n;
    double t[4001], q[4001], v[4001], e0, edrift;
} osc_rec;

static int osc_out(void* ctx, double t, const double* q, const double* v, const double* a, const double* e) {
    (void)a;
    osc_rec* r = ctx;
    if (r->n < 4001) r->t[r->n] = t, r->q[r->n] = q[r->eq], r->v[r->n++] = v[r->eq];
    if (e) {
        if (r->n == 1) r->e0 = e[0] + e[1];
        r->edrift = fmax(r->edrift, fabs(e[0] + e[1] - r->e0) / r->e0);
    }
    return 0;
}

static void test_free_vibration_from_mode(void** state) {
    (void)state;
    const double dia = 0.01, Lc = 1.0, E = 210e9, rho = 7800, A = PI * dia * dia / 4, I = PI * pow(dia, 4) / 64;
    const double w1 = pow(1.87510407, 2) * sqrt(E * I / (rho * A)) / (Lc * Lc), T1 = 2 * PI / w1, amp = 1e-3;
    kd_desc* d = one_beam(E, rho, 0.3, circle(dia), Lc, 20, KD_THEORY_EULER_BERNOULLI, KD_INTERP_CUBIC, 1);
    fix(d, 1, KD_FIX_ALL);
    kd_error err;
    kd_model* m = NULL;
    assert_int_equal(kd_model_compile(d, &m, &err), KD_OK);
    kd_analysis_desc a = dyn(10 * T1, T1 / 400, 0);
    a.dynamics.integrator = KD_INTEGRATOR_NEWMARK, a.dynamics.newmark_beta = 0.25, a.dynamics.newmark_gamma = 0.5;
    a.dynamics.initial_mode = 1, a.dynamics.initial_amplitude = amp;
    static osc_rec r;
    memset(&r, 0, sizeof(r));
    r.eq = m->neq - 2;  /* tip v (DOFs u v rz) */
    if (kd_dynamics_run(m, &a, osc_out, &r, NULL, NULL, 0, &err)) fail_msg("%s", err.msg);
    assert_true(fabs(r.q[0] - amp) < 1e-15 && r.v[0] == 0.0);
    /* period from the first and last downward zero crossings */
    double first = -1, last = -1;
    int ncross = 0;
    for (int i = 1; i < r.n; i++)
        if (r.q[i - 1] > 0 && r.q[i] <= 0) {
            const double tc = r.t[i - 1] + (r.t[i] - r.t[i - 1]) * r.q[i - 1] / (r.q[i - 1] - r.q[i]);
            if (first < 0) first = tc;
            last = tc, ncross++;
        }
    const double w_meas = 2 * PI * (ncross - 1) / (last - first), dt = T1 / 400;
    const double elongation = pow(w1 * dt, 2) / 12;
    const double e_freq = rel_err(w_meas, w1);
    /* amplitude: sqrt(q^2 + (v / w)^2) of the tip, all along */
    double e_amp = 0;
    for (int i = 0; i < r.n; i++) e_amp = fmax(e_amp, fabs(hypot(r.q[i], r.v[i] / w_meas) - amp) / amp);
    print_message("mode-shape start: w1 %.8f (closed form %.8f), error %.2e (Newmark elongation %.2e); "
                  "amplitude error %.2e, energy drift %.1e\n",
                  w_meas, w1, e_freq, elongation, e_amp, r.edrift);
    assert_true(e_freq < 1.2 * elongation + 1e-6);
    assert_true(fabs(e_freq - elongation) < 2e-6);  /* what remains is the 20-element model (~1e-8) */
    assert_true(e_amp < 1e-4);
    assert_true(r.edrift < 1e-10);
    kd_model_free(&m);
    kd_desc_free(&d);
}

/* Nodal initial values: q and q' land on their equations at t = 0; the
 * rest of the state stays zero. */
static void test_initial_values(void** state) {
    (void)state;
    kd_desc* d = one_beam(210e9, 7800, 0.3, circle(0.01), 1.0, 4, KD_THEORY_EULER_BERNOULLI, KD_INTERP_CUBIC, 1);
    fix(d, 1, KD_FIX_ALL);
    kd_analysis_desc* a = kd_desc_add_analysis(d, KD_ANALYSIS_DYNAMICS);
    a->dynamics.t_end = 1e-3, a->dynamics.dt = 1e-4, a->dynamics.integrator = KD_INTEGRATOR_NEWMARK;
    kd_initial_value* iv = kd_desc_add_initial(&a->dynamics);
    iv->body = 0, iv->node = 5, iv->dof = KD_DOF_V, iv->value = 2e-3;
    iv = kd_desc_add_initial(&a->dynamics);
    iv->body = 0, iv->node = 3, iv->dof = KD_DOF_RZ, iv->velocity = 1, iv->value = -0.5;
    kd_error err;
    assert_int_equal(kd_desc_check(d, &err), KD_OK);
    kd_model* m = NULL;
    assert_int_equal(kd_model_compile(d, &m, &err), KD_OK);
    static osc_rec r;
    memset(&r, 0, sizeof(r));
    r.eq = m->neq - 2;
    assert_int_equal(kd_dynamics_run(m, a, osc_out, &r, NULL, NULL, 0, &err), KD_OK);
    assert_true(r.q[0] == 2e-3 && r.v[0] == 0.0);
    r.n = 0, r.eq = 3 * 2 - 1;  /* node 3 rz: node 1 is clamped, equations start at node 2 */
    assert_int_equal(kd_dynamics_run(m, a, osc_out, &r, NULL, NULL, 0, &err), KD_OK);
    assert_true(r.q[0] == 0.0 && r.v[0] == -0.5);
    /* a value on a supported DOF is an input error */
    iv = kd_desc_add_initial(&d->analyses[0].dynamics);
    iv->body = 0, iv->node = 1, iv->dof = KD_DOF_V, iv->value = 1.0;
    assert_int_equal(kd_desc_check(d, &err), KD_ERR_INPUT);
    assert_non_null(strstr(err.msg, "fixes"));
    kd_model_free(&m);
    kd_desc_free(&d);
}

/* Seed 001's parameter studies (examples/rotating_bar_studies.yaml): every
 * run of every sweep, with the parameters set by kd_desc_with_param, on a
 * converged mesh (80 elements, dt = 2e-6 s, 0.02 s), against the modal
 * series of the continuous bar with that run's A, rho and nu:
 * u(L, t) - u_static = sum_k phi_k(L)^2 F / m_k (sin nu t - nu/w_k sin w_k t) / (w_k^2 - nu^2),
 * phi_k = sin(b_k x), b_k = (2k - 1) pi / 2L, m_k = rho A L / 2,
 * w_k^2 = (E / rho) b_k^2 - W^2; u_static(L) = -L + tan(k L) / k, k = W sqrt(rho / E). */
static double bar_series(double t, double A, double rho, double nu) {
    double u = 0;
    for (int k = 1; k <= 2000; k++) {
        const double b = (2 * k - 1) * PI / (2 * BL), w = sqrt(BE / rho * b * b - BW * BW);
        const double phiL = sin(b * BL), mk = rho * A * BL / 2;
        u += phiL * phiL * BF / mk * (sin(nu * t) - nu / w * sin(w * t)) / (w * w - nu * nu);
    }
    return u;
}

static void test_seed001_studies(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_file(KD_TEST_MODELS_DIR "/../../examples/rotating_bar_studies.yaml", &d, &err)) fail_msg("%s", err.msg);
    assert_int_equal(d->nanalyses, 3);
    for (int s = 0; s < d->nanalyses; s++) {
        assert_int_equal(d->analyses[s].type, KD_ANALYSIS_SWEEP);
        const kd_sweep_desc* sw = &d->analyses[s].sweep;
        for (int i = 0; i < sw->nruns; i++) {
            kd_desc dv;
            assert_int_equal(kd_desc_with_param(d, sw->nset, sw->set, sw->values + (size_t)i * sw->nset, &dv, &err), KD_OK);
            dv.bodies[0].elements = 80, dv.loads[0].node = 81;  /* the copy's own arrays */
            const double A = dv.sections[0].A, rho = dv.materials[0].rho, nu = dv.loads[0].value.omega;
            kd_model* m = NULL;
            assert_int_equal(kd_model_compile(&dv, &m, &err), KD_OK);
            static tip_rec r;
            memset(&r, 0, sizeof(r));
            r.eq = m->neq - 1;
            kd_analysis_desc a = dyn(0.02, 2e-6, 1);
            if (kd_dynamics_run(m, &a, tip_out, &r, NULL, NULL, 0, &err)) fail_msg("%s", err.msg);
            const double k = BW * sqrt(rho / BE), u0 = -BL + tan(k * BL) / k;
            double emax = 0, umax = 0;
            for (int j = 0; j < r.n; j += 10) {
                const double ref = bar_series(r.t[j], A, rho, nu);
                emax = fmax(emax, fabs(r.u[j] - u0 - ref));
                umax = fmax(umax, fabs(ref));
            }
            print_message("%-15s %-16s A = %.0e m^2, mass %.2f kg, nu = %3.0f rad/s: amplitude %.3e m, error %.1e\n",
                          sw->set[0], sw->nset > 1 ? sw->set[1] : "", A, rho * A * BL, nu, umax, emax / umax);
            assert_true(emax < 1e-3 * umax);
            kd_model_free(&m);
            kd_desc_with_param_free(&dv);
        }
    }
    kd_desc_free(&d);
}

/* The seed 001 bar's first axial frequency in its rotating frame: the spin softens the axial
 * motion by k(omega) = -rho A W^2 [m], so w_1 = sqrt((pi / 2L)^2 E / rho - W^2) for the continuous
 * bar (3218.7 rad/s); linear elements with consistent mass overestimate it by O(h^2):
 * ~(pi / 2n)^2 / 24 (w_0 / w_1)^2 relative, 1.03e-3 at 10 elements, a quarter of it at 20. */
static void test_rotating_bar_axial_frequency(void** state) {
    (void)state;
    const double ref = sqrt(pow(PI / (2 * BL), 2) * BE / BRHO - BW * BW);
    double prev = 0;
    for (int n = 10; n <= 20; n *= 2) {
        kd_model* m = rotating_bar(n, 0.0);
        kd_system s;
        kd_error err;
        if (kd_system_init(&s, m, &err)) fail_msg("%s", err.msg);
        kd_modes r = {0};
        if (kd_modes_state_space(&s, 0.0, 1, &r, &err)) fail_msg("%s", err.msg);
        const double e = (r.omega[0] - ref) / ref, bound = pow(PI / (2 * n), 2) / 24 * (BE / BRHO * pow(PI / (2 * BL), 2)) / (ref * ref);
        print_message("rotating bar, %d elements: first axial frequency %.2f rad/s (closed form %.2f), error %.2e "
                      "(O(h^2) estimate %.2e)\n", n, r.omega[0], ref, e, bound);
        assert_true(e > 0 && e < 1.3 * bound);
        if (prev > 0) assert_true(fabs(log2(prev / e) - 2.0) < 0.1);
        prev = e;
        kd_modes_free(&r);
        kd_system_free(&s);
        kd_model_free(&m);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rotating_bar_axial_frequency),
        cmocka_unit_test(test_centrifugal_stretch),
        cmocka_unit_test(test_forced_rotating_bar),
        cmocka_unit_test(test_spin_up),
        cmocka_unit_test(test_free_vibration_from_mode),
        cmocka_unit_test(test_initial_values),
        cmocka_unit_test(test_seed001_studies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
