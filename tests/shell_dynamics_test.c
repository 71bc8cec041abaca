/* Shells in dynamics (theory.md sec. 14.3): the drilling rotation theta_z has a small rotary
 * inertia, so M is regular and every integrator runs on a shell model by every formalism route.
 *
 *   - M of a shell cantilever is positive definite (Cholesky); the drilling inertia moves its
 *     lowest frequencies by less than 1e-5 (against the same model with theta_z massless,
 *     solved as M x = (1 / omega^2) K x);
 *   - a free vibration started from mode 1 (initial: mode 1) is q(t) = q(0) cos(omega_1 t),
 *     omega_1 from the modal solver (Lanczos on K, M at rest: a different code path from the
 *     integrators), for newmark, hht, generalized-alpha, cvode-bdf, cvode-adams and arkode-rk
 *     by the invariants, Lagrange, Kane and Gibbs-Appell routes, and hamilton-cvode and
 *     implicit-midpoint by Hamilton's; the fixed-step ones within their period error
 *     (omega dt)^2 / 12 per radian. */
#include <lapacke.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "kedyn/kedyn.h"

static const char* model_text =
    "kedyn: 1\n"
    "title: shell cantilever\n"
    "materials:\n"
    "  steel: {E: 210e9, rho: 7800, nu: 0.3}\n"
    "bodies:\n"
    "  - name: strip\n"
    "    type: plate\n"
    "    theory: shell\n"
    "    interpolation: %s\n"
    "    material: steel\n"
    "    thickness: 0.005\n"
    "    mesh: {rectangle: [0.2, 0.1], divisions: [4, 2]%s}\n"
    "    node_sets:\n"
    "      root: {x: 0}\n"
    "supports:\n"
    "  - {body: strip, nodes: root, fix: all}\n";

static kd_model* compile(const char* interp, const char* extra) {
    char text[2048];
    snprintf(text, sizeof(text), model_text, interp, extra);
    kd_desc* d = NULL;
    kd_model* m = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "strip.yaml", &d, &err)) fail_msg("%s", err.msg);
    if (kd_model_compile(d, &m, &err)) fail_msg("%s", err.msg);
    kd_desc_free(&d);
    return m;
}

/* Dense symmetric copy of a band (upper). */
static double* dense(const kd_band* b) {
    const int n = b->n, ld = b->kd + 1;
    double* a = calloc((size_t)n * n, sizeof(double));
    for (int j = 0; j < n; j++)
        for (int i = j - b->kd > 0 ? j - b->kd : 0; i <= j; i++)
            a[i + (size_t)j * n] = a[j + (size_t)i * n] = b->ab[b->kd + i - j + (size_t)j * ld];
    return a;
}

/* Lowest `count` omega^2 of K x = l M x as 1 / (largest nu of M x = nu K x), K positive definite. */
static void lowest(const double* K, const double* M, int n, int count, double* lam) {
    double* A = malloc(sizeof(double) * (size_t)n * n);
    double* B = malloc(sizeof(double) * (size_t)n * n);
    double* w = malloc(sizeof(double) * (size_t)n);
    memcpy(A, M, sizeof(double) * (size_t)n * n);
    memcpy(B, K, sizeof(double) * (size_t)n * n);
    assert_int_equal(LAPACKE_dsygv(LAPACK_COL_MAJOR, 1, 'N', 'U', n, A, n, B, n, w), 0);
    for (int k = 0; k < count; k++) lam[k] = 1.0 / w[n - 1 - k];
    free(A), free(B), free(w);
}

static void drilling_effect(const char* interp, const char* extra) {
    kd_model* m = compile(interp, extra);
    const int n = m->neq;
    kd_band K = {0}, M = {0};
    assert_int_equal(kd_band_init(&K, n, m->bandwidth), KD_OK);
    assert_int_equal(kd_band_init(&M, n, m->bandwidth), KD_OK);
    kd_assemble_stiffness_mass(m, &K, &M);
    double *Kd = dense(&K), *Md = dense(&M), *Mz = dense(&M);
    double* L = malloc(sizeof(double) * (size_t)n * n);
    memcpy(L, Md, sizeof(double) * (size_t)n * n);
    assert_int_equal(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'U', n, L, n), 0); /* M regular */
    /* theta_z massless: the rows and columns of its equations zeroed */
    int nz = 0;
    for (int i = 0; i < m->ndof_all; i++) {
        const int q = m->dof_eq[i];
        if (q < 0 || m->dof_name[i] != KD_DOF_RZ) continue;
        nz++;
        for (int j = 0; j < n; j++) Mz[q + (size_t)j * n] = Mz[j + (size_t)q * n] = 0.0;
    }
    assert_true(nz > 0);
    enum { C = 8 };
    double lw[C], l0[C], worst = 0;
    lowest(Kd, Md, n, C, lw);
    lowest(Kd, Mz, n, C, l0);
    for (int k = 0; k < C; k++) worst = fmax(worst, fabs(sqrt(lw[k] / l0[k]) - 1.0));
    print_message("shell %s%s: %d DOF, M positive definite; drilling inertia moves omega_1..%d by at most %.2e "
                  "(omega_1 %.4f rad/s)\n", interp, extra, n, C, worst, sqrt(lw[0]));
    assert_true(worst < 1e-5); /* measured 1.6e-6 (MITC4), DKT below */
    free(Kd), free(Md), free(Mz), free(L);
    kd_band_free(&K), kd_band_free(&M);
    kd_model_free(&m);
}

static void test_drilling_inertia(void** state) {
    (void)state;
    drilling_effect("mitc4", "");
    drilling_effect("dkt", "");
}

#define NREC 4001
typedef struct rec {
    int n, neq;
    double t[NREC];
    double* q;
} rec;

static int record(void* ctx, double t, const double* q, const double* v, const double* a, const double* e) {
    (void)v, (void)a, (void)e;
    rec* r = ctx;
    if (r->n < NREC) {
        r->t[r->n] = t;
        memcpy(r->q + (size_t)r->n * r->neq, q, sizeof(double) * (size_t)r->neq);
        r->n++;
    }
    return 0;
}

typedef struct combo {
    kd_dynamics_integrator integ;
    kd_dynamics_formalism route;
    double tol;
} combo;

static void test_free_vibration_every_integrator_and_route(void** state) {
    (void)state;
    kd_model* m = compile("mitc4", "");
    kd_modes modes;
    kd_error err;
    if (kd_modes_solve(m, 1, KD_EIGEN_LANCZOS, &modes, &err)) fail_msg("%s", err.msg);
    const double w1 = modes.omega[0], T = 2 * acos(-1.0) / w1, dt = T / 200;
    kd_modes_free(&modes);
    /* fixed step: the trapezoidal rule lengthens the period by (w dt)^2 / 12, a phase error of
     * 2 pi (w dt)^2 / 12 = 5.2e-4 of the amplitude over one period; hht (alpha -0.05) also damps */
    const double fixed = 2 * acos(-1.0) * (w1 * dt) * (w1 * dt) / 12;
    const kd_dynamics_formalism second[4] = {KD_DYN_FORMALISM_INVARIANTS, KD_DYN_FORMALISM_LAGRANGE,
                                             KD_DYN_FORMALISM_KANE, KD_DYN_FORMALISM_GIBBS_APPELL};
    combo list[32];
    int nc = 0;
    for (int r = 0; r < 4; r++) {
        list[nc++] = (combo){KD_INTEGRATOR_NEWMARK, second[r], 1.2 * fixed};
        list[nc++] = (combo){KD_INTEGRATOR_HHT, second[r], 1.5 * fixed};
        list[nc++] = (combo){KD_INTEGRATOR_GENERALIZED_ALPHA, second[r], 1.2 * fixed};
        list[nc++] = (combo){KD_INTEGRATOR_CVODE_BDF, second[r], 1e-4};
        list[nc++] = (combo){KD_INTEGRATOR_CVODE_ADAMS, second[r], 1e-4};
        list[nc++] = (combo){KD_INTEGRATOR_ARKODE_RK, second[r], 1e-4};
    }
    list[nc++] = (combo){KD_INTEGRATOR_HAMILTON_CVODE, KD_DYN_FORMALISM_HAMILTON, 1e-4};
    list[nc++] = (combo){KD_INTEGRATOR_IMPLICIT_MIDPOINT, KD_DYN_FORMALISM_HAMILTON, 1.2 * fixed};
    rec* rc = calloc(1, sizeof(rec));
    rc->neq = m->neq;
    rc->q = calloc((size_t)NREC * (size_t)m->neq, sizeof(double));
    for (int c = 0; c < nc; c++) {
        kd_analysis_desc a;
        kd_analysis_desc_init(&a, KD_ANALYSIS_DYNAMICS);
        /* the adaptive integrators (CVODE with fixed-point iteration, explicit ARKode) take
         * steps of the order of 1 / omega_max (the transverse shear): a quarter period */
        const int adaptive = list[c].integ != KD_INTEGRATOR_NEWMARK && list[c].integ != KD_INTEGRATOR_HHT &&
                             list[c].integ != KD_INTEGRATOR_GENERALIZED_ALPHA &&
                             list[c].integ != KD_INTEGRATOR_IMPLICIT_MIDPOINT;
        const double t_end = adaptive ? T / 4 : T;
        a.dynamics.t_end = t_end, a.dynamics.dt = dt, a.dynamics.integrator = list[c].integ;
        a.dynamics.formalism = list[c].route;
        a.dynamics.rho_inf = 1.0, a.dynamics.output_every = 1, a.dynamics.rtol = 1e-9, a.dynamics.atol = 1e-13;
        a.dynamics.newmark_beta = 0.25, a.dynamics.newmark_gamma = 0.5, a.dynamics.hht_alpha = -0.05;
        a.dynamics.initial_mode = 1, a.dynamics.initial_amplitude = 1e-4;
        rc->n = 0;
        const clock_t c0 = clock();
        if (kd_dynamics_run(m, &a, record, rc, NULL, NULL, 0, &err))
            fail_msg("integrator %d, route %d: %s", (int)list[c].integ, (int)list[c].route, err.msg);
        assert_true(rc->n > 10);
        const double* q0 = rc->q;
        double amp = 0, dev = 0;
        for (int i = 0; i < m->neq; i++) amp = fmax(amp, fabs(q0[i]));
        for (int k = 0; k < rc->n; k++) {
            const double cs = cos(w1 * rc->t[k]);
            for (int i = 0; i < m->neq; i++) dev = fmax(dev, fabs(rc->q[(size_t)k * m->neq + i] - q0[i] * cs));
        }
        assert_true(fabs(rc->t[rc->n - 1] - t_end) < 1e-9 * T);
        print_message("%-18s %-13s: %4d rows, max |q - q0 cos(w1 t)| / |q0| = %.2e (tolerance %.1e), %.2f s\n",
                      kd_dynamics_integrator_name(list[c].integ), kd_dynamics_formalism_name(list[c].route), rc->n,
                      dev / amp, list[c].tol, (double)(clock() - c0) / CLOCKS_PER_SEC);
        assert_true(dev < list[c].tol * amp);
    }
    free(rc->q), free(rc);
    kd_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_drilling_inertia),
        cmocka_unit_test(test_free_vibration_every_integrator_and_route),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
