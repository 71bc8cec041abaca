/* The sparse route of the dynamics analysis (src/analyses/dynamics.c, sparse_run: Newmark on one
 * CHOLMOD factorisation, theory.md sec. 13.4) on a simply supported MITC4 plate
 * (a = 0.2 m, b = 0.16 m, t = 1 mm, steel, 10 x 8 elements) read from a model text:
 *   - against the band route on the same model (threshold lowered by KEDYN_DYNAMICS_SPARSE_MIN_DOF):
 *     every DOF and the energy columns at every step within 1e-9 of their largest value, with Rayleigh
 *     damping and a sine load, and with gravity and a quasi-static start;
 *   - against closed forms: the undamped free vibration in the first mode conserves E_kinetic +
 *     E_strain to round-off (average acceleration, no load), its zero crossings give the Kirchhoff
 *     plate's w11 = pi^2 (1/a^2 + 1/b^2) sqrt(D / rho t) (after the trapezoidal rule's known period
 *     elongation tan(W dt / 2) = w dt / 2); a damped step load at the centre settles on Navier's
 *     series of the static deflection, w = 4 P / (a b D pi^4) sum_{m,n odd} 1 / (m^2/a^2 + n^2/b^2)^2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/analysis.h"
#include "kedyn/load_yaml.h"
#include "test_util.h"

static const double A = 0.2, B = 0.16, T = 0.001, E = 210e9, NU = 0.3, RHO = 7800;

static const char* PLATE =
    "kedyn: 1\n"
    "materials:\n"
    "  steel: {E: 210e9, rho: 7800, nu: 0.3}\n"
    "bodies:\n"
    "  - name: plate\n"
    "    type: plate\n"
    "    theory: mindlin\n"
    "    interpolation: mitc4\n"
    "    material: steel\n"
    "    thickness: 0.001\n"
    "    mesh: {rectangle: [0.2, 0.16], divisions: [10, 8]}\n"
    "    node_sets:\n"
    "      e1: {y: 0}\n"
    "      e2: {y: 0.16}\n"
    "      e3: {x: 0}\n"
    "      e4: {x: 0.2}\n"
    "      centre: {x: 0.1, y: 0.08}\n"
    "supports:\n"
    "  - {body: plate, nodes: e1, fix: [w]}\n"
    "  - {body: plate, nodes: e2, fix: [w]}\n"
    "  - {body: plate, nodes: e3, fix: [w]}\n"
    "  - {body: plate, nodes: e4, fix: [w]}\n"
    "%s"  /* forces, damping */
    "analyses:\n"
    "  - %s\n";

#define NMAX 60000

typedef struct hist {
    int n, neq, rows, centre;
    double* q;    /* rows x neq */
    double e[2001][4];
    double t[2001];
} hist;

static int record(void* ctx, double t, const double* q, const double* v, const double* a, const double* e) {
    (void)v, (void)a;
    hist* h = ctx;
    if (h->rows >= 2001) return 1;
    memcpy(h->q + (size_t)h->rows * h->neq, q, sizeof(double) * (size_t)h->neq);
    if (e) memcpy(h->e[h->rows], e, sizeof(double) * 4);
    h->t[h->rows++] = t;
    return 0;
}

/* Run the model's analysis; sparse: lower the threshold of the sparse route. Returns the history. */
static hist* run(const char* extra, const char* analysis, int sparse, int* eq_centre) {
    char text[4096];
    snprintf(text, sizeof text, PLATE, extra, analysis);
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "<plate>", &d, &err)) fail_msg("%s", err.msg);
    kd_model* m = NULL;
    if (kd_model_compile(d, &m, &err)) fail_msg("%s", err.msg);
    if (sparse) setenv("KEDYN_DYNAMICS_SPARSE_MIN_DOF", "1", 1);
    else unsetenv("KEDYN_DYNAMICS_SPARSE_MIN_DOF");
    assert_int_equal(kd_dynamics_sparse_route(m, &d->analyses[0]), sparse);
    hist* h = calloc(1, sizeof(*h));
    h->neq = m->neq;
    h->q = malloc(sizeof(double) * 2001 * (size_t)m->neq);
    /* the centre's w: the node at (a/2, b/2) */
    *eq_centre = -1;
    for (int nd = 0; nd < m->nnode; nd++)
        if (fabs(m->node_x[3 * nd] - A / 2) < 1e-9 && fabs(m->node_x[3 * nd + 1] - B / 2) < 1e-9)
            for (int i = m->node_dof_adr[nd]; i < m->node_dof_adr[nd] + m->node_dof_num[nd]; i++)
                if (m->dof_name[i] == KD_DOF_W) *eq_centre = m->dof_eq[i];
    assert_true(*eq_centre >= 0);
    kd_integrate_stats st;
    if (kd_dynamics_run(m, &d->analyses[0], record, h, &st, NULL, 0, &err)) fail_msg("%s", err.msg);
    unsetenv("KEDYN_DYNAMICS_SPARSE_MIN_DOF");
    kd_model_free(&m);
    kd_desc_free(&d);
    return h;
}

static void free_hist(hist* h) {
    free(h->q);
    free(h);
}

static void compare(const char* extra, const char* analysis, int energy) {
    int c;
    hist *b = run(extra, analysis, 0, &c), *s = run(extra, analysis, 1, &c);
    assert_int_equal(b->rows, s->rows);
    double qmax = 0, dq = 0;
    for (size_t i = 0; i < (size_t)b->rows * b->neq; i++) {
        if (fabs(b->q[i]) > qmax) qmax = fabs(b->q[i]);
        if (fabs(b->q[i] - s->q[i]) > dq) dq = fabs(b->q[i] - s->q[i]);
    }
    assert_true(qmax > 0);
    assert_true(dq <= 1e-9 * qmax);
    for (int k = 0; k < 4 && energy; k++) {
        double emax = 0, de = 0;
        for (int r = 0; r < b->rows; r++) {
            if (fabs(b->e[r][k]) > emax) emax = fabs(b->e[r][k]);
            if (fabs(b->e[r][k] - s->e[r][k]) > de) de = fabs(b->e[r][k] - s->e[r][k]);
            assert_true(b->t[r] == s->t[r]);
        }
        double scale = emax;
        if (k == 3) scale = fabs(b->e[b->rows - 1][0]) + fabs(b->e[b->rows - 1][1]) + fabs(b->e[b->rows - 1][2]);
        assert_true(de <= 1e-9 * scale + 1e-300);
    }
    print_message("sparse vs band: max |dq| / max |q| = %.2e over %d rows\n", dq / qmax, b->rows);
    free_hist(b);
    free_hist(s);
}

static void test_matches_band_damped(void** state) {
    (void)state;
    compare("forces:\n  - {type: nodal, body: plate, nodes: centre, dof: w, value: {sine: {amplitude: 1.0, omega: 3000}}}\n"
            "damping:\n  - {body: plate, rayleigh: {alpha: 3.0, beta: 2.0e-6}}\n",
            "{type: dynamics, t_end: 0.004, dt: 2e-5, integrator: newmark, energy: true}", 1);
}

static void test_matches_band_gravity_static(void** state) {
    (void)state;
    compare("forces:\n  - {type: gravity, g: [0, 0, -9.81]}\n"
            "  - {type: nodal, body: plate, nodes: centre, dof: w, value: {sine: {amplitude: 1.0, omega: 2000}}}\n"
            "damping:\n  - {body: plate, rayleigh: {alpha: 20.0, beta: 0}}\n",
            "{type: dynamics, t_end: 0.004, dt: 2e-5, integrator: newmark, energy: true, initial: static, output_every: 3}",
            1);
}

/* The model file's default integrator (generalized-alpha, rho_inf = 0.9) and HHT-alpha. */
static void test_matches_band_alpha_family(void** state) {
    (void)state;
    const char* load = "forces:\n  - {type: nodal, body: plate, nodes: centre, dof: w, value: {sine: {amplitude: 1.0, omega: 3000}}}\n"
                       "damping:\n  - {body: plate, rayleigh: {alpha: 3.0, beta: 2.0e-6}}\n";
    compare(load, "{type: dynamics, t_end: 0.004, dt: 2e-5, energy: true, initial: {qdot: [{body: plate, node: 50, dof: w, value: 0.01}]}}", 1);
    compare(load, "{type: dynamics, t_end: 0.004, dt: 2e-5, integrator: hht, alpha: -0.1, energy: true}", 1);
}

static double omega11(void) {
    const double D = E * T * T * T / (12 * (1 - NU * NU));
    return PI * PI * (1 / (A * A) + 1 / (B * B)) * sqrt(D / (RHO * T));
}

static void test_free_vibration(void** state) {
    (void)state;
    const double w = omega11(), per = 2 * PI / w, dt = per / 100;
    char an[256];
    snprintf(an, sizeof an,
             "{type: dynamics, t_end: %.17g, dt: %.17g, integrator: newmark, energy: true, "
             "initial: {mode: 1, amplitude: 1.0e-4}}", 10 * per, dt);
    int c;
    hist* h = run("", an, 1, &c);
    /* energy: conserved to round-off */
    const double e0 = h->e[0][0] + h->e[0][1];
    double drift = 0;
    for (int r = 0; r < h->rows; r++) drift = fmax(drift, fabs(h->e[r][0] + h->e[r][1] - e0));
    assert_true(e0 > 0);
    assert_true(drift < 1e-10 * e0);
    /* period from the first and last downward zero crossings of the centre's w */
    double first = -1, last = -1;
    int ncross = 0;
    for (int r = 1; r < h->rows; r++) {
        const double q0 = h->q[(size_t)(r - 1) * h->neq + c], q1 = h->q[(size_t)r * h->neq + c];
        if (q0 > 0 && q1 <= 0) {
            const double tc = h->t[r - 1] + (h->t[r] - h->t[r - 1]) * q0 / (q0 - q1);
            if (first < 0) first = tc;
            last = tc, ncross++;
        }
    }
    assert_true(ncross >= 9);
    const double measured = (last - first) / (ncross - 1);
    const double expected = dt * PI / atan(w * dt / 2);  /* 2 pi / W, tan(W dt / 2) = w dt / 2 */
    const double err = measured / expected - 1;
    print_message("free vibration: period %.6e s, Kirchhoff (with Newmark elongation) %.6e s, error %.3e; "
                  "energy drift %.2e of E0\n", measured, expected, err, drift / e0);
    assert_true(fabs(err) < 0.02);
    free_hist(h);
}

static void test_step_settles_on_navier(void** state) {
    (void)state;
    const double w = omega11(), P = 1.0;
    const double D = E * T * T * T / (12 * (1 - NU * NU));
    double navier = 0;
    for (int m = 1; m < 400; m += 2)
        for (int n = 1; n < 400; n += 2) {
            const double s = m * m / (A * A) + n * n / (B * B);
            navier += 1 / (s * s);
        }
    navier *= 4 * P / (A * B * D * PI * PI * PI * PI);
    char extra[512], an[256];
    snprintf(extra, sizeof extra,
             "forces:\n  - {type: nodal, body: plate, nodes: centre, dof: w, value: 1.0}\n"
             "damping:\n  - {body: plate, rayleigh: {alpha: %.17g, beta: 0}}\n", 2 * w);  /* mode 1 critically damped */
    snprintf(an, sizeof an, "{type: dynamics, t_end: %.17g, dt: %.17g, integrator: newmark, output_every: 10}",
             30 * 2 * PI / w, 2 * PI / w / 100);
    int c;
    hist* h = run(extra, an, 1, &c);
    const double wend = h->q[(size_t)(h->rows - 1) * h->neq + c];
    const double err = wend / navier - 1;
    print_message("step load: settled w = %.6e m, Navier %.6e m, error %.3e\n", wend, navier, err);
    assert_true(fabs(err) < 0.015);
    free_hist(h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_band_damped),
        cmocka_unit_test(test_matches_band_gravity_static),
        cmocka_unit_test(test_matches_band_alpha_family),
        cmocka_unit_test(test_free_vibration),
        cmocka_unit_test(test_step_settles_on_navier),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
