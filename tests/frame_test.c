/* General tabulated frame motion (src/core/frame.c, KD_MOTION_POSE):
 *   - the exponential map's rates: [omega] = Q' Q^T and eps = omega' against
 *     central differences, for small (series branch) and large rotations;
 *   - a precessing rotation R(t) = Rz(p t) Rx(beta) Rz(s t) with closed-form
 *     omega = p e_z + s n(t), eps = p s e_z x n(t) (n(t) = Rz(p t) Rx(beta)
 *     e_z) and an origin on a helix, sampled into a pose table: the splined
 *     pose reproduces R, omega, eps, a_O to interpolation accuracy, with the
 *     orders of a cubic spline (R: 4, omega: 3, eps and a_O: 2);
 *   - a dynamics run driven by a tabulated rotation about z equals the same
 *     run driven by the analytic rotation law, the difference falling as h^2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/analysis.h"
#include "kedyn/frame.h"
#include "test_util.h"

static void mat_mul3(double out[9], const double A[9], const double B[9]) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) out[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

static void rot_axis(double R[9], int axis, double a) {
    const double c = cos(a), s = sin(a);
    memset(R, 0, 9 * sizeof(double));
    const int i = (axis + 1) % 3, j = (axis + 2) % 3;
    R[4 * axis] = 1;
    R[3 * i + i] = c, R[3 * i + j] = -s, R[3 * j + i] = s, R[3 * j + j] = c;
}

static double urand(void) { return 2.0 * rand() / (double)RAND_MAX - 1.0; }

/* [omega] = Q' Q^T and eps = omega' by central differences along the
 * quadratic path phi(t) = phi + phi' t + phi'' t^2 / 2. */
static void test_rotvec_rates(void** state) {
    (void)state;
    srand(7);
    const double scales[3] = {1e-3, 0.5, 2.8};
    double worst_w = 0, worst_e = 0;
    for (int c = 0; c < 3; c++)
        for (int trial = 0; trial < 4; trial++) {
            double p[3], dp[3], ddp[3];
            for (int k = 0; k < 3; k++) p[k] = scales[c] * urand(), dp[k] = urand(), ddp[k] = urand();
            double Q[9], w[3], e[3];
            kd_rotvec_rates(p, dp, ddp, Q, w, e);
            const double h = 1e-5;
            double Qs[2][9], ws[2][3], es[3];
            for (int sgn = 0; sgn < 2; sgn++) {
                const double t = sgn ? h : -h;
                double pt[3], dpt[3];
                for (int k = 0; k < 3; k++) pt[k] = p[k] + dp[k] * t + 0.5 * ddp[k] * t * t, dpt[k] = dp[k] + ddp[k] * t;
                kd_rotvec_rates(pt, dpt, ddp, Qs[sgn], ws[sgn], es);
            }
            double Qd[9], QT[9], W[9];
            for (int k = 0; k < 9; k++) Qd[k] = (Qs[1][k] - Qs[0][k]) / (2 * h), QT[k] = Q[3 * (k % 3) + k / 3];
            mat_mul3(W, Qd, QT);
            const double wfd[3] = {W[7], W[2], W[3]};
            for (int k = 0; k < 3; k++) {
                worst_w = fmax(worst_w, fabs(wfd[k] - w[k]));
                worst_e = fmax(worst_e, fabs((ws[1][k] - ws[0][k]) / (2 * h) - e[k]));
            }
            /* Q orthogonal */
            double QQ[9];
            mat_mul3(QQ, Q, QT);
            for (int k = 0; k < 9; k++) assert_true(fabs(QQ[k] - (k % 4 == 0)) < 1e-14);
        }
    print_message("exponential map rates vs differences: omega %.1e, eps %.1e\n", worst_w, worst_e);
    assert_true(worst_w < 1e-8);
    assert_true(worst_e < 1e-8);
}

/* ---- the precessing rotation --------------------------------------------- */

static const double P_RATE = 1.0, S_RATE = 1.2, BETA = 0.4, HELIX_R = 0.5, HELIX_C = 0.3;

static void precession(double t, double R[9], double w[3], double e[3], double rO[3], double aO[3]) {
    double A[9], B[9], C[9], AB[9];
    rot_axis(A, 2, P_RATE * t);
    rot_axis(B, 0, BETA);
    rot_axis(C, 2, S_RATE * t);
    mat_mul3(AB, A, B);
    mat_mul3(R, AB, C);
    const double n[3] = {AB[2], AB[5], AB[8]};  /* Rz(p t) Rx(beta) e_z */
    for (int k = 0; k < 3; k++) w[k] = S_RATE * n[k] + (k == 2) * P_RATE;
    e[0] = -P_RATE * S_RATE * n[1], e[1] = P_RATE * S_RATE * n[0], e[2] = 0;  /* p e_z x s n */
    rO[0] = HELIX_R * cos(P_RATE * t), rO[1] = HELIX_R * sin(P_RATE * t), rO[2] = HELIX_C * t * t;
    aO[0] = -P_RATE * P_RATE * rO[0], aO[1] = -P_RATE * P_RATE * rO[1], aO[2] = 2 * HELIX_C;
}

/* Rotation vector of R (angle below pi). */
static void rot_log(const double R[9], double phi[3]) {
    const double c = 0.5 * (R[0] + R[4] + R[8] - 1), th = acos(fmax(-1.0, fmin(1.0, c)));
    assert_true(th < PI - 0.1);
    const double f = th < 1e-12 ? 0.5 : th / (2 * sin(th));
    phi[0] = f * (R[7] - R[5]), phi[1] = f * (R[2] - R[6]), phi[2] = f * (R[3] - R[1]);
}

/* Largest errors of R, omega, eps, a_O over the interior [0.25, 0.75] of a
 * pose table of n intervals on [0, 1]. */
static void pose_errors(int n, double err[4]) {
    kd_motion mo;
    memset(&mo, 0, sizeof(mo));
    mo.type = KD_MOTION_POSE;
    double* t = malloc(sizeof(double) * (size_t)(n + 1) * 7);
    double* col[6];
    for (int k = 0; k < 6; k++) col[k] = t + (size_t)(n + 1) * (k + 1);
    for (int i = 0; i <= n; i++) {
        double R[9], w[3], e[3], r[3], a[3], phi[3];
        t[i] = (double)i / n;
        precession(t[i], R, w, e, r, a);
        rot_log(R, phi);
        for (int k = 0; k < 3; k++) col[k][i] = r[k], col[3 + k][i] = phi[k];
    }
    kd_error kerr;
    for (int k = 0; k < 6; k++) assert_int_equal(kd_law_table(&mo.pose[k], n + 1, t, col[k], 0, &kerr), KD_OK);
    free(t);
    const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, zero[3] = {0, 0, 0};
    memset(err, 0, 4 * sizeof(double));
    for (int j = 0; j <= 200; j++) {
        const double tj = 0.25 + 0.5 * j / 200.0;
        double R[9], w[3], e[3], r[3], a[3];
        precession(tj, R, w, e, r, a);
        kd_frame f;
        kd_motion_eval(&mo, I, zero, tj, &f);
        for (int k = 0; k < 9; k++) err[0] = fmax(err[0], fabs(f.R[k] - R[k]));
        for (int k = 0; k < 3; k++) {
            err[1] = fmax(err[1], fabs(f.omega[k] - w[k]));
            err[2] = fmax(err[2], fabs(f.eps[k] - e[k]));
            err[3] = fmax(err[3], fabs(f.aO[k] - a[k]));
        }
        /* local components are the global ones seen from R */
        for (int k = 0; k < 3; k++)
            assert_true(fabs(f.omega_L[k] - (f.R[k] * f.omega[0] + f.R[3 + k] * f.omega[1] + f.R[6 + k] * f.omega[2])) < 1e-14);
    }
    kd_motion_free(&mo);
}

static void test_pose_table_convergence(void** state) {
    (void)state;
    const int ns[3] = {20, 40, 80};
    const double expected[4] = {4, 3, 2, 2};
    const char* names[4] = {"R", "omega", "eps", "a_O"};
    double e[3][4];
    for (int i = 0; i < 3; i++) pose_errors(ns[i], e[i]);
    for (int q = 0; q < 4; q++) {
        const double order1 = log2(e[0][q] / e[1][q]), order2 = log2(e[1][q] / e[2][q]);
        print_message("pose table %-5s: errors %.2e %.2e %.2e (h = 1/20, 1/40, 1/80), orders %.2f %.2f\n", names[q],
                      e[0][q], e[1][q], e[2][q], order1, order2);
        assert_true(fabs(order2 - expected[q]) < 0.25);
    }
    assert_true(e[2][1] < 1e-5 && e[2][2] < 1e-3);  /* omega, eps at h = 1/80 */
}

/* ---- a dynamics run driven by a tabulated rotation ------------------------ */

typedef struct tip_hist {
    int eq, n;
    double q[2001];
} tip_hist;

static int tip_out(void* ctx, double t, const double* q, const double* v, const double* a, const double* e) {
    (void)t, (void)v, (void)a, (void)e;
    tip_hist* h = ctx;
    if (h->n < 2001) h->q[h->n++] = q[h->eq];
    return 0;
}

/* A clamped planar steel beam on a hub spinning up to 40 rad/s in 0.4 s,
 * tip deflection history over 0.5 s; table_n > 0: the rotation as a pose
 * table of table_n intervals on [0, 1] s. */
static void spin_run(int table_n, tip_hist* h) {
    kd_desc* d = one_beam(210e9, 7800, 0.3, circle(0.02), 1.0, 8, KD_THEORY_EULER_BERNOULLI, KD_INTERP_CUBIC, 1);
    fix(d, 1, KD_FIX_ALL);
    kd_motion_desc* md = kd_desc_add_motion(d);
    md->body = 0;
    kd_law spin = kd_law_constant(0);
    spin.type = KD_LAW_SPIN_UP, spin.spin_omega = 40, spin.spin_T = 0.4;
    if (table_n == 0) {
        md->motion.type = KD_MOTION_ROTATION, md->motion.axis[2] = 1.0, md->motion.angle = spin;
    } else {
        md->motion.type = KD_MOTION_POSE;
        double t[2001], th[2001], zero[2001] = {0}, dth, d2th;
        for (int i = 0; i <= table_n; i++) t[i] = (double)i / table_n, kd_law_eval(&spin, t[i], &th[i], &dth, &d2th);
        kd_error err;
        for (int k = 0; k < 6; k++)
            assert_int_equal(kd_law_table(&md->motion.pose[k], table_n + 1, t, k == 5 ? th : zero, 0, &err), KD_OK);
    }
    kd_error err;
    assert_int_equal(kd_desc_check(d, &err), KD_OK);
    kd_model* m = NULL;
    assert_int_equal(kd_model_compile(d, &m, &err), KD_OK);
    kd_analysis_desc a;
    kd_analysis_desc_init(&a, KD_ANALYSIS_DYNAMICS);
    a.dynamics.t_end = 0.5, a.dynamics.dt = 2.5e-4, a.dynamics.integrator = KD_INTEGRATOR_NEWMARK;
    a.dynamics.newmark_beta = 0.25, a.dynamics.newmark_gamma = 0.5, a.dynamics.output_every = 1, a.dynamics.rtol = 1e-8, a.dynamics.atol = 1e-10;
    memset(h, 0, sizeof(*h));
    h->eq = m->neq - 2;  /* tip v */
    if (kd_dynamics_run(m, &a, tip_out, h, NULL, NULL, 0, &err)) fail_msg("%s", err.msg);
    kd_model_free(&m);
    kd_desc_free(&d);
}

static void test_pose_table_drives_dynamics(void** state) {
    (void)state;
    static tip_hist ref, tab;
    spin_run(0, &ref);
    double peak = 0;
    for (int i = 0; i < ref.n; i++) peak = fmax(peak, fabs(ref.q[i]));
    double diff[2];
    const int ns[2] = {250, 500};
    for (int c = 0; c < 2; c++) {
        spin_run(ns[c], &tab);
        assert_int_equal(tab.n, ref.n);
        diff[c] = 0;
        for (int i = 0; i < ref.n; i++) diff[c] = fmax(diff[c], fabs(tab.q[i] - ref.q[i]));
    }
    print_message("tabulated vs analytic spin-up: peak tip deflection %.3e m; difference %.2e (h = 4 ms), "
                  "%.2e (h = 2 ms), order %.2f\n",
                  peak, diff[0], diff[1], log2(diff[0] / diff[1]));
    assert_true(peak > 1e-4);
    assert_true(diff[1] < 1e-3 * peak);
    assert_true(log2(diff[0] / diff[1]) > 1.7);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rotvec_rates),
        cmocka_unit_test(test_pose_table_convergence),
        cmocka_unit_test(test_pose_table_drives_dynamics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
