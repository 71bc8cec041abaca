/* Shells not flat in their plane in a moving frame (theory.md sec. 18.6): the pre-stress of the
 * twelve unit inertia cases by the static shell problem and its geometric stiffness.
 *
 *  - A thin cylinder spinning about its axis (held without restraining its expansion): the hoop
 *    resultant N_theta = rho t Omega^2 R^2 and no axial one (closed form); pushed along its axis
 *    (frame acceleration a_z, its base held axially), the axial resultant -rho t a_z (H - z) and
 *    no hoop one.
 *  - A narrow strip, flat, folded lengthwise or a cylindrical panel, clamped at x = 0 and spinning
 *    about z through its root: d(omega_1^2)/d(Omega^2) of the flapping mode against Southwell's
 *    coefficient of the clamped-free beam, int (L^2 - x^2)/2 phi'^2 dx / int phi^2 dx (the
 *    Rayleigh estimate with the beam mode; 1.1935).
 *  - A flat plate given as a slightly warped mesh (z = delta 4 (x/a - 1/2)(y/b - 1/2) a, every
 *    quadrilateral warped): its frequencies spinning about y converge to those of the flat plate
 *    (the membrane path, sec. 5.7) as delta goes to 0. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fe/prestress_membrane.h"
#include "kedyn/kedyn.h"
#include "cantilever_mode.h"

static const double PI = 3.14159265358979323846;
static char mesh_dir[256];

/* Writes a Gmsh 4.1 file of nodes x (nn x 3) and quadrangles q (ne x 4, 1-based) or triangles
 * (each quadrangle cut along its first diagonal; tri = 1), or 9-node quadrangles (tri = 2: q
 * ne x 9, Gmsh's order: corners, mid-sides, centre). */
static void write_msh(const char* path, int nn, const double* x, int ne, const int* q, int tri) {
    FILE* f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 %d 1 %d\n2 1 0 %d\n", nn, nn, nn);
    for (int k = 1; k <= nn; k++) fprintf(f, "%d\n", k);
    for (int k = 0; k < nn; k++) fprintf(f, "%.17g %.17g %.17g\n", x[3 * k], x[3 * k + 1], x[3 * k + 2]);
    const int nel = ne * (tri == 1 ? 2 : 1);
    fprintf(f, "$EndNodes\n$Elements\n1 %d 1 %d\n2 1 %d %d\n", nel, nel, tri == 2 ? 10 : tri ? 2 : 3, nel);
    for (int e = 0, id = 1; e < ne; e++) {
        const int* c = q + (tri == 2 ? 9 : 4) * e;
        if (tri == 2) {
            fprintf(f, "%d", id++);
            for (int a = 0; a < 9; a++) fprintf(f, " %d", c[a]);
            fprintf(f, "\n");
        } else if (tri) {
            fprintf(f, "%d %d %d %d\n", id, c[0], c[1], c[2]), id++;
            fprintf(f, "%d %d %d %d\n", id, c[0], c[2], c[3]), id++;
        } else {
            fprintf(f, "%d %d %d %d %d\n", id++, c[0], c[1], c[2], c[3]);
        }
    }
    fprintf(f, "$EndElements\n");
    fclose(f);
}

/* A grid of (nx + 1) x (ny + 1) nodes from pos(i, j) into a .msh; wrap: the last column of j is
 * the first (a closed cylinder). */
typedef void (*grid_pos)(int i, int j, int nx, int ny, const double* par, double* x);

/* nx x ny 9-node quadrangles on the (2 nx + 1) x (2 ny + 1) grid of pos. */
static void write_grid_q9(const char* path, int nx, int ny, grid_pos pos, const double* par) {
    const int NX = 2 * nx, NY = 2 * ny, nj = NY + 1, nn = (NX + 1) * nj, ne = nx * ny;
    double* x = malloc(sizeof(double) * 3 * (size_t)nn);
    int* q = malloc(sizeof(int) * 9 * (size_t)ne);
    for (int i = 0; i <= NX; i++)
        for (int j = 0; j <= NY; j++) pos(i, j, NX, NY, par, x + 3 * (i * nj + j));
    static const int di[9] = {0, 2, 2, 0, 1, 2, 1, 0, 1}, dj[9] = {0, 0, 2, 2, 0, 1, 2, 1, 1};
    for (int i = 0, e = 0; i < nx; i++)
        for (int j = 0; j < ny; j++, e++)
            for (int a = 0; a < 9; a++) q[9 * e + a] = (2 * i + di[a]) * nj + 2 * j + dj[a] + 1;
    write_msh(path, nn, x, ne, q, 2);
    free(x), free(q);
}

static void write_grid(const char* path, int nx, int ny, int wrap, grid_pos pos, const double* par, int tri) {
    const int nj = wrap ? ny : ny + 1, nn = (nx + 1) * nj, ne = nx * ny;
    double* x = malloc(sizeof(double) * 3 * (size_t)nn);
    int* q = malloc(sizeof(int) * 4 * (size_t)ne);
    for (int i = 0; i <= nx; i++)
        for (int j = 0; j < nj; j++) pos(i, j, nx, ny, par, x + 3 * (i * nj + j));
    for (int i = 0, e = 0; i < nx; i++)
        for (int j = 0; j < ny; j++, e++) {
            const int j1 = wrap ? (j + 1) % ny : j + 1;
            q[4 * e] = i * nj + j + 1, q[4 * e + 1] = (i + 1) * nj + j + 1;
            q[4 * e + 2] = (i + 1) * nj + j1 + 1, q[4 * e + 3] = i * nj + j1 + 1;
        }
    write_msh(path, nn, x, ne, q, tri);
    free(x), free(q);
}

static kd_model* compile(const char* text) {
    kd_desc* d = NULL;
    kd_model* m = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "shell.yaml", &d, &err)) fail_msg("%s", err.msg);
    if (kd_model_compile(d, &m, &err)) fail_msg("%s", err.msg);
    kd_desc_free(&d);
    return m;
}

/* ---- the spinning cylinder ---- */

/* par: R, H; i along the axis (z), j around. */
static void cylinder_pos(int i, int j, int nx, int ny, const double* par, double* x) {
    const double th = 2.0 * PI * j / ny;
    x[0] = par[0] * cos(th), x[1] = par[0] * sin(th), x[2] = par[1] * i / nx;
}

/* Principal values of the resultants of element e averaged over its quadrature points. */
static void principal(const kd_model* m, const prestress_membrane* ps, int e, const double a[3], const double M[9],
                      double* lo, double* hi) {
    const kd_element_props* p = &m->prop[m->elem_prop[e]];
    const int ng = p->family->quadrature(p)->n;
    double* S = malloc(sizeof(double) * (size_t)ng * KD_GRAD_MAX * KD_GRAD_MAX);
    assert_int_equal(prestress_membrane_field(ps, m, e, a, M, S), 1);
    double nx = 0, ny = 0, nxy = 0;
    for (int g = 0; g < ng; g++) {
        const double* s = S + (size_t)g * KD_GRAD_MAX * KD_GRAD_MAX;
        nx += s[0] / ng, ny += s[KD_GRAD_MAX + 1] / ng, nxy += s[1] / ng;
    }
    free(S);
    const double c = 0.5 * (nx + ny), r = hypot(0.5 * (nx - ny), nxy);
    *lo = c - r, *hi = c + r;
}

/* The cylinder R = 0.5, H = 0.5, t = 5 mm, nu = 0.3, nz x nth cells: worst relative errors of
 * the hoop resultant spinning (Omega = 100 rad/s about z) and of the axial one pushed (a_z = 50)
 * over the elements, and the error of the hoop resultant's mean over the elements. */
static void cylinder(int nz, int nth, int tri, double* err_hoop, double* err_axial, double* err_mean) {
    const double R = 0.5, H = 0.5, t = 0.005, rho = 7800, W = 100.0, az = 50.0, par[2] = {R, H};
    char path[512], text[2048];
    snprintf(path, sizeof(path), "%s/cylinder.msh", mesh_dir);
    write_grid(path, nz, nth, 1, cylinder_pos, par, tri);
    snprintf(text, sizeof(text),
             "kedyn: 1\n"
             "materials:\n"
             "  steel: {E: 210e9, rho: 7800, nu: 0.3}\n"
             "bodies:\n"
             "  - name: can\n"
             "    type: plate\n"
             "    theory: shell\n"
             "    interpolation: %s\n"
             "    material: steel\n"
             "    thickness: 0.005\n"
             "    mesh: {file: %s}\n"
             "    node_sets:\n"
             "      base: {z: 0}\n"
             "      on_x: {y: 0, z: 0}\n"
             "      on_y: {x: 0, z: 0}\n"
             "supports:\n"
             "  - {body: can, nodes: base, fix: [w]}\n"
             "  - {body: can, nodes: on_x, fix: [v]}\n"
             "  - {body: can, nodes: on_y, fix: [u]}\n"
             "motion:\n"
             "  - {body: can, rotation: {axis: z, law: {speed: 100}}}\n",
             tri ? "dkt" : "mitc4", path);
    kd_model* m = compile(text);
    prestress_membrane* ps = NULL;
    kd_error err;
    if (prestress_membrane_solve(m, &ps, &err)) fail_msg("%s", err.msg);
    assert_non_null(ps);
    const double zero[3] = {0, 0, 0}, spin[9] = {-W * W, 0, 0, 0, -W * W, 0, 0, 0, 0}, push[3] = {0, 0, az}, M0[9] = {0};
    const double hoop = rho * t * W * W * R * R;
    *err_hoop = *err_axial = 0;
    double mean = 0;
    for (int e = 0; e < m->nelem; e++) {
        double lo, hi;
        principal(m, ps, e, zero, spin, &lo, &hi);
        *err_hoop = fmax(*err_hoop, fmax(fabs(hi - hoop), fabs(lo)) / hoop);
        mean += hi / m->nelem;
        const int* nodes;
        const int nen = kd_model_elem_nodes(m, e, &nodes);
        double zc = 0;
        for (int a = 0; a < nen; a++) zc += m->node_x[3 * nodes[a] + 2] / nen;
        const double axial = -rho * t * az * (H - zc), scale = rho * t * az * H;
        principal(m, ps, e, push, M0, &lo, &hi);
        *err_axial = fmax(*err_axial, fmax(fabs(lo - axial), fabs(hi)) / scale);
    }
    *err_mean = fabs(mean - hoop) / hoop;
    prestress_membrane_free(&ps);
    kd_model_free(&m);
}

static void test_spinning_cylinder(void** state) {
    (void)state;
    for (int tri = 0; tri < 2; tri++) {
        double h1, a1, m1, h2, a2, m2;
        cylinder(8, 24, tri, &h1, &a1, &m1);
        cylinder(16, 48, tri, &h2, &a2, &m2);
        print_message("cylinder (%s), 24 -> 48 cells around: hoop error, worst element %.3e -> %.3e (order %.2f), "
                      "mean %.3e -> %.3e (order %.2f); axial error %.3e -> %.3e\n", tri ? "cst+dkt" : "q4+mitc4", h1, h2,
                      log2(h1 / h2), m1, m2, log2(m1 / m2), a1, a2);
        assert_true(m2 < 4e-3 && log2(m1 / m2) > 1.8);
        if (!tri) assert_true(h2 < 4e-3 && log2(h1 / h2) > 1.8 && a2 < 1e-2);
        else assert_true(h2 < 0.1 && a2 < 0.03);
    }
}

/* ---- the spinning strip: Southwell's coefficient ---- */

/* int (L^2 - x^2)/2 phi'^2 dx / int phi^2 dx of the clamped-free mode (Simpson, 4000 intervals):
 * d(omega_1^2)/d(Omega^2) of a beam spinning about an axis through its root normal to its
 * flapping plane (Southwell's coefficient, 1.1935). */
static double southwell(double L) { return cantilever_mode_ratio(L, cantilever_spin_weight); }

/* par: L, b, shape (0 folded z = |y| tan(angle), 1 cylindrical panel of radius b / angle), angle. */
static void strip_pos(int i, int j, int nx, int ny, const double* par, double* x) {
    const double L = par[0], b = par[1], angle = par[3], s = b * j / ny - 0.5 * b;
    x[0] = L * i / nx, x[1] = s, x[2] = fabs(s) * tan(angle);
    if (par[2] == 1.0) {
        const double R = b / angle;
        x[1] = R * sin(s / R), x[2] = R * (1.0 - cos(s / R));
    }
}

static const char* SPIN_MODEL =
    "kedyn: 1\n"
    "materials:\n"
    "  steel: {E: 210e9, rho: 7800, nu: 0}\n"
    "bodies:\n"
    "  - name: strip\n"
    "    type: plate\n"
    "    theory: shell\n"
    "    interpolation: %s\n"
    "    material: steel\n"
    "    thickness: %g\n"
    "    mesh: {%s}\n"
    "    node_sets:\n"
    "      root: {x: 0}\n"
    "supports:\n"
    "  - {body: strip, nodes: root, fix: all}\n"
    "motion:\n"
    "  - {body: strip, rotation: {axis: %s, law: {speed: 1}}}\n";

/* The lowest `count` omega of model text at spin speed W (state-space modes, gyroscopic). */
static void spin_omegas(const char* text, double W, int count, double* w) {
    kd_model* m = compile(text);
    kd_modes r;
    kd_error err;
    if (kd_campbell_modes_at(m, 0, W, count + 2, &r, &err)) fail_msg("%s", err.msg);
    double* o = malloc(sizeof(double) * (size_t)r.count);
    int n = 0;
    for (int k = 0; k < r.count; k++)
        if (r.omega[k] > 0) o[n++] = r.omega[k];
    for (int a = 1; a < n; a++)  /* ascending */
        for (int b = a; b > 0 && o[b] < o[b - 1]; b--) {
            const double tmp = o[b];
            o[b] = o[b - 1], o[b - 1] = tmp;
        }
    assert_true(n >= count);
    memcpy(w, o, sizeof(double) * (size_t)count);
    free(o);
    kd_modes_free(&r);
    kd_model_free(&m);
}

static const char* const STRIPS[3] = {"flat", "folded 10 deg", "cylindrical panel 60 deg"};

static void check_southwell(int kind, int tri) {
    const double deg = PI / 180.0, L = 1.0, b = 0.05, W = 4.0;
    const double par[3][4] = {{L, b, 0, 0}, {L, b, 0, 10 * deg}, {L, b, 1, 60 * deg}};
    static const char* const interp[3] = {"mitc4", "dkt", "q9"};
    char path[512], mesh[600], text[2048];
    snprintf(path, sizeof(path), "%s/strip.msh", mesh_dir);
    if (tri == 2) write_grid_q9(path, 20, kind == 2 ? 2 : 1, strip_pos, par[kind]);
    else write_grid(path, 40, kind == 2 ? 4 : 2, 0, strip_pos, par[kind], tri);
    snprintf(mesh, sizeof(mesh), "file: %s", path);
    snprintf(text, sizeof(text), SPIN_MODEL, interp[tri], 0.01, mesh, "z");
    double w0, w;
    spin_omegas(text, 0.0, 1, &w0);
    spin_omegas(text, W, 1, &w);
    const double k = (w * w - w0 * w0) / (W * W), ref = southwell(L);
    print_message("%s strip (%s) spinning about z: omega_1 %.6f -> %.6f rad/s at %g rad/s, d(omega^2)/d(Omega^2) "
                  "%.5f, Southwell %.5f, error %.2e\n", STRIPS[kind], tri == 2 ? "q9" : tri ? "cst+dkt" : "q4+mitc4", w0, w, W, k, ref,
                  fabs(k - ref) / ref);
    assert_true(fabs(k - ref) < 3e-3 * ref);
}

static void test_southwell_strip(void** state) {
    (void)state;
    for (int kind = 0; kind < 3; kind++) check_southwell(kind, 0);
    check_southwell(1, 1);
    check_southwell(2, 1);
    check_southwell(2, 2);  /* 9-node shells, curved sides (theory.md sec. 18.3) */
}

/* ---- the warped plate converging to the flat one ---- */

/* par: a, b, delta. */
static void warped_pos(int i, int j, int nx, int ny, const double* par, double* x) {
    x[0] = par[0] * i / nx, x[1] = par[1] * j / ny;
    x[2] = par[2] * 4.0 * (x[0] / par[0] - 0.5) * (x[1] / par[1] - 0.5) * par[0];
}

static void plate_omegas(double delta, double W, int count, double* w) {
    const double par[3] = {0.2, 0.16, delta};
    char path[512], mesh[600], text[2048];
    snprintf(path, sizeof(path), "%s/plate.msh", mesh_dir);
    write_grid(path, 10, 8, 0, warped_pos, par, 0);
    snprintf(mesh, sizeof(mesh), "file: %s", path);
    snprintf(text, sizeof(text), SPIN_MODEL, "mitc4", 0.001, mesh, "y");
    spin_omegas(text, W, count, w);
}

static void test_warped_to_flat(void** state) {
    (void)state;
    enum { COUNT = 4 };
    const double W = 400.0, deltas[3] = {1e-2, 1e-3, 1e-4};
    double flat[COUNT], flat0[COUNT], d[3];
    plate_omegas(0.0, W, COUNT, flat);
    plate_omegas(0.0, 0.0, COUNT, flat0);
    double stiff = 0;
    for (int k = 0; k < COUNT; k++) stiff = fmax(stiff, fabs(flat[k] - flat0[k]) / flat0[k]);
    for (int i = 0; i < 3; i++) {
        double w[COUNT];
        plate_omegas(deltas[i], W, COUNT, w);
        d[i] = 0;
        for (int k = 0; k < COUNT; k++) d[i] = fmax(d[i], fabs(w[k] - flat[k]) / flat[k]);
        print_message("plate warped by %.0e a, spinning at %g rad/s: omega_1..4 %.6f %.6f %.6f %.6f, largest "
                      "relative difference from the flat plate %.3e\n", deltas[i], W, w[0], w[1], w[2], w[3], d[i]);
    }
    print_message("flat plate: omega_1..4 %.6f %.6f %.6f %.6f at rest, %.6f %.6f %.6f %.6f spinning (largest change "
                  "%.3e)\n", flat0[0], flat0[1], flat0[2], flat0[3], flat[0], flat[1], flat[2], flat[3], stiff);
    assert_true(stiff > 0.05);              /* the stiffening is large ... */
    assert_true(d[2] < 1e-3 * stiff);       /* ... and the warped plate's converges to the flat one's */
    assert_true(d[1] < 0.2 * d[0] && d[2] < 0.2 * d[1]);
}

/* A curved shell its supports do not hold: its static shell problem is singular, an input error
 * naming the body (no pre-stress is made up). */
static void test_free_shell_rejected(void** state) {
    (void)state;
    const double par[4] = {1.0, 0.05, 1, 60 * PI / 180.0};
    char path[512], text[2048];
    snprintf(path, sizeof(path), "%s/strip.msh", mesh_dir);
    write_grid(path, 10, 2, 0, strip_pos, par, 0);
    snprintf(text, sizeof(text),
             "kedyn: 1\n"
             "materials:\n"
             "  steel: {E: 210e9, rho: 7800, nu: 0}\n"
             "bodies:\n"
             "  - {name: strip, type: plate, theory: shell, interpolation: mitc4, material: steel, thickness: 0.01,\n"
             "     mesh: {file: %s}}\n"
             "motion:\n"
             "  - {body: strip, rotation: {axis: z, law: {speed: 1}}}\n",
             path);
    kd_model* m = compile(text);
    prestress_membrane* ps = NULL;
    kd_error err;
    assert_int_equal(prestress_membrane_solve(m, &ps, &err), KD_ERR_INPUT);
    assert_null(ps);
    assert_non_null(strstr(err.msg, "body 'strip': its static shell problem for the pre-stress of the motion is singular"));
    kd_model_free(&m);
}

static int setup(void** state) {
    (void)state;
    snprintf(mesh_dir, sizeof(mesh_dir), "/tmp/kedyn_shell_spin_XXXXXX");
    return mkdtemp(mesh_dir) ? 0 : -1;
}

static int teardown(void** state) {
    (void)state;
    static const char* const files[3] = {"cylinder.msh", "strip.msh", "plate.msh"};
    char path[512];
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof(path), "%s/%s", mesh_dir, files[i]);
        remove(path);
    }
    return rmdir(mesh_dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spinning_cylinder),
        cmocka_unit_test(test_southwell_strip),
        cmocka_unit_test(test_warped_to_flat),
        cmocka_unit_test(test_free_shell_rejected),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
