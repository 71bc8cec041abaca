/* The reduced Newton matrix of cvode-bdf (src/constrained/ode_newton.c, docs/theory.md sec. 23):
 *   - the block solve of (I - gamma J) x = b, J = [0 I 0; A B 0; C D 0], through the n x n block
 *     I - gamma B - gamma^2 A, against LAPACK's dense solve of the whole m x m matrix (dgesv, an
 *     independent reference) on random matrices of that structure, from non-stiff (gamma |J| << 1)
 *     to stiff (gamma^2 |A| >> 1), with one and three extra states; the full fall-back (nq = 0)
 *     against the same reference;
 *   - a double pendulum (two point masses, two rods) run by cvode-bdf with the Newton corrector
 *     in every formulation CVODE runs, against rk4 at a step 100 times shorter (a different
 *     method) and the energy balance T - T0 = W. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "constrained/constrained_internal.h"
#include "kedyn/mbs.h"
#include "test_util.h"

static unsigned long long rng = 88172645463325252ull;
static double urand(void) {   /* xorshift64, uniform in [-1, 1) */
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2 - 1;
}

/* one structured system: n coordinates, e extra states, A scaled by omega^2 (stiffness). Returns
 * the difference from LAPACK's solution relative to its size and 1 + gamma |B| + gamma^2 |A| (a
 * bound of the condition number's growth); *resid: the backward error |b - M x| / (|M| |x| + |b|). */
static double block_vs_dense(int n, int e, double gamma, double omega2, int reduced, double* resid) {
    const int m = 2 * n + e;
    double* Jf = calloc((size_t)m * m, sizeof(double));   /* the whole J, column-major */
    double* M = malloc(sizeof(double) * m * m);
    double *b = malloc(sizeof(double) * m), *x = malloc(sizeof(double) * m);
    lapack_int* ipiv = malloc(sizeof(lapack_int) * m);
    assert_non_null(Jf), assert_non_null(M), assert_non_null(b), assert_non_null(x), assert_non_null(ipiv);
    for (int i = 0; i < n; i++) Jf[i + (size_t)m * (n + i)] = 1;              /* q' = v */
    for (int j = 0; j < 2 * n; j++)
        for (int i = n; i < m; i++) Jf[i + (size_t)m * j] = (j < n ? omega2 : 1.0) * urand();
    for (int i = 0; i < m; i++) b[i] = urand();
    mbs_newton_sys s;
    assert_int_equal(mbs_newton_sys_init(&s, m, reduced ? n : 0), KD_OK);
    assert_int_equal(s.nq, reduced ? n : 0);
    for (int j = 0; j < s.cols; j++)
        for (int i = 0; i < s.rows; i++) s.J[i + (size_t)s.rows * j] = Jf[m - s.rows + i + (size_t)m * j];
    assert_int_equal(mbs_newton_sys_setup(&s, gamma), 0);
    memcpy(x, b, sizeof(double) * m);
    assert_int_equal(mbs_newton_sys_solve(&s, x), 0);
    /* reference: M = I - gamma J, LAPACK's dense LU of the whole matrix */
    for (size_t k = 0; k < (size_t)m * m; k++) M[k] = -gamma * Jf[k];
    for (int i = 0; i < m; i++) M[i + (size_t)m * i] += 1;
    double rmax = 0, mnorm = 0, xmax = 0, bmax = 0;
    for (int i = 0; i < m; i++) {
        double r = b[i], row = 0;
        for (int j = 0; j < m; j++) r -= M[i + (size_t)m * j] * x[j], row += fabs(M[i + (size_t)m * j]);
        rmax = fmax(rmax, fabs(r)), mnorm = fmax(mnorm, row), xmax = fmax(xmax, fabs(x[i])), bmax = fmax(bmax, fabs(b[i]));
    }
    *resid = rmax / (mnorm * xmax + bmax);
    assert_int_equal(LAPACKE_dgesv(LAPACK_COL_MAJOR, m, 1, M, m, ipiv, b, m), 0);
    double err = 0, ref = 0;
    for (int i = 0; i < m; i++) err = fmax(err, fabs(x[i] - b[i])), ref = fmax(ref, fabs(b[i]));
    mbs_newton_sys_free(&s);
    free(Jf), free(M), free(b), free(x), free(ipiv);
    return err / ref / (1 + gamma + gamma * gamma * omega2);
}

static void test_block_solve(void** state) {
    (void)state;
    const int sizes[][2] = {{1, 1}, {4, 1}, {9, 1}, {21, 3}, {42, 1}, {90, 1}};
    const double gammas[] = {1e-5, 1e-3, 1e-1, 10};
    const double omega2[] = {1, 1e6};
    double worst = 0, worst_r = 0;
    for (int k = 0; k < 6; k++)
        for (int g = 0; g < 4; g++)
            for (int w = 0; w < 2; w++)
                for (int red = 0; red < 2; red++) {
                    double r;
                    const double e = block_vs_dense(sizes[k][0], sizes[k][1], gammas[g], omega2[w], !red, &r);
                    if (e > 1e-12 || r > 1e-14)
                        printf("n %d e %d gamma %g omega^2 %g %s: difference %.2e, backward error %.2e\n",
                               sizes[k][0], sizes[k][1], gammas[g], omega2[w], red ? "full" : "reduced", e, r);
                    worst = fmax(worst, e), worst_r = fmax(worst_r, r);
                    assert_true(e < 1e-12);
                    assert_true(r < 1e-14);
                }
    printf("block and full solves against LAPACK's dense solve: largest scaled difference %.2e, backward error "
           "%.2e\n", worst, worst_r);
}

/* ---- the double pendulum: q = (x1, y1, x2, y2), rods L1 (origin - 1) and L2 (1 - 2), gravity -y ---- */
#define L1 1.0
#define L2 0.7
#define M1 1.0
#define M2 0.5
#define GRAV 9.81
static const double dp_mass[4] = {M1, M1, M2, M2};
static const int dp_rowptr[3] = {0, 2, 6};
static const int dp_col[6] = {0, 1, 0, 1, 2, 3};
static int dp_phi(void* ctx, double t, const double* q, double* phi) {
    (void)ctx, (void)t;
    const double dx = q[2] - q[0], dy = q[3] - q[1];
    phi[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] - L1 * L1);
    phi[1] = 0.5 * (dx * dx + dy * dy - L2 * L2);
    return 0;
}
static int dp_jac(void* ctx, double t, const double* q, double* jac) {
    (void)ctx, (void)t;
    const double dx = q[2] - q[0], dy = q[3] - q[1];
    jac[0] = q[0], jac[1] = q[1];
    jac[2] = -dx, jac[3] = -dy, jac[4] = dx, jac[5] = dy;
    return 0;
}
static int dp_phit(void* ctx, double t, const double* q, double* v) {
    (void)ctx, (void)t, (void)q;
    v[0] = v[1] = 0;
    return 0;
}
static int dp_gamma(void* ctx, double t, const double* q, const double* qd, double* g) {
    (void)ctx, (void)t, (void)q;
    const double du = qd[2] - qd[0], dv = qd[3] - qd[1];
    g[0] = -(qd[0] * qd[0] + qd[1] * qd[1]);
    g[1] = -(du * du + dv * dv);
    return 0;
}
static int dp_force(void* ctx, double t, const double* q, const double* qd, double* Q) {
    (void)ctx, (void)t, (void)q, (void)qd;
    Q[0] = 0, Q[1] = -M1 * GRAV, Q[2] = 0, Q[3] = -M2 * GRAV;
    return 0;
}
static const kd_cms DP = {.n = 4, .nc = 2, .mass = dp_mass, .jac_nnz = 6, .jac_rowptr = dp_rowptr, .jac_col = dp_col,
                          .phi = dp_phi, .jacobian = dp_jac, .phi_t = dp_phit, .gamma = dp_gamma, .force = dp_force};

#define NOUT 301                  /* outputs every 0.01 s over 3 s */
typedef struct dp_rec {
    double q[NOUT][4];
    int k;
    double T0, energy_err;
} dp_rec;
static int dp_out(void* ctx, const kd_mbs_sample* s) {
    dp_rec* r = ctx;
    if (r->k == 0) r->T0 = s->kinetic;
    if (r->k < NOUT) memcpy(r->q[r->k], s->q, sizeof(double) * 4);
    r->k++;
    r->energy_err = fmax(r->energy_err, fabs(s->kinetic - r->T0 - s->work));
    return 0;
}
static void dp_run(kd_mbs_formulation f, kd_mbs_stabilization stab, kd_mbs_integrator in, dp_rec* r,
                   kd_mbs_stats* st) {
    const double th1 = 1.0, th2 = 2.0;
    const double q[4] = {L1 * sin(th1), -L1 * cos(th1), L1 * sin(th1) + L2 * sin(th2),
                         -L1 * cos(th1) - L2 * cos(th2)};
    const double qd[4] = {0, 0, 0, 0};
    kd_mbs_opts o;
    kd_mbs_opts_default(&o);
    o.formulation = f, o.stabilization = stab, o.integrator = in, o.nonlinear = KD_MBS_NLS_NEWTON;
    o.t_end = 3.0, o.dt = in == KD_MBS_RK4 ? 1e-4 : 0.01, o.output_every = in == KD_MBS_RK4 ? 100 : 1;
    o.rtol = 1e-10, o.atol = 1e-12;
    memset(r, 0, sizeof(*r));
    memset(st, 0, sizeof(*st));
    kd_error err;
    if (kd_mbs_forward(&DP, &o, q, qd, dp_out, r, st, &err)) fail_msg("%s", err.msg);
    assert_int_equal(r->k, NOUT);
}

static void test_double_pendulum(void** state) {
    (void)state;
    static dp_rec ref, run;
    kd_mbs_stats st;
    dp_run(KD_MBS_AUGMENTED, KD_MBS_STAB_PROJECTION, KD_MBS_RK4, &ref, &st);
    const double scale = (M1 + M2) * GRAV * L1;
    const struct {
        kd_mbs_formulation f;
        kd_mbs_stabilization s;
    } forms[] = {{KD_MBS_AUGMENTED, KD_MBS_STAB_BAUMGARTE},
                 {KD_MBS_UDWADIA_KALABA, KD_MBS_STAB_PROJECTION},
                 {KD_MBS_MAGGI, KD_MBS_STAB_NONE}};
    for (int k = 0; k < 3; k++) {
        dp_run(forms[k].f, forms[k].s, KD_MBS_CVODE, &run, &st);
        double err = 0;
        for (int i = 0; i < NOUT; i++)
            for (int c = 0; c < 4; c++) err = fmax(err, fabs(run.q[i][c] - ref.q[i][c]));
        printf("double pendulum %-14s cvode-bdf newton: %ld steps, %ld jacobians; |q - q_rk4| %.2e m, "
               "|T - T0 - W| / ((m1 + m2) g L1) %.2e\n",
               kd_mbs_formulation_name(forms[k].f), st.steps, st.jacobians, err, run.energy_err / scale);
        assert_true(st.jacobians > 0);
        assert_true(err < 3e-7);
        assert_true(run.energy_err / scale < 5e-8);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_solve),
        cmocka_unit_test(test_double_pendulum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
