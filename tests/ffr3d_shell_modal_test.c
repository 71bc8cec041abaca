/* Reduced two-way shell links (`modes` on a two-way `plate` link; src/links/floating_shell3d_modal.c,
 * theory.md sec. 22, SL9), from model files, against references independent of the reduction:
 *   - (a) a steel strip clamped along its root edge to its frame, the frame driven through a spin-up
 *     about a tilted revolute axis (SL6's check (a)): the tip's deflection of the reduced link
 *     against the unreduced (dense) link of the same mesh, its error falling as modes are added;
 *     and the strip as a pendulum on a ball joint at a free node (a boundary node of the basis):
 *     the mid-span deflection against the unreduced link's;
 *   - (b) the reduced pendulum under gravity without damping: T + V + U conserved with rk4, and the
 *     same run by cvode-bdf with the Newton corrector against rk4's;
 *   - (c) a mesh of more than 5 000 elastic coordinates (dense storage would take 9 n_f^2 doubles,
 *     2 GB) built and integrated a few steps with its energy conserved; the peak RSS printed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "kedyn/ffr3d.h"
#include "kedyn/load_yaml.h"
#include "kedyn/mbs.h"
#include "kedyn/sdesc.h"
#include "kedyn/sked.h"
#include "kedyn/smech.h"

#include "ffr3d_run.h"

enum { CAP = FFR3D_CAP };   /* the one-way histories beside the coupled run's */

/* The steel strip 0.5 x 0.04 x 0.004 m (nu = 0) of NX x NY cells of CST + DKT triangles, root edge
 * x = 0 the support; MODES: "" (unreduced) or "    modes: N\n". */
static void strip_model(char* out, size_t cap, int pendulum, int nx, int ny, int modes, double t_end) {
    char md[64] = "";
    if (modes > 0) snprintf(md, sizeof md, "    modes: %d\n", modes);
    snprintf(out, cap,
             "kedyn: 1\ntitle: strip\nspatial: true\n"
             "materials:\n  steel: {E: 210e9, rho: 7800, nu: 0}\n"
             "bodies:\n  - {name: ground, type: ground, points: {T: [0.5, 0.02, 0], O: [0, 0, 0]}}\n"
             "  - name: strip\n    type: plate\n    theory: shell\n    interpolation: dkt\n"
             "    material: steel\n    thickness: 0.004\n"
             "    mesh: {rectangle: [0.5, 0.04], divisions: [%d, %d]}\n"
             "    node_sets: {root: {x: 0}, tip: {x: 0.5}}\n    support: root\n    output: tip\n"
             "    geometric_stiffness: false\n%s"   /* the unreduced references as the reduced links (SL8 off) */
             "    points: {%s}\n"
             "%s"
             "analyses:\n  - {type: dynamics, coupling: two-way, t_end: %g, dt: 2.0e-6}\n",
             nx, ny, md, pendulum ? "T: [0.5, 0.02, 0]" : "O: [0, 0, 0]",
             pendulum ? "joints:\n  - {name: T, type: spherical, bodies: [ground, strip], points: [T, T]}\n"
                        "forces:\n  - {type: gravity, g: [0, 0, -9.81]}\n"
                      : "joints:\n  - {name: O, type: revolute, bodies: [ground, strip], points: [O, O], "
                        "axis: [0.3, 1, 0.4]}\n"
                        "drivers:\n  - {joint: O, law: {spin_up: {omega: 20, T: 0.015}}}\n",
             t_end);
}

/* The coupled system of the model, integrated to t_end (augmented, projection) by rk4 at dt (0: at
 * about 2 / omega_max of the reduced link, outputs every 1e-4 s), or by cvode-bdf with Newton
 * (dt < 0: -dt the output spacing unit), output every `every` steps. */
static void run_model(const char* text, double t_end, double dt, int every, ffr3d_run* o) {
    ffr3d_build(text, o);
    if (dt == 0) {   /* rk4 at about 2 / omega_max, outputs every 1e-4 s */
        const int sub = (int)ceil(1e-4 * kd_ffr3d_body_omega_max(o->s, 0) / 2.0);
        dt = 1e-4 / sub, every = sub;
    }
    kd_mbs_opts op = ffr3d_opts(t_end, fabs(dt), every);
    if (dt < 0) op.integrator = KD_MBS_CVODE, op.nonlinear = KD_MBS_NLS_NEWTON, op.rtol = 1e-8, op.atol = 1e-10;
    ffr3d_forward(o, &op);
}

/* max_k |w_a - w_b| / max_k |w_b| of node `node`'s displacement component c */
static double node_error(const ffr3d_run* a, const ffr3d_run* b, int node, int c, double* wmax) {
    assert_int_equal(a->r.count, b->r.count);
    double d = 0, m = 0;
    for (int k = 0; k < a->r.count; k++) {
        double ua[6], ub[6];
        kd_ffr3d_node_displacement(a->s, 0, node, a->r.q + (size_t)a->r.n * k, ua);
        kd_ffr3d_node_displacement(b->s, 0, node, b->r.q + (size_t)b->r.n * k, ub);
        d = fmax(d, fabs(ua[c] - ub[c])), m = fmax(m, fabs(ub[c]));
    }
    if (wmax) *wmax = m;
    return d / m;
}

/* T + V + U: the largest deviation from the start, relative to the largest T */
static double energy_drift(const ffr3d_run* o, double* Umax) {
    double E0 = 0, dE = 0, Tmax = 0, Um = 0;
    for (int k = 0; k < o->r.count; k++) {
        double T, V, U;
        kd_ffr3d_energy(o->s, o->r.q + (size_t)o->r.n * k, o->r.qd + (size_t)o->r.n * k, &T, &V, &U);
        if (k == 0) E0 = T + V + U;
        dE = fmax(dE, fabs(T + V + U - E0)), Tmax = fmax(Tmax, T), Um = fmax(Um, U);
    }
    if (Umax) *Umax = Um / Tmax;
    return dE / Tmax;
}

static char text[4096];

/* ---- (a) against the unreduced link ---- */
static void test_against_unreduced(void** state) {
    (void)state;
    static const int N[] = {1, 3, 8};
    ffr3d_run full, red[3];
    strip_model(text, sizeof text, 0, 6, 1, 0, 0.02);
    run_model(text, 0.02, 2e-6, 50, &full);
    const int tip = ffr3d_node_at(full.d, 0.5, 0.0);
    double e[3], wmax = 0;
    for (int k = 0; k < 3; k++) {
        strip_model(text, sizeof text, 0, 6, 1, N[k], 0.02);
        run_model(text, 0.02, 0, 0, &red[k]);
        e[k] = node_error(&red[k], &full, tip, 2, &wmax);
        printf("spin-up, %d modes (%d coordinates of %d, omega_max %.4g rad/s): tip w up to %.4e m, error %.3e of it\n", N[k],
               kd_ffr3d_size(red[k].s) - 7, kd_ffr3d_size(full.s) - 7, kd_ffr3d_body_omega_max(red[k].s, 0), wmax, e[k]);
    }
    /* the error falls with N: the static vectors carry the quasi-static part, the modes the rest */
    assert_true(wmax > 1e-2);
    assert_true(e[1] < e[0] && e[2] < 0.1 * e[1] && e[2] < 1e-6 && e[0] < 1e-3);
    assert_int_equal(kd_ffr3d_size(full.s) - 7, 6 * (kd_ffr3d_body_nodes(full.s, 0) - 2));
    for (int k = 0; k < 3; k++) ffr3d_run_free(&red[k]);
    ffr3d_run_free(&full);

    strip_model(text, sizeof text, 1, 6, 2, 0, 0.015);
    run_model(text, 0.015, 2e-6, 50, &full);
    const int mid = ffr3d_node_at(full.d, 0.25, 0.02);
    double p[3];
    for (int k = 0; k < 3; k++) {
        strip_model(text, sizeof text, 1, 6, 2, N[k], 0.015);
        run_model(text, 0.015, 0, 0, &red[k]);
        p[k] = node_error(&red[k], &full, mid, 2, &wmax);
        printf("pendulum, %d modes (omega_max %.4g rad/s): mid-span w up to %.4e m, error %.3e of it\n", N[k],
               kd_ffr3d_body_omega_max(red[k].s, 0), wmax, p[k]);
        ffr3d_run_free(&red[k]);
    }
    ffr3d_run_free(&full);
    assert_true(wmax > 1e-5);
    assert_true(p[1] < 0.5 * p[0] && p[2] < 0.5 * p[1] && p[2] < 0.03);
}

/* ---- (b) energy; cvode-bdf (Newton) against rk4 ---- */
static void test_energy_bdf(void** state) {
    (void)state;
    ffr3d_run a, b;
    strip_model(text, sizeof text, 1, 6, 2, 4, 0.03);
    run_model(text, 0.03, 2e-6, 50, &a);
    double U;
    const double dE = energy_drift(&a, &U);
    printf("reduced pendulum, rk4: T + V + U drifts by %.2e of T (U up to %.2e of T)\n", dE, U);
    run_model(text, 0.03, -1e-4, 1, &b);
    const double dEb = energy_drift(&b, NULL);
    const int mid = ffr3d_node_at(a.d, 0.25, 0.02);
    double wmax;
    const double ew = node_error(&b, &a, mid, 2, &wmax);
    printf("reduced pendulum, cvode-bdf newton: drift %.2e of T, mid-span w against rk4's %.2e of %.3e m\n", dEb, ew, wmax);
    assert_true(U > 1e-3 && dE < 1e-9);
    assert_true(dEb < 1e-8 && ew < 1e-5);
    ffr3d_run_free(&a), ffr3d_run_free(&b);
}

/* ---- (c) a large mesh ---- */
static void test_large(void** state) {
    (void)state;
    ffr3d_run o;
    strip_model(text, sizeof text, 1, 100, 8, 8, 2e-6);
    run_model(text, 2e-6, 1e-7, 1, &o);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    const double rss = ru.ru_maxrss / 1024.0;
    const int nfull = 6 * (kd_ffr3d_body_nodes(o.s, 0) - 9);   /* 6 DOFs a node, the root's 9 held */
    printf("large shell: %d coordinates reduced to %d, %d steps, drift %.2e of T, peak RSS %.1f MB\n", nfull, kd_ffr3d_size(o.s) - 7, o.r.count, energy_drift(&o, NULL), rss);
    /* the dense blocks alone would take 10 n_f^2 doubles, 2.3 GB */
    assert_true(nfull >= 5000 && kd_ffr3d_size(o.s) - 7 <= 30 && o.r.count == 21);
    assert_true(energy_drift(&o, NULL) < 1e-9 && rss < 1000.0);
    ffr3d_run_free(&o);
}

/* static_correction: none on a reduced two-way shell: a located error */
static void test_no_statics(void** state) {
    (void)state;
    strip_model(text, sizeof text, 1, 6, 2, 4, 0.01);
    char* m = strstr(text, "    modes: 4\n");
    assert_non_null(m);
    const char* rest = strstr(text, "    points:");
    char tail[2048];
    snprintf(tail, sizeof tail, "%s", rest);
    snprintf(m, sizeof text - (size_t)(m - text), "    modes: 4\n    static_correction: none\n%s", tail);
    kd_desc* d = NULL;
    kd_error err;
    /* the loader's check builds the coupled system: the error comes from it, at the body */
    assert_int_not_equal(kd_load_yaml_string(text, strlen(text), "strip.yaml", &d, &err), KD_OK);
    printf("%s:%d:%d: %s\n", err.file, err.loc.line, err.loc.col, err.msg);
    assert_true(err.loc.line == 8 && strstr(err.msg, "static_correction: none"));
    kd_desc_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_statics),
        cmocka_unit_test(test_against_unreduced),
        cmocka_unit_test(test_energy_bdf),
        cmocka_unit_test(test_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
