/* The membrane pre-stress of a large plate (src/fe/prestress_membrane.c) through its two
 * storages of the membrane stiffness: compressed columns factored by CHOLMOD (the path of bodies
 * from PRESTRESS_SPARSE_MIN equations on) against the band factored by LAPACK's dpbsv (the path
 * of small bodies), an independent factorisation with another ordering. The resultants of the six
 * unit load cases agree to 1e-9 of each case's largest (round-off of two Cholesky factorisations:
 * about eps times the condition number of the membrane stiffness, (a / h)^2 ~ 1e4 here; measured
 * 1e-12, docs/validation.md). Physics: the plate clamped at x = 0 spinning about the y axis at
 * Omega carries across each section x the whole centrifugal load outboard of it,
 * int N_x dy = rho t b Omega^2 (a^2 - x^2) / 2 (equilibrium; theory.md sec. 5.7), checked to 1 %
 * from the element averages between x = 0.1 a and 0.9 a. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fe/prestress_membrane.h"
#include "kedyn/kedyn.h"
#include "model_text.h"

static const double A = 0.2, B = 0.16, T = 0.001, RHO = 7800;

static kd_model* rotating_plate(int nx, int ny) {
    char text[2048];
    snprintf(text, sizeof text,
             "kedyn: 1\n"
             "materials: {steel: {E: 210e9, rho: 7800, nu: 0.3}}\n"
             "bodies:\n"
             "  - name: plate\n"
             "    type: plate\n"
             "    theory: mindlin\n"
             "    interpolation: mitc4\n"
             "    material: steel\n"
             "    thickness: 0.001\n"
             "    mesh: {rectangle: [%g, %g], divisions: [%d, %d]}\n"
             "    node_sets:\n"
             "      root: {x: 0}\n"
             "supports:\n"
             "  - {body: plate, nodes: root, fix: all}\n"
             "motion:\n"
             "  - {body: plate, rotation: {axis: y, law: {speed: 300}}}\n",
             A, B, nx, ny);
    return model_from_text(text);
}

static void test_sparse_equals_band(void** state) {
    (void)state;
    kd_model* m = rotating_plate(60, 48);  /* 5 880 membrane equations: above PRESTRESS_SPARSE_MIN */
    kd_error err;
    prestress_membrane *band = NULL, *sparse = NULL, *automatic = NULL;
    if (prestress_membrane_solve_storage(m, 0, &band, &err)) fail_msg("band: %s", err.msg);
    if (prestress_membrane_solve_storage(m, 1, &sparse, &err)) fail_msg("sparse: %s", err.msg);
    if (prestress_membrane_solve(m, &automatic, &err)) fail_msg("auto: %s", err.msg);
    assert_non_null(band);
    assert_non_null(sparse);
    /* the same layout; per case c, the largest resultant and the largest difference */
    size_t total = 0;
    for (int e = 0; e < m->nelem; e++) {
        assert_int_equal(band->elem_adr[e], sparse->elem_adr[e]);
        const kd_element_props* p = &m->prop[m->elem_prop[e]];
        total = (size_t)band->elem_adr[e] + (size_t)p->family->quadrature(p)->n * PRESTRESS_CASES * 3;
    }
    double big[PRESTRESS_CASES] = {0}, diff[PRESTRESS_CASES] = {0};
    for (size_t k = 0; k < total; k++) {
        const int c = (int)(k / 3 % PRESTRESS_CASES);
        big[c] = fmax(big[c], fabs(band->N[k]));
        diff[c] = fmax(diff[c], fabs(band->N[k] - sparse->N[k]));
        assert_true(automatic->N[k] == sparse->N[k]);  /* the automatic choice at this size */
    }
    double worst = 0;
    for (int c = 0; c < PRESTRESS_CASES; c++) {
        assert_true(big[c] > 0);
        worst = fmax(worst, diff[c] / big[c]);
        if (!(diff[c] <= 1e-9 * big[c])) fail_msg("case %d: difference %.3e of %.3e", c, diff[c], big[c]);
    }
    printf("sparse vs band: worst relative difference %.2e\n", worst);
    /* N_x of the spin about y (M = W W = diag(-Omega^2, 0, -Omega^2), Omega = 1) */
    const double a0[3] = {0, 0, 0}, Mw[9] = {-1, 0, 0, 0, 0, 0, 0, 0, -1};
    double S[16 * KD_GRAD_MAX * KD_GRAD_MAX];
    enum { NX = 60, NY = 48 };
    double section[NX] = {0};  /* the integral of N_x across the width, per column of elements */
    for (int e = 0; e < m->nelem; e++) {
        const kd_element_props* p = &m->prop[m->elem_prop[e]];
        const int ng = p->family->quadrature(p)->n;
        assert_true(ng <= 16);
        assert_int_equal(prestress_membrane_field(sparse, m, e, a0, Mw, S), 1);
        const int* nodes;
        const int nen = kd_model_elem_nodes(m, e, &nodes);
        double xc = 0, nx = 0;
        for (int a = 0; a < nen; a++) xc += m->node_x[3 * nodes[a]] / nen;
        for (int g = 0; g < ng; g++) nx += S[(size_t)g * KD_GRAD_MAX * KD_GRAD_MAX] / ng;
        section[(int)(xc / A * NX)] += nx * B / NY;
    }
    int checked = 0;
    double sworst = 0;
    for (int i = NX / 10; i < NX - NX / 10; i++) {
        const double xc = (i + 0.5) * A / NX, exact = RHO * T * B * (A * A - xc * xc) / 2;
        sworst = fmax(sworst, fabs(section[i] - exact) / exact);
        if (!(fabs(section[i] - exact) <= 0.01 * exact))
            fail_msg("section at x = %g: %.6e, outboard load %.6e", xc, section[i], exact);
        checked++;
    }
    assert_true(checked > 40);
    printf("section force: worst relative error %.2e\n", sworst);
    prestress_membrane_free(&band);
    prestress_membrane_free(&sparse);
    prestress_membrane_free(&automatic);
    kd_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sparse_equals_band),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
