/* Plates at rest under gravity (theory.md sec. 14.2): the in-plane pre-stress of gravity and
 * its geometric stiffness in the modes at rest, against the Rayleigh perturbation of the
 * hanging beam (independent of the plate code: an integral of the exact Euler-Bernoulli mode).
 *
 * A narrow cantilever plate (L = 1 m, b = 0.05 m, t = 10 mm, nu = 0, MITC4 40 x 2) clamped at
 * x = 0 with gravity g along +x (hanging: tension N_x = rho t g (L - x)) or -x (standing:
 * compression). First order in P L^2 / EI (0.044 here), d(omega_1^2) = g int (L - x) phi'^2 dx
 * / int phi^2 dx for the exact mode phi of the clamped-free beam, b L = 1.8751: independent of
 * E, b and t. Each route must shift the plate's own omega_1^2 (without gravity) by it: the
 * modes at rest by the sparse (CHOLMOD), band Cholesky and square-root QR factorisations
 * (kd_assemble_*, model.rest_S), and kd_system at zero speed (its own pre-stress path). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/kedyn.h"
#include "cantilever_mode.h"

static const char* model_text =
    "kedyn: 1\n"
    "title: narrow hanging plate\n"
    "materials:\n"
    "  steel: {E: 210e9, rho: 7800, nu: 0}\n"
    "bodies:\n"
    "  - name: strip\n"
    "    type: plate\n"
    "    theory: mindlin\n"
    "    interpolation: mitc4\n"
    "    material: steel\n"
    "    thickness: 0.01\n"
    "    mesh: {rectangle: [1.0, 0.05], divisions: [40, 2]}\n"
    "    node_sets:\n"
    "      root: {x: 0}\n"
    "supports:\n"
    "  - {body: strip, nodes: root, fix: all}\n"
    "%s"
    "%s";

/* d(omega_1^2) per unit g along the beam (Simpson on 4000 intervals). */
static double rayleigh_shift_per_g(double L) { return cantilever_mode_ratio(L, cantilever_gravity_weight); }

static kd_model* compile(double gx, int rotating) {
    char loads[128] = "", motion[128] = "", text[2048];
    if (gx != 0.0) snprintf(loads, sizeof(loads), "forces:\n  - {type: gravity, g: [%.17g, 0, 0]}\n", gx);
    if (rotating) snprintf(motion, sizeof(motion), "motion:\n  - {body: strip, rotation: {axis: z, law: {speed: 0}}}\n");
    snprintf(text, sizeof(text), model_text, loads, motion);
    kd_desc* d = NULL;
    kd_model* m = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "strip.yaml", &d, &err)) fail_msg("%s", err.msg);
    if (kd_model_compile(d, &m, &err)) fail_msg("%s", err.msg);
    kd_desc_free(&d);
    return m;
}

/* omega_1 by route: 0 sparse (auto), 1 band Cholesky, 2 square-root QR, 3 kd_system at zero speed. */
static double omega1(double gx, int route) {
    kd_model* m = compile(gx, route == 3);
    kd_modes r;
    kd_error err;
    if (route < 3) {
        const kd_eigen_factor f[3] = {KD_FACTOR_AUTO, KD_FACTOR_CHOLESKY, KD_FACTOR_QR};
        if (kd_modes_solve_factor(m, 2, KD_EIGEN_AUTO, f[route], &r, &err)) fail_msg("route %d: %s", route, err.msg);
    } else {
        kd_system s;
        if (kd_system_init(&s, m, &err)) fail_msg("%s", err.msg);
        if (kd_modes_state_space(&s, 0.0, 2, &r, &err)) fail_msg("%s", err.msg);
        kd_system_free(&s);
    }
    const double w = r.omega[0];
    kd_modes_free(&r);
    kd_model_free(&m);
    return w;
}

static void check(double g) {
    const double ref = g * rayleigh_shift_per_g(1.0);
    for (int route = 0; route < 4; route++) {
        if (route == 2 && g < 0) continue; /* the QR route factors k_g: tension only */
        const double w0 = omega1(0.0, route), wg = omega1(g, route), shift = wg * wg - w0 * w0;
        print_message("g = %+.2f along x, route %d: omega_1 %.6f -> %.6f rad/s, d(omega^2) %.5f, Rayleigh %.5f, "
                      "error %.2e\n", g, route, w0, wg, shift, ref, fabs(shift - ref) / fabs(ref));
        assert_true(fabs(shift - ref) < 1e-3 * fabs(ref)); /* measured 1.8e-4 */
    }
}

static void test_hanging_plate(void** state) {
    (void)state;
    check(9.81);
}

static void test_standing_plate(void** state) {
    (void)state;
    check(-9.81);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hanging_plate),
        cmocka_unit_test(test_standing_plate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
