/* Modes along the motion of gyroscopic links on the sparse state-space solver
 * (src/links/modes_along_motion.c -> kd_eigen_gyro_sparse_general, src/numerics/eigen_gyro_sparse.c):
 * the elastic rod of examples/wind_pump_elastic.yaml at the crank speed 14.661 rad/s, its Coriolis [c]
 * and the skew k(eps) of the crank's angular acceleration in every instant (`gyroscopic: dense`:
 * the state-space solver at every instant):
 *   - a rod of 100 elements (about 300 equations), the sparse route forced
 *     (KEDYN_GYRO_SPARSE_MIN_DOF = 1) against the dense one (LAPACK dgeev on the scaled 2n pencil,
 *     KEDYN_GYRO_SPARSE_MIN_DOF above the size): the same frequencies at every instant;
 *   - a rod of 520 elements (beyond the dense solver's 1 500 equations) on the sparse route, against
 *     the 100-element rod's dense solution (to the discretisation error of the coarser rod).
 * The instants: t = 0 to 0.015 s of the revolution, four of them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/kedyn.h"
#include "kedyn/ked.h"
#include "kedyn/modes.h"

static const double W = 14.661;  /* the crank speed of the example, rad/s */

static kd_ked* pump(int elements, double t_end, int steps) {
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_file(KD_EXAMPLES_DIR "/wind_pump_elastic.yaml", &d, &err)) fail_msg("load: %s", err.msg);
    int rod = -1;
    for (int b = 0; b < d->nbodies; b++)
        if (strcmp(d->bodies[b].name, "rod") == 0) rod = b;
    assert_true(rod >= 0);
    d->bodies[rod].elements = elements;
    kd_ked_opts o = {t_end, steps, W, 1e8};
    kd_ked* k = NULL;
    kd_error_clear(&err);
    if (kd_ked_new(d, &o, &k, &err)) fail_msg("ked: %d:%d %s", err.loc.line, err.loc.col, err.msg);
    kd_desc_free(&d);
    return k;
}

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

/* The instants t = 0, 0.005, 0.01, 0.015 s of the revolution, the state-space solver at each. */
static kd_ked_modes pump_modes(int elements, int count, const char* min_dof, int* neq) {
    kd_ked* k = pump(elements, 0.015, 3);
    *neq = k->link[0].model->neq;
    if (min_dof) setenv("KEDYN_GYRO_SPARSE_MIN_DOF", min_dof, 1);
    kd_ked_modes m = along(k, count, KD_KED_GYRO_DENSE);
    unsetenv("KEDYN_GYRO_SPARSE_MIN_DOF");
    assert_int_equal(m.state_space, m.nsamples);
    assert_int_equal(m.dense_instants, m.nsamples);
    kd_ked_free(&k);
    return m;
}

static void test_sparse_vs_dense(void** state) {
    (void)state;
    enum { COUNT = 6 };
    int n, nl;
    kd_ked_modes dn = pump_modes(100, COUNT, "1000000", &n), sp = pump_modes(100, COUNT, "1", &n);
    const double e = max_rel_diff(&sp, &dn);
    print_message("pump rod of 100 elements (%d equations), %d instants x %d modes: sparse vs dense state-space "
                  "%.2e (omega_1 = %.3f rad/s at t = 0)\n", n, sp.nsamples, COUNT, e, sp.omega[0]);
    assert_true(e < 1e-8);
    /* the rod of 520 elements: the same frequencies to the discretisation error of the 100-element
     * rod's cubic elements (measured 8.7e-7 at worst over the six modes) */
    kd_ked_modes lg = pump_modes(520, COUNT, NULL, &nl);
    assert_true(nl > KD_GYRO_MAX);
    const double el = max_rel_diff(&lg, &dn);
    print_message("pump rod of 520 elements (%d equations, beyond the dense solver), sparse route: against the "
                  "100-element rod's dense solution %.2e, MAC >= %.6f\n", nl, el, lg.mac_min);
    assert_true(el < 3e-6);
    assert_true(lg.mac_min > 0.99);
    kd_ked_modes_free(&dn), kd_ked_modes_free(&sp), kd_ked_modes_free(&lg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sparse_vs_dense),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
