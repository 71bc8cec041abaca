/* Modes at speed through sparse matrices (src/fe/system_sparse.c, src/analyses/modes_speed.c)
 * against the dense state-space solver of the moving system (kd_modes_state_space on kd_system's
 * band matrices, LAPACK's QZ on the 2n x 2n pencil: another assembly and another method). The
 * thesis plate (MITC4, clamped at x = 0) spinning about the y axis in its plane has no
 * gyroscopic coupling on its w, rx, ry DOFs, so both give the same frequencies: asserted to
 * 1e-7 relative at 300 and 1 000 rad/s (QZ's round-off on this badly scaled pencil, measured
 * 3e-10 at worst; docs/validation.md). Physics check of the stiffening: the first (bending)
 * frequency rises with speed and the sparse path without k_g (geometric_stiffness: false) gives
 * a lower one (softening alone). A membrane spinning about its normal is gyroscopic: refused.
 * `kedyn run` takes this path for moving models above KD_GYRO_MAX equations. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/kedyn.h"
#include "kedyn/modes_speed.h"
#include "kedyn/run.h"
#include "model_text.h"

static kd_model* plate(double speed, const char* axis, const char* extra, const char* fix) {
    char text[2048];
    snprintf(text, sizeof text,
             "kedyn: 1\n"
             "materials: {steel: {E: 210e9, rho: 7800, nu: 0.3}}\n"
             "bodies:\n"
             "  - name: plate\n"
             "    type: plate\n"
             "%s"
             "    material: steel\n"
             "    thickness: 0.001\n"
             "    mesh: {rectangle: [0.2, 0.16], divisions: [10, 8]}\n"
             "    node_sets:\n"
             "      root: {x: 0}\n"
             "supports:\n"
             "  - {body: plate, nodes: root, fix: %s}\n"
             "motion:\n"
             "  - {body: plate, rotation: {axis: %s, law: {speed: %g}}}\n",
             extra, fix, axis, speed);
    return model_from_text(text);
}

static const char* MITC4 = "    theory: mindlin\n    interpolation: mitc4\n";

static void compare(double speed) {
    kd_model* m = plate(speed, "y", MITC4, "all");
    kd_error err;
    kd_modes sp, ss;
    const int count = 15;
    if (kd_modes_speed_sparse(m, 0.0, count, &sp, &err)) fail_msg("sparse: %s", err.msg);
    kd_system s;
    if (kd_system_init(&s, m, &err)) fail_msg("system: %s", err.msg);
    if (kd_modes_state_space(&s, 0.0, count, &ss, &err)) fail_msg("state space: %s", err.msg);
    double worst = 0;
    for (int k = 0; k < count; k++) {
        const double d = fabs(sp.omega[k] - ss.omega[k]) / ss.omega[k];
        worst = fmax(worst, d);
        if (!(d <= 1e-7)) fail_msg("%g rad/s mode %d: sparse %.12e state space %.12e", speed, k + 1, sp.omega[k], ss.omega[k]);
    }
    printf("%g rad/s: worst relative difference %.2e\n", speed, worst);
    kd_modes_free(&sp);
    kd_modes_free(&ss);
    kd_system_free(&s);
    kd_model_free(&m);
}

static void test_against_state_space(void** state) {
    (void)state;
    compare(300);
    compare(1000);
}

static void test_stiffening(void** state) {
    (void)state;
    kd_error err;
    kd_modes r0, r1, r2;
    kd_model* m0 = plate(0, "y", MITC4, "all");
    kd_model* m1 = plate(1000, "y", MITC4, "all");
    char soft[256];
    snprintf(soft, sizeof soft, "%s    geometric_stiffness: false\n", MITC4);
    kd_model* m2 = plate(1000, "y", soft, "all");
    assert_int_equal(kd_modes_speed_sparse(m0, 0.0, 3, &r0, &err), KD_OK);
    assert_int_equal(kd_modes_speed_sparse(m1, 0.0, 3, &r1, &err), KD_OK);
    assert_int_equal(kd_modes_speed_sparse(m2, 0.0, 3, &r2, &err), KD_OK);
    assert_true(r1.omega[0] > r0.omega[0] * 1.01);  /* bending stiffens with the speed */
    assert_true(r2.omega[0] < r0.omega[0]);         /* the softening alone lowers it */
    kd_modes_free(&r0), kd_modes_free(&r1), kd_modes_free(&r2);
    kd_model_free(&m0), kd_model_free(&m1), kd_model_free(&m2);
}

/* kedyn run: a moving model above KD_GYRO_MAX equations takes the sparse path (the dispatch in
 * src/run/run_modes.c), with the library's frequencies. */
static void test_run_dispatch(void** state) {
    (void)state;
    const char* text = "kedyn: 1\n"
                       "materials: {steel: {E: 210e9, rho: 7800, nu: 0.3}}\n"
                       "bodies:\n"
                       "  - {name: plate, type: plate, theory: mindlin, interpolation: mitc4, material: steel,\n"
                       "     thickness: 0.001, mesh: {rectangle: [0.2, 0.16], divisions: [40, 32]},\n"
                       "     node_sets: {root: {x: 0}}}\n"
                       "supports:\n"
                       "  - {body: plate, nodes: root, fix: all}\n"
                       "motion:\n"
                       "  - {body: plate, rotation: {axis: y, law: {speed: 1000}}}\n"
                       "analyses:\n"
                       "  - {type: modes, count: 5}\n";
    kd_desc* d = NULL;
    kd_model* m = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "plate.yaml", &d, &err)) fail_msg("%s", err.msg);
    if (kd_model_compile(d, &m, &err)) fail_msg("compile: %s", err.msg);
    assert_true(m->neq > KD_GYRO_MAX);
    char dir[] = "/tmp/kd_modes_speed_XXXXXX";
    assert_non_null(mkdtemp(dir));
    kd_run_report rep;
    if (kd_run(d, m, "plate.yaml", dir, &rep, &err)) fail_msg("run: %s", err.msg);
    assert_int_equal(rep.complete, 1);
    const kd_modes* r = &rep.analyses[0].modes;
    assert_int_equal(r->count, 5);
    assert_int_equal(r->sparse, 1);
    kd_modes lib;
    assert_int_equal(kd_modes_speed_sparse(m, 0.0, 5, &lib, &err), KD_OK);
    for (int k = 0; k < 5; k++) assert_true(fabs(r->omega[k] - lib.omega[k]) <= 1e-12 * lib.omega[k]);
    kd_modes_free(&lib);
    kd_run_report_free(&rep);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    kd_model_free(&m);
    kd_desc_free(&d);
}

static void test_gyroscopic_refused(void** state) {
    (void)state;
    kd_model* m = plate(300, "z", "    theory: membrane\n    interpolation: q4\n", "[u, v]");
    kd_error err;
    kd_modes r;
    assert_int_equal(kd_modes_speed_sparse(m, 0.0, 5, &r, &err), KD_ERR_USAGE);
    kd_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_state_space),
        cmocka_unit_test(test_stiffening),
        cmocka_unit_test(test_gyroscopic_refused),
        cmocka_unit_test(test_run_dispatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
