/* Flat shells (src/fe/element_shell.c; theory.md sec. 10.7): in the x-y
 * plane the shell's bending is the plate's and its membrane the
 * membrane's (up to the drilling stiffness); the same mesh turned anywhere
 * in 3D has the same spectrum with six rigid modes; rigid motions carry
 * rho t A and the rotary inertia; a cantilever strip in a tilted plane
 * vibrates flatwise and edgewise as Euler-Bernoulli beams. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "plate_util.h"

static const double E = 210e9, NU = 0.3, RHO = 7800;
/* shift of the inverted eigenproblem near the spectra's scale, so that the
 * eigenvalues come out to ~1e-14 relative (plate_util.h) */
#define SHIFT (-1e5)

static kd_element_kind shell(int tri) {
    return (kd_element_kind){KD_THEORY_SHELL, tri ? KD_INTERP_DKT : KD_INTERP_MITC4, 0};
}
static const char* const NAMES[2] = {"q4+mitc4", "cst+dkt"};

/* A rotation: about the axis (1, 2, 3)/|.| by 0.7 rad (Rodrigues). */
static void rotation(double R[3][3]) {
    double n[3] = {1, 2, 3};
    const double l = sqrt(14.0), th = 0.7, c = cos(th), s = sin(th);
    for (int k = 0; k < 3; k++) n[k] /= l;
    const double K[3][3] = {{0, -n[2], n[1]}, {n[2], 0, -n[0]}, {-n[1], n[0], 0}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) R[i][j] = (i == j ? c : 0.0) + s * K[i][j] + (1 - c) * n[i] * n[j];
}

static void rotate_mesh(mesh2d* m, double R[3][3]) {
    for (int a = 0; a < m->nnode; a++) {
        double* x = m->x + 3 * a;
        const double y[3] = {x[0], x[1], x[2]};
        for (int i = 0; i < 3; i++) x[i] = R[i][0] * y[0] + R[i][1] * y[1] + R[i][2] * y[2];
    }
}

static void test_tables(void** state) {
    (void)state;
    for (int tri = 0; tri < 2; tri++) {
        const kd_element_family* fam = kd_element_family_of(shell(tri));
        assert_non_null(fam);
        assert_int_equal(fam->nnode, tri ? 3 : 4);
        kd_dof_name dofs[KD_NODE_DOF_MAX];
        assert_int_equal(kd_element_node_dofs(shell(tri), dofs), 6);
        for (int k = 0; k < 6; k++) assert_int_equal(dofs[k], (kd_dof_name)k);  /* u v w rx ry rz */
        assert_int_equal(kd_element_kind_family(shell(tri)), KD_FAMILY_SHELL);
    }
    /* a quadrilateral warped beyond the limit (offsets 0.125 sqrt(A) > 0.1, shell_warp_test) */
    kd_element_consts c = plate_consts(E, NU, RHO, 0.01);
    kd_element_props* p = calloc(1, sizeof(*p));
    const double warped[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0.5}, {0, 1, 0}};
    const double tilted[4][3] = {{0, 0, 0}, {1, 0, 0.2}, {1, 1, 0.2}, {0, 1, 0}};
    assert_int_equal(kd_element_props_init_nodes(p, shell(0), &c, warped), KD_ERR_INPUT);
    assert_int_equal(kd_element_props_init_nodes(p, shell(0), &c, tilted), KD_OK);
    /* the element's own axes: e1 the body x projected, n along the normal */
    const double l = sqrt(1.04);
    assert_true(fabs(p->frame[0][0] - 1 / l) < 1e-14 && fabs(p->frame[0][2] - 0.2 / l) < 1e-14);
    assert_true(fabs(p->frame[2][0] + 0.2 / l) < 1e-14 && fabs(p->frame[2][2] - 1 / l) < 1e-14);
    assert_true(fabs(p->trans_dir[0][0] + 0.2 / l) < 1e-14);
    kd_element_props_free(p), free(p);
}

/* DOFs of a plane: fix the membrane (u, v, rz) or the bending (w, rx, ry). */
static int fix_membrane(const double x[3], kd_dof_name dof, const void* ctx) {
    (void)x, (void)ctx;
    return dof == KD_DOF_U || dof == KD_DOF_V || dof == KD_DOF_RZ;
}
static int fix_bending(const double x[3], kd_dof_name dof, const void* ctx) {
    (void)x, (void)ctx;
    return dof == KD_DOF_W || dof == KD_DOF_RX || dof == KD_DOF_RY;
}

/* In the x-y plane: bending = the plate (same spectrum to rounding), the
 * membrane = the membrane within the drilling stiffness' effect. Free
 * meshes, distorted. */
static void test_plane_split(void** state) {
    (void)state;
    const double a = 0.3, b = 0.2, t = 0.004;
    kd_element_consts c = plate_consts(E, NU, RHO, t);
    for (int tri = 0; tri < 2; tri++) {
        mesh2d ms = mesh_rect(shell(tri), a, b, 4, 3, 0.25);
        const kd_element_kind pk = {tri ? KD_THEORY_KIRCHHOFF : KD_THEORY_MINDLIN, tri ? KD_INTERP_DKT : KD_INTERP_MITC4, 0};
        const kd_element_kind mk = {KD_THEORY_MEMBRANE, tri ? KD_INTERP_CST : KD_INTERP_Q4, 0};
        mesh2d mp = mesh_rect(pk, a, b, 4, 3, 0.25), mm = mesh_rect(mk, a, b, 4, 3, 0.25);
        double ls[12], lp[12], lm[12];
        assert_int_equal(mesh_eigen(&ms, &c, fix_membrane, NULL, NULL, SHIFT, 12, ls), 0);
        assert_int_equal(mesh_eigen(&mp, &c, NULL, NULL, NULL, SHIFT, 12, lp), 0);
        double worst = 0.0;
        for (int k = 3; k < 12; k++) worst = fmax(worst, rel_err(ls[k], lp[k]));
        printf("shell %s: bending vs plate, worst rel. difference %.2e\n", NAMES[tri], worst);
        assert_true(worst < 1e-12);
        assert_int_equal(mesh_eigen(&ms, &c, fix_bending, NULL, NULL, SHIFT, 12, ls), 0);
        assert_int_equal(mesh_eigen(&mm, &c, NULL, NULL, NULL, SHIFT, 12, lm), 0);
        worst = 0.0;
        for (int k = 3; k < 12; k++) worst = fmax(worst, rel_err(sqrt(ls[k]), sqrt(lm[k])));
        printf("shell %s: membrane vs membrane, worst rel. difference %.2e (drilling stiffness)\n", NAMES[tri], worst);
        assert_true(worst < 1e-4);  /* measured 2.4e-5 (q4), 3.1e-5 (cst) */
        for (int k = 0; k < 3; k++) assert_true(fabs(ls[k]) < 1e-6 * ls[3]);  /* rigid in-plane modes */
        mesh_free(&ms), mesh_free(&mp), mesh_free(&mm);
    }
}

/* Frame invariance: the same free mesh turned by R has the same spectrum
 * (six rigid modes, then the elastic ones). */
static void test_rotated(void** state) {
    (void)state;
    const double a = 0.3, b = 0.2, t = 0.004;
    kd_element_consts c = plate_consts(E, NU, RHO, t);
    double R[3][3];
    rotation(R);
    for (int tri = 0; tri < 2; tri++) {
        mesh2d m0 = mesh_rect(shell(tri), a, b, 3, 3, 0.25), m1 = mesh_rect(shell(tri), a, b, 3, 3, 0.25);
        rotate_mesh(&m1, R);
        double l0[14], l1[14];
        assert_int_equal(mesh_eigen(&m0, &c, NULL, NULL, NULL, SHIFT, 14, l0), 0);
        assert_int_equal(mesh_eigen(&m1, &c, NULL, NULL, NULL, SHIFT, 14, l1), 0);
        for (int k = 0; k < 6; k++) assert_true(fabs(l1[k]) < 1e-6 * l1[6]);
        assert_true(l1[6] > 1e-3 * l1[7]);  /* exactly six rigid modes */
        double worst = 0.0;
        for (int k = 6; k < 14; k++) worst = fmax(worst, rel_err(l1[k], l0[k]));
        printf("shell %s turned in 3D: worst rel. difference of 8 elastic eigenvalues %.2e\n", NAMES[tri], worst);
        assert_true(worst < 1e-11);
        mesh_free(&m0), mesh_free(&m1);
    }
}

/* Rigid motions of the turned mesh store no strain energy (the drilling
 * row included); a translation along any direction carries rho t A; a
 * rotation about the axis through the origin along the turned plate's x
 * axis, rho t int y^2 dA + rho t^3/12 A (theory.md sec. 10.8). */
static void test_rigid_mass(void** state) {
    (void)state;
    const double a = 0.3, b = 0.2, t = 0.01;
    kd_element_consts c = plate_consts(E, NU, RHO, t);
    double R[3][3];
    rotation(R);
    for (int tri = 0; tri < 2; tri++) {
        mesh2d m = mesh_rect(shell(tri), a, b, 3, 2, 0.25);
        rotate_mesh(&m, R);
        const int n = m.ndof;
        double* M = malloc(sizeof(double) * (size_t)n * (size_t)n);
        double* K = malloc(sizeof(double) * (size_t)n * (size_t)n);
        mesh_assemble(&m, &c, K, M, NULL, NULL);
        double kmax = 0.0;
        for (int i = 0; i < n; i++) kmax = fmax(kmax, K[(size_t)i * n + i]);
        double* d = calloc((size_t)n, sizeof(double));
        const double dir[3] = {0.3, -0.5, 0.8};
        for (int f = 0; f < 4; f++) {
            /* 0: translation; 1: rotation about the turned plate's x axis;
             * 2: about its normal (theta_z with the in-plane rotation: no
             * drilling energy); 3: about a generic axis */
            double axis[3] = {R[0][0], R[1][0], R[2][0]};
            if (f == 2) axis[0] = R[0][2], axis[1] = R[1][2], axis[2] = R[2][2];
            if (f == 3) axis[0] = 0.6, axis[1] = 0.0, axis[2] = 0.8;
            for (int i = 0; i < m.nnode; i++) {
                const double* x = m.x + 3 * i;
                double* di = d + 6 * i;
                if (!m.used[i]) continue;  /* unconnected grid points */
                if (f == 0) {
                    for (int k = 0; k < 3; k++) di[k] = dir[k], di[3 + k] = 0.0;
                } else {
                    /* u = axis x r, rotation = axis */
                    di[0] = axis[1] * x[2] - axis[2] * x[1];
                    di[1] = axis[2] * x[0] - axis[0] * x[2];
                    di[2] = axis[0] * x[1] - axis[1] * x[0];
                    for (int k = 0; k < 3; k++) di[3 + k] = axis[k];
                }
            }
            double e = 0.0, ek = 0.0, d2 = 0.0;
            for (int i = 0; i < n; i++) {
                d2 += d[i] * d[i];
                for (int j = 0; j < n; j++) e += d[i] * M[(size_t)i * n + j] * d[j], ek += d[i] * K[(size_t)i * n + j] * d[j];
            }
            printf("shell %s rigid motion %d: d^T K d / (k_max |d|^2) = %.1e\n", NAMES[tri], f, ek / (kmax * d2));
            assert_true(fabs(ek) < 1e-13 * kmax * d2);
            if (f >= 2) continue;
            const double dd = dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2];
            const double want = f == 0 ? RHO * t * a * b * dd : RHO * t * a * b * b * b / 3.0 + RHO * t * t * t / 12.0 * a * b;
            printf("shell %s rigid motion %d: rel. error %.2e\n", NAMES[tri], f, rel_err(e, want));
            assert_true(rel_err(e, want) < 1e-12);
        }
        free(M), free(K), free(d);
        mesh_free(&m);
    }
}

/* A cantilever strip L x h (L/h = 20) in a tilted plane, clamped at x = 0,
 * 40 x 2 elements: its first flatwise and edgewise bending frequencies
 * against the Euler-Bernoulli beam, omega = 1.8751^2 sqrt(E I / (rho A L^4))
 * with I = h t^3 / 12 and t h^3 / 12. */
static void test_strip_beam(void** state) {
    (void)state;
    const double L = 0.4, h = 0.02, t = 0.002;
    kd_element_consts c = plate_consts(E, NU, RHO, t);
    /* tilt: turn about the strip's axis x by 0.5 rad, so the root edge stays on x = 0 */
    const double th = 0.5;
    double R[3][3] = {{1, 0, 0}, {0, cos(th), -sin(th)}, {0, sin(th), cos(th)}};
    const double beta2 = 1.875104068711961 * 1.875104068711961, A = h * t;
    const double flat = beta2 * sqrt(E * h * t * t * t / 12.0 / (RHO * A * L * L * L * L));
    const double edge = beta2 * sqrt(E * t * h * h * h / 12.0 / (RHO * A * L * L * L * L));
    for (int tri = 0; tri < 2; tri++) {
        mesh2d m = mesh_rect(shell(tri), L, h, 40, 2, 0.0);
        rotate_mesh(&m, R);
        /* clamp the root x = 0 (the rotation keeps x) */
        {
            const int n = m.ndof;
            double* K = malloc(sizeof(double) * (size_t)n * (size_t)n);
            double* M = malloc(sizeof(double) * (size_t)n * (size_t)n);
            mesh_assemble(&m, &c, K, M, NULL, NULL);
            int* keep = calloc((size_t)n, sizeof(int));
            for (int i = 0; i < m.nnode; i++)
                for (int k = 0; k < 6; k++) keep[6 * i + k] = m.used[i] && fabs(m.x[3 * i]) > 1e-12;
            double* Kr = malloc(sizeof(double) * (size_t)n * (size_t)n);
            double* Mr = malloc(sizeof(double) * (size_t)n * (size_t)n);
            const int r = reduce(K, n, keep, Kr);
            reduce(M, n, keep, Mr);
            double lam[3];
            assert_int_equal(dense_eigen_shift(Kr, Mr, r, 3, SHIFT, lam), 0);
            /* flatwise: the lowest; edgewise: the lowest of the others near it */
            const double w1 = sqrt(lam[0]);
            double we = 0.0, best = 1e300;
            for (int k = 1; k < 3; k++)
                if (fabs(sqrt(lam[k]) - edge) < best) best = fabs(sqrt(lam[k]) - edge), we = sqrt(lam[k]);
            printf("shell %s strip: flatwise omega %.5g (beam %.5g, rel. %.2e), edgewise %.5g (beam %.5g, rel. %.2e)\n",
                   NAMES[tri], w1, flat, w1 / flat - 1, we, edge, we / edge - 1);
            /* flatwise: measured 3.8e-3 (q4), 4.1e-3 (cst), the plate strip
             * slightly stiffer than the beam (restrained anticlastic bending) */
            assert_true(rel_err(w1, flat) < 1e-2);
            /* edgewise: the Q4 and CST membranes are stiff in in-plane bending
             * with two elements across (parasitic shear): measured +5.8 % (q4),
             * +36 % (cst); an upper bound (conforming, consistent mass) */
            assert_true(we > edge && we / edge - 1 < (tri ? 0.4 : 7e-2));
            free(K), free(M), free(keep), free(Kr), free(Mr);
        }
        mesh_free(&m);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),     cmocka_unit_test(test_plane_split), cmocka_unit_test(test_rotated),
        cmocka_unit_test(test_rigid_mass), cmocka_unit_test(test_strip_beam),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
