/* The sparse modal path of plate models (src/numerics/eigen_cholmod.c, kd_assemble_stiffness_mass_csc
 * in src/fe/assemble.c, the dispatch in src/analyses/modes.c) against the banded one, an
 * independent code path (band storage, LAPACK's band Cholesky): the same K and M, the same
 * eigenvalues to 1e-10, on supported and free plates of several element kinds. The closed-form
 * check of the simply supported plate through kd_modes_solve (which takes the sparse path for
 * plates) is tests/plate_model_test.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/kedyn.h"
#include "model_text.h"

/* The compressed-column K and M are the banded ones: A x equal for a few vectors. */
static void check_same_matrices(const kd_model* m, const kd_band* Kb, const kd_band* Mb, const kd_csc* Ks,
                                const kd_csc* Ms) {
    const int n = m->neq;
    double* x = malloc(sizeof(double) * (size_t)n * 4);
    double *yb = x + n, *ys = x + 2 * n, *ref = x + 3 * n;
    for (int v = 0; v < 3; v++) {
        for (int i = 0; i < n; i++) x[i] = cos(0.37 * (v + 1) * i) + (i % 7 == v ? 1.0 : 0.0);
        for (int k = 0; k < 2; k++) {
            kd_band_matvec(k ? Mb : Kb, x, yb);
            kd_csc_matvec(k ? Ms : Ks, x, ys);
            double scale = 0, diff = 0;
            for (int i = 0; i < n; i++) scale = fmax(scale, fabs(yb[i])), diff = fmax(diff, fabs(yb[i] - ys[i]));
            ref[0] = scale;
            assert_true(diff <= 1e-13 * scale);
        }
    }
    free(x);
}

static void compare_paths(const char* theory, const char* interp, int nx, int ny, int supported,
                          int count) {
    kd_model* m = plate_model(theory, interp, nx, ny, supported);
    const int n = m->neq;
    assert_true(n > KD_EIGEN_DENSE_MAX);
    kd_band Kb = {0}, Mb = {0};
    assert_int_equal(kd_band_init(&Kb, n, m->bandwidth), KD_OK);
    assert_int_equal(kd_band_init(&Mb, n, m->bandwidth), KD_OK);
    kd_assemble_stiffness_mass(m, &Kb, &Mb);
    kd_csc Ks, Ms;
    kd_error err;
    assert_int_equal(kd_assemble_stiffness_mass_csc(m, &Ks, &Ms, &err), KD_OK);
    assert_int_equal(Ks.n, n);
    check_same_matrices(m, &Kb, &Mb, &Ks, &Ms);

    const double sigma = -0.1 * m->body[0].lambda_hint;
    kd_modes band, sparse;
    if (kd_eigen_solve(&Kb, &Mb, count, KD_EIGEN_LANCZOS, sigma, &band, &err)) fail_msg("band: %s", err.msg);
    memset(&sparse, 0, sizeof(sparse));
    sparse.lambda = malloc(sizeof(double) * (size_t)count);
    sparse.shape = malloc(sizeof(double) * (size_t)count * (size_t)n);
    if (kd_eigen_cholmod(&Ks, &Ms, count, sigma, &sparse, &err)) fail_msg("sparse: %s", err.msg);
    /* the same eigenvalues to 1e-10 relative; the rigid-body modes of a free plate (lambda ~ 0,
     * round-off of either factorisation: ~eps lambda_max) both below 1e-12 of the highest computed */
    const double top = band.lambda[count - 1];
    int rigid = 0;
    for (int k = 0; k < count; k++) {
        const double d = fabs(sparse.lambda[k] - band.lambda[k]);
        const int zero = fabs(band.lambda[k]) < 1e-6 * top;
        rigid += zero;
        if (zero ? !(fabs(sparse.lambda[k]) <= 1e-12 * top) : !(d <= 1e-10 * fabs(band.lambda[k])))
            fail_msg("%s %s mode %d: band %.16e sparse %.16e", theory, interp, k + 1, band.lambda[k], sparse.lambda[k]);
    }
    assert_int_equal(rigid, supported ? 0 : 3);
    /* the shapes are M-normalised eigenvectors */
    double* kx = malloc(sizeof(double) * (size_t)n * 2);
    for (int k = 0; k < count; k++) {
        const double* x = sparse.shape + (size_t)k * n;
        kd_csc_matvec(&Ks, x, kx);
        kd_csc_matvec(&Ms, x, kx + n);
        double r = 0, mx = 0, xmx = 0;
        for (int i = 0; i < n; i++) {
            r = fmax(r, fabs(kx[i] - sparse.lambda[k] * kx[n + i]));
            mx = fmax(mx, fabs(kx[n + i])), xmx += x[i] * kx[n + i];
        }
        assert_true(fabs(xmx - 1) < 1e-9);
        assert_true(r <= 1e-8 * top * mx);  /* K x = lambda M x, against the scale of the spectrum */
    }
    free(kx);
    free(sparse.lambda);
    free(sparse.shape);
    kd_modes_free(&band);
    kd_band_free(&Kb);
    kd_band_free(&Mb);
    kd_csc_free(&Ks);
    kd_csc_free(&Ms);
    kd_model_free(&m);
}

static void test_mitc4_supported(void** state) {
    (void)state;
    compare_paths("mindlin", "mitc4", 14, 11, 1, 15);
}

static void test_acm_supported(void** state) {
    (void)state;
    compare_paths("kirchhoff", "acm", 12, 10, 1, 10);
}

static void test_dkt_free(void** state) {
    (void)state;
    /* free: three rigid-body modes (w, rx, ry) at lambda ~ 0, then the elastic ones */
    compare_paths("kirchhoff", "dkt", 10, 8, 0, 12);
}

/* kd_modes_solve takes the sparse path for plates, not for beams (whose results stay those of
 * the square-root QR path). */
static void test_dispatch(void** state) {
    (void)state;
    kd_model* m = plate_model("mindlin", "mitc4", 14, 11, 1);
    kd_modes r;
    kd_error err;
    assert_int_equal(kd_modes_solve(m, 6, KD_EIGEN_AUTO, &r, &err), KD_OK);
    assert_int_equal(r.sparse, 1);
    assert_int_equal(r.factor, KD_FACTOR_CHOLESKY);
    kd_modes_free(&r);
    assert_int_equal(kd_modes_solve_factor(m, 6, KD_EIGEN_AUTO, KD_FACTOR_QR, &r, &err), KD_OK);
    assert_int_equal(r.sparse, 0);
    kd_modes_free(&r);
    kd_model_free(&m);
    const char* beam = "kedyn: 1\n"
                       "materials: {steel: {E: 210e9, rho: 7800}}\n"
                       "sections: {flat: {shape: rectangle, b: 0.025, h: 0.006}}\n"
                       "bodies:\n"
                       "  - {name: rod, type: beam, material: steel, section: flat, elements: 100, points: {O: [0, 0], B: [0.46, 0]}}\n"
                       "supports:\n"
                       "  - {body: rod, node: 1, fix: all}\n";
    kd_desc* d = NULL;
    if (kd_load_yaml_string(beam, strlen(beam), "beam.yaml", &d, &err)) fail_msg("%s", err.msg);
    if (kd_model_compile(d, &m, &err)) fail_msg("compile: %s", err.msg);
    assert_int_equal(kd_modes_solve(m, 6, KD_EIGEN_AUTO, &r, &err), KD_OK);
    assert_int_equal(r.sparse, 0);
    kd_modes_free(&r);
    kd_model_free(&m);
    kd_desc_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mitc4_supported),
        cmocka_unit_test(test_acm_supported),
        cmocka_unit_test(test_dkt_free),
        cmocka_unit_test(test_dispatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
