/* Elements with their own axes (kd_model.elem_rot, kedyn/inertia.h) in the assemblies that
 * factor element square roots (kd_assemble_square_roots: the QR modal route) and in the
 * Rayleigh quotient at rest (kd_model_rest_rayleigh). Reference: a spatial Euler-Bernoulli
 * cantilever (its tip propped in y, so that the planes x-y and x-z differ) whose elements' axes are turned by 90 degrees about the beam axis (y_e = z_b,
 * z_e = -y_b) is the same structure as the unturned one with Iy and Iz swapped; its modes by
 * the Cholesky route (band assembly, which places elements) and by the QR route must both equal
 * the swapped model's, and the Rayleigh quotient of each exact mode its eigenvalue. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

static kd_model* cantilever(double Iy, double Iz, int turned) {
    kd_section_desc s = {0};
    s.shape = KD_SHAPE_GENERIC, s.A = 1e-4, s.Iy = Iy, s.Iz = Iz, s.J = 2e-9;
    kd_desc* d = one_beam(210e9, 7800, 0.3, s, 1.0, 12, KD_THEORY_EULER_BERNOULLI, KD_INTERP_CUBIC, 0);
    fix(d, 1, KD_FIX_ALL);
    fix(d, 13, 1u << KD_DOF_V); /* the tip propped in y: the two bending planes differ */
    kd_model* m = NULL;
    kd_error err;
    if (kd_model_compile(d, &m, &err)) fail_msg("%s", err.msg);
    kd_desc_free(&d);
    if (turned) { /* columns: element axes in body components, x_e = x_b, y_e = z_b, z_e = -y_b */
        m->elem_rot = calloc((size_t)9 * m->nelem, sizeof(double));
        for (int e = 0; e < m->nelem; e++) {
            double* R = m->elem_rot + 9 * e;
            R[0] = 1.0;           /* row x: (1, 0, 0) */
            R[5] = -1.0;          /* row y: column z_e has y_b = -1 */
            R[7] = 1.0;           /* row z: column y_e has z_b = 1 */
        }
    }
    return m;
}

static void test_turned_elements(void** state) {
    (void)state;
    const double Iy = 4e-10, Iz = 9e-10;
    kd_model* ref = cantilever(Iz, Iy, 0); /* swapped */
    kd_model* turned = cantilever(Iy, Iz, 1);
    kd_error err;
    kd_modes r0, rc, rq;
    if (kd_modes_solve_factor(ref, 6, KD_EIGEN_DENSE, KD_FACTOR_CHOLESKY, &r0, &err)) fail_msg("%s", err.msg);
    if (kd_modes_solve_factor(turned, 6, KD_EIGEN_DENSE, KD_FACTOR_CHOLESKY, &rc, &err)) fail_msg("%s", err.msg);
    if (kd_modes_solve_factor(turned, 6, KD_EIGEN_LANCZOS, KD_FACTOR_QR, &rq, &err)) fail_msg("%s", err.msg);
    double ec = 0, eq = 0, er = 0;
    double lam[6];
    assert_int_equal(kd_model_rest_rayleigh(turned, r0.shape, 6, lam), 0);
    for (int k = 0; k < 6; k++) {
        ec = fmax(ec, fabs(rc.omega[k] - r0.omega[k]) / r0.omega[k]);
        eq = fmax(eq, fabs(rq.omega[k] - r0.omega[k]) / r0.omega[k]);
        er = fmax(er, fabs(lam[k] - r0.lambda[k]) / r0.lambda[k]);
    }
    print_message("turned elements, 6 modes (omega_1 %.4f rad/s): Cholesky %.2e, QR %.2e, Rayleigh quotient of the "
                  "swapped model's modes %.2e\n", r0.omega[0], ec, eq, er);
    assert_true(ec < 1e-10);
    assert_true(eq < 1e-10);
    assert_true(er < 1e-10);
    kd_modes_free(&r0), kd_modes_free(&rc), kd_modes_free(&rq);
    kd_model_free(&ref), kd_model_free(&turned);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_turned_elements)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
