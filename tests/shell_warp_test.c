/* Warped quadrilateral shells (src/fe/element_shell.c; theory.md sec. 14.6): the flat element on
 * the mean plane tied to the nodes by rigid links.
 *
 *  - rigid motions of a warped element strain nothing (the links' purpose: without them a
 *    rotation about an in-plane axis moves the projected nodes by a non-rigid field);
 *  - MacNeal and Harder's twisted beam (FEAD 1, 1985, test 7: L = 12, b = 1.1, t = 0.32,
 *    E = 29e6, nu = 0.22, 90 degrees of twist, clamped root, unit tip shear): every element is
 *    warped; the tip deflection converges with the mesh to the published 5.424e-3 (load in
 *    the plane of the tip) and 1.754e-3 (normal to it);
 *  - beyond the warping limit the element is rejected. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/kedyn.h"

static const kd_element_kind SHELL_Q4 = {KD_THEORY_SHELL, KD_INTERP_MITC4, 0};

static kd_element_consts consts(double E, double nu, double rho, double t) {
    kd_element_consts c = {0};
    c.E = E, c.G = E / (2.0 * (1.0 + nu)), c.rho = rho, c.t = t;
    return c;
}

/* k d for the rigid motion (U, Theta) of an element's nodes x (element DOFs u v w rx ry rz). */
static double rigid_residual(const kd_element_props* p, const double x[4][3], const double U[3], const double T[3]) {
    double d[24], kmax = 0.0, rmax = 0.0, dmax = 0.0;
    for (int a = 0; a < 4; a++) {
        const double* r = x[a];
        const double rot[3] = {T[1] * r[2] - T[2] * r[1], T[2] * r[0] - T[0] * r[2], T[0] * r[1] - T[1] * r[0]};
        for (int k = 0; k < 3; k++) d[6 * a + k] = U[k] + rot[k], d[6 * a + 3 + k] = T[k];
    }
    for (int i = 0; i < 24; i++) {
        double s = 0.0;
        for (int j = 0; j < 24; j++) s += p->k[i * 24 + j] * d[j], kmax = fmax(kmax, fabs(p->k[i * 24 + j]));
        rmax = fmax(rmax, fabs(s));
        dmax = fmax(dmax, fabs(d[i]));
    }
    return rmax / (kmax * dmax);
}

static void test_rigid_motions(void** state) {
    (void)state;
    const kd_element_consts c = consts(210e9, 0.3, 7800, 0.01);
    /* a twisted, skewed element: offsets h = 0.0375 of sqrt(A) = 1.05 */
    const double x[4][3] = {{0, 0, 0}, {1.1, 0.1, 0.15}, {1.2, 1.0, 0.0}, {0.1, 0.9, 0.15}};
    kd_element_props* p = calloc(1, sizeof(*p));
    assert_int_equal(kd_element_props_init_nodes(p, SHELL_Q4, &c, x), KD_OK);
    double worst = 0.0;
    for (int k = 0; k < 6; k++) {
        double U[3] = {0, 0, 0}, T[3] = {0, 0, 0};
        if (k < 3) U[k] = 1.0;
        else T[k - 3] = 1.0;
        worst = fmax(worst, rigid_residual(p, x, U, T));
    }
    print_message("warped element: largest |k d| / (|k| |d|) over the six rigid motions %.2e\n", worst);
    assert_true(worst < 1e-13);
    /* the mass of a rigid translation is rho t A with A the mean plane's area */
    double me[24 * 24];
    kd_element_mass(p, me);
    double mass = 0.0;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) mass += me[(6 * a) * 24 + 6 * b];
    const double d1[3] = {1.2, 1.0, 0.0}, d2[3] = {-1.0, 0.8, 0.0};
    const double A = 0.5 * fabs(d1[0] * d2[1] - d1[1] * d2[0]);  /* diagonals in z = 0: the mean plane's normal is z */
    assert_true(fabs(mass - 7800 * 0.01 * A) < 1e-12 * mass);
    kd_element_props_free(p), free(p);
}

static void test_limit(void** state) {
    (void)state;
    const kd_element_consts c = consts(210e9, 0.3, 7800, 0.01);
    kd_element_props* p = calloc(1, sizeof(*p));
    /* a unit square with one corner raised by 0.3 (offsets from the mean plane 0.0726 sqrt(A))
     * or by 0.5 (0.114 sqrt(A)) */
    const double ok[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0.3}, {0, 1, 0}};
    const double bad[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0.5}, {0, 1, 0}};
    assert_int_equal(kd_element_props_init_nodes(p, SHELL_Q4, &c, ok), KD_OK);
    kd_element_props_free(p);
    assert_int_equal(kd_element_props_init_nodes(p, SHELL_Q4, &c, bad), KD_ERR_INPUT);
    kd_element_props_free(p), free(p);
}

/* The twisted beam (90 degrees of twist) on an nx x ny mesh of Q4 shells, or of CST + DKT
 * triangles (each cell cut along its diagonal), corner nodes only, numbered across the width
 * first (band 6 (ny + 3)); the tip deflection along dir (1: y, 2: z) at the tip's middle node
 * under a shear P spread consistently over the tip edge. */
static double twisted_beam(int tri, int nx, int ny, double t, double P, int dir) {
    const double L = 12.0, b = 1.1, E = 29e6, nu = 0.22, pi = 3.14159265358979323846;
    const int nn = (nx + 1) * (ny + 1), n = 6 * nn, kd = 6 * (ny + 3) - 1, ld = kd + 1;
    double* x = malloc(sizeof(double) * 3 * (size_t)nn);
    for (int i = 0; i <= nx; i++)
        for (int j = 0; j <= ny; j++) {
            const double s = L * i / nx, y = b * j / ny - 0.5 * b, phi = 0.5 * pi * s / L;
            double* r = x + 3 * (i * (ny + 1) + j);
            r[0] = s, r[1] = y * cos(phi), r[2] = y * sin(phi);
        }
    double* K = calloc((size_t)n * (size_t)ld, sizeof(double)); /* upper band, column-major */
    const kd_element_consts c = consts(E, nu, 1.0, t);
    const kd_element_kind kind = {KD_THEORY_SHELL, tri ? KD_INTERP_DKT : KD_INTERP_MITC4, 0};
    kd_element_props* p = calloc(1, sizeof(*p));
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++) {
            const int nd[4] = {i * (ny + 1) + j, (i + 1) * (ny + 1) + j, (i + 1) * (ny + 1) + j + 1, i * (ny + 1) + j + 1};
            const int tn[2][3] = {{nd[0], nd[1], nd[2]}, {nd[0], nd[2], nd[3]}};
            for (int part = 0; part < (tri ? 2 : 1); part++) {
                const int* en = tri ? tn[part] : nd;
                const int ne = tri ? 3 : 4, nd6 = 6 * ne;
                double xe[4][3];
                for (int a = 0; a < ne; a++)
                    for (int k = 0; k < 3; k++) xe[a][k] = x[3 * en[a] + k] - x[3 * en[0] + k];
                kd_element_props_free(p);
                if (kd_element_props_init_nodes(p, kind, &c, (const double(*)[3])xe)) fail_msg("element %d %d", i, j);
                for (int a = 0; a < nd6; a++)
                    for (int bb = 0; bb < nd6; bb++) {
                        const int ri = 6 * en[a / 6] + a % 6, rj = 6 * en[bb / 6] + bb % 6;
                        if (ri <= rj) K[(size_t)rj * ld + kd + ri - rj] += p->k[a * nd6 + bb];
                    }
            }
        }
    double* f = calloc((size_t)n, sizeof(double));
    for (int j = 0; j <= ny; j++) f[6 * (nx * (ny + 1) + j) + dir] = P * ((j == 0 || j == ny) ? 0.5 : 1.0) / ny;
    /* the clamped root: unit diagonals, zero couplings */
    for (int a = 0; a < 6 * (ny + 1); a++) {
        for (int j = a; j <= a + kd && j < n; j++) K[(size_t)j * ld + kd + a - j] = 0.0;
        K[(size_t)a * ld + kd] = 1.0;
    }
    const lapack_int info = LAPACKE_dpbsv(LAPACK_COL_MAJOR, 'U', n, kd, 1, K, ld, f, n);
    assert_int_equal(info, 0);
    const double w = f[6 * (nx * (ny + 1) + ny / 2) + dir] / P;
    free(x), free(K), free(f), kd_element_props_free(p), free(p);
    return w;
}

/* The thin twisted beam (t = 0.0032, P = 1e-6; docs/validation.md "Warped shells"): every Q4
 * is warped (7.5 degrees of twist per element on 12 x 2). References per unit load: 1.294e3
 * along y (the root's plane), 5.256e3 along z (the tip's plane). */
static void test_twisted_beam_thin(void** state) {
    (void)state;
    const double ref[2] = {1.294e-3 / 1e-6, 5.256e-3 / 1e-6};
    for (int dir = 1; dir <= 2; dir++) {
        double err[3];
        for (int r = 0; r < 3; r++) {
            const int m = 1 << r;
            const double w = twisted_beam(0, 12 * m, 2 * m, 0.0032, 1e-6, dir);
            err[r] = w / ref[dir - 1] - 1.0;
            print_message("thin twisted beam, load along %c, Q4 %d x %d: tip %.5e (ref %.4e), error %+.2e\n",
                          dir == 1 ? 'y' : 'z', 12 * m, 2 * m, w * 1e-6, ref[dir - 1] * 1e-6, err[r]);
            assert_true(fabs(err[r]) < 6e-3); /* measured at most 5.7e-3 (z, 24 x 4) */
        }
        /* converging from 24 x 4 on (measured 1.5e-3 along y, 2.9e-3 along z on 48 x 8) */
        assert_true(fabs(err[2]) < fabs(err[1]) && fabs(err[2]) < 3.5e-3);
        /* the same beam of flat triangles (no warping): the references within 1 % */
        const double wt = twisted_beam(1, 48, 8, 0.0032, 1e-6, dir);
        print_message("thin twisted beam, load along %c, CST + DKT 48 x 8: error %+.2e\n", dir == 1 ? 'y' : 'z',
                      wt / ref[dir - 1] - 1.0);
        assert_true(fabs(wt / ref[dir - 1] - 1.0) < 1e-2);
    }
}

/* MacNeal and Harder's thick twisted beam (t = 0.32, P = 1): 1.754e-3 along y, 5.424e-3 along
 * z. The flat triangles converge to it; so do the warped Q4 + MITC4 shells with the drilling
 * stiffness of warped elements, 0.1 G t (theory.md sec. 18.5; with the flat elements' 1e-3 G t
 * they were 26 % and 32 % too flexible, validation.md). */
static void test_twisted_beam_thick(void** state) {
    (void)state;
    const double ref[2] = {1.754e-3, 5.424e-3};
    for (int dir = 1; dir <= 2; dir++) {
        const double wq = twisted_beam(0, 48, 8, 0.32, 1.0, dir), wt = twisted_beam(1, 96, 16, 0.32, 1.0, dir);
        print_message("thick twisted beam, load along %c: Q4 48 x 8 error %+.2e, CST + DKT 96 x 16 error %+.2e\n",
                      dir == 1 ? 'y' : 'z', wq / ref[dir - 1] - 1.0, wt / ref[dir - 1] - 1.0);
        assert_true(fabs(wt / ref[dir - 1] - 1.0) < 1.2e-2);
        assert_true(fabs(wq / ref[dir - 1] - 1.0) < 1e-2);  /* measured -0.41 % (y), +0.11 % (z) */
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rigid_motions),
        cmocka_unit_test(test_limit),
        cmocka_unit_test(test_twisted_beam_thin),
        cmocka_unit_test(test_twisted_beam_thick),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
