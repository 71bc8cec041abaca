/* Quadratic flat shells (src/fe/element_shell_p2.c; theory.md sec. 18): T6, Q8, Q9.
 *
 *  - a free element (skewed, turned in 3D; warped or curved too) has exactly six zero
 *    eigenvalues of its stiffness (no spurious mode of the assumed shear);
 *  - patch tests on distorted meshes: every linear membrane field (with theta_z its rotation)
 *    and every constant-curvature bending field (w quadratic, theta from it: no shear) imposed
 *    on the boundary is reproduced inside;
 *  - the simply supported thesis plate against the closed form, errors and convergence
 *    order next to the Q4 + MITC4 and CST + DKT shells; the cantilever square against Leissa;
 *  - MacNeal and Harder's twisted beam with 9-node shells (warped elements) against the
 *    published tip deflections. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include <cmocka.h>

#include "plate_util.h"
#include "cantilever_mode.h"

static const double E = 210e9, NU = 0.3, RHO = 7800;
#define SHIFT (-1e5)

static const kd_interp INTERP[5] = {KD_INTERP_T6, KD_INTERP_Q8, KD_INTERP_Q9, KD_INTERP_MITC4, KD_INTERP_DKT};
static const char* const NAMES[5] = {"t6", "q8", "q9", "q4+mitc4", "cst+dkt"};
static kd_element_kind shell(int k) { return (kd_element_kind){KD_THEORY_SHELL, INTERP[k], 0}; }
static double bending_D(double t) { return E * t * t * t / (12.0 * (1.0 - NU * NU)); }

/* ---- tables and rigid-body modes ------------------------------------------------------------ */

/* Eigenvalues of an element's k (ascending) into lam (ndof). */
static void element_spectrum(const kd_element_props* p, double* lam) {
    const int n = p->ndof;
    double* A = malloc(sizeof(double) * (size_t)n * (size_t)n);
    memcpy(A, p->k, sizeof(double) * (size_t)n * (size_t)n);
    assert_int_equal(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', n, A, n, lam), 0);
    free(A);
}

/* Reference node positions of a kind (node_xi) mapped by a skew, a turn in 3D and an
 * out-of-plane offset z(r, s) = warp r s + bow (1 - r^2) (quadrilaterals; triangles
 * warp r s + bow r (1 - r - s)). */
static void element_nodes(int k, double warp, double bow, double x[KD_ELEM_NODE_MAX][3]) {
    const kd_element_family* fam = kd_element_family_of(shell(k));
    const double R[3][3] = {{0.8, -0.36, 0.48}, {0.6, 0.48, -0.64}, {0.0, 0.8, 0.6}};  /* orthonormal */
    double x0[3] = {0, 0, 0};
    for (int a = 0; a < fam->nnode; a++) {
        const double r = fam->node_xi[a][0], s = fam->node_xi[a][1];
        const double tri = fam->domain == KD_DOMAIN_TRIANGLE;
        const double l[3] = {0.5 * r + 0.15 * s, 0.1 * r + 0.4 * s,
                             tri ? warp * r * s + bow * r * (1 - r - s) : warp * r * s + bow * (1 - r * r)};
        double y[3];
        for (int i = 0; i < 3; i++) y[i] = R[i][0] * l[0] + R[i][1] * l[1] + R[i][2] * l[2];
        if (a == 0) memcpy(x0, y, sizeof(x0));
        for (int i = 0; i < 3; i++) x[a][i] = y[i] - x0[i];
    }
}

static void test_rigid_modes(void** state) {
    (void)state;
    const kd_element_consts c = plate_consts(E, NU, RHO, 0.01);
    kd_element_props* p = calloc(1, sizeof(*p));
    for (int k = 0; k < 3; k++) {
        kd_dof_name dofs[KD_NODE_DOF_MAX];
        assert_int_equal(kd_element_node_dofs(shell(k), dofs), 6);
        assert_int_equal(kd_element_kind_family(shell(k)), KD_FAMILY_SHELL);
        for (int g = 0; g < 3; g++) {
            /* flat; warped (z = 0.02 r s); bowed (curved sides) */
            double x[KD_ELEM_NODE_MAX][3];
            element_nodes(k, g == 1 ? 0.02 : 0.0, g == 2 ? 0.02 : 0.0, x);
            kd_element_props_free(p);
            assert_int_equal(kd_element_props_init_nodes(p, shell(k), &c, (const double(*)[3])x), KD_OK);
            assert_int_equal(p->ndof, 6 * p->nnode);
            double lam[KD_ELEM_DOF_MAX];
            element_spectrum(p, lam);
            const double top = lam[p->ndof - 1];
            print_message("shell %s %s: |lambda_1..6| / lambda_max <= %.1e, lambda_7 / lambda_max = %.1e\n", NAMES[k],
                          g == 0 ? "flat  " : g == 1 ? "warped" : "curved", fmax(fabs(lam[0]), fabs(lam[5])) / top,
                          lam[6] / top);
            assert_true(fabs(lam[0]) < 1e-12 * top && fabs(lam[5]) < 1e-12 * top);
            assert_true(lam[6] > 1e-9 * top);  /* exactly six: no spurious mode */
        }
        /* warped beyond the limit (offsets 0.5 of the side) */
        double x[KD_ELEM_NODE_MAX][3];
        element_nodes(k, 0.3, 0.0, x);
        kd_element_props_free(p);
        assert_int_equal(kd_element_props_init_nodes(p, shell(k), &c, (const double(*)[3])x), KD_ERR_INPUT);
    }
    kd_element_props_free(p), free(p);
}

/* ---- patch tests ---------------------------------------------------------------------------- */

static void patch_field(int bending, const double* x, double* d) {
    memset(d, 0, sizeof(double) * 6);
    const double X = x[0], Y = x[1];
    if (!bending) {
        /* u = 1e-3 (1 + 2 X - 3 Y), v = 1e-3 (-2 + X + 4 Y); theta_z = (v,x - u,y) / 2 */
        d[0] = 1e-3 * (1 + 2 * X - 3 * Y), d[1] = 1e-3 * (-2 + X + 4 * Y), d[5] = 1e-3 * (1 + 3) / 2;
    } else {
        /* w = 1e-3 (1 + X - 2 Y + 3 X^2 - 2 X Y + 5 Y^2); theta_x = w,y, theta_y = -w,x */
        d[2] = 1e-3 * (1 + X - 2 * Y + 3 * X * X - 2 * X * Y + 5 * Y * Y);
        d[3] = 1e-3 * (-2 - 2 * X + 10 * Y);
        d[4] = -1e-3 * (1 + 6 * X - 2 * Y);
    }
}

static void test_patch(void** state) {
    (void)state;
    const double a = 1.0, b = 0.8, t = 0.01;
    kd_element_consts c = plate_consts(E, NU, RHO, t);
    for (int k = 0; k < 5; k++)
        for (int bending = 0; bending < 2; bending++) {
            /* a 3 x 3 mesh, interior corners moved by up to 0.25 of the element size; for the
             * bending of the quadrilaterals, whose w on a non-affine map holds no quadratic of
             * x, y, a mesh of parallelograms (the regular one skewed) */
            const int affine = bending && (k == 1 || k == 2);
            mesh2d m = mesh_rect(shell(k), a, b, 3, 3, affine ? 0.0 : 0.25);
            int* edge = calloc((size_t)m.nnode, sizeof(int));
            for (int i = 0; i < m.nnode; i++) {
                double* x = m.x + 3 * i;
                edge[i] = fabs(x[0]) < 1e-9 || fabs(x[0] - a) < 1e-9 || fabs(x[1]) < 1e-9 || fabs(x[1] - b) < 1e-9;
                if (affine) x[0] += 0.3 * x[1], x[1] = 0.9 * x[1] + 0.1 * x[0];
            }
            const int n = m.ndof;
            double* K = malloc(sizeof(double) * (size_t)n * (size_t)n);
            mesh_assemble(&m, &c, K, NULL, NULL, NULL);
            int* freed = calloc((size_t)n, sizeof(int));
            double* xs = calloc((size_t)n, sizeof(double));
            double* want = calloc((size_t)n, sizeof(double));
            for (int i = 0; i < m.nnode; i++) {
                const double* x = m.x + 3 * i;
                patch_field(bending, x, want + 6 * i);
                for (int q = 0; q < 6; q++) {
                    freed[6 * i + q] = m.used[i] && !edge[i];
                    xs[6 * i + q] = freed[6 * i + q] ? 0.0 : want[6 * i + q];
                }
            }
            assert_int_equal(dense_solve_bc(K, n, freed, NULL, xs), 0);
            double err = 0.0, scale = 0.0;
            for (int i = 0; i < n; i++)
                if (freed[i]) err = fmax(err, fabs(xs[i] - want[i])), scale = fmax(scale, fabs(want[i]));
            print_message("patch test shell %s %s: max |error| / max |d| inside %.1e\n", NAMES[k],
                          bending ? "bending " : "membrane", err / scale);
            assert_true(err < 1e-9 * scale);
            free(K), free(freed), free(xs), free(want), free(edge);
            mesh_free(&m);
        }
}

/* ---- plate frequencies ---------------------------------------------------------------------- */

typedef struct rect_bc {
    double a, b;
    int cantilever;               /* clamped at x = 0, other edges free; else simply supported */
} rect_bc;

/* Bending only (u, v, theta_z fixed everywhere: a plate in the x-y plane); simply supported:
 * w = 0 and the rotation about the edge = 0; cantilever: x = 0 clamped. */
static int fix_rect(const double x[3], kd_dof_name dof, const void* ctx) {
    const rect_bc* r = ctx;
    const double tol = 1e-9;
    if (dof == KD_DOF_U || dof == KD_DOF_V || dof == KD_DOF_RZ) return 1;
    if (r->cantilever) return fabs(x[0]) < tol;
    const int xe = fabs(x[0]) < tol || fabs(x[0] - r->a) < tol, ye = fabs(x[1]) < tol || fabs(x[1] - r->b) < tol;
    if (dof == KD_DOF_W) return xe || ye;
    if (dof == KD_DOF_RX) return xe;
    if (dof == KD_DOF_RY) return ye;
    return 0;
}

/* The lowest frequency of the simply supported thesis plate (0.2 x 0.16 x 0.001, theory.md
 * sec. 10.8) with rotary inertia: omega^2 = D k^4 / (rho t (1 + t^2 k^2 / 12)). */
static double ss_error(int k, int nx, int ny) {
    const double a = 0.2, b = 0.16, t = 1e-3;
    kd_element_consts c = plate_consts(E, NU, RHO, t);
    mesh2d m = mesh_rect(shell(k), a, b, nx, ny, 0.0);
    rect_bc bc = {a, b, 0};
    double lam[1] = {0.0};
    assert_int_equal(mesh_eigen(&m, &c, fix_rect, &bc, NULL, SHIFT, 1, lam), 0);
    mesh_free(&m);
    const double k2 = PI * PI * (1 / (a * a) + 1 / (b * b));
    const double ref = k2 * sqrt(bending_D(t) / (RHO * t * (1.0 + t * t * k2 / 12.0)));
    return sqrt(lam[0]) / ref - 1.0;
}

/* Measured (docs/validation.md "Quadratic shells"): the order of the first frequency's error
 * from 4 x 4 to 8 x 8 cells. */
static void test_ss_plate(void** state) {
    (void)state;
    double err[5][3];
    for (int k = 0; k < 5; k++) {
        for (int r = 0; r < 3; r++) err[k][r] = ss_error(k, 2 << r, 2 << r);
        print_message("SS plate shell %-8s: omega_11 errors %+.3e (2x2) %+.3e (4x4) %+.3e (8x8), orders %.2f %.2f\n",
                      NAMES[k], err[k][0], err[k][1], err[k][2], log2(fabs(err[k][0] / err[k][1])),
                      log2(fabs(err[k][1] / err[k][2])));
    }
    /* 8 x 8 errors measured 1.50e-3 (T6), 1.22e-3 (Q8), -4.6e-5 (Q9) */
    const double tol[3] = {2e-3, 1.6e-3, 1e-4};
    for (int k = 0; k < 3; k++) {
        assert_true(fabs(err[k][2]) < tol[k]);
        assert_true(log2(fabs(err[k][1] / err[k][2])) > 3.5);  /* quadratic elements: h^4 */
        assert_true(fabs(err[k][2]) < fabs(err[3][2]) && fabs(err[k][2]) < fabs(err[4][2]));
    }
}

/* Leissa (1973), the cantilever square (C-F-F-F), nu = 0.3: lambda = omega a^2 sqrt(rho t / D)
 * = 3.492, 8.525, 21.43, 27.33, 31.11 (the Q4 and CST + DKT shells printed for comparison). */
static void test_leissa(void** state) {
    (void)state;
    static const double cfff[5] = {3.492, 8.525, 21.43, 27.33, 31.11};
    const double a = 1.0, t = 0.002;
    kd_element_consts c = plate_consts(E, NU, RHO, t);
    const double scale = a * a * sqrt(RHO * t / bending_D(t));
    for (int k = 0; k < 5; k++) {
        const int nx = k == 0 ? 8 : k == 1 || k == 3 ? 12 : k == 2 ? 6 : 10;  /* Q8 stiffer (sec. 18.2) */
        mesh2d m = mesh_rect(shell(k), a, a, nx, nx, 0.0);
        rect_bc bc = {a, a, 1};
        double lam[5], worst = 0.0;
        assert_int_equal(mesh_eigen(&m, &c, fix_rect, &bc, NULL, SHIFT, 5, lam), 0);
        for (int i = 0; i < 5; i++) worst = fmax(worst, rel_err(sqrt(lam[i]) * scale, cfff[i]));
        print_message("Leissa cantilever shell %-8s %dx%d: worst rel. error of 5 frequencies %.2e (%d DOF)\n",
                      NAMES[k], nx, nx, worst, m.ndof);
        /* Leissa's Ritz values are upper bounds, 3.492 about 0.6 % above the converged first
         * frequency (3.4719 on 10 x 10 T6, 6 x 6 Q9): within 1 %, as tests/plate_test.c */
        if (k < 3) assert_true(worst < 1e-2);  /* the 3, 4-node shells: tests/plate_test.c */
        mesh_free(&m);
    }
}


/* ---- MacNeal and Harder's twisted beam with 9-node shells ---------------------------------- */

/* L = 12, b = 1.1, E = 29e6, nu = 0.22, 90 degrees of twist, clamped root, a shear P at the tip
 * along dir (1: y, the root's plane; 2: z, the tip's plane) spread consistently over the tip
 * edge (1/6, 2/3, 1/6 per 9-node side); the deflection at the tip's middle node per unit load.
 * Grid (2 nx + 1) x (2 ny + 1) numbered across the width first (band 6 (2 gy + 3)). */
static double twisted_beam_q9(int k, int nx, int ny, double t, int dir) {
    const double L = 12.0, b = 1.1, E9 = 29e6, nu = 0.22;
    const int gx = 2 * nx + 1, gy = 2 * ny + 1, nn = gx * gy, n = 6 * nn, kd = 6 * (2 * gy + 3) - 1, ld = kd + 1;
    double* x = malloc(sizeof(double) * 3 * (size_t)nn);
    for (int i = 0; i < gx; i++)
        for (int j = 0; j < gy; j++) {
            const double s = L * i / (gx - 1), y = b * j / (gy - 1) - 0.5 * b, phi = 0.5 * PI * s / L;
            double* r = x + 3 * (i * gy + j);
            r[0] = s, r[1] = y * cos(phi), r[2] = y * sin(phi);
        }
    double* K = calloc((size_t)n * (size_t)ld, sizeof(double));
    const kd_element_consts c = {.E = E9, .G = E9 / (2.0 * (1.0 + nu)), .rho = 1.0, .t = t};
    kd_element_props* p = calloc(1, sizeof(*p));
    static const int ij[9][2] = {{0, 0}, {2, 0}, {2, 2}, {0, 2}, {1, 0}, {2, 1}, {1, 2}, {0, 1}, {1, 1}};
    const int ne = k == 1 ? 8 : 9;
    for (int ei = 0; ei < nx; ei++)
        for (int ej = 0; ej < ny; ej++) {
            int en[9];
            double xe[9][3];
            for (int a = 0; a < ne; a++) en[a] = (2 * ei + ij[a][0]) * gy + 2 * ej + ij[a][1];
            for (int a = 0; a < ne; a++)
                for (int q = 0; q < 3; q++) xe[a][q] = x[3 * en[a] + q] - x[3 * en[0] + q];
            kd_element_props_free(p);
            if (kd_element_props_init_nodes(p, shell(k), &c, (const double(*)[3])xe)) fail_msg("element %d %d", ei, ej);
            const int nd = 6 * ne;
            for (int a = 0; a < nd; a++)
                for (int bb = 0; bb < nd; bb++) {
                    const int ri = 6 * en[a / 6] + a % 6, rj = 6 * en[bb / 6] + bb % 6;
                    if (ri <= rj) K[(size_t)rj * ld + kd + ri - rj] += p->k[a * nd + bb];
                }
        }
    double* f = calloc((size_t)n, sizeof(double));
    for (int j = 0; j < gy; j++)
        f[6 * ((gx - 1) * gy + j) + dir] = (j == 0 || j == gy - 1 ? 1.0 : j % 2 ? 4.0 : 2.0) / (6.0 * ny);
    for (int a = 0; a < 6 * gy; a++) {
        for (int j = a; j <= a + kd && j < n; j++) K[(size_t)j * ld + kd + a - j] = 0.0;
        K[(size_t)a * ld + kd] = 1.0;
    }
    /* nodes no element has (the Q8's centres): unit diagonals */
    for (int a = 0; a < n; a++)
        if (K[(size_t)a * ld + kd] == 0.0) K[(size_t)a * ld + kd] = 1.0;
    assert_int_equal(LAPACKE_dpbsv(LAPACK_COL_MAJOR, 'U', n, kd, 1, K, ld, f, n), 0);
    const double w = f[6 * ((gx - 1) * gy + ny) + dir];
    free(x), free(K), free(f), kd_element_props_free(p), free(p);
    return w;
}

/* References (docs/validation.md "Warped shells"): thick (t = 0.32) 1.754e-3 (y), 5.424e-3 (z);
 * thin (t = 0.0032, per 1e-6 of load) 1.294e3, 5.256e3. */
static void test_twisted_beam(void** state) {
    (void)state;
    const double ref[2][2] = {{1.754e-3, 5.424e-3}, {1.294e3, 5.256e3}};
    for (int thin = 0; thin < 2; thin++)
        for (int k = 1; k < 3; k++)
            for (int dir = 1; dir <= 2; dir++) {
                double err[2];
                for (int r = 0; r < 2; r++) {
                    const int m = 1 << r;
                    err[r] = twisted_beam_q9(k, 12 * m, 2 * m, thin ? 0.0032 : 0.32, dir) / ref[thin][dir - 1] - 1.0;
                }
                print_message("%s twisted beam, shell %s, load along %c: error %+.2e (12 x 2), %+.2e (24 x 4)\n",
                              thin ? "thin " : "thick", NAMES[k], dir == 1 ? 'y' : 'z', err[0], err[1]);
                /* measured on 24 x 4 (docs/validation.md "Quadratic shells"): thin -0.25 % ... -0.78 %,
                 * thick +1.5 % ... +1.7 % */
                assert_true(thin ? fabs(err[1]) < 1e-2 : err[1] > 0.0 && err[1] < 2.5e-2);
            }
}


/* ---- from a model file: the structured mesher and Gmsh 6, 9-node elements ------------------ */

static char mesh_dir[256];

static kd_model* compile(const char* interp, const char* mesh, const char* extra) {
    char text[2048];
    snprintf(text, sizeof(text),
             "kedyn: 1\n"
             "materials:\n"
             "  steel: {E: 210e9, rho: 7800, nu: %s}\n"
             "bodies:\n"
             "  - {name: p, type: plate, theory: shell, interpolation: %s, material: steel, thickness: %s,\n"
             "     mesh: {%s}, node_sets: {root: {x: 0}}}\n"
             "supports:\n"
             "  - {body: p, nodes: root, fix: all}\n"
             "%s",
             extra ? "0" : "0.3", interp, extra ? "0.01" : "0.002", mesh, extra ? extra : "");
    kd_desc* d = NULL;
    kd_model* m = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "p2.yaml", &d, &err)) fail_msg("%s", err.msg);
    if (kd_model_compile(d, &m, &err)) fail_msg("%s", err.msg);
    kd_desc_free(&d);
    return m;
}

static void model_omegas(kd_model* m, int count, double* w) {
    kd_modes r;
    kd_error err;
    if (kd_modes_solve(m, count, KD_EIGEN_AUTO, &r, &err)) fail_msg("%s", err.msg);
    for (int k = 0; k < count; k++) w[k] = r.omega[k];
    kd_modes_free(&r);
    kd_model_free(&m);
}

/* The cantilever square of test_leissa from `mesh: {rectangle: [1, 1], divisions: [n, n]}`. */
static void test_model_mesher(void** state) {
    (void)state;
    static const double cfff[5] = {3.492, 8.525, 21.43, 27.33, 31.11};
    const double scale = sqrt(RHO * 0.002 / bending_D(0.002));
    for (int k = 0; k < 3; k++) {
        double w[5], worst = 0.0;
        static const char* const div[3] = {"[8, 8]", "[12, 12]", "[6, 6]"};
        char mesh[80];
        snprintf(mesh, sizeof(mesh), "rectangle: [1, 1], divisions: %s", div[k]);
        model_omegas(compile(NAMES[k], mesh, NULL), 5, w);
        for (int i = 0; i < 5; i++) worst = fmax(worst, rel_err(w[i] * scale, cfff[i]));
        print_message("model, shell %s cantilever: worst rel. error against Leissa %.2e\n", NAMES[k], worst);
        assert_true(worst < 1e-2);
    }
}

/* d(omega_1^2) per unit g along a clamped-free beam of length L: g int (L - x) phi'^2 / int phi^2
 * (Simpson on 4000 intervals; the Rayleigh estimate of tests/shell_gravity_test.c). */
static double rayleigh_shift_per_g(double L) { return cantilever_mode_ratio(L, cantilever_gravity_weight); }

/* A Gmsh 4.1 file of a cylindrical panel strip [0, L] x arc b (60 degrees) of 9-node
 * quadrilaterals (type 10) or 6-node triangles (type 9, each cell cut along its diagonal), every
 * node on the cylinder: the elements' sides are curved. */
static void write_panel(const char* path, double L, double b, int nx, int ny, int tri) {
    FILE* f = fopen(path, "w");
    assert_non_null(f);
    const int gx = 2 * nx + 1, gy = 2 * ny + 1, nn = gx * gy, ne = nx * ny * (tri ? 2 : 1);
    const double R = b / (PI / 3.0);
    fprintf(f, "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 %d 1 %d\n2 1 0 %d\n", nn, nn, nn);
    for (int k = 1; k <= nn; k++) fprintf(f, "%d\n", k);
    for (int i = 0; i < gx; i++)
        for (int j = 0; j < gy; j++) {
            const double x = L * i / (gx - 1), s = b * j / (gy - 1) - 0.5 * b;
            fprintf(f, "%.17g %.17g %.17g\n", x, R * sin(s / R), R * (1.0 - cos(s / R)));
        }
    fprintf(f, "$EndNodes\n$Elements\n1 %d 1 %d\n2 1 %d %d\n", ne, ne, tri ? 9 : 10, ne);
    int e = 1;
#define G(A, B) ((A) * gy + (B) + 1)
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++) {
            const int ci = 2 * i, cj = 2 * j;
            const int c1 = G(ci, cj), c2 = G(ci + 2, cj), c3 = G(ci + 2, cj + 2), c4 = G(ci, cj + 2);
            const int m12 = G(ci + 1, cj), m23 = G(ci + 2, cj + 1), m34 = G(ci + 1, cj + 2), m41 = G(ci, cj + 1),
                      mc = G(ci + 1, cj + 1);
            if (tri) {
                fprintf(f, "%d %d %d %d %d %d %d\n", e, c1, c2, c3, m12, m23, mc), e++;
                fprintf(f, "%d %d %d %d %d %d %d\n", e, c1, c3, c4, mc, m34, m41), e++;
            } else {
                fprintf(f, "%d %d %d %d %d %d %d %d %d %d\n", e++, c1, c2, c3, c4, m12, m23, m34, m41, mc);
            }
        }
#undef G
    fprintf(f, "$EndElements\n");
    fclose(f);
}

/* The panel strip (L = 1, arc 0.05, t = 0.01, nu = 0) hanging from its clamped root under
 * g = 9.81 along x: the static shell problem of the curved elements (theory.md sec. 14.7, 18.3)
 * and its geometric stiffness shift omega_1^2 by the beam's Rayleigh estimate. */
static void test_model_gmsh_curved(void** state) {
    (void)state;
    const double ref = 9.81 * rayleigh_shift_per_g(1.0);
    for (int tri = 0; tri < 2; tri++) {
        char path[512], mesh[600];
        snprintf(path, sizeof(path), "%s/panel_%d.msh", mesh_dir, tri);
        write_panel(path, 1.0, 0.05, 20, 2, tri);
        snprintf(mesh, sizeof(mesh), "file: %s", path);
        double w0, wg;
        model_omegas(compile(tri ? "t6" : "q9", mesh, "\n"), 1, &w0);
        model_omegas(compile(tri ? "t6" : "q9", mesh, "forces:\n  - {type: gravity, g: [9.81, 0, 0]}\n"), 1, &wg);
        const double shift = wg * wg - w0 * w0;
        print_message("curved panel strip, Gmsh shell %s 20 x 2: omega_1 %.6f -> %.6f rad/s, d(omega^2) %.5f, "
                      "Rayleigh %.5f, error %.2e\n", tri ? "t6" : "q9", w0, wg, shift, ref, fabs(shift / ref - 1.0));
        assert_true(fabs(shift / ref - 1.0) < 3e-3);
        remove(path);
    }
}

/* A 9-node element of a Gmsh file warped beyond the limit (its centre raised by 0.3 of the
 * side: offset 0.3 sqrt(A) > 0.1 sqrt(A)) is an error naming the element at the mesh key. */
static void test_model_warp_limit(void** state) {
    (void)state;
    char path[512], mesh[600];
    snprintf(path, sizeof(path), "%s/warped_q9.msh", mesh_dir);
    FILE* f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 9 1 9\n2 1 0 9\n");
    for (int k = 1; k <= 9; k++) fprintf(f, "%d\n", k);
    static const double xy[9][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0.5, 0}, {1, 0.5}, {0.5, 1}, {0, 0.5}, {0.5, 0.5}};
    for (int k = 0; k < 9; k++) fprintf(f, "%g %g %g\n", xy[k][0], xy[k][1], k == 8 ? 0.3 : 0.0);
    fprintf(f, "$EndNodes\n$Elements\n1 1 1 1\n2 1 10 1\n1 1 2 3 4 5 6 7 8 9\n$EndElements\n");
    fclose(f);
    snprintf(mesh, sizeof(mesh), "file: %s", path);
    char text[1024];
    snprintf(text, sizeof(text),
             "kedyn: 1\nmaterials:\n  steel: {E: 210e9, rho: 7800}\nbodies:\n"
             "  - {name: p, type: plate, theory: shell, interpolation: q9, material: steel, thickness: 0.01,\n"
             "     mesh: {%s}}\n", mesh);
    kd_desc* d = NULL;
    kd_model* m = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "p2.yaml", &d, &err)) fail_msg("%s", err.msg);
    assert_int_equal(kd_model_compile(d, &m, &err), KD_ERR_INPUT);
    print_message("%s:%d:%d: %s\n", err.file, err.loc.line, err.loc.col, err.msg);
    assert_non_null(strstr(err.msg, "element 1 is warped beyond the limit of a flat shell"));
    assert_int_equal(err.loc.line, 6);
    kd_desc_free(&d);
    remove(path);
}

static int setup(void** state) {
    (void)state;
    snprintf(mesh_dir, sizeof(mesh_dir), "/tmp/kedyn_shell_p2_XXXXXX");
    return mkdtemp(mesh_dir) ? 0 : -1;
}

static int teardown(void** state) {
    (void)state;
    return rmdir(mesh_dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rigid_modes), cmocka_unit_test(test_patch), cmocka_unit_test(test_ss_plate),
        cmocka_unit_test(test_leissa), cmocka_unit_test(test_twisted_beam),
        cmocka_unit_test(test_model_mesher), cmocka_unit_test(test_model_gmsh_curved),
        cmocka_unit_test(test_model_warp_limit),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
