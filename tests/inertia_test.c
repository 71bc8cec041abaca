/* Moving-frame inertia terms (src/fe/inertia.c), time laws (law.c) and
 * frame motion (frame.c):
 *   - [c] and [k(eps)] skew-symmetric, [k(omega)] symmetric negative
 *     semi-definite;
 *   - the generalized inertia force m d'' + c d' + (k_eps + k_w) d + q from
 *     the invariants equals a direct quadrature of int rho N^T R^T a_M dV,
 *     with a_M from theory.md sec. 2, over the element length and a
 *     rectangular section, at random frames and states, to 1e-12;
 *   - law derivatives against finite differences; spin-up continuity;
 *     the frame's omega, eps and a_O against finite differences of R, r_O. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <lapacke.h>

#include "kedyn/frame.h"
#include "kedyn/inertia.h"
#include "kedyn/law.h"
#include "test_util.h"

static double urand(void) { return 2.0 * rand() / (double)RAND_MAX - 1.0; }

static kd_element_props rect_props(kd_theory th, kd_interp ip, int planar, double b, double h, double L) {
    kd_section_desc s = {0};
    s.shape = KD_SHAPE_RECTANGLE, s.b = b, s.h = h;
    kd_element_consts c = {0};
    c.E = 70e9, c.rho = 2700, c.G = 70e9 / 2.6;
    kd_section_properties(&s, 0.3, &c);
    kd_element_props p;
    kd_element_kind kind = {th, ip, planar};
    assert_int_equal(kd_element_props_init(&p, kind, &c, L), KD_OK);
    return p;
}

static void test_matrix_structure(void** state) {
    (void)state;
    srand(1);
    kd_element_props p = rect_props(KD_THEORY_RAYLEIGH, KD_INTERP_QUINTIC, 0, 0.02, 0.01, 0.3);
    const int n = p.ndof;
    for (int trial = 0; trial < 5; trial++) {
        const double w[3] = {30 * urand(), 30 * urand(), 30 * urand()}, e[3] = {500 * urand(), 500 * urand(), 500 * urand()};
        const double a[3] = {0, 0, 0};
        kd_inertia_terms t;
        kd_inertia_terms_eval(&p, 0.1, w, e, a, &t);
        double scale = 0;
        for (int k = 0; k < n * n; k++) scale = fmax(scale, fabs(t.c[k]) + fabs(t.k_eps[k]) + fabs(t.k_omega[k]));
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                assert_true(fabs(t.c[i * n + j] + t.c[j * n + i]) < 1e-14 * scale);
                assert_true(fabs(t.k_eps[i * n + j] + t.k_eps[j * n + i]) < 1e-14 * scale);
                assert_true(fabs(t.k_omega[i * n + j] - t.k_omega[j * n + i]) < 1e-14 * scale);
            }
        /* negative semi-definite: largest eigenvalue <= round-off */
        double ko[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], ev[KD_ELEM_DOF_MAX];
        memcpy(ko, t.k_omega, sizeof(double) * (size_t)(n * n));
        assert_int_equal(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', n, ko, n, ev), 0);
        assert_true(ev[n - 1] < 1e-12 * scale);
        assert_true(ev[0] < -1e-6 * scale);  /* and not trivially zero */
    }
    kd_element_props_free(&p);
}

/* Direct quadrature of int rho N_p^T (R^T a_M) dV: 8 Gauss points along the
 * element times 3 x 3 over the rectangle b (z) x h (y). N_p is the point
 * displacement row u_p = u - y tz + z ty, v_p = v - z tx, w_p = w + y tx. */
static void direct_generalized_force(const kd_element_props* p, double s0, const double w[3], const double e[3],
                                     const double a0[3], const double* d, const double* dd, const double* ddd,
                                     double b, double h, double* out) {
    static const double gx[8] = {0.019855071751231856, 0.10166676129318664, 0.23723379504183550, 0.40828267875217510,
                                 0.59171732124782490, 0.76276620495816450, 0.89833323870681336, 0.98014492824876814};
    static const double gw[8] = {0.050614268145188130, 0.11119051722668724, 0.15685332293894364, 0.18134189168918100,
                                 0.18134189168918100, 0.15685332293894364, 0.11119051722668724, 0.050614268145188130};
    static const double sx[3] = {-0.77459666924148338, 0.0, 0.77459666924148338};
    static const double sw[3] = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
    const int n = p->ndof;
    const int rotary = p->kind.theory != KD_THEORY_EULER_BERNOULLI;
    double W[9], E[9];
    kd_skew(W, w);
    kd_skew(E, e);
    memset(out, 0, sizeof(double) * (size_t)n);
    for (int g = 0; g < 8; g++) {
        double N[KD_NFIELD][KD_ELEM_DOF_MAX], dN[KD_NFIELD][KD_ELEM_DOF_MAX];
        kd_element_shape(p->kind, &p->c, p->L, gx[g], N, dN);
        for (int iy = 0; iy < 3; iy++)
            for (int iz = 0; iz < 3; iz++) {
                const double y = sx[iy] * h / 2, z = p->kind.planar ? 0.0 : sx[iz] * b / 2;
                const double wt = p->c.rho * gw[g] * p->L * sw[iy] * sw[iz] * (b * h / 4);
                double Np[3][KD_ELEM_DOF_MAX];
                for (int k = 0; k < n; k++) {
                    Np[0][k] = N[KD_F_U][k] + rotary * (-y * N[KD_F_TZ][k] + z * N[KD_F_TY][k]);
                    Np[1][k] = N[KD_F_V][k] - z * N[KD_F_TX][k];
                    Np[2][k] = N[KD_F_W][k] + y * N[KD_F_TX][k];
                }
                /* u, u', u'' of the point, and r + u */
                double u[3] = {0}, du[3] = {0}, ddu[3] = {0};
                for (int i = 0; i < 3; i++)
                    for (int k = 0; k < n; k++) u[i] += Np[i][k] * d[k], du[i] += Np[i][k] * dd[k], ddu[i] += Np[i][k] * ddd[k];
                const double r[3] = {s0 + gx[g] * p->L + u[0], y + u[1], z + u[2]};
                /* R^T a_M = a_O,L + (E + W W)(r + u) + 2 W u' + u'' */
                double acc[3];
                for (int i = 0; i < 3; i++) {
                    acc[i] = a0[i] + ddu[i];
                    for (int j = 0; j < 3; j++) {
                        double ww = 0;
                        for (int k = 0; k < 3; k++) ww += W[3 * i + k] * W[3 * k + j];
                        acc[i] += (E[3 * i + j] + ww) * r[j] + 2 * W[3 * i + j] * du[j];
                    }
                }
                const int nc = p->kind.planar ? 2 : 3;
                for (int i = 0; i < nc; i++)
                    for (int k = 0; k < n; k++) out[k] += wt * Np[i][k] * acc[i];
            }
    }
}

static void check_against_quadrature(kd_theory th, kd_interp ip, int planar) {
    const double b = 0.02, h = 0.012, L = 0.25, s0 = 0.4;
    kd_element_props p = rect_props(th, ip, planar, b, h, L);
    const int n = p.ndof;
    for (int trial = 0; trial < 4; trial++) {
        double w[3] = {20 * urand(), 20 * urand(), 20 * urand()}, e[3] = {300 * urand(), 300 * urand(), 300 * urand()};
        const double a[3] = {50 * urand(), 50 * urand(), 50 * urand()};
        if (planar) w[0] = w[1] = e[0] = e[1] = 0;  /* planar elements move in their plane */
        double d[KD_ELEM_DOF_MAX], dd[KD_ELEM_DOF_MAX], ddd[KD_ELEM_DOF_MAX];
        for (int k = 0; k < n; k++) d[k] = 1e-3 * urand(), dd[k] = 0.1 * urand(), ddd[k] = 10 * urand();
        kd_inertia_terms t;
        kd_inertia_terms_eval(&p, s0, w, e, a, &t);
        double m[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], got[KD_ELEM_DOF_MAX], want[KD_ELEM_DOF_MAX];
        kd_element_mass(&p, m);
        for (int i = 0; i < n; i++) {
            got[i] = t.q[i];
            for (int j = 0; j < n; j++)
                got[i] += m[i * n + j] * ddd[j] + t.c[i * n + j] * dd[j] + (t.k_eps[i * n + j] + t.k_omega[i * n + j]) * d[j];
        }
        direct_generalized_force(&p, s0, w, e, a, d, dd, ddd, b, h, want);
        double scale = 0;
        for (int i = 0; i < n; i++) scale = fmax(scale, fabs(want[i]));
        for (int i = 0; i < n; i++)
            if (fabs(got[i] - want[i]) > 1e-12 * scale)
                fail_msg("%s %s %s dof %d: invariants %.16g, quadrature %.16g", kd_theory_str(th), kd_interp_str(ip),
                         planar ? "planar" : "3D", i, got[i], want[i]);
    }
    kd_element_props_free(&p);
}

static void test_inertia_against_direct_quadrature(void** state) {
    (void)state;
    srand(7);
    for (int planar = 0; planar < 2; planar++) {
        check_against_quadrature(KD_THEORY_RAYLEIGH, KD_INTERP_CUBIC, planar);
        check_against_quadrature(KD_THEORY_RAYLEIGH, KD_INTERP_QUINTIC, planar);
        check_against_quadrature(KD_THEORY_TIMOSHENKO, KD_INTERP_CUBIC, planar);
        check_against_quadrature(KD_THEORY_BAR, KD_INTERP_CUBIC, planar);
        check_against_quadrature(KD_THEORY_EULER_BERNOULLI, KD_INTERP_QUINTIC, planar);
    }
}

/* Law derivatives against central differences. */
static void check_law(const kd_law* law, double t0, double t1) {
    const double hstep = 1e-5;
    for (int k = 0; k <= 20; k++) {
        const double t = t0 + (t1 - t0) * k / 20.0;
        double f, df, d2f, fp, dfp, d2fp, fm, dfm, d2fm;
        kd_law_eval(law, t, &f, &df, &d2f);
        kd_law_eval(law, t + hstep, &fp, &dfp, &d2fp);
        kd_law_eval(law, t - hstep, &fm, &dfm, &d2fm);
        assert_true(fabs((fp - fm) / (2 * hstep) - df) < 1e-6 * (1 + fabs(df)));
        assert_true(fabs((dfp - dfm) / (2 * hstep) - d2f) < 1e-5 * (1 + fabs(d2f)));
    }
}

static void test_laws(void** state) {
    (void)state;
    kd_law spin = kd_law_constant(0);
    spin.type = KD_LAW_SPIN_UP, spin.spin_omega = 6.0, spin.spin_T = 15.0;
    check_law(&spin, 0.01, 14.99);
    check_law(&spin, 15.01, 20.0);
    /* continuity at T: theta = W T/2, theta' = W, theta'' = 0 */
    double f, df, d2f;
    kd_law_eval(&spin, 15.0 - 1e-12, &f, &df, &d2f);
    assert_true(fabs(f - 45.0) < 1e-9 && fabs(df - 6.0) < 1e-9 && fabs(d2f) < 1e-9);
    kd_law sine = kd_law_constant(0);
    sine.type = KD_LAW_SINE, sine.amplitude = 2, sine.omega = 200, sine.phase = 0.3;
    check_law(&sine, 0, 0.05);
    /* a spline through sin t: derivatives converge to cos t, -sin t */
    enum { NP = 201 };
    double t[NP], v[NP];
    for (int i = 0; i < NP; i++) t[i] = 2 * PI * i / (NP - 1), v[i] = sin(t[i]);
    kd_law tab;
    kd_error err;
    assert_int_equal(kd_law_table(&tab, NP, t, v, 0, &err), KD_OK);
    check_law(&tab, 0.5, 5.5);
    kd_law_eval(&tab, 1.234, &f, &df, &d2f);
    assert_true(fabs(f - sin(1.234)) < 1e-7 && fabs(df - cos(1.234)) < 1e-5 && fabs(d2f + sin(1.234)) < 1e-3);
    assert_int_equal(kd_law_smoothness(&tab), 2);
    kd_law_free(&tab);
    assert_int_equal(kd_law_table(&tab, NP, t, v, 1, &err), KD_OK);
    assert_int_equal(kd_law_smoothness(&tab), 0);
    kd_law_free(&tab);
    t[5] = t[4];
    assert_int_equal(kd_law_table(&tab, NP, t, v, 0, &err), KD_ERR_INPUT);
}

/* Frame motion: omega from R' R^T, eps from omega', v_O and a_O from r_O,
 * by central differences, for a rotation about a tilted axis with a hub. */
static void test_frame_rotation(void** state) {
    (void)state;
    kd_motion mo;
    memset(&mo, 0, sizeof(mo));
    mo.type = KD_MOTION_ROTATION;
    const double nrm = sqrt(1 + 4 + 9);
    mo.axis[0] = 1 / nrm, mo.axis[1] = 2 / nrm, mo.axis[2] = 3 / nrm;
    mo.center[0] = 0.1, mo.center[1] = -0.2, mo.center[2] = 0.05;
    mo.hub = 0.3;
    mo.angle = kd_law_constant(0);
    mo.angle.type = KD_LAW_SINE, mo.angle.amplitude = 1.2, mo.angle.omega = 7, mo.angle.phase = 0.4;
    const double R0[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1}, r0[3] = {0.5, 0.7, -0.1};
    const double t = 0.37, hs = 1e-6;
    kd_frame f, fp, fm;
    kd_motion_eval(&mo, R0, r0, t, &f);
    kd_motion_eval(&mo, R0, r0, t + hs, &fp);
    kd_motion_eval(&mo, R0, r0, t - hs, &fm);
    /* [omega] = R' R^T */
    double Wn[9] = {0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) Wn[3 * i + j] += (fp.R[3 * i + k] - fm.R[3 * i + k]) / (2 * hs) * f.R[3 * j + k];
    assert_true(fabs(Wn[7] - f.omega[0]) < 1e-6 && fabs(Wn[2] - f.omega[1]) < 1e-6 && fabs(Wn[3] - f.omega[2]) < 1e-6);
    for (int i = 0; i < 3; i++) {
        assert_true(fabs((fp.omega[i] - fm.omega[i]) / (2 * hs) - f.eps[i]) < 1e-5);
        assert_true(fabs((fp.rO[i] - fm.rO[i]) / (2 * hs) - f.vO[i]) < 1e-6);
        assert_true(fabs((fp.vO[i] - fm.vO[i]) / (2 * hs) - f.aO[i]) < 1e-5);
    }
    /* the hub keeps the origin at its distance from the axis */
    double p[3], q0[3], c[3], c0[3];
    for (int i = 0; i < 3; i++) p[i] = f.rO[i] - mo.center[i], q0[i] = r0[i] + mo.hub * R0[3 * i] - mo.center[i];
    c[0] = p[1] * mo.axis[2] - p[2] * mo.axis[1], c[1] = p[2] * mo.axis[0] - p[0] * mo.axis[2],
    c[2] = p[0] * mo.axis[1] - p[1] * mo.axis[0];
    c0[0] = q0[1] * mo.axis[2] - q0[2] * mo.axis[1], c0[1] = q0[2] * mo.axis[0] - q0[0] * mo.axis[2],
    c0[2] = q0[0] * mo.axis[1] - q0[1] * mo.axis[0];
    assert_true(fabs(sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]) - sqrt(c0[0] * c0[0] + c0[1] * c0[1] + c0[2] * c0[2])) <
                1e-14);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix_structure),
        cmocka_unit_test(test_inertia_against_direct_quadrature),
        cmocka_unit_test(test_laws),
        cmocka_unit_test(test_frame_rotation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
