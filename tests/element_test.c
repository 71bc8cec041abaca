/* Element library tests (src/fe/element_*.c, section.c): stiffness and
 * consistent mass matrices by quadrature against the textbook closed forms
 * (Przemieniecki, Theory of Matrix Structural Analysis, 1968, ch. 5 and 11),
 * total mass, rigid-body null spaces, and the inertia invariants against
 * each other through rigid-body fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

static const double E = 210e9, RHO = 7800, NU = 0.3;

static kd_element_consts consts_circle(double dia) {
    kd_section_desc s = circle(dia);
    kd_element_consts c = {0};
    c.E = E, c.rho = RHO, c.G = E / (2 * (1 + NU));
    kd_section_properties(&s, NU, &c);
    return c;
}

static kd_element_props make(kd_theory th, kd_interp ip, int planar, const kd_element_consts* c, double L) {
    kd_element_props p;
    kd_element_kind kind = {th, ip, planar};
    assert_int_equal(kd_element_props_init(&p, kind, c, L), KD_OK);
    return p;
}

/* Compare the sub-matrix of a row-major n x n matrix at DOFs idx[] with ref
 * (row-major k x k), to relative tolerance of the largest entry. */
static void expect_block(const double* a, int n, const int* idx, int k, const double* ref, double tol) {
    double scale = 0;
    for (int i = 0; i < k * k; i++) scale = fmax(scale, fabs(ref[i]));
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            const double got = a[idx[i] * n + idx[j]], want = ref[i * k + j];
            if (fabs(got - want) > tol * scale) fail_msg("entry (%d,%d): got %.15g want %.15g", i, j, got, want);
        }
}

static double quad_form(const double* a, int n, const double* x) {
    double s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) s += x[i] * a[i * n + j] * x[j];
    return s;
}

static void matvec(const double* a, int n, const double* x, double* y) {
    for (int i = 0; i < n; i++) {
        y[i] = 0;
        for (int j = 0; j < n; j++) y[i] += a[i * n + j] * x[j];
    }
}

/* Axial bar: k = EA/L [1 -1; -1 1], m = rho A L / 6 [2 1; 1 2]. */
static void test_bar(void** state) {
    (void)state;
    const double L = 0.3;
    kd_element_consts c = consts_circle(0.02);
    kd_element_props p = make(KD_THEORY_BAR, KD_INTERP_CUBIC, 1, &c, L);
    assert_int_equal(p.ndof, 2);
    double m[4], EA = E * c.A, mAL = RHO * c.A * L;
    kd_element_mass(&p, m);
    const int idx[2] = {0, 1};
    const double kref[4] = {EA / L, -EA / L, -EA / L, EA / L};
    const double mref[4] = {mAL / 3, mAL / 6, mAL / 6, mAL / 3};
    expect_block(p.k, 2, idx, 2, kref, 1e-14);
    expect_block(m, 2, idx, 2, mref, 1e-14);
    kd_element_props_free(&p);
}

/* Planar Euler-Bernoulli cubic element on (v1, rz1, v2, rz2). */
static void ref_bending(double EI, double mAL, double L, double* k, double* m) {
    const double kk[16] = {12, 6 * L, -12, 6 * L, 6 * L, 4 * L * L, -6 * L, 2 * L * L,
                           -12, -6 * L, 12, -6 * L, 6 * L, 2 * L * L, -6 * L, 4 * L * L};
    const double mm[16] = {156, 22 * L, 54, -13 * L, 22 * L, 4 * L * L, 13 * L, -3 * L * L,
                           54, 13 * L, 156, -22 * L, -13 * L, -3 * L * L, -22 * L, 4 * L * L};
    for (int i = 0; i < 16; i++) k[i] = EI / (L * L * L) * kk[i], m[i] = mAL / 420 * mm[i];
}

static void test_euler_bernoulli_planar(void** state) {
    (void)state;
    const double L = 0.25;
    kd_element_consts c = consts_circle(0.03);
    kd_element_props p = make(KD_THEORY_EULER_BERNOULLI, KD_INTERP_CUBIC, 1, &c, L);
    assert_int_equal(p.ndof, 6);
    double m[36], kref[16], mref[16];
    kd_element_mass(&p, m);
    ref_bending(E * c.Iz, RHO * c.A * L, L, kref, mref);
    const int bend[4] = {1, 2, 4, 5};
    expect_block(p.k, 6, bend, 4, kref, 1e-13);
    expect_block(m, 6, bend, 4, mref, 1e-13);
    /* No coupling between axial and bending in a straight beam. */
    assert_true(fabs(p.k[0 * 6 + 1]) < 1e-6 && fabs(m[0 * 6 + 1]) < 1e-12);
    kd_element_props_free(&p);
}

/* Rayleigh: Euler-Bernoulli mass plus rotary inertia
 * rho I / (30 L) [36 3L -36 3L; 3L 4L^2 -3L -L^2; ...]. */
static void test_rayleigh_rotary_inertia(void** state) {
    (void)state;
    const double L = 0.2;
    kd_element_consts c = consts_circle(0.05);
    kd_element_props p = make(KD_THEORY_RAYLEIGH, KD_INTERP_CUBIC, 1, &c, L);
    double m[36], kref[16], mref[16];
    kd_element_mass(&p, m);
    ref_bending(E * c.Iz, RHO * c.A * L, L, kref, mref);
    const double rr[16] = {36, 3 * L, -36, 3 * L, 3 * L, 4 * L * L, -3 * L, -L * L,
                           -36, -3 * L, 36, -3 * L, 3 * L, -L * L, -3 * L, 4 * L * L};
    for (int i = 0; i < 16; i++) mref[i] += RHO * c.Iz / (30 * L) * rr[i];
    const int bend[4] = {1, 2, 4, 5};
    expect_block(m, 6, bend, 4, mref, 1e-13);
    kd_element_props_free(&p);
}

/* Timoshenko (interdependent interpolation) stiffness in closed form:
 * EI / ((1 + phi) L^3) [12 6L -12 6L; 6L (4+phi)L^2 -6L (2-phi)L^2; ...]. */
static void test_timoshenko_stiffness(void** state) {
    (void)state;
    const double L = 0.1;
    kd_element_consts c = consts_circle(0.05);
    kd_element_props p = make(KD_THEORY_TIMOSHENKO, KD_INTERP_CUBIC, 1, &c, L);
    const double phi = 12 * E * c.Iz / (c.kappa_y * c.G * c.A * L * L), s = E * c.Iz / ((1 + phi) * L * L * L);
    assert_true(phi > 0.1);  /* a thick element: shear matters */
    const double kk[16] = {12, 6 * L, -12, 6 * L, 6 * L, (4 + phi) * L * L, -6 * L, (2 - phi) * L * L,
                           -12, -6 * L, 12, -6 * L, 6 * L, (2 - phi) * L * L, -6 * L, (4 + phi) * L * L};
    double kref[16];
    for (int i = 0; i < 16; i++) kref[i] = s * kk[i];
    const int bend[4] = {1, 2, 4, 5};
    expect_block(p.k, 6, bend, 4, kref, 1e-12);
    /* Cowper's coefficient for a solid circle. */
    assert_true(fabs(c.kappa_y - 6 * (1 + NU) / (7 + 6 * NU)) < 1e-15);
    kd_element_props_free(&p);
}

/* 3D cubic: torsion GJ/L and rho Ip L/6; the x-z plane with theta_y = -w'
 * has the x-y matrices with the signs of the rotation terms flipped. */
static void test_spatial_beam(void** state) {
    (void)state;
    const double L = 0.4;
    kd_section_desc rect = {0};
    rect.shape = KD_SHAPE_RECTANGLE, rect.b = 0.03, rect.h = 0.01;
    kd_element_consts c = {0};
    c.E = E, c.rho = RHO, c.G = E / (2 * (1 + NU));
    kd_section_properties(&rect, NU, &c);
    kd_element_props p = make(KD_THEORY_EULER_BERNOULLI, KD_INTERP_CUBIC, 0, &c, L);
    assert_int_equal(p.ndof, 12);
    double m[144], kref[16], mref[16];
    kd_element_mass(&p, m);
    /* x-y plane: v (1, 7), rz (5, 11). */
    ref_bending(E * c.Iz, RHO * c.A * L, L, kref, mref);
    const int xy[4] = {1, 5, 7, 11};
    expect_block(p.k, 12, xy, 4, kref, 1e-13);
    expect_block(m, 12, xy, 4, mref, 1e-13);
    /* x-z plane: w (2, 8), ry (4, 10), rotation columns negated. */
    ref_bending(E * c.Iy, RHO * c.A * L, L, kref, mref);
    const double sgn[4] = {1, -1, 1, -1};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) kref[i * 4 + j] *= sgn[i] * sgn[j], mref[i * 4 + j] *= sgn[i] * sgn[j];
    const int xz[4] = {2, 4, 8, 10};
    expect_block(p.k, 12, xz, 4, kref, 1e-13);
    expect_block(m, 12, xz, 4, mref, 1e-13);
    /* Torsion: rx (3, 9). */
    const double GJ = c.G * c.J, mIp = RHO * (c.Iy + c.Iz) * L;
    const double kt[4] = {GJ / L, -GJ / L, -GJ / L, GJ / L}, mt[4] = {mIp / 3, mIp / 6, mIp / 6, mIp / 3};
    const int tx[2] = {3, 9};
    expect_block(p.k, 12, tx, 2, kt, 1e-13);
    expect_block(m, 12, tx, 2, mt, 1e-13);
    /* Rectangle torsion constant: b/h = 3 gives beta = 0.263 (Roark), J = beta b h^3. */
    assert_true(rel_err(c.J, 0.263 * 0.03 * 1e-6) < 2e-3);
    kd_element_props_free(&p);
}

/* Every element kind: symmetric k and m, m positive definite on a unit
 * translation with total mass rho A L, rigid-body motions in the null space
 * of k, and the invariants consistent with m through rigid-body fields. */
static void check_kind(kd_theory th, kd_interp ip, int planar) {
    const double L = 0.37;
    kd_element_consts c = consts_circle(0.04);
    kd_element_props p = make(th, ip, planar, &c, L);
    const int n = p.ndof;
    double m[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], kmax = 0;
    kd_element_mass(&p, m);
    for (int i = 0; i < n * n; i++) kmax = fmax(kmax, fabs(p.k[i]));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            assert_true(fabs(p.k[i * n + j] - p.k[j * n + i]) <= 1e-12 * fabs(p.k[i * n + i]) + 1e-9);
            assert_true(fabs(m[i * n + j] - m[j * n + i]) <= 1e-15 * p.mass);
        }

    kd_element_kind kind = {th, ip, planar};
    kd_dof_name dofs[KD_NODE_DOF_MAX];
    const int nd = kd_element_node_dofs(kind, dofs);
    /* Rigid translations t_j and the rotation about z, as element DOF vectors. */
    double t[3][KD_ELEM_DOF_MAX] = {{0}}, rz[KD_ELEM_DOF_MAX] = {0};
    for (int node = 0; node < 2; node++)
        for (int a = 0; a < nd; a++) {
            const int i = node * nd + a;
            if (dofs[a] == KD_DOF_U) t[0][i] = 1;
            if (dofs[a] == KD_DOF_V) t[1][i] = 1, rz[i] = node * L;
            if (dofs[a] == KD_DOF_W) t[2][i] = 1;
            if (dofs[a] == KD_DOF_RZ) rz[i] = 1;
        }
    double y[KD_ELEM_DOF_MAX];
    const int ncomp = th == KD_THEORY_BAR ? 1 : (planar ? 2 : 3);
    for (int j = 0; j < ncomp; j++) {
        /* total mass */
        assert_true(rel_err(quad_form(m, n, t[j]), RHO * c.A * L) < 1e-13);
        /* rigid translation: zero strain energy */
        matvec(p.k, n, t[j], y);
        for (int i = 0; i < n; i++) assert_true(fabs(y[i]) < 1e-12 * kmax);
        /* s_i = m_ij t_j for every i: N_j t_j = 1 over the volume. */
        for (int i = 0; i < 3; i++) {
            matvec(p.m_ij[i][j], n, t[j], y);
            for (int a = 0; a < n; a++) assert_true(fabs(y[a] - p.s_i[i][a]) < 1e-13 * p.mass);
        }
    }
    if (th == KD_THEORY_BAR) {
        kd_element_props_free(&p);
        return;
    }
    /* Rigid rotation about z: displacement (-y, x, 0) at every section point
     * (the -y part only where rotary inertia is kept). So m_i2 rz = x_i,x and,
     * with rotary inertia, m_i1 rz = -x_i,y. Also zero strain energy. */
    matvec(p.k, n, rz, y);
    for (int i = 0; i < n; i++) assert_true(fabs(y[i]) < 1e-12 * kmax);
    for (int i = 0; i < 3; i++) {
        matvec(p.m_ij[i][1], n, rz, y);
        for (int a = 0; a < n; a++) assert_true(fabs(y[a] - p.x_ik[i][0][a]) < 1e-13 * p.mass * L);
        if (th == KD_THEORY_EULER_BERNOULLI) continue;
        matvec(p.m_ij[i][0], n, rz, y);
        for (int a = 0; a < n; a++) assert_true(fabs(y[a] + p.x_ik[i][1][a]) < 1e-13 * p.mass * L);
    }
    kd_element_props_free(&p);
}

static void test_all_kinds(void** state) {
    (void)state;
    const kd_theory th[4] = {KD_THEORY_BAR, KD_THEORY_EULER_BERNOULLI, KD_THEORY_RAYLEIGH, KD_THEORY_TIMOSHENKO};
    for (int planar = 0; planar < 2; planar++)
        for (int t = 0; t < 4; t++) {
            check_kind(th[t], KD_INTERP_CUBIC, planar);
            if (th[t] == KD_THEORY_EULER_BERNOULLI || th[t] == KD_THEORY_RAYLEIGH)
                check_kind(th[t], KD_INTERP_QUINTIC, planar);
        }
}

/* Quintic Hermite shape functions interpolate their nodal values, slopes
 * and curvatures. */
static void test_quintic_interpolation(void** state) {
    (void)state;
    const double L = 0.5;
    kd_element_consts c = consts_circle(0.01);
    kd_element_kind kind = {KD_THEORY_EULER_BERNOULLI, KD_INTERP_QUINTIC, 1};
    double N[KD_NFIELD][KD_ELEM_DOF_MAX], dN[KD_NFIELD][KD_ELEM_DOF_MAX];
    /* DOFs per node: u v rz kz; v at 1/5, rz at 2/6, kz at 3/7. A field
     * v(x) = x^5 has v(L) = L^5, v'(L) = 5 L^4, v''(L) = 20 L^3. */
    const double q[8] = {0, 0, 0, 0, 0, pow(L, 5), 5 * pow(L, 4), 20 * pow(L, 3)};
    for (double xi = 0; xi <= 1.0001; xi += 0.125) {
        kd_element_shape(kind, &c, L, xi, N, dN);
        double v = 0, dv = 0;
        for (int a = 0; a < 8; a++) v += N[KD_F_V][a] * q[a], dv += dN[KD_F_V][a] * q[a];
        const double x = xi * L;
        assert_true(fabs(v - pow(x, 5)) < 1e-15);
        assert_true(fabs(dv - 5 * pow(x, 4)) < 1e-14);
    }
}

/* Tube and rectangle section formulas (Cowper; Roark). */
static void test_sections(void** state) {
    (void)state;
    kd_section_desc tube = {0};
    tube.shape = KD_SHAPE_TUBE, tube.d = 0.05, tube.t = 0.005;
    kd_element_consts c = {0};
    kd_section_properties(&tube, 0.3, &c);
    assert_true(rel_err(c.A, PI / 4 * (0.05 * 0.05 - 0.04 * 0.04)) < 1e-14);
    assert_true(rel_err(c.Iz, PI / 64 * (pow(0.05, 4) - pow(0.04, 4))) < 1e-14);
    /* A thin tube tends to Cowper's thin-walled value 2(1+nu)/(4+3nu). */
    tube.t = 1e-5;
    kd_section_properties(&tube, 0.3, &c);
    assert_true(fabs(c.kappa_y - 2 * 1.3 / (4 + 0.9)) < 1e-3);
    kd_section_desc sq = {0};
    sq.shape = KD_SHAPE_RECTANGLE, sq.b = sq.h = 0.02, sq.shear_y = 0.9, sq.shear_z = 0.9;
    kd_section_properties(&sq, 0.3, &c);
    assert_true(rel_err(c.J, 0.1406 * pow(0.02, 4)) < 2e-3);  /* square: 0.1406 a^4 */
    assert_true(c.kappa_y == 0.9);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bar),
        cmocka_unit_test(test_euler_bernoulli_planar),
        cmocka_unit_test(test_rayleigh_rotary_inertia),
        cmocka_unit_test(test_timoshenko_stiffness),
        cmocka_unit_test(test_spatial_beam),
        cmocka_unit_test(test_all_kinds),
        cmocka_unit_test(test_quintic_interpolation),
        cmocka_unit_test(test_sections),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
