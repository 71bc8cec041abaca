/* Modal analysis tests (src/analyses/modes.c, src/numerics/band.c, eigen_*.c, src/fe/model_compile.c)
 * against closed-form frequencies: Euler-Bernoulli beams (beta L roots),
 * axial and torsional rods, Rayleigh and Timoshenko simply supported beams
 * (their analytic frequency equations), rigid-body mode counts, total mass,
 * and the convergence order of cubic versus quintic elements. The measured
 * errors are recorded in docs/validation.md. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

static const double E = 210e9, RHO = 7800, NU = 0.3;

/* Roots of cos(bL) cosh(bL) = -1 (clamped-free) and = +1 (free-free). */
static const double CLAMPED_FREE[5] = {1.87510406871196, 4.69409113297418, 7.85475743823761, 10.9955407348755,
                                       14.1371683910465};
static const double FREE_FREE[4] = {4.73004074486270, 7.85320462409584, 10.9956078380017, 14.1371654912575};

/* Steel rod of diameter 10 mm, 1 m long: bending wave constant sqrt(EI/rho A). */
static double bending_c(double dia) { return sqrt(E / RHO) * dia / 4.0; }

/* Fix the axial DOF at every node: isolates bending in planar tests. */
static void fix_axial_everywhere(kd_desc* d) {
    for (int n = 1; n <= d->bodies[0].elements + 1; n++) fix(d, n, BIT(KD_DOF_U));
}

static double cantilever_error(kd_interp ip, int nelem, int mode) {
    kd_desc* d = one_beam(E, RHO, NU, circle(0.01), 1.0, nelem, KD_THEORY_EULER_BERNOULLI, ip, 1);
    fix(d, 1, KD_FIX_ALL);
    fix_axial_everywhere(d);
    kd_modes r = solve_modes(d, mode, KD_EIGEN_DENSE);
    const double b = CLAMPED_FREE[mode - 1], exact = b * b * bending_c(0.01);
    const double e = rel_err(r.omega[mode - 1], exact);
    kd_modes_free(&r);
    kd_desc_free(&d);
    return e;
}

static void test_cantilever(void** state) {
    (void)state;
    for (int k = 1; k <= 5; k++) {
        const double e = cantilever_error(KD_INTERP_CUBIC, 40, k);
        print_message("cantilever cubic N=40 mode %d: rel. error %.2e\n", k, e);
        assert_true(e < 5e-9 * pow(k, 5));
        const double eq = cantilever_error(KD_INTERP_QUINTIC, 10, k);
        print_message("cantilever quintic N=10 mode %d: rel. error %.2e\n", k, eq);
        assert_true(eq < 5e-12 * pow(k, 8));
    }
}

static void test_pinned_pinned(void** state) {
    (void)state;
    kd_desc* d = one_beam(E, RHO, NU, circle(0.01), 1.0, 40, KD_THEORY_EULER_BERNOULLI, KD_INTERP_CUBIC, 1);
    fix(d, 1, BIT(KD_DOF_V));
    fix(d, 41, BIT(KD_DOF_V));
    fix_axial_everywhere(d);
    kd_modes r = solve_modes(d, 4, KD_EIGEN_AUTO);
    for (int k = 1; k <= 4; k++) {
        const double exact = pow(k * PI, 2) * bending_c(0.01), e = rel_err(r.omega[k - 1], exact);
        print_message("pinned-pinned cubic N=40 mode %d: rel. error %.2e\n", k, e);
        assert_true(e < 1e-7 * pow(k, 4));
    }
    kd_modes_free(&r);
    kd_desc_free(&d);
}

/* Free-free planar beam: 3 rigid-body modes, then the beta L roots. */
static void test_free_free_planar(void** state) {
    (void)state;
    kd_desc* d = one_beam(E, RHO, NU, circle(0.01), 1.0, 40, KD_THEORY_EULER_BERNOULLI, KD_INTERP_CUBIC, 1);
    kd_modes r = solve_modes(d, 7, KD_EIGEN_AUTO);
    const double first = pow(FREE_FREE[0], 2) * bending_c(0.01);
    for (int k = 0; k < 3; k++) assert_true(r.omega[k] < 1e-4 * first);
    for (int k = 0; k < 4; k++) {
        const double exact = pow(FREE_FREE[k], 2) * bending_c(0.01), e = rel_err(r.omega[3 + k], exact);
        print_message("free-free cubic N=40 mode %d: rel. error %.2e\n", k + 1, e);
        assert_true(e < 2e-7 * pow(k + 1, 4));
    }
    kd_modes_free(&r);
    kd_desc_free(&d);
}

/* Free 3D beam: 6 rigid-body modes; and the same through the Lanczos solver
 * (shift below zero handles the singular stiffness). */
static void test_free_spatial_rigid_modes(void** state) {
    (void)state;
    const kd_eigen_solver solvers[2] = {KD_EIGEN_DENSE, KD_EIGEN_LANCZOS};
    for (int s = 0; s < 2; s++) {
        kd_desc* d = one_beam(E, RHO, NU, circle(0.01), 1.0, 60, KD_THEORY_EULER_BERNOULLI, KD_INTERP_CUBIC, 0);
        kd_modes r = solve_modes(d, 8, solvers[s]);
        const double first = pow(FREE_FREE[0], 2) * bending_c(0.01);
        int zero = 0;
        for (int k = 0; k < 8; k++) zero += r.omega[k] < 1e-4 * first;
        assert_int_equal(zero, 6);
        /* the circle bends alike in both planes: a double first mode */
        assert_true(rel_err(r.omega[6], first) < 1e-6 && rel_err(r.omega[7], first) < 1e-6);
        kd_modes_free(&r);
        kd_desc_free(&d);
    }
}

/* Fixed-free rods: axial omega_k = (2k-1) pi/(2L) sqrt(E/rho), torsional
 * with sqrt(G/rho) (circle: J = Ip). Linear elements: error O(h^2). */
static double rod_error(int planar, int nelem, int k) {
    kd_desc* d = one_beam(E, RHO, NU, circle(0.02), 2.0, nelem, KD_THEORY_BAR, KD_INTERP_CUBIC, planar);
    fix(d, 1, KD_FIX_ALL);
    /* 3D: fix torsion (planar: axial) everywhere to isolate the other family */
    if (!planar)
        for (int n = 2; n <= nelem + 1; n++) fix(d, n, BIT(KD_DOF_U));
    kd_modes r = solve_modes(d, k, KD_EIGEN_AUTO);
    const double G = E / (2 * (1 + NU)), wave = planar ? sqrt(E / RHO) : sqrt(G / RHO);
    const double e = rel_err(r.omega[k - 1], (2 * k - 1) * PI / (2 * 2.0) * wave);
    kd_modes_free(&r);
    kd_desc_free(&d);
    return e;
}

static void test_axial_and_torsional_rods(void** state) {
    (void)state;
    for (int planar = 1; planar >= 0; planar--)
        for (int k = 1; k <= 3; k++) {
            const double e50 = rod_error(planar, 50, k), e100 = rod_error(planar, 100, k);
            const double order = log2(e50 / e100);
            print_message("%s rod mode %d: error %.2e (N=50), %.2e (N=100), order %.2f\n",
                          planar ? "axial" : "torsional", k, e50, e100, order);
            /* consistent-mass linear elements: error ~ (k pi h / 2L)^2 / 24 ... */
            assert_true(e100 < 5e-4 * k * k);
            assert_true(fabs(order - 2.0) < 0.05);
        }
}

/* Simply supported Rayleigh beam: omega^2 = EI k^4 / (rho A + rho I k^2),
 * k = n pi / L. A short thick beam (L/d = 10) so that rotary inertia shows. */
static void test_rayleigh_simply_supported(void** state) {
    (void)state;
    const double L = 1.0, dia = 0.1;
    kd_desc* d = one_beam(E, RHO, NU, circle(dia), L, 40, KD_THEORY_RAYLEIGH, KD_INTERP_CUBIC, 1);
    fix(d, 1, BIT(KD_DOF_V));
    fix(d, 41, BIT(KD_DOF_V));
    fix_axial_everywhere(d);
    kd_modes r = solve_modes(d, 4, KD_EIGEN_AUTO);
    const double A = PI * dia * dia / 4, I = PI * pow(dia, 4) / 64;
    for (int n = 1; n <= 4; n++) {
        const double k = n * PI / L;
        const double exact = sqrt(E * I * pow(k, 4) / (RHO * A + RHO * I * k * k));
        const double eb = pow(n * PI / L, 2) * sqrt(E * I / (RHO * A));
        const double e = rel_err(r.omega[n - 1], exact);
        print_message("rayleigh s-s mode %d: rel. error %.2e (rotary inertia lowers it by %.2f%%)\n", n, e,
                      100 * (1 - exact / eb));
        assert_true(e < 1e-7 * pow(n, 4));
        assert_true(exact < eb * (1 - 1e-3 * n));  /* the effect is resolved */
    }
    kd_modes_free(&r);
    kd_desc_free(&d);
}

/* Simply supported Timoshenko beam: with v = V sin kx, theta = T cos kx,
 *   (kGA k^2 - rho A w^2)(EI k^2 + kGA - rho I w^2) - (kGA k)^2 = 0,
 * the lower root in w^2 is the flexural mode. L/d = 5. The interdependent
 * element is exact statically but its interpolation tends to linear as
 * phi = 12 EI/(kGA h^2) grows with refinement, so the frequency error falls
 * as h^2: checked between 40 and 80 elements. */
static double timoshenko_ss_error(int nelem, int n) {
    const double L = 1.0, dia = 0.2;
    kd_desc* d = one_beam(E, RHO, NU, circle(dia), L, nelem, KD_THEORY_TIMOSHENKO, KD_INTERP_CUBIC, 1);
    fix(d, 1, BIT(KD_DOF_V));
    fix(d, nelem + 1, BIT(KD_DOF_V));
    fix_axial_everywhere(d);
    kd_modes r = solve_modes(d, n, KD_EIGEN_AUTO);
    const double A = PI * dia * dia / 4, I = PI * pow(dia, 4) / 64, G = E / (2 * (1 + NU));
    const double kGA = 6 * (1 + NU) / (7 + 6 * NU) * G * A, k = n * PI / L;
    /* a w^4 + b w^2 + c = 0 */
    const double a = RHO * A * RHO * I;
    const double b = -(RHO * A * (E * I * k * k + kGA) + kGA * k * k * RHO * I);
    const double c = kGA * k * k * (E * I * k * k + kGA) - kGA * kGA * k * k;
    const double exact = sqrt((-b - sqrt(b * b - 4 * a * c)) / (2 * a));
    const double ray = sqrt(E * I * pow(k, 4) / (RHO * A + RHO * I * k * k));
    assert_true(exact < ray * (1 - 1e-2 * n));  /* shear matters for this beam */
    const double e = rel_err(r.omega[n - 1], exact);
    kd_modes_free(&r);
    kd_desc_free(&d);
    return e;
}

static void test_timoshenko_simply_supported(void** state) {
    (void)state;
    for (int n = 1; n <= 3; n++) {
        const double e40 = timoshenko_ss_error(40, n), e80 = timoshenko_ss_error(80, n);
        const double order = log2(e40 / e80);
        print_message("timoshenko s-s mode %d: rel. error %.2e (N=40), %.2e (N=80), order %.2f\n", n, e40, e80,
                      order);
        assert_true(e40 < 2e-5 * pow(n, 4));
        assert_true(fabs(order - 2.0) < 0.1);
    }
}

/* A 3D cantilever of a 30 x 10 mm rectangle bends in its weak plane (x-y,
 * Iz) and strong plane (x-z, Iy): modes w1, s1 = 3 w1, w2. */
static void test_spatial_cantilever_two_planes(void** state) {
    (void)state;
    kd_section_desc rect = {0};
    rect.shape = KD_SHAPE_RECTANGLE, rect.b = 0.03, rect.h = 0.01;
    kd_desc* d = one_beam(E, RHO, NU, rect, 1.0, 30, KD_THEORY_EULER_BERNOULLI, KD_INTERP_CUBIC, 0);
    fix(d, 1, KD_FIX_ALL);
    kd_modes r = solve_modes(d, 3, KD_EIGEN_AUTO);
    const double cw = sqrt(E * 0.01 * 0.01 / 12 / RHO), cs = sqrt(E * 0.03 * 0.03 / 12 / RHO);
    const double ref[3] = {pow(CLAMPED_FREE[0], 2) * cw, pow(CLAMPED_FREE[0], 2) * cs, pow(CLAMPED_FREE[1], 2) * cw};
    for (int k = 0; k < 3; k++) assert_true(rel_err(r.omega[k], ref[k]) < 1e-6);
    kd_modes_free(&r);
    kd_desc_free(&d);
}

/* The assembled mass matrix carries the whole mass: t^T M t = rho A L for a
 * unit rigid translation t, in every direction, planar and 3D. */
static void test_total_mass(void** state) {
    (void)state;
    for (int planar = 1; planar >= 0; planar--) {
        kd_desc* d = one_beam(E, RHO, NU, circle(0.03), 1.7, 23, KD_THEORY_RAYLEIGH, KD_INTERP_QUINTIC, planar);
        kd_error err;
        kd_model* m = NULL;
        assert_int_equal(kd_model_compile(d, &m, &err), KD_OK);
        kd_band K, M;
        assert_int_equal(kd_band_init(&K, m->neq, m->bandwidth), KD_OK);
        assert_int_equal(kd_band_init(&M, m->neq, m->bandwidth), KD_OK);
        kd_assemble_stiffness_mass(m, &K, &M);
        double* t = calloc((size_t)m->neq, sizeof(double));
        double* y = calloc((size_t)m->neq, sizeof(double));
        const kd_dof_name dirs[3] = {KD_DOF_U, KD_DOF_V, KD_DOF_W};
        for (int j = 0; j < (planar ? 2 : 3); j++) {
            for (int i = 0; i < m->ndof_all; i++) t[m->dof_eq[i]] = m->dof_name[i] == dirs[j];
            kd_band_matvec(&M, t, y);
            double mass = 0, force = 0;
            for (int i = 0; i < m->neq; i++) mass += t[i] * y[i];
            /* and a rigid translation stores no strain energy */
            kd_band_matvec(&K, t, y);
            for (int i = 0; i < m->neq; i++) force = fmax(force, fabs(y[i]));
            assert_true(rel_err(mass, RHO * PI * 0.03 * 0.03 / 4 * 1.7) < 1e-13);
            assert_true(rel_err(m->total_mass, mass) < 1e-13);
            assert_true(force < 1e-12 * kd_band_get(&K, 0, 0) + 1e-12 * kd_band_get(&K, 1, 1));
        }
        free(t);
        free(y);
        kd_band_free(&K);
        kd_band_free(&M);
        kd_model_free(&m);
        kd_desc_free(&d);
    }
}

/* Convergence of the frequency error with element count: cubic Hermite
 * O(h^4), quintic Hermite O(h^8) (eigenvalue error h^(2(p+1-m)), p the
 * degree, m = 2). Observed on the clamped-free third mode. */
static void test_convergence_orders(void** state) {
    (void)state;
    const int mode = 3;
    double prev = 0;
    for (int n = 8; n <= 32; n *= 2) {
        const double e = cantilever_error(KD_INTERP_CUBIC, n, mode);
        if (prev > 0) {
            const double order = log2(prev / e);
            print_message("cubic N=%d: error %.3e, observed order %.2f\n", n, e, order);
            assert_true(order > 3.8 && order < 4.3);
        }
        prev = e;
    }
    prev = 0;
    for (int n = 2; n <= 8; n *= 2) {
        const double e = cantilever_error(KD_INTERP_QUINTIC, n, mode);
        if (prev > 0) {
            const double order = log2(prev / e);
            print_message("quintic N=%d: error %.3e, observed order %.2f\n", n, e, order);
            assert_true(order > 7.0 && order < 9.0);
        }
        prev = e;
    }
}

/* The two eigensolvers agree on a mid-size model. */
static void test_lanczos_matches_dense(void** state) {
    (void)state;
    kd_desc* d = one_beam(E, RHO, NU, circle(0.01), 1.0, 120, KD_THEORY_RAYLEIGH, KD_INTERP_CUBIC, 1);
    fix(d, 1, KD_FIX_ALL);
    kd_modes a = solve_modes(d, 10, KD_EIGEN_DENSE);
    kd_modes b = solve_modes(d, 10, KD_EIGEN_LANCZOS);
    assert_int_equal(a.solver, KD_EIGEN_DENSE);
    assert_int_equal(b.solver, KD_EIGEN_LANCZOS);
    for (int k = 0; k < 10; k++) {
        assert_true(rel_err(b.omega[k], a.omega[k]) < 1e-9);
        /* same shape up to sign, mass-normalised */
        double dot = 0;
        for (int i = 0; i < a.neq; i++) dot += a.shape[(size_t)k * a.neq + i] * b.shape[(size_t)k * b.neq + i];
        double na = 0;
        for (int i = 0; i < a.neq; i++) na += pow(a.shape[(size_t)k * a.neq + i], 2);
        assert_true(fabs(fabs(dot) / na - 1) < 1e-6);
    }
    kd_modes_free(&a);
    kd_modes_free(&b);
    kd_desc_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cantilever),
        cmocka_unit_test(test_pinned_pinned),
        cmocka_unit_test(test_free_free_planar),
        cmocka_unit_test(test_free_spatial_rigid_modes),
        cmocka_unit_test(test_axial_and_torsional_rods),
        cmocka_unit_test(test_rayleigh_simply_supported),
        cmocka_unit_test(test_timoshenko_simply_supported),
        cmocka_unit_test(test_spatial_cantilever_two_planes),
        cmocka_unit_test(test_total_mass),
        cmocka_unit_test(test_convergence_orders),
        cmocka_unit_test(test_lanczos_matches_dense),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
