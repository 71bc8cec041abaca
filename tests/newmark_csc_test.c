/* Implicit Newmark steps on the sparse factorisation (src/numerics/newmark_csc.c) of a simply
 * supported MITC4 plate (30 x 24, 2 217 DOF) started in its first mode: q0 = phi_1, v0 = 0,
 * a0 = -omega_1^2 phi_1 (the mode from kd_modes_solve). Undamped, the average-acceleration
 * scheme (b = 1/4, gamma = 1/2) keeps the mode and turns it by theta per step,
 * tan(theta / 2) = omega h / 2 (its closed-form amplification): q_N = cos(N theta) phi_1,
 * asserted to 1e-8 of max |phi_1|. With Rayleigh damping C = alpha M + beta K the mode stays
 * uncoupled (2 xi omega = alpha + beta omega^2): q_N = x_N phi_1 with x_N from the scalar
 * Newmark recurrence written here, asserted to 1e-8. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/kedyn.h"

static kd_model* plate(void) {
    const char* text = "kedyn: 1\n"
                       "materials: {steel: {E: 210e9, rho: 7800, nu: 0.3}}\n"
                       "bodies:\n"
                       "  - {name: plate, type: plate, theory: mindlin, interpolation: mitc4, material: steel,\n"
                       "     thickness: 0.001, mesh: {rectangle: [0.2, 0.16], divisions: [30, 24]},\n"
                       "     node_sets: {x0: {x: 0}, x1: {x: 0.2}, y0: {y: 0}, y1: {y: 0.16}}}\n"
                       "supports:\n"
                       "  - {body: plate, nodes: x0, fix: [w]}\n"
                       "  - {body: plate, nodes: x1, fix: [w]}\n"
                       "  - {body: plate, nodes: y0, fix: [w]}\n"
                       "  - {body: plate, nodes: y1, fix: [w]}\n";
    kd_desc* d = NULL;
    kd_model* m = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "plate.yaml", &d, &err)) fail_msg("%s", err.msg);
    if (kd_model_compile(d, &m, &err)) fail_msg("compile: %s", err.msg);
    kd_desc_free(&d);
    return m;
}

/* x_N of x'' + (alpha + beta w^2) x' + w^2 x = 0, x0 = 1, v0 = 0, by the same scheme, scalar. */
static double scalar_newmark(double w, double alpha, double beta, double h, int steps) {
    const double c = alpha + beta * w * w, b = 0.25, g = 0.5;
    double x = 1, v = 0, a = -w * w;
    for (int k = 0; k < steps; k++) {
        const double xs = x + h * v + h * h * (0.5 - b) * a, vs = v + h * (1 - g) * a;
        a = -(c * vs + w * w * xs) / (1 + g * h * c + b * h * h * w * w);
        x = xs + b * h * h * a, v = vs + g * h * a;
    }
    return x;
}

static void run(double alpha, double beta) {
    kd_model* m = plate();
    const int n = m->neq;
    kd_error err;
    kd_modes r;
    if (kd_modes_solve(m, 2, KD_EIGEN_AUTO, &r, &err)) fail_msg("modes: %s", err.msg);
    kd_csc K, M;
    assert_int_equal(kd_assemble_stiffness_mass_csc(m, &K, &M, &err), KD_OK);
    const double w = r.omega[0], h = 2 * 3.14159265358979323846 / w / 20;
    const int steps = 50;
    kd_newmark_csc* nm = NULL;
    assert_int_equal(kd_newmark_csc_init(&K, &M, alpha, beta, h, 0.25, 0.5, &nm), KD_OK);
    double* q = malloc(sizeof(double) * 4 * (size_t)n);
    double *v = q + n, *a = v + n, *f = a + n;
    const double* phi = r.shape;
    double big = 0;
    for (int i = 0; i < n; i++) q[i] = phi[i], v[i] = 0, a[i] = -w * w * phi[i], f[i] = 0, big = fmax(big, fabs(phi[i]));
    for (int k = 0; k < steps; k++) assert_int_equal(kd_newmark_csc_step(nm, f, q, v, a), 0);
    const double x = alpha == 0 && beta == 0 ? cos(steps * 2 * atan(w * h / 2)) : scalar_newmark(w, alpha, beta, h, steps);
    double diff = 0;
    for (int i = 0; i < n; i++) diff = fmax(diff, fabs(q[i] - x * phi[i]));
    printf("alpha %g beta %g: x_N = %.12f, difference %.2e of max |phi|\n", alpha, beta, x, diff / big);
    assert_true(diff <= 1e-8 * big);
    free(q);
    kd_newmark_csc_free(&nm);
    kd_csc_free(&K);
    kd_csc_free(&M);
    kd_modes_free(&r);
    kd_model_free(&m);
}

static void test_undamped(void** state) {
    (void)state;
    run(0, 0);
}

static void test_rayleigh(void** state) {
    (void)state;
    run(20, 2e-6);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_undamped),
        cmocka_unit_test(test_rayleigh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
