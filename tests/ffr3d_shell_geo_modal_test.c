/* The membrane stress stiffening of REDUCED two-way shell links (`modes` with SL8;
 * src/links/floating_shell3d.c, theory.md sec. 22, SL10), from model files, against references
 * independent of the coupled route (the references of tests/ffr3d_shell_geo_test.c):
 *   - (a) a steel strip clamped along its root edge to a hub spinning at a prescribed constant rate
 *     Omega about the strip's normal (zero hub radius), reduced to N = 4 fixed-interface modes and
 *     the static vectors of F12: the first flapwise frequency, measured from the free vibration of
 *     the two-way run (zero crossings of the tip's w), against Southwell's form
 *     omega^2 = omega_0^2 + K Omega^2, K = 1.19334 (the clamped cantilever at zero hub radius,
 *     theory.md sec. 18.6), omega_0 measured on the same reduced model at rest; with
 *     `geometric_stiffness: false` the frequency stays at omega_0;
 *   - (b) the free reduced strip spinning about a tilted axis and flapping (no joints, no gravity):
 *     T + U (the projected geometric energy included) conserved, the drift far below the geometric
 *     energy's share;
 *   - (c) the free strip of (b) flapping by about twice its thickness while it spins: the tip's w of
 *     the reduced link against the unreduced link's (SL8 on the full mesh), with 4 and 12 modes; the
 *     difference no larger than the reduction's own (the two linear links, SL8 off) and falling
 *     with N (the relaxation of the slopes' stretch by the full mesh's membrane stiffness: without
 *     it the reduced link locks);
 *   - (d) the cost of one evaluation of the reduced body's forces with and without SL10 on the
 *     100 x 8 strip of tests/ffr3d_shell_modal_test.c (5 400 elastic coordinates; printed). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "kedyn/ffr3d_shell_stress.h"
#include "ffr3d_run.h"
#include "shell_strip_models.h"

/* The strips of shell_strip_models.h with `modes: 4`. */
#define MODES "    modes: 4\n"
static const char REST[] = SHELL_STRIP_HUB("0.02", MODES, "0");
static const char SPIN[] = SHELL_STRIP_HUB("0.02", MODES, "{speed: 300}");
static const char SPIN_OFF[] = SHELL_STRIP_HUB("0.02", MODES "    geometric_stiffness: false\n", "{speed: 300}");
static const char FREE[] = SHELL_STRIP_FREE(MODES);
static const char FREE_OFF[] = SHELL_STRIP_FREE(MODES "    geometric_stiffness: false\n");

/* The tip's w at every output of o's run. With the joint at the support there are no boundary
 * coordinates: the reduced coordinates are the modes, then the static vectors; the first (x_0)
 * is the first flapwise mode (checked: its tip field is w only). */
static void tip_w(const ffr3d_run* o, int tip, double* w) {
    for (int k = 0; k < o->r.count; k++) {
        double u[6];
        kd_ffr3d_node_displacement(o->s, 0, tip, o->r.q + (size_t)o->r.n * k, u);
        w[k] = u[2];
    }
}

static double check_first_flapwise(const ffr3d_run* o, int b, int tip) {
    const int off = kd_ffr3d_body_offset(o->s, b) + 7;
    double* q = calloc((size_t)o->r.n, sizeof(double));
    assert_non_null(q);
    memcpy(q, o->q0, sizeof(double) * (size_t)o->r.n);
    for (int a = 0; a < kd_ffr3d_body_size(o->s, b) - 7; a++) q[off + a] = a == 0 ? 1.0 : 0.0;
    double u[6];
    kd_ffr3d_node_displacement(o->s, b, tip, q, u);
    assert_true(fabs(u[2]) > 0 && fabs(u[0]) < 1e-6 * fabs(u[2]) && fabs(u[1]) < 1e-6 * fabs(u[2]));
    free(q);
    return u[2];
}

/* The mesh node of description body db at (x, y) (0-based). */
static int node_at(const kd_desc* d, int db, double x, double y) {
    const double p[3] = {x, y, 0};
    const int k = kd_splate_node_at(d->sdesc->bodies[db].shell, p);
    assert_true(k > 0);
    return k - 1;
}

/* The mean period of w from its zero crossings (linear interpolation) after the first. */
static double crossing_frequency(const double* t, const double* w, int count) {
    double first = -1, last = -1;
    int n = 0;
    for (int k = 1; k < count; k++)
        if ((w[k - 1] < 0) != (w[k] < 0)) {
            const double tc = t[k - 1] + (t[k] - t[k - 1]) * w[k - 1] / (w[k - 1] - w[k]);
            if (first < 0) first = tc;
            else n++;
            last = tc;
        }
    assert_true(n >= 2);
    return 3.14159265358979323846 * n / (last - first);
}

/* One hub run: the static stretch at t = 0 (F10: the strip at rest in the spinning frame), then a
 * flapping velocity on the first mode, free vibration for 0.026 s (two periods and more). */
static double hub_frequency(const char* text) {
    ffr3d_run o;
    ffr3d_build(text, &o);
    kd_error err;
    if (kd_ffr3d_static_start(o.s, 0.0, o.q0, o.qd0, &err)) fail_msg("%s", err.msg);
    const int tip = ffr3d_node_at(o.d, 0.5, 0.0);
    /* 0.05 m/s at the tip, as the unreduced check's flap */
    o.qd0[kd_ffr3d_body_offset(o.s, 0) + 7] += 0.05 / check_first_flapwise(&o, 0, tip);
    /* rk4 at 2e-6 s, as the unreduced check; an output every 40 steps (8e-5 s, ~1/140 period) */
    const double t_end = 0.026;
    kd_mbs_opts op = ffr3d_opts(t_end, 2e-6, 40);
    assert_true((int)(t_end / 8e-5) < FFR3D_CAP);
    ffr3d_forward(&o, &op);
    double w[FFR3D_CAP];
    tip_w(&o, tip, w);
    const double om = crossing_frequency(o.r.t, w, o.r.count);
    ffr3d_run_free(&o);
    return om;
}

static void test_southwell(void** state) {
    (void)state;
    const double Om = 300.0, K = 1.19334;
    const double w0 = hub_frequency(REST), w = hub_frequency(SPIN), woff = hub_frequency(SPIN_OFF);
    const double ref = sqrt(w0 * w0 + K * Om * Om), Km = (w * w - w0 * w0) / (Om * Om);
    printf("reduced strip (4 modes + static vectors) on a hub, Omega = %.0f rad/s: omega_0 = %.3f rad/s (at rest), "
           "omega = %.3f rad/s against Southwell %.3f (error %.2e; K measured %.4f against %.4f); "
           "geometric_stiffness false: %.3f rad/s (%.2e from omega_0)\n",
           Om, w0, w, ref, w / ref - 1, Km, K, woff, woff / w0 - 1);
    assert_true(fabs(w / ref - 1) < 0.01);
    assert_true(fabs(Km / K - 1) < 0.03);
    assert_true(fabs(woff / w0 - 1) < 0.01);   /* no stiffening without SL8 */
}

static void test_free_energy(void** state) {
    (void)state;
    ffr3d_run o, off;
    ffr3d_build(FREE, &o);
    ffr3d_build(FREE_OFF, &off);
    /* spin about a tilted axis (body axes = global at t = 0), then the flap on the first mode */
    const double r0[3] = {0, 0, 0}, R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, v[3] = {0, 0, 0}, w[3] = {4, 6, 60};
    kd_ffr3d_set_pose(o.s, 0, r0, R, v, w, o.q0, o.qd0);
    o.qd0[kd_ffr3d_body_offset(o.s, 0) + 7] += 1.0 / check_first_flapwise(&o, 0, node_at(o.d, 0, 0.5, 0.0));   /* 1 m/s at the tip */
    kd_mbs_opts op = ffr3d_opts(0.01, 2e-6, 25);
    ffr3d_forward(&o, &op);
    /* T + U along the run; the geometric energy's share: U with SL10 less U without on the same q */
    double E0 = 0, dE = 0, Ugmax = 0;
    for (int k = 0; k < o.r.count; k++) {
        const double *q = o.r.q + (size_t)o.r.n * k, *qd = o.r.qd + (size_t)o.r.n * k;
        double T, V, U, T0, V0, U0;
        kd_ffr3d_energy(o.s, q, qd, &T, &V, &U);
        kd_ffr3d_energy(off.s, q, qd, &T0, &V0, &U0);
        if (k == 0) E0 = T + V + U;
        dE = fmax(dE, fabs(T + V + U - E0)), Ugmax = fmax(Ugmax, fabs(U - U0));
    }
    printf("free spinning reduced strip: T + U = %.6e J, drifts by %.2e J (%.2e relative); the geometric energy of "
           "SL10 up to %.2e J (%.0f times the drift)\n",
           E0, dE, dE / E0, Ugmax, Ugmax / dE);
    assert_true(dE < 1e-9 * E0);
    assert_true(dE < 1e-3 * Ugmax);   /* the energy of SL10 matters at this bound */
    ffr3d_run_free(&o), ffr3d_run_free(&off);
}

/* ---- (c) large flapping against the unreduced link ---- */
/* The free strip of (b), unreduced (modes 0) or with `modes: N`, SL8 on or off, spinning about the
 * tilted axis; its tip's w after the flap v0 phi_1 (phi_1 the first mode's field of the reduced
 * link with N = 4, given to every node) every 1e-4 s to 0.03 s into w (300); the largest von Mises
 * stress of its elements over those instants into *smax (SL5, with SL8's strain; SL10's
 * relaxation field on a reduced link). */
static void flap_run(int modes, int geo, double tipv, double* w, double* smax) {
    char text[1024], md[32] = "";
    if (modes > 0) snprintf(md, sizeof md, "    modes: %d\n", modes);
    const char* body = "kedyn: 1\ntitle: free\nspatial: true\n"
                       "materials:\n  steel: {E: 210e9, rho: 7800, nu: 0}\n"
                       "bodies:\n  - name: strip\n    type: plate\n    theory: shell\n    interpolation: dkt\n"
                       "    material: steel\n    thickness: 0.004\n%s%s"
                       "    mesh: {rectangle: [0.5, 0.04], divisions: [6, 1]}\n"
                       "    node_sets: {root: {x: 0}}\n    support: root\n"
                       "analyses:\n  - {type: dynamics, coupling: two-way, t_end: 0.01, dt: 2.0e-6}\n";
    snprintf(text, sizeof text, body, md, geo ? "" : "    geometric_stiffness: false\n");
    ffr3d_run o, ref;
    ffr3d_build(text, &o);
    ffr3d_build(FREE, &ref);   /* the first mode's field */
    const double r0[3] = {0, 0, 0}, R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, v[3] = {0, 0, 0}, om[3] = {4, 6, 60};
    kd_ffr3d_set_pose(o.s, 0, r0, R, v, om, o.q0, o.qd0);
    const int tip = node_at(o.d, 0, 0.5, 0.0);
    const double v0 = tipv / check_first_flapwise(&ref, 0, tip);
    double* q = calloc((size_t)ref.r.n, sizeof(double));
    assert_non_null(q);
    q[7] = 1.0;
    for (int nd = 0; nd < kd_ffr3d_body_nodes(o.s, 0); nd++) {
        double u[6];
        kd_ffr3d_node_displacement(ref.s, 0, nd, q, u);
        for (int d = 0; d < 6; d++) {
            const int i = kd_ffr3d_node_coordinate(o.s, 0, nd, d);
            if (i >= 0) o.qd0[i] += v0 * u[d];
        }
    }
    if (modes > 0) o.qd0[7] += v0;   /* the same field on the reduced link: its first mode */
    free(q);
    kd_mbs_opts op = ffr3d_opts(0.03, 2e-6, 50);
    ffr3d_forward(&o, &op);
    assert_int_equal(o.r.count, 301);
    kd_ffr3d_shell_stress* ss = NULL;
    kd_error err;
    if (kd_ffr3d_shell_stress_new(o.d, o.s, &ss, &err)) fail_msg("%s", err.msg);
    *smax = 0;
    for (int k = 0; k < 300; k++) {
        double u[6], all;
        int at;
        kd_ffr3d_node_displacement(o.s, 0, tip, o.r.q + (size_t)o.r.n * (k + 1), u);
        w[k] = u[2];
        kd_ffr3d_shell_sigma_max(ss, 0, o.r.q + (size_t)o.r.n * (k + 1), &all, &at);
        *smax = fmax(*smax, all);
    }
    kd_ffr3d_shell_stress_free(&ss);
    ffr3d_run_free(&o), ffr3d_run_free(&ref);
}

static double max_diff(const double* a, const double* b, double* m) {
    double d = 0, x = 0;
    for (int k = 0; k < 300; k++) d = fmax(d, fabs(a[k] - b[k])), x = fmax(x, fabs(b[k]));
    if (m) *m = x;
    return d;
}

static void test_against_unreduced(void** state) {
    (void)state;
    static double full[300], full_off[300], red[300], red_off[300];
    const double tipv = 8.0;
    double sfull, sfull_off, sred[2], sred_off;
    flap_run(0, 1, tipv, full, &sfull), flap_run(0, 0, tipv, full_off, &sfull_off);
    static const int N[] = {4, 12};
    double e[2], eoff[2], eff = 0, m = 0;
    for (int k = 0; k < 2; k++) {
        flap_run(N[k], 1, tipv, red, &sred[k]), flap_run(N[k], 0, tipv, red_off, &sred_off);
        printf("largest stress, %d modes: %.4e Pa against the unreduced link's %.4e Pa (%.2e); without SL8 on "
               "both %.4e against %.4e (%.2e)\n", N[k], sred[k], sfull, sred[k] / sfull - 1, sred_off, sfull_off,
               sred_off / sfull_off - 1);
        e[k] = max_diff(red, full, &m), eoff[k] = max_diff(red_off, full_off, NULL), eff = max_diff(full, full_off, NULL);
        printf("large flap of the free spinning strip (tip w up to %.4e m, %.2f thicknesses), %d modes: against the "
               "unreduced link %.3e of it with SL8/SL10 (%.3e without SL8 on both); SL8's own effect %.3e\n",
               m, m / 0.004, N[k], e[k] / m, eoff[k] / m, eff / m);
    }
    /* SL10 adds no error to the reduction's own (the linear links' difference, SL8 off on both),
     * which falls with N; SL8's effect is large against both */
    assert_true(m > 1.5 * 0.004 && eff > m);
    for (int k = 0; k < 2; k++) assert_true(e[k] < 1.1 * eoff[k]);
    assert_true(e[1] < 0.5 * e[0] && e[1] < 0.03 * m && e[1] < 0.02 * eff);
    /* the largest stress against the unreduced link's: within the reduction's own error (measured
     * -2.7e-2 and -7.6e-3 with 4 and 12 modes; 1.9e-2 and 8.6e-3 between the links without SL8).
     * The stresses take N* with SL10's relaxation field: without it the slopes' stretch stays as
     * membrane strain and the stress is 35-37 % too high */
    const double tol[2] = {5e-2, 2e-2};
    for (int k = 0; k < 2; k++) assert_true(fabs(sred[k] / sfull - 1) < tol[k]);
}

/* ---- (d) the cost on the large strip ---- */
static const char* large(int geometric, char* out, size_t cap) {
    snprintf(out, cap,
             "kedyn: 1\ntitle: large\nspatial: true\n"
             "materials:\n  steel: {E: 210e9, rho: 7800, nu: 0}\n"
             "bodies:\n  - name: strip\n    type: plate\n    theory: shell\n    interpolation: dkt\n"
             "    material: steel\n    thickness: 0.004\n    modes: 8\n    geometric_stiffness: %s\n"
             "    mesh: {rectangle: [0.5, 0.04], divisions: [100, 8]}\n"
             "    node_sets: {root: {x: 0}}\n    support: root\n"
             "analyses:\n  - {type: dynamics, coupling: two-way, t_end: 1e-6, dt: 1.0e-7}\n",
             geometric ? "true" : "false");
    return out;
}

static double eval_time(const ffr3d_run* o, const double* q, const double* qd, double* Q) {
    double best = HUGE_VAL;
    for (int rep = 0; rep < 5; rep++) {
        const clock_t c0 = clock();
        for (int k = 0; k < 20; k++) kd_ffr3d_body_force(o->s, 0, q, qd, Q);
        best = fmin(best, (double)(clock() - c0) / CLOCKS_PER_SEC / 20);
    }
    return best;
}

static void test_cost(void** state) {
    (void)state;
    static char text[2048];
    ffr3d_run on, off;
    ffr3d_build(large(1, text, sizeof text), &on);
    ffr3d_build(large(0, text, sizeof text), &off);
    const int n = kd_ffr3d_body_size(on.s, 0);
    assert_int_equal(n, kd_ffr3d_body_size(off.s, 0));
    double *q = malloc(sizeof(double) * (size_t)n), *qd = calloc((size_t)n, sizeof(double));
    double* Q = malloc(sizeof(double) * (size_t)n);
    assert_true(q && qd && Q);
    memcpy(q, on.q0, sizeof(double) * (size_t)n);
    for (int a = 7; a < n; a++) q[a] = 1e-4 / (a - 6);   /* every element strained */
    qd[4] = 30.0;
    const double t_on = eval_time(&on, q, qd, Q), t_off = eval_time(&off, q, qd, Q);
    const int nfull = 6 * (kd_ffr3d_body_nodes(on.s, 0) - 9);
    printf("large reduced shell (%d coordinates reduced to %d): one body force evaluation %.3f ms with SL10, "
           "%.3f ms without (%.1f times; CPU, best of 5 x 20)\n",
           nfull, n - 7, 1e3 * t_on, 1e3 * t_off, t_on / t_off);
    free(q), free(qd), free(Q);
    ffr3d_run_free(&on), ffr3d_run_free(&off);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_southwell),
        cmocka_unit_test(test_free_energy),
        cmocka_unit_test(test_against_unreduced),
        cmocka_unit_test(test_cost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
