/* Shells at rest under gravity (theory.md sec. 14.7): the static shell problem under the
 * weight, its in-plane resultants and their geometric stiffness in the modes at rest.
 *
 *  - A narrow strip folded lengthwise (its two halves at +-10 degrees to the x-y plane, so its
 *    elements lie in two planes), L = 1 m, b = 0.05 m, t = 10 mm, nu = 0, clamped at x = 0,
 *    hanging (g along +x) or standing (-x), from a Gmsh file, Q4 + MITC4 or CST + DKT shells:
 *    the tension N_x = rho t g (L - x) shifts omega_1^2 by the Rayleigh estimate
 *    g int (L - x) phi'^2 dx / int phi^2 dx of the clamped-free beam mode (independent of the
 *    section, so of the fold), as tests/plate_gravity_test.c checks for the flat plate.
 *  - The same strip twisted by 20 degrees (every quadrilateral warped) and a cylindrical panel
 *    (60 degrees of arc), hanging: the same shift.
 *  - A flat shell under gravity normal to its plane has no membrane pre-stress in the linear
 *    theory: its frequencies do not change (the static problem is solved and its in-plane
 *    resultants are zero). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kedyn/kedyn.h"
#include "cantilever_mode.h"

static char mesh_dir[256];

/* d(omega_1^2) per unit g along the beam (Simpson on 4000 intervals). */
static double rayleigh_shift_per_g(double L) { return cantilever_mode_ratio(L, cantilever_gravity_weight); }

/* A Gmsh 4.1 file of a strip [0, L] x [-b/2, b/2] bent out of its plane (shape 0: folded
 * lengthwise, z = |y| tan(angle), the fold on a node line for ny even; 1: twisted by `angle`
 * from root to tip about the x axis, every quadrilateral warped; 2: a cylindrical panel of
 * radius b / angle about an axis along x), nx x ny cells, quadrangles or triangles (cut along
 * (i, j)-(i+1, j+1)). */
static void write_strip(const char* path, double L, double b, int shape, double angle, int nx, int ny, int tri) {
    FILE* f = fopen(path, "w");
    assert_non_null(f);
    const int nn = (nx + 1) * (ny + 1), ne = nx * ny * (tri ? 2 : 1);
    fprintf(f, "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 %d 1 %d\n2 1 0 %d\n", nn, nn, nn);
    for (int k = 1; k <= nn; k++) fprintf(f, "%d\n", k);
    for (int i = 0; i <= nx; i++)
        for (int j = 0; j <= ny; j++) {
            const double x = L * i / nx, s = b * j / ny - 0.5 * b, phi = angle * x / L, R = b / angle;
            double y = s, z = fabs(s) * tan(angle);
            if (shape == 1) y = s * cos(phi), z = s * sin(phi);
            if (shape == 2) y = R * sin(s / R), z = R * (1.0 - cos(s / R));
            fprintf(f, "%.17g %.17g %.17g\n", x, y, z);
        }
    fprintf(f, "$EndNodes\n$Elements\n1 %d 1 %d\n2 1 %d %d\n", ne, ne, tri ? 2 : 3, ne);
    int e = 1;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++) {
            const int n1 = i * (ny + 1) + j + 1, n2 = n1 + ny + 1, n3 = n2 + 1, n4 = n1 + 1;
            if (tri) {
                fprintf(f, "%d %d %d %d\n", e, n1, n2, n3), e++;
                fprintf(f, "%d %d %d %d\n", e, n1, n3, n4), e++;
            } else {
                fprintf(f, "%d %d %d %d %d\n", e++, n1, n2, n3, n4);
            }
        }
    fprintf(f, "$EndElements\n");
    fclose(f);
}

static kd_model* compile(const char* mesh, const double g[3], int tri) {
    char text[2048], loads[160] = "";
    if (g[0] != 0.0 || g[1] != 0.0 || g[2] != 0.0)
        snprintf(loads, sizeof(loads), "forces:\n  - {type: gravity, g: [%.17g, %.17g, %.17g]}\n", g[0], g[1], g[2]);
    snprintf(text, sizeof(text),
             "kedyn: 1\n"
             "materials:\n"
             "  steel: {E: 210e9, rho: 7800, nu: 0}\n"
             "bodies:\n"
             "  - name: strip\n"
             "    type: plate\n"
             "    theory: shell\n"
             "    interpolation: %s\n"
             "    material: steel\n"
             "    thickness: 0.01\n"
             "    mesh: {%s}\n"
             "    node_sets:\n"
             "      root: {x: 0}\n"
             "supports:\n"
             "  - {body: strip, nodes: root, fix: all}\n"
             "%s",
             tri ? "dkt" : "mitc4", mesh, loads);
    kd_desc* d = NULL;
    kd_model* m = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "strip.yaml", &d, &err)) fail_msg("%s", err.msg);
    if (kd_model_compile(d, &m, &err)) fail_msg("%s", err.msg);
    kd_desc_free(&d);
    return m;
}

/* The lowest `count` omega by the sparse (route 0) or band Cholesky (1) modes at rest. */
static void omegas(const char* mesh, const double g[3], int tri, int route, int count, double* w) {
    kd_model* m = compile(mesh, g, tri);
    kd_modes r;
    kd_error err;
    const kd_eigen_factor f[2] = {KD_FACTOR_AUTO, KD_FACTOR_CHOLESKY};
    if (kd_modes_solve_factor(m, count, KD_EIGEN_AUTO, f[route], &r, &err)) fail_msg("route %d: %s", route, err.msg);
    for (int k = 0; k < count; k++) w[k] = r.omega[k];
    kd_modes_free(&r);
    kd_model_free(&m);
}

static const char* const SHAPES[3] = {"folded", "twisted", "cylindrical"};

static void check_strip(double gx, int tri, int shape, double angle) {
    char path[512], mesh[600];
    snprintf(path, sizeof(path), "%s/strip_%d.msh", mesh_dir, tri);
    write_strip(path, 1.0, 0.05, shape, angle, 40, shape == 2 ? 4 : 2, tri);
    snprintf(mesh, sizeof(mesh), "file: %s", path);
    const double ref = gx * rayleigh_shift_per_g(1.0), zero[3] = {0, 0, 0}, g[3] = {gx, 0, 0};
    for (int route = 0; route < 2; route++) {
        double w0, wg;
        omegas(mesh, zero, tri, route, 1, &w0);
        omegas(mesh, g, tri, route, 1, &wg);
        const double shift = wg * wg - w0 * w0;
        print_message("%s strip (%s), g = %+.2f along x, route %d: omega_1 %.6f -> %.6f rad/s, d(omega^2) %.5f, "
                      "Rayleigh %.5f, error %.2e\n", SHAPES[shape], tri ? "cst+dkt" : "q4+mitc4", gx, route, w0, wg,
                      shift, ref, fabs(shift - ref) / fabs(ref));
        assert_true(fabs(shift - ref) < 3e-3 * fabs(ref));
    }
}

static void check_folded(double gx, int tri) { check_strip(gx, tri, 0, 10.0 * 3.14159265358979323846 / 180.0); }

static void test_folded_hanging(void** state) {
    (void)state;
    check_folded(9.81, 0);
    check_folded(9.81, 1);
}

static void test_folded_standing(void** state) {
    (void)state;
    check_folded(-9.81, 0);
}

/* A flat shell plate clamped along x = 0, gravity along its normal: the lowest 6 frequencies as
 * without gravity (Q4 on 32 x 26: 5 346 equations, CHOLMOD's sparse Cholesky; triangles on
 * 10 x 8: the band). */
static void test_flat_normal_gravity(void** state) {
    (void)state;
    for (int tri = 0; tri < 2; tri++) {
        const char* mesh = tri ? "rectangle: [0.2, 0.16], divisions: [10, 8]" : "rectangle: [0.2, 0.16], divisions: [32, 26]";
        double w0[6], wg[6];
        const double zero[3] = {0, 0, 0}, g[3] = {0, 0, -9.81};
        omegas(mesh, zero, tri, 0, 6, w0);
        omegas(mesh, g, tri, 0, 6, wg);
        double worst = 0.0;
        for (int k = 0; k < 6; k++) worst = fmax(worst, fabs(wg[k] - w0[k]) / w0[k]);
        print_message("flat %s shell, gravity normal to it: largest relative change of the lowest 6 omega %.2e\n",
                      tri ? "cst+dkt" : "q4+mitc4", worst);
        assert_true(worst < 1e-12);
    }
}

static int setup(void** state) {
    (void)state;
    snprintf(mesh_dir, sizeof(mesh_dir), "/tmp/kedyn_shell_gravity_XXXXXX");
    return mkdtemp(mesh_dir) ? 0 : -1;
}

static int teardown(void** state) {
    (void)state;
    char path[512];
    for (int tri = 0; tri < 2; tri++) {
        snprintf(path, sizeof(path), "%s/strip_%d.msh", mesh_dir, tri);
        remove(path);
    }
    return rmdir(mesh_dir);
}

/* Warped quadrilaterals (twisted by 20 degrees from root to tip) and a cylindrical panel (60
 * degrees of arc), hanging: the same Rayleigh shift. */
static void test_twisted_and_cylindrical_hanging(void** state) {
    (void)state;
    const double deg = 3.14159265358979323846 / 180.0;
    check_strip(9.81, 0, 1, 20.0 * deg);
    check_strip(9.81, 0, 2, 60.0 * deg);
    check_strip(9.81, 1, 2, 60.0 * deg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_folded_hanging),
        cmocka_unit_test(test_folded_standing),
        cmocka_unit_test(test_twisted_and_cylindrical_hanging),
        cmocka_unit_test(test_flat_normal_gravity),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
