/* One-way kineto-elastodynamics of elastic links (src/links/, kedyn/ked.h)
 * against independent references:
 *   - a slider-crank whose elastic rod turns at a vanishing crank speed:
 *     the rod's frequencies along the motion are those of a pinned-pinned
 *     beam, (n pi / L)^2 sqrt(EI / rho A) (closed form);
 *   - a rod pinned to the ground and to a slide pulled (or pushed) by a
 *     known force P: the exact frequencies of a pinned-pinned beam under an
 *     axial force, omega_n^2 = ((n pi/L)^4 EI + (n pi/L)^2 P) / (rho A),
 *     through the mechanism's joint reaction and the geometric stiffness;
 *   - the same rod with a tension rising through the crossing of a bending
 *     and the axial mode: the modal assurance criterion keeps the axial
 *     curve flat (its frequency does not depend on the tension);
 *   - the rigid limit: deflections scale as 1/E, and the elastic share of
 *     the joint forces vanishes with it, against the rigid mechanism's
 *     multipliers (a different code) at the quasi-static start, where the
 *     joint forces and the link's inertia loads must balance;
 *   - convergence with elements: the second frequency of the rod with 4, 8,
 *     16, 32 elements converges at the cubic Hermite rate h^4;
 *   - section forces: the rod pinned at both ends under its own weight and an
 *     axial pull P, at the quasi-static start: midspan deflection
 *     5 q L^4 / (384 EI) (exact at the nodes of cubic elements), moment
 *     q L^2 / 8, axial force P, stress P/A + M c/I;
 *   - the quintic Hermite law reproduces a quintic polynomial exactly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/ked.h"
#include "kedyn/load_yaml.h"
#include "kedyn/modes.h"
#include "kedyn/system.h"
#include "test_util.h"

static const double E_STEEL = 210e9, RHO = 7800, B_SEC = 0.025, H_SEC = 0.006, L_ROD = 0.46;

static kd_desc* load(const char* yaml) {
    kd_desc* d = NULL;
    kd_error err;
    kd_error_clear(&err);
    if (kd_load_yaml_string(yaml, strlen(yaml), "test.yaml", &d, &err))
        fail_msg("load: %d:%d %s", err.loc.line, err.loc.col, err.msg);
    return d;
}

static kd_ked* ked(const kd_desc* d, double t_end, int steps, double speed) {
    kd_ked_opts o = {t_end, steps, speed, 1e8};
    kd_ked* k = NULL;
    kd_error err;
    kd_error_clear(&err);
    if (kd_ked_new(d, &o, &k, &err)) fail_msg("ked: %d:%d %s", err.loc.line, err.loc.col, err.msg);
    return k;
}

/* Pinned-pinned beam under axial force P (tension > 0), closed form. */
static double omega_pp(int n, double P) {
    const double A = B_SEC * H_SEC, I = B_SEC * H_SEC * H_SEC * H_SEC / 12.0, k = n * PI / L_ROD;
    return sqrt((k * k * k * k * E_STEEL * I + k * k * P) / (RHO * A));
}

static const char* SLIDER_CRANK =
    "kedyn: 1\n"
    "materials: {steel: {E: 210e9, rho: 7800, nu: 0.3}}\n"
    "sections: {flat: {shape: rectangle, b: 0.025, h: 0.006}}\n"
    "bodies:\n"
    "  - {name: ground, type: ground, points: {O: [0, 0], S: [0, 0]}}\n"
    "  - {name: crank, type: rigid, mass: 1.0, inertia: 8.3e-4, com: [0.05, 0], points: {O: [0, 0], A: [0.1, 0]}}\n"
    "  - {name: rod, type: beam, material: steel, section: flat, elements: %d, points: {A: [0.1, 0], B: [0.56, 0]}}\n"
    "  - {name: slider, type: rigid, mass: 0.5, inertia: 1.0e-4, points: {B: [0, 0]}, position: [0.56, 0]}\n"
    "joints:\n"
    "  - {name: jO, type: revolute, bodies: [ground, crank], points: [O, O]}\n"
    "  - {name: jA, type: revolute, bodies: [crank, rod], points: [A, A]}\n"
    "  - {name: jB, type: revolute, bodies: [rod, slider], points: [B, B]}\n"
    "  - {name: jS, type: prismatic, bodies: [ground, slider], points: [S, B], axis: [1, 0]}\n"
    "drivers:\n"
    "  - {joint: jO, law: {speed: %g}, initial: 0.3}\n";

static kd_desc* slider_crank(int elements, double speed) {
    char buf[2048];
    snprintf(buf, sizeof(buf), SLIDER_CRANK, elements, speed);
    return load(buf);
}

/* At a vanishing crank speed the rod's frequencies are those of the pinned-pinned beam. */
static void test_vanishing_speed(void** state) {
    (void)state;
    kd_desc* d = slider_crank(10, 1e-3);
    kd_ked* k = ked(d, 1.0, 8, 0.0);
    kd_ked_modes m;
    kd_error err;
    assert_int_equal(kd_ked_modes_along_motion(k, 0, 3, &m, &err), KD_OK);
    for (int i = 0; i < m.nsamples; i++)
        for (int n = 1; n <= 3; n++) {
            const double ref = omega_pp(n, 0.0), got = m.omega[i * 3 + n - 1];
            const double tol = n == 1 ? 1e-5 : (n == 2 ? 2e-4 : 1e-3);  /* cubic Hermite, 10 elements */
            if (fabs(got / ref - 1) > tol) fail_msg("mode %d at t = %g: %.8g vs %.8g", n, m.t[i], got, ref);
        }
    printf("vanishing speed: omega_1 %.6f (closed form %.6f), omega_3 %.4f (%.4f) rad/s\n", m.omega[0], omega_pp(1, 0),
           m.omega[2], omega_pp(3, 0));
    kd_ked_modes_free(&m);
    kd_ked_free(&k);
    kd_desc_free(&d);
}

static const char* TENSION_ROD =
    "kedyn: 1\n"
    "materials: {steel: {E: 210e9, rho: 7800, nu: 0.3}}\n"
    "sections: {flat: {shape: rectangle, b: 0.025, h: 0.006}}\n"
    "bodies:\n"
    "  - {name: ground, type: ground, points: {A: [0, 0], S: [0.46, 0]}}\n"
    "  - {name: rod, type: beam, material: steel, section: flat, elements: 10, points: {A: [0, 0], B: [0.46, 0]}}\n"
    "  - {name: slide, type: rigid, mass: 0.5, inertia: 1.0e-4, points: {B: [0, 0]}, position: [0.46, 0]}\n"
    "joints:\n"
    "  - {name: jA, type: revolute, bodies: [ground, rod], points: [A, A]}\n"
    "  - {name: jB, type: revolute, bodies: [rod, slide], points: [B, B]}\n"
    "  - {name: jS, type: prismatic, bodies: [ground, slide], points: [S, B], axis: [1, 0]}\n"
    "drivers:\n"
    "  - {joint: jA, law: 0.0}\n"
    "forces:\n"
    "  - {type: force, body: slide, point: B, value: [%s, 0]}\n";

/* A known axial force through the joints: the exact frequency shift. */
static void test_axial_force_shift(void** state) {
    (void)state;
    const double I = B_SEC * H_SEC * H_SEC * H_SEC / 12.0, Pcr = PI * PI * E_STEEL * I / (L_ROD * L_ROD);
    const double loads[3] = {0.5 * Pcr, -0.5 * Pcr, 5.0 * Pcr};
    for (int c = 0; c < 3; c++) {
        char buf[2048], val[64];
        snprintf(val, sizeof(val), "%.10g", loads[c]);
        snprintf(buf, sizeof(buf), TENSION_ROD, val);
        kd_desc* d = load(buf);
        kd_ked* k = ked(d, 1.0, 2, 0.0);
        kd_ked_modes m;
        kd_error err;
        assert_int_equal(kd_ked_modes_along_motion(k, 0, 2, &m, &err), KD_OK);
        for (int n = 1; n <= 2; n++) {
            const double ref = omega_pp(n, loads[c]), got = m.omega[n - 1];
            if (fabs(got / ref - 1) > (n == 1 ? 2e-5 : 3e-4))
                fail_msg("P = %g N, mode %d: %.8g vs closed form %.8g", loads[c], n, got, ref);
        }
        /* without the force the frequency differs: the test sees the preload */
        assert_true(fabs(m.omega[0] / omega_pp(1, 0.0) - 1) > 0.1);
        printf("P = %+.1f N: omega_1 %.5f, closed form %.5f rad/s\n", loads[c], m.omega[0], omega_pp(1, loads[c]));
        kd_ked_modes_free(&m);
        kd_ked_free(&k);
        kd_desc_free(&d);
    }
}

/* A tension rising through the crossing of the 6th bending mode and the
 * axial mode (fixed-free bar, (pi/2L) sqrt(E/rho), independent of tension):
 * the followed axial curve stays flat. */
static void test_mac_tracking(void** state) {
    (void)state;
    char buf[2048];
    snprintf(buf, sizeof(buf), TENSION_ROD, "{sine: {amplitude: 40000, omega: 3.14159265, offset: 40000, phase: -1.5707963}}");
    kd_desc* d = load(buf);
    kd_ked* k = ked(d, 1.0, 100, 0.0);
    const int count = 7;
    kd_ked_modes m;
    kd_error err;
    assert_int_equal(kd_ked_modes_along_motion(k, 0, count, &m, &err), KD_OK);
    const double w_axial = PI / (2 * L_ROD) * sqrt(E_STEEL / RHO);
    /* the curve that starts as the axial mode */
    int ax = -1;
    for (int c = 0; c < count; c++)
        if (fabs(m.omega[c] / w_axial - 1) < 3e-3) ax = c;  /* linear axial elements: +(kh)^2/24 */
    assert_true(ax >= 0);
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < m.nsamples; i++) lo = fmin(lo, m.omega[i * count + ax]), hi = fmax(hi, m.omega[i * count + ax]);
    printf("MAC tracking: axial curve %d in [%.2f, %.2f] rad/s (bar: %.2f), %d reordered instants, MAC >= %.4f\n", ax + 1,
           lo, hi, w_axial, m.swaps, m.mac_min);
    assert_true(m.swaps > 0);                /* the modes did cross */
    assert_true(hi / lo - 1 < 1e-3);         /* and the axial curve was followed */
    kd_ked_modes_free(&m);
    kd_ked_free(&k);
    kd_desc_free(&d);
}

/* Output of a link integration: the extremes. */
typedef struct extremes {
    kd_ked* k;
    double vmax, dF0, F0;
    int rows;
} extremes;

static int on_state(void* ctx, int link, double t, const double* q, const double* v, const double* a) {
    extremes* x = ctx;
    double disp[3 * 64], dF[2 * KD_KED_LINK_JOINTS];
    kd_ked_link_displacements(x->k, link, q, disp);
    for (int n = 0; n < x->k->link[link].model->nnode; n++) x->vmax = fmax(x->vmax, fabs(disp[3 * n + 1]));
    if (x->rows++ == 0) {
        kd_ked_link_reactions(x->k, link, t, q, v, a, dF);
        for (int j = 0; j < x->k->link[link].njoint; j++) {
            x->dF0 = fmax(x->dF0, hypot(dF[2 * j], dF[2 * j + 1]));
            const double* F = x->k->rigid.F + 3 * x->k->link[link].joint[j];
            x->F0 = fmax(x->F0, hypot(F[0], F[1]));
        }
    }
    return 0;
}

static extremes run_slider_crank(double E) {
    kd_desc* d = slider_crank(10, 20.0);
    d->materials[0].E = E;
    kd_ked* k = ked(d, 0.3, 120, 0.0);
    kd_analysis_desc ad;
    kd_analysis_desc_init(&ad, KD_ANALYSIS_DYNAMICS);
    ad.dynamics.t_end = 0.3, ad.dynamics.dt = 2e-5, ad.dynamics.integrator = KD_INTEGRATOR_GENERALIZED_ALPHA;
    ad.dynamics.rho_inf = 0.9, ad.dynamics.output_every = 1, ad.dynamics.newmark_beta = 0.25, ad.dynamics.newmark_gamma = 0.5;
    extremes x = {k, 0, 0, 0, 0};
    kd_integrate_stats st;
    kd_error err;
    if (kd_ked_link_dynamics(k, 0, &ad, on_state, &x, &st, &err)) fail_msg("dynamics: %s", err.msg);
    kd_ked_free(&k);
    kd_desc_free(&d);
    return x;
}

/* The rigid limit: deflection ~ 1/E; elastic joint forces vanish. */
static void test_rigid_limit(void** state) {
    (void)state;
    const extremes a = run_slider_crank(E_STEEL), b = run_slider_crank(10 * E_STEEL), c = run_slider_crank(100 * E_STEEL);
    printf("rigid limit: max |v| %.4e, %.4e, %.4e m for E, 10 E, 100 E; elastic joint force at t = 0: %.3e of %.3e N\n",
           a.vmax, b.vmax, c.vmax, a.dF0, a.F0);
    assert_true(a.vmax > 1e-7);
    assert_true(fabs(a.vmax / b.vmax / 10 - 1) < 0.15);
    assert_true(fabs(b.vmax / c.vmax / 10 - 1) < 0.05);
    /* the joint forces of the multipliers balance the FE inertia loads at the quasi-static start */
    assert_true(a.dF0 < 1e-4 * a.F0);
    assert_true(c.dF0 < 1e-6 * c.F0);
}

/* Convergence of the first frequency with elements (cubic Hermite: h^4). */
static void test_convergence(void** state) {
    (void)state;
    const int ne[4] = {4, 8, 16, 32};
    double w[4];
    for (int i = 0; i < 4; i++) {
        kd_desc* d = slider_crank(ne[i], 15.0);
        kd_ked* k = ked(d, 0.1, 2, 0.0);
        kd_ked_modes m;
        kd_error err;
        assert_int_equal(kd_ked_modes_along_motion(k, 0, 2, &m, &err), KD_OK);
        w[i] = m.omega[1];  /* the second mode: its error is large enough to measure */
        kd_ked_modes_free(&m);
        kd_ked_free(&k);
        kd_desc_free(&d);
    }
    const double r1 = (w[0] - w[1]) / (w[1] - w[2]), r2 = (w[1] - w[2]) / (w[2] - w[3]);
    printf("convergence: omega_2 %.6f %.6f %.6f %.6f rad/s, ratios %.2f %.2f (h^4: 16)\n", w[0], w[1], w[2], w[3], r1, r2);
    assert_true(r1 > 12 && r1 < 20);
    assert_true(r2 > 12 && r2 < 20);
}

/* The first output instant of a link: displacements and section forces. */
typedef struct first_state {
    kd_ked* k;
    double disp[3 * 64], sf[3 * 64];
    int done;
} first_state;

static int on_first(void* ctx, int link, double t, const double* q, const double* v, const double* a) {
    (void)t, (void)v, (void)a;
    first_state* f = ctx;
    if (f->done++) return 0;
    kd_ked_link_displacements(f->k, link, q, f->disp);
    kd_ked_link_section_forces(f->k, link, q, f->sf);
    return 0;
}

/* Section forces and stress of a pinned-pinned rod under its weight and an axial pull P, at the
 * quasi-static start: the beam-column solution (Timoshenko & Gere) with u = (L/2) sqrt(P/EI). */
static void test_section_forces(void** state) {
    (void)state;
    const double P = 1000.0, A = B_SEC * H_SEC, I = B_SEC * H_SEC * H_SEC * H_SEC / 12.0, q = RHO * A * 9.81;
    char buf[2048], val[64];
    snprintf(val, sizeof(val), "%.10g", P);
    snprintf(buf, sizeof(buf), TENSION_ROD, val);
    strcat(buf, "  - {type: gravity, g: [0, -9.81]}\n");
    kd_desc* d = load(buf);
    kd_ked* k = ked(d, 0.01, 2, 0.0);
    kd_analysis_desc ad;
    kd_analysis_desc_init(&ad, KD_ANALYSIS_DYNAMICS);
    ad.dynamics.t_end = 1e-4, ad.dynamics.dt = 1e-4, ad.dynamics.integrator = KD_INTEGRATOR_GENERALIZED_ALPHA;
    ad.dynamics.rho_inf = 0.9, ad.dynamics.output_every = 1, ad.dynamics.newmark_beta = 0.25, ad.dynamics.newmark_gamma = 0.5;
    first_state f;
    memset(&f, 0, sizeof(f));
    f.k = k;
    kd_integrate_stats st;
    kd_error err;
    if (kd_ked_link_dynamics(k, 0, &ad, on_first, &f, &st, &err)) fail_msg("dynamics: %s", err.msg);
    const double u = sqrt(P / (E_STEEL * I)) * L_ROD / 2;
    const double eta = 24.0 / (5 * pow(u, 4)) * (1 / cosh(u) - 1 + u * u / 2);  /* deflection factor */
    const double mu = 2.0 / (u * u) * (1 - 1 / cosh(u));                       /* moment factor */
    const double v_ref = -5 * q * pow(L_ROD, 4) / (384 * E_STEEL * I) * eta, M_ref = q * L_ROD * L_ROD / 8 * mu;  /* sagging: v'' > 0 */
    const double v6 = f.disp[3 * 5 + 1], N6 = f.sf[3 * 5], M6 = f.sf[3 * 5 + 1], s6 = f.sf[3 * 5 + 2];
    printf("section forces: v_mid %.6e (beam-column %.6e) m, M_mid %.5f (%.5f) N m, N %.4f (%.1f) N, sigma %.5e Pa\n",
           v6, v_ref, M6, M_ref, N6, P, s6);
    assert_true(fabs(v6 / v_ref - 1) < 2e-3);
    assert_true(fabs(M6 / M_ref - 1) < 1e-2);  /* cubic elements: nodal moments within q h^2/12 */
    assert_true(fabs(N6 / P - 1) < 1e-6);
    assert_true(fabs(s6 - (fabs(N6) / A + fabs(M6) * 0.5 * H_SEC / I)) < 1e-9 * s6);
    kd_ked_free(&k);
    kd_desc_free(&d);
}

/* The quintic Hermite law is exact for quintic polynomials. */
static void test_hermite_law(void** state) {
    (void)state;
    const double ts[4] = {0.0, 0.3, 0.7, 1.2};
    double f[4], df[4], d2f[4];
    for (int i = 0; i < 4; i++) {
        const double t = ts[i];
        f[i] = pow(t, 5) - 2 * pow(t, 3) + t, df[i] = 5 * pow(t, 4) - 6 * t * t + 1, d2f[i] = 20 * pow(t, 3) - 12 * t;
    }
    kd_law law;
    kd_error err;
    assert_int_equal(kd_law_hermite(&law, 4, ts, f, df, d2f, &err), KD_OK);
    for (double t = 0.0; t <= 1.2; t += 0.01) {
        double v, dv, d2v;
        kd_law_eval(&law, t, &v, &dv, &d2v);
        assert_true(fabs(v - (pow(t, 5) - 2 * pow(t, 3) + t)) < 1e-12);
        assert_true(fabs(dv - (5 * pow(t, 4) - 6 * t * t + 1)) < 1e-11);
        assert_true(fabs(d2v - (20 * pow(t, 3) - 12 * t)) < 1e-10);
    }
    kd_law copy;
    assert_int_equal(kd_law_copy(&copy, &law), KD_OK);
    double v, dv, d2v;
    kd_law_eval(&copy, 0.5, &v, &dv, &d2v);
    assert_true(fabs(v - (pow(0.5, 5) - 2 * pow(0.5, 3) + 0.5)) < 1e-12);
    kd_law_free(&copy);
    kd_law_free(&law);
}


/* ---- the gyroscopic matrix and k(eps) (theory.md sec. 3) ------------------ */

static kd_ked_modes along(kd_ked* k, int count, int gyroscopic) {
    kd_ked_modes m;
    kd_error err;
    if (kd_ked_modes_along_motion_opt(k, 0, count, gyroscopic, &m, &err)) fail_msg("modes along motion: %s", err.msg);
    return m;
}

static double max_rel_diff(const kd_ked_modes* a, const kd_ked_modes* b) {
    double e = 0;
    for (int i = 0; i < a->nsamples * a->count; i++) e = fmax(e, fabs(a->omega[i] / b->omega[i] - 1));
    return e;
}

/* The same for mode n (0-based) only. */
static double mode_rel_diff(const kd_ked_modes* a, const kd_ked_modes* b, int n) {
    double e = 0;
    for (int i = 0; i < a->nsamples; i++) e = fmax(e, fabs(a->omega[i * a->count + n] / b->omega[i * b->count + n] - 1));
    return e;
}

/* At a vanishing crank speed the quadratic problem is the symmetric one: the
 * state-space route equals the symmetric solver and the pinned-pinned closed
 * form. */
static void test_gyro_vanishing_speed(void** state) {
    (void)state;
    kd_desc* d = slider_crank(10, 1e-3);
    kd_ked* k = ked(d, 1.0, 8, 0.0);
    kd_ked_modes g = along(k, 3, KD_KED_GYRO_REFINE), sym = along(k, 3, KD_KED_GYRO_OFF),
                 dn = along(k, 3, KD_KED_GYRO_DENSE);
    assert_int_equal(g.state_space, g.nsamples);  /* every instant took the quadratic problem */
    assert_int_equal(sym.state_space, 0);
    const double e_sym = max_rel_diff(&g, &sym), e_dense = max_rel_diff(&dn, &sym);
    double e_cf = 0;
    for (int i = 0; i < g.nsamples; i++) e_cf = fmax(e_cf, fabs(g.omega[i * 3] / omega_pp(1, 0.0) - 1));
    printf("gyroscopic, vanishing speed: refined vs symmetric %.2e, dense state-space vs symmetric %.2e, "
           "omega_1 vs closed form %.2e\n", e_sym, e_dense, e_cf);
    assert_true(e_sym < 1e-10);
    assert_true(e_dense < 1e-7);  /* dggev's backward error on the stiff state space, about 2e-8 here */
    assert_true(e_cf < 1e-5);
    kd_ked_modes_free(&g);
    kd_ked_modes_free(&sym);
    kd_ked_modes_free(&dn);
    kd_ked_free(&k);
    kd_desc_free(&d);
}

/* A rod pinned to the ground and driven at constant speed W: its frame is
 * that of the pinned node (a cantilever clamped at the hub of a rotation),
 * no joint transmits an axial force. Reference: the `modes` analysis
 * (kd_modes_state_space, dense dggev on the model's own system) of a beam
 * clamped at node 1 on a prescribed rotation of speed W. */
static const char* SPIN_LINK =
    "kedyn: 1\n"
    "materials: {steel: {E: 210e9, rho: 7800, nu: 0.3}}\n"
    "sections: {flat: {shape: rectangle, b: 0.025, h: 0.006}}\n"
    "bodies:\n"
    "  - {name: ground, type: ground, points: {O: [0, 0]}}\n"
    "  - {name: rod, type: beam, material: steel, section: flat, elements: 10, points: {O: [0, 0], B: [0.46, 0]}}\n"
    "joints:\n"
    "  - {name: jO, type: revolute, bodies: [ground, rod], points: [O, O]}\n"
    "drivers:\n"
    "  - {joint: jO, law: {speed: %.17g}}\n";
static const char* SPIN_BEAM =
    "kedyn: 1\n"
    "materials: {steel: {E: 210e9, rho: 7800, nu: 0.3}}\n"
    "sections: {flat: {shape: rectangle, b: 0.025, h: 0.006}}\n"
    "bodies:\n"
    "  - {name: rod, type: beam, material: steel, section: flat, elements: 10, points: {O: [0, 0], B: [0.46, 0]}}\n"
    "supports:\n"
    "  - {body: rod, node: 1, fix: all}\n"
    "motion:\n"
    "  - {body: rod, rotation: {axis: z, law: {speed: %.17g}}}\n";

static void test_gyro_spinning_link(void** state) {
    (void)state;
    const double speeds[2] = {100.0, 400.0};
    double shifts[2];
    for (int c = 0; c < 2; c++) {
        const double W = speeds[c];
        char buf[2048];
        snprintf(buf, sizeof(buf), SPIN_LINK, W);
        kd_desc* d = load(buf);
        kd_ked* k = ked(d, 2 * PI / W, 12, 0.0);
        const int count = 4;
        kd_ked_modes g = along(k, count, KD_KED_GYRO_REFINE), sym = along(k, count, KD_KED_GYRO_OFF);
        snprintf(buf, sizeof(buf), SPIN_BEAM, W);
        kd_desc* rd = load(buf);
        kd_model* rm = NULL;
        kd_error err;
        if (kd_model_compile(rd, &rm, &err)) fail_msg("compile: %s", err.msg);
        kd_system s;
        assert_int_equal(kd_system_init(&s, rm, &err), KD_OK);
        kd_modes ref;
        if (kd_modes_state_space(&s, 0.0, count, &ref, &err)) fail_msg("modes: %s", err.msg);
        assert_false(ref.unstable);
        double e = 0, shift = 0;
        for (int i = 0; i < g.nsamples; i++)
            for (int n = 0; n < count; n++) {
                e = fmax(e, fabs(g.omega[i * count + n] / ref.omega[n] - 1));
                shift = fmax(shift, fabs(g.omega[i * count + n] / sym.omega[i * count + n] - 1));
            }
        printf("spinning link, W = %g rad/s: omega_1..4 %.6f %.6f %.6f %.6f rad/s, vs modes (state space) %.2e, "
               "shift from [c] and k(eps) %.2e\n", W, g.omega[0], g.omega[1], g.omega[2], g.omega[3], e, shift);
        assert_true(e < 1e-8);
        shifts[c] = shift;
        assert_int_equal(g.dense_instants, 0);
        assert_true(g.growth_max < 1e-9 * g.omega[0]);
        kd_modes_free(&ref);
        kd_system_free(&s);
        kd_model_free(&rm);
        kd_desc_free(&rd);
        kd_ked_modes_free(&g);
        kd_ked_modes_free(&sym);
        kd_ked_free(&k);
        kd_desc_free(&d);
    }
    /* In the plane of rotation [c] couples bending to the axial motion: the
     * shift is of order (W / omega_axial)^2 (fixed-free bar) and grows as W^2. */
    const double w_axial = PI / (2 * L_ROD) * sqrt(E_STEEL / RHO), r0 = (speeds[0] / w_axial) * (speeds[0] / w_axial);
    printf("spinning link: shift %.2e at W = %g (W/omega_axial)^2 = %.2e; ratio of the shifts %.2f (W^2: %.2f)\n",
           shifts[0], speeds[0], r0, shifts[1] / shifts[0], (speeds[1] / speeds[0]) * (speeds[1] / speeds[0]));
    assert_true(shifts[0] > 0.3 * r0 && shifts[0] < 3 * r0);
    assert_true(fabs(shifts[1] / shifts[0] / 16.0 - 1) < 0.1);
}

/* The flexible pump over one crank revolution: the refined modes equal the
 * dense state-space solver's at every instant, and the shift from the
 * symmetric problem stays below the (W / omega_1)^2 omega_1 bound of a
 * gyroscopic coupling (far below: the planar rod's [c] couples bending to the
 * much stiffer axial motion). */
static void test_gyro_pump(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_file(KD_EXAMPLES_DIR "/wind_pump_elastic.yaml", &d, &err)) fail_msg("load: %s", err.msg);
    const double W = 14.661;
    kd_ked* k = ked(d, 2 * PI / W, 90, W);
    const int count = 6;
    kd_ked_modes g = along(k, count, KD_KED_GYRO_REFINE), sym = along(k, count, KD_KED_GYRO_OFF),
                 dn = along(k, count, KD_KED_GYRO_DENSE);
    assert_int_equal(g.state_space, g.nsamples);
    assert_int_equal(dn.dense_instants, dn.nsamples);
    const double e = max_rel_diff(&g, &dn), shift = max_rel_diff(&g, &sym);
    double wmin = INFINITY;
    for (int i = 0; i < g.nsamples; i++) wmin = fmin(wmin, g.omega[i * count]);
    const double bound = (W / wmin) * (W / wmin);
    for (int n = 0; n < count; n++)
        printf("pump mode %d: refined vs dense %.2e, vs symmetric %.2e, dense vs symmetric %.2e\n", n + 1,
               mode_rel_diff(&g, &dn, n), mode_rel_diff(&g, &sym, n), mode_rel_diff(&dn, &sym, n));
    printf("pump: refined vs dense state-space %.2e, shift from the symmetric problem %.2e (bound (W/omega_1)^2 = "
           "%.2e), MAC >= %.6f, %d refined instants fell back to the dense solver\n", e, shift, bound, g.mac_min,
           g.dense_instants);
    assert_true(e < 2e-7);  /* dggev's backward error on the stiff state space (1e-8 .. 8e-8 here) */
    assert_true(shift < bound);
    assert_true(g.mac_min > 0.99);
    kd_ked_modes_free(&g);
    kd_ked_modes_free(&sym);
    kd_ked_modes_free(&dn);
    kd_ked_free(&k);
    kd_desc_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vanishing_speed), cmocka_unit_test(test_axial_force_shift),
        cmocka_unit_test(test_mac_tracking),    cmocka_unit_test(test_rigid_limit),
        cmocka_unit_test(test_convergence),     cmocka_unit_test(test_section_forces),
        cmocka_unit_test(test_hermite_law),
        cmocka_unit_test(test_gyro_vanishing_speed), cmocka_unit_test(test_gyro_spinning_link),
        cmocka_unit_test(test_gyro_pump),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
