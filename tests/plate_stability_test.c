/* Stability maps of a rotating plate over its size and hub (theory.md sec. 14.4): for a Kirchhoff
 * plate every term of the energy scales exactly under a uniform scaling s of the plate (and of
 * its hub) but the rotary inertia: bending D / s^2, centrifugal softening and the stiffening of
 * N ~ rho t Omega^2 s^2 both Omega^2 s^2, so the divergence speed goes as 1 / s^2 up to terms
 * of order (t / a)^2. The map of kd_stability_run (lengths: the plate's side a, the mesh scaled
 * uniformly) must follow that law; the residual must shrink as (t / a)^2 (a convergence
 * rate, the second independent check). The thickness axis (`thicknesses`, theory.md sec. 14.8):
 * bending D ~ t^3 against softening and stiffening ~ rho t Omega^2, so Omega_cr ~ t at a fixed
 * side and hub, up to the rotary inertia's (t / a)^2. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/kedyn.h"

/* The plate of examples/rotating_plate_bending.yaml as ACM (Kirchhoff) elements, thickness t. */
static const char* model_text =
    "kedyn: 1\n"
    "title: rotating plate, stability map\n"
    "materials:\n"
    "  steel: {E: 210e9, rho: 7800, nu: 0.3}\n"
    "bodies:\n"
    "  - name: plate\n"
    "    type: plate\n"
    "    theory: kirchhoff\n"
    "    interpolation: acm\n"
    "    material: steel\n"
    "    thickness: %.17g\n"
    "    mesh: {rectangle: [0.2, 0.16], divisions: [10, 8]}\n"
    "    node_sets:\n"
    "      root: {x: 0}\n"
    "supports:\n"
    "  - {body: plate, nodes: root, fix: all}\n"
    "motion:\n"
    "  - {body: plate, rotation: {axis: y, law: {speed: 300}}}\n";

static kd_stability_map run_map(double t, const double* hubs, int nh, const double* lengths, int nl) {
    char text[2048];
    snprintf(text, sizeof(text), model_text, t);
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "plate.yaml", &d, &err)) fail_msg("%s", err.msg);
    kd_stability_map map;
    if (kd_stability_run(d, 0, hubs, nh, lengths, nl, 1e7, &map, &err)) fail_msg("%s", err.msg);
    kd_desc_free(&d);
    return map;
}

static void test_plate_size_and_hub_scaling(void** state) {
    (void)state;
    const double hubs[2] = {0.0, 0.05}, lengths[3] = {0.1, 0.2, 0.4};
    double dev[2] = {0, 0};
    for (int pass = 0; pass < 2; pass++) {
        const double t = pass ? 0.0005 : 0.001;
        kd_stability_map m = run_map(t, hubs, 2, lengths, 3);
        const double* w = m.omega_cr; /* [hub][length] */
        for (int k = 0; k < 6; k++) assert_true(isfinite(w[k]) && w[k] > 0);
        /* hub 0: a = 0.1 -> 0.2 -> 0.4, each 1 / s^2 = 1 / 4 */
        const double r1 = w[0] / w[1], r2 = w[1] / w[2];
        /* with a fixed hub 0.05 m the rows do not scale (the hub would have to scale too:
         * test_plate_hub_scaled_with_size) */
        print_message("t = %.4f m: Omega_cr(a = 0.1, 0.2, 0.4) = %.2f, %.2f, %.2f rad/s; ratios %.6f, %.6f "
                      "(1 / s^2: 4); hub 0.05: %.2f, %.2f, %.2f\n",
                      t, w[0], w[1], w[2], r1, r2, w[3], w[4], w[5]);
        dev[pass] = fabs(r1 - 4.0) / 4.0;
        assert_true(fabs(r1 - 4.0) < 2e-3 * 4.0);
        assert_true(fabs(r2 - 4.0) < 1e-3 * 4.0);
        assert_true(fabs(r2 - 4.0) < fabs(r1 - 4.0)); /* (t / a)^2 smaller at the larger plate */
        /* a hub moves the divergence speed up (more centrifugal tension on the bending) */
        for (int j = 0; j < 3; j++) assert_true(w[3 + j] > w[j]);
        kd_stability_free(&m);
    }
    /* halving t quarters the residual: (t / a)^2 */
    print_message("residual of the 1 / s^2 law at a = 0.1 -> 0.2: %.3e (t = 1 mm), %.3e (t = 0.5 mm), ratio %.3f\n",
                  dev[0], dev[1], dev[0] / dev[1]);
    assert_true(dev[0] / dev[1] > 3.5 && dev[0] / dev[1] < 4.5);
}

/* Hub and side scaled together: (h, a) and (2 h, 2 a) differ by the factor 4 as well. */
static void test_plate_hub_scaled_with_size(void** state) {
    (void)state;
    const double hubs[2] = {0.05, 0.1}, lengths[2] = {0.2, 0.4};
    kd_stability_map m = run_map(0.0005, hubs, 2, lengths, 2);
    const double r = m.omega_cr[0 * 2 + 0] / m.omega_cr[1 * 2 + 1];
    print_message("Omega_cr(hub 0.05, a 0.2) / Omega_cr(hub 0.1, a 0.4) = %.6f (4)\n", r);
    assert_true(fabs(r - 4.0) < 1e-3 * 4.0);
    kd_stability_free(&m);
}

/* The thickness axis of a map, from the model's `thicknesses`: Omega_cr ~ t (doubling t doubles
 * it) for every hub, the residual of that law shrinking as (t / a)^2. */
static void test_plate_thickness_axis(void** state) {
    (void)state;
    char text[2048];
    snprintf(text, sizeof(text), model_text, 0.001);
    strcat(text, "analyses:\n  - {type: stability, hubs: [0, 0.05], lengths: [0.2], thicknesses: [0.0005, 0.001, 0.002],"
                 " omega_max: 1e7}\n");
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "plate.yaml", &d, &err)) fail_msg("%s", err.msg);
    const kd_stability_desc* sd = &d->analyses[0].stability;
    assert_int_equal(sd->nthicknesses, 3);
    double w[2][3];
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 3; k++)
            if (kd_stability_point_thickness(d, 0, sd->hubs[i], sd->lengths[0], sd->thicknesses[k], sd->omega_max, &w[i][k],
                                             &err))
                fail_msg("%s", err.msg);
    for (int i = 0; i < 2; i++) {
        const double r1 = w[i][1] / w[i][0], r2 = w[i][2] / w[i][1];
        const double d1 = fabs(r1 - 2.0) / 2.0, d2 = fabs(r2 - 2.0) / 2.0;
        print_message("hub %.2f: Omega_cr(t = 0.5, 1, 2 mm) = %.3f, %.3f, %.3f rad/s; ratios %.6f, %.6f (t: 2), "
                      "residuals %.3e, %.3e (ratio %.3f, (t / a)^2: 4)\n",
                      sd->hubs[i], w[i][0], w[i][1], w[i][2], r1, r2, d1, d2, d2 / d1);
        assert_true(d1 < 2e-3 && d2 < 4e-3);
        assert_true(d2 / d1 > 3.5 && d2 / d1 < 4.5);
    }
    /* the body's own thickness (1 mm) without the axis: the same point */
    double own;
    if (kd_stability_point(d, 0, 0.0, 0.2, 1e7, &own, &err)) fail_msg("%s", err.msg);
    assert_true(own == w[0][1]);
    kd_desc_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plate_size_and_hub_scaling),
        cmocka_unit_test(test_plate_hub_scaled_with_size),
        cmocka_unit_test(test_plate_thickness_axis),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
