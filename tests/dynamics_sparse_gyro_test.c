/* The sparse route of the dynamics analysis for bodies in a steady rotation (src/analyses/
 * dynamics_sparse.c: kd_newmark_gcsc with the Coriolis matrix G, kd_newmark_csc without; theory.md
 * sec. 20) on the rotating plate of the thesis (a = 0.2 m, b = 0.16 m, t = 1 mm, steel) read from
 * a model text:
 *   - against the band route (src/fe/system.c + step_alpha.c, a different code; the threshold
 *     lowered by KEDYN_DYNAMICS_SPARSE_MIN_DOF): every DOF and the energy columns at every output
 *     within 1e-9 of their largest value, for the membrane plate spinning about its normal
 *     (gyroscopic in-plane DOFs) and the MITC4 plate spinning about an in-plane axis (stiffening
 *     pre-stress, centrifugal softening and load, no gyroscopic coupling), with Rayleigh damping,
 *     sine loads, a quasi-static start and the alpha family;
 *   - against the gyroscopic modes (modes_gyro_sparse.c: ARPACK's Arnoldi on the state-space form,
 *     a different solver): started on the complex mode x of s = i w (q0 = Re x, v0 = -w Im x), the
 *     undamped average-acceleration response is Re(x e^{i W t}) with tan(W dt / 2) = w dt / 2
 *     (the trapezoidal rule's map of s = i w), DOF by DOF over four periods. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/analysis.h"
#include "kedyn/load_yaml.h"
#include "kedyn/modes_gyro_sparse.h"
#include "test_util.h"

/* The membrane plate of examples/rotating_plate_membrane.yaml on an 8 x 6 mesh. */
static const char* MEMBRANE =
    "kedyn: 1\n"
    "materials:\n"
    "  steel: {E: 210e9, rho: 7800, nu: 0.3}\n"
    "bodies:\n"
    "  - name: plate\n"
    "    type: plate\n"
    "    theory: membrane\n"
    "    interpolation: q4\n"
    "    material: steel\n"
    "    thickness: 0.001\n"
    "    mesh: {rectangle: [0.2, 0.16], divisions: [8, 6], origin: [0, -0.08, 0]}\n"
    "    node_sets:\n"
    "      root: {x: 0}\n"
    "      tip: {x: 0.2, y: 0.08}\n"
    "supports:\n"
    "  - {body: plate, nodes: root, fix: [u, v]}\n"
    "motion:\n"
    "  - {body: plate, rotation: {axis: z, law: {speed: %s}}}\n"
    "%s"  /* forces, damping */
    "analyses:\n"
    "  - %s\n";

/* The bending plate of examples/rotating_plate_bending.yaml on a 6 x 4 mesh. */
static const char* BENDING =
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
    "    mesh: {rectangle: [0.2, 0.16], divisions: [6, 4]}\n"
    "    node_sets:\n"
    "      root: {x: 0}\n"
    "      tip: {x: 0.2, y: 0.16}\n"
    "supports:\n"
    "  - {body: plate, nodes: root, fix: all}\n"
    "motion:\n"
    "  - {body: plate, rotation: {axis: y, law: {speed: %s}}}\n"
    "%s"
    "analyses:\n"
    "  - %s\n";

#define ROWS 2001

typedef struct hist {
    int neq, rows;
    double* q;    /* rows x neq */
    double e[ROWS][4];
    double t[ROWS];
} hist;

static int record(void* ctx, double t, const double* q, const double* v, const double* a, const double* e) {
    (void)v, (void)a;
    hist* h = ctx;
    if (h->rows >= ROWS) return 1;
    memcpy(h->q + (size_t)h->rows * h->neq, q, sizeof(double) * (size_t)h->neq);
    if (e) memcpy(h->e[h->rows], e, sizeof(double) * 4);
    h->t[h->rows++] = t;
    return 0;
}

static void load(const char* text, kd_desc** d, kd_model** m) {
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "<plate>", d, &err)) fail_msg("%s", err.msg);
    if (kd_model_compile(*d, m, &err)) fail_msg("%s", err.msg);
}

/* Run the model text's analysis; sparse: lower the threshold of the sparse route. */
static hist* run(const char* text, int sparse) {
    kd_desc* d = NULL;
    kd_model* m = NULL;
    load(text, &d, &m);
    if (sparse) setenv("KEDYN_DYNAMICS_SPARSE_MIN_DOF", "1", 1);
    else unsetenv("KEDYN_DYNAMICS_SPARSE_MIN_DOF");
    assert_int_equal(kd_dynamics_sparse_route(m, &d->analyses[0]), sparse);
    hist* h = calloc(1, sizeof(*h));
    h->neq = m->neq;
    h->q = malloc(sizeof(double) * ROWS * (size_t)m->neq);
    kd_integrate_stats st;
    kd_error err;
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

static void compare(const char* model, const char* speed, const char* extra, const char* analysis) {
    char text[8192];
    snprintf(text, sizeof text, model, speed, extra, analysis);
    hist *b = run(text, 0), *s = run(text, 1);
    assert_int_equal(b->rows, s->rows);
    double qmax = 0, dq = 0;
    for (size_t i = 0; i < (size_t)b->rows * (size_t)b->neq; i++) {
        if (fabs(b->q[i]) > qmax) qmax = fabs(b->q[i]);
        if (fabs(b->q[i] - s->q[i]) > dq) dq = fabs(b->q[i] - s->q[i]);
    }
    assert_true(qmax > 0);
    assert_true(dq <= 1e-9 * qmax);
    double worst = 0;
    for (int k = 0; k < 4; k++) {
        double emax = 0, de = 0;
        for (int r = 0; r < b->rows; r++) {
            assert_true(b->t[r] == s->t[r]);
            if (fabs(b->e[r][k]) > emax) emax = fabs(b->e[r][k]);
            if (fabs(b->e[r][k] - s->e[r][k]) > de) de = fabs(b->e[r][k] - s->e[r][k]);
        }
        /* the balance error (column 4) against the energies it balances */
        double scale = emax;
        if (k == 3) scale = fabs(b->e[b->rows - 1][0]) + fabs(b->e[b->rows - 1][1]) + fabs(b->e[b->rows - 1][2]);
        assert_true(scale > 0 || k == 3);
        assert_true(de <= 1e-9 * scale + 1e-300);
        if (scale > 0 && de / scale > worst) worst = de / scale;
    }
    print_message("sparse vs band (%d rows, %d eq): max |dq| / max |q| = %.2e, energy columns %.2e\n", b->rows, b->neq,
                  dq / qmax, worst);
    free_hist(b);
    free_hist(s);
}

static const char* TIP_V = "forces:\n  - {type: nodal, body: plate, nodes: tip, dof: v, value: {sine: {amplitude: 1.0, omega: 20000}}}\n";
static const char* TIP_W = "forces:\n  - {type: nodal, body: plate, nodes: tip, dof: w, value: {sine: {amplitude: 0.01, omega: 2000}}}\n";

/* Membrane plate at 3 000 rad/s: G couples u and v; damped, loaded, Newmark. */
static void test_gyroscopic_matches_band(void** state) {
    (void)state;
    char extra[512];
    snprintf(extra, sizeof extra, "%sdamping:\n  - {body: plate, rayleigh: {alpha: 30.0, beta: 1.0e-7}}\n", TIP_V);
    compare(MEMBRANE, "3000", extra, "{type: dynamics, t_end: 0.002, dt: 1e-5, integrator: newmark, energy: true}");
}

/* The model file's default integrator (generalized-alpha, rho_inf = 0.9), HHT, a quasi-static start. */
static void test_gyroscopic_alpha_family(void** state) {
    (void)state;
    compare(MEMBRANE, "3000", TIP_V, "{type: dynamics, t_end: 0.002, dt: 1e-5, energy: true, "
            "initial: {qdot: [{body: plate, node: 9, dof: v, value: 0.5}]}}");
    compare(MEMBRANE, "3000", TIP_V, "{type: dynamics, t_end: 0.002, dt: 1e-5, integrator: hht, alpha: -0.1, "
            "energy: true, initial: static, output_every: 4}");
}

/* MITC4 plate at 1 000 rad/s about y: pre-stress, k(omega), the centrifugal load; no G. With mass-
 * proportional damping on CHOLMOD's symmetric step, with stiffness-proportional damping (of the
 * elastic stiffness) on the general one. */
static void test_spinning_plate_matches_band(void** state) {
    (void)state;
    char extra[512];
    snprintf(extra, sizeof extra, "%sdamping:\n  - {body: plate, rayleigh: {alpha: 20.0, beta: 0}}\n", TIP_W);
    compare(BENDING, "1000", extra, "{type: dynamics, t_end: 0.004, dt: 2e-5, integrator: newmark, energy: true}");
    snprintf(extra, sizeof extra, "%sdamping:\n  - {body: plate, rayleigh: {alpha: 0, beta: 1.0e-5}}\n", TIP_W);
    compare(BENDING, "1000", extra, "{type: dynamics, t_end: 0.004, dt: 2e-5, energy: true, initial: static}");
}

/* Started on the gyroscopic mode 1 of the membrane plate at 5 000 rad/s, the undamped Newmark
 * (average acceleration) response stays that mode at the trapezoidal rule's frequency. */
static void test_gyroscopic_mode_free_vibration(void** state) {
    (void)state;
    char text[8192];
    snprintf(text, sizeof text, MEMBRANE, "5000", "", "{type: modes, count: 1}");
    kd_desc* d = NULL;
    kd_model* m = NULL;
    load(text, &d, &m);
    kd_modes r;
    kd_error err;
    if (kd_modes_state_space_sparse(m, NULL, 0.0, 3, &r, &err)) fail_msg("%s", err.msg);
    const int n = m->neq;
    const double w = r.omega[0], *xr = r.shape, *xi = r.shape_im;
    assert_true(w > 0 && xi);
    double ximax = 0;
    for (int i = 0; i < n; i++) ximax = fmax(ximax, fabs(xi[i]));
    assert_true(ximax > 1e-3);  /* a truly complex (Coriolis-coupled) shape */
    /* the equilibrium q_s about which it vibrates: K q_s = the centrifugal load (a quasi-static start) */
    const double amp = 1e-6, per = 2 * PI / w, dt = per / 50;
    char an[256];
    snprintf(an, sizeof an, "{type: dynamics, t_end: %.17g, dt: %.17g, integrator: newmark, initial: static}", per, dt);
    snprintf(text, sizeof text, MEMBRANE, "5000", "", an);
    hist* hs = run(text, 1);
    const double* qs = hs->q;
    /* q0 = q_s + A Re x, v0 = -A w Im x as the model file's initial values */
    size_t cap = 4096 + (size_t)n * 160, len = 0;
    char* init = malloc(cap);
    len += (size_t)snprintf(init + len, cap - len, "{type: dynamics, t_end: %.17g, dt: %.17g, integrator: newmark, initial: {q: [",
                            4 * per, dt);
    for (int pass = 0; pass < 2; pass++) {
        int firstv = 1;
        for (int nd = 0; nd < m->nnode; nd++)
            for (int k = m->node_dof_adr[nd]; k < m->node_dof_adr[nd] + m->node_dof_num[nd]; k++) {
                const int e = m->dof_eq[k];
                if (e < 0) continue;
                const double val = pass == 0 ? qs[e] + amp * xr[e] : -amp * w * xi[e];
                len += (size_t)snprintf(init + len, cap - len, "%s{body: plate, node: %d, dof: %s, value: %.17g}",
                                        firstv ? "" : ", ", nd - m->body[0].node_adr + 1, kd_dof_name_str(m->dof_name[k]), val);
                firstv = 0;
            }
        len += (size_t)snprintf(init + len, cap - len, pass == 0 ? "], qdot: [" : "]}}");
    }
    char* model = malloc(len + 4096);
    snprintf(model, len + 4096, MEMBRANE, "5000", "", init);
    hist* h = run(model, 1);
    /* the trapezoidal rule's frequency of s = i w: tan(W dt / 2) = w dt / 2 */
    const double W = 2 * atan(w * dt / 2) / dt;
    double dev = 0, big = 0;
    for (int row = 0; row < h->rows; row++) {
        const double c = cos(W * h->t[row]), s = sin(W * h->t[row]);
        for (int i = 0; i < n; i++) {
            const double ref = amp * (xr[i] * c - xi[i] * s);
            big = fmax(big, fabs(ref));
            dev = fmax(dev, fabs(h->q[(size_t)row * n + i] - qs[i] - ref));
        }
    }
    print_message("gyroscopic mode 1 at 5000 rad/s: omega = %.6f rad/s (|Im x| up to %.3f); response vs "
                  "Re(x e^{iWt}) over 4 periods: max dev / max |q| = %.2e\n", w, ximax, dev / big);
    assert_true(dev <= 1e-6 * big);
    free_hist(h);
    free_hist(hs);
    free(init), free(model);
    kd_modes_free(&r);
    kd_model_free(&m);
    kd_desc_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gyroscopic_matches_band),
        cmocka_unit_test(test_gyroscopic_alpha_family),
        cmocka_unit_test(test_spinning_plate_matches_band),
        cmocka_unit_test(test_gyroscopic_mode_free_vibration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
