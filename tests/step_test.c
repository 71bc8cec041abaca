/* Time integrators (src/numerics/step_alpha.c, step_sundials.c) against
 * closed-form solutions:
 *   - a damped oscillator m x'' + c x' + k x = F sin(w t) from rest (exact
 *     transient + steady state);
 *   - a gyroscopic pair (a whirling rotor) x'' - 2 W y' + (k - W^2) x = 0,
 *     y'' + 2 W x' + (k - W^2) y = 0 whose solution is a sum of circular
 *     whirls at sqrt(k) -+ W;
 *   - second-order convergence of the fixed-step family;
 *   - exact energy conservation of Newmark's average acceleration rule;
 *   - factorisation reuse, failures and option checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/integrate.h"
#include "test_util.h"

/* A small linear system with constant (or failing) matrices, dense
 * entries in a full band. */
typedef struct lin {
    int n;
    double M[4], C[4], K[4];      /* row-major n x n, n <= 2 */
    double F, w;                  /* force F sin(w t) on DOF 0 */
    double fail_at;               /* matrices fail from this time on (0 = never) */
    kd_gband Mb;
    double *t, *x;                /* recorded outputs */
    int nrec, cap;
} lin;

static void to_band(kd_gband* B, const double* A, int n) {
    const int ld = B->kl + B->ku + 1;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            if (i - j <= B->kl && j - i <= B->ku) B->ab[B->ku + i - j + j * ld] = A[i * n + j];
}

static int lin_matrices(void* ctx, double t, kd_gband* C, kd_gband* K, int* changed) {
    lin* s = ctx;
    if (s->fail_at > 0 && t >= s->fail_at) return 1;
    to_band(C, s->C, s->n);
    to_band(K, s->K, s->n);
    *changed = 0;
    return 0;
}

static int lin_force(void* ctx, double t, double* f) {
    lin* s = ctx;
    memset(f, 0, sizeof(double) * (size_t)s->n);
    f[0] = s->F * sin(s->w * t);
    return 0;
}

static int record(void* ctx, double t, const double* q, const double* v, const double* a) {
    (void)v, (void)a;
    lin* s = ctx;
    if (s->nrec == s->cap) return 1;
    s->t[s->nrec] = t;
    memcpy(s->x + (size_t)s->nrec * s->n, q, sizeof(double) * (size_t)s->n);
    s->nrec++;
    return 0;
}

static kd_ode2 lin_ode(lin* s) {
    kd_gband_init(&s->Mb, s->n, s->n - 1, s->n - 1);
    to_band(&s->Mb, s->M, s->n);
    s->cap = 200000;
    s->t = malloc(sizeof(double) * (size_t)s->cap);
    s->x = malloc(sizeof(double) * (size_t)s->cap * (size_t)s->n);
    kd_ode2 o = {s->n, s->n - 1, s->n - 1, &s->Mb, s, lin_matrices, lin_force, NULL, NULL};
    return o;
}

static void lin_free(lin* s) {
    kd_gband_free(&s->Mb);
    free(s->t);
    free(s->x);
}

/* Exact response of m x'' + c x' + k x = F sin(w t), x(0) = x'(0) = 0. */
static double sdof_exact(double m, double c, double k, double F, double w, double t) {
    const double wn = sqrt(k / m), z = c / (2 * sqrt(k * m)), wd = wn * sqrt(1 - z * z);
    const double den = (k - m * w * w) * (k - m * w * w) + (c * w) * (c * w);
    const double A = F * (k - m * w * w) / den, B = -F * c * w / den;  /* xp = A sin + B cos */
    /* homogeneous e^{-z wn t}(C1 cos wd t + C2 sin wd t) with x(0) = 0, x'(0) = 0 */
    const double C1 = -B, C2 = (z * wn * C1 - A * w) / wd;
    return A * sin(w * t) + B * cos(w * t) + exp(-z * wn * t) * (C1 * cos(wd * t) + C2 * sin(wd * t));
}

static double sdof_max_error(kd_integrator method, double dt, double rtol) {
    lin s = {.n = 1, .M = {2.0}, .C = {0.8}, .K = {800.0}, .F = 5.0, .w = 13.0};
    kd_ode2 o = lin_ode(&s);
    kd_integrate_opts op;
    kd_integrate_opts_default(&op);
    op.method = method, op.t_end = 2.0, op.dt = dt, op.rtol = rtol, op.atol = 1e-12 * 5 / 800;
    if (method >= KD_INT_CVODE_BDF) op.dt = 0, op.dt_max = 0;
    kd_error err;
    const double zero = 0;
    if (kd_integrate(&o, &op, &zero, &zero, record, &s, NULL, &err)) fail_msg("%s", err.msg);
    double emax = 0, xmax = 0;
    for (int i = 0; i < s.nrec; i++) {
        const double ex = sdof_exact(2.0, 0.8, 800.0, 5.0, 13.0, s.t[i]);
        emax = fmax(emax, fabs(s.x[i] - ex));
        xmax = fmax(xmax, fabs(ex));
    }
    assert_true(fabs(s.t[s.nrec - 1] - 2.0) < 1e-12);  /* ends exactly at t_end */
    lin_free(&s);
    return emax / xmax;
}

static void test_second_order_convergence(void** state) {
    (void)state;
    const kd_integrator methods[3] = {KD_INT_NEWMARK, KD_INT_HHT, KD_INT_GENERALIZED_ALPHA};
    const char* names[3] = {"newmark", "hht", "generalized-alpha"};
    for (int m = 0; m < 3; m++) {
        const double e1 = sdof_max_error(methods[m], 2e-3, 0), e2 = sdof_max_error(methods[m], 1e-3, 0);
        const double order = log2(e1 / e2);
        print_message("%s: error %.3e (dt 2e-3), %.3e (dt 1e-3), order %.3f\n", names[m], e1, e2, order);
        assert_true(e2 < 5e-3);
        assert_true(order > 1.9 && order < 2.1);
    }
}

static void test_adaptive_methods(void** state) {
    (void)state;
    const kd_integrator methods[3] = {KD_INT_CVODE_BDF, KD_INT_CVODE_ADAMS, KD_INT_ARKODE_RK};
    const char* names[3] = {"cvode-bdf", "cvode-adams", "arkode-rk"};
    for (int m = 0; m < 3; m++) {
        const double e = sdof_max_error(methods[m], 0, 1e-9);
        print_message("%s rtol 1e-9: max relative error %.3e\n", names[m], e);
        assert_true(e < 1e-6);
    }
}

/* A rotor whirling at W: z = x + i y obeys z'' + 2 i W z' + (k - W^2) z = 0,
 * z = A e^{i(sqrt(k) - W) t} + B e^{-i(sqrt(k) + W) t}. From z(0) = 1,
 * z'(0) = 0: A + B = 1, (sqrt(k) - W) A = (sqrt(k) + W) B. */
static void test_gyroscopic_pair(void** state) {
    (void)state;
    const double k = 400.0, W = 7.0, r = sqrt(k);
    const kd_integrator methods[2] = {KD_INT_GENERALIZED_ALPHA, KD_INT_CVODE_BDF};
    for (int m = 0; m < 2; m++) {
        lin s = {.n = 2, .M = {1, 0, 0, 1}, .C = {0, -2 * W, 2 * W, 0}, .K = {k - W * W, 0, 0, k - W * W}};
        kd_ode2 o = lin_ode(&s);
        kd_integrate_opts op;
        kd_integrate_opts_default(&op);
        op.method = methods[m], op.t_end = 1.0, op.dt = 1e-4, op.rho_inf = 1.0, op.rtol = 1e-10, op.atol = 1e-12;
        const double q0[2] = {1, 0}, v0[2] = {0, 0};
        kd_error err;
        kd_integrate_stats stats;
        if (kd_integrate(&o, &op, q0, v0, record, &s, &stats, &err)) fail_msg("%s", err.msg);
        const double B = (r - W) / (2 * r), A = 1 - B;
        double emax = 0;
        for (int i = 0; i < s.nrec; i++) {
            const double t = s.t[i];
            const double x = A * cos((r - W) * t) + B * cos((r + W) * t), y = A * sin((r - W) * t) - B * sin((r + W) * t);
            emax = fmax(emax, hypot(s.x[2 * i] - x, s.x[2 * i + 1] - y));
        }
        print_message("gyroscopic pair, %s: max error %.3e\n", m ? "cvode-bdf" : "generalized-alpha", emax);
        assert_true(emax < (m ? 1e-6 : 1e-4));
        if (m == 0) assert_int_equal(stats.factorizations, 1);  /* constant matrices: one factorisation */
        lin_free(&s);
    }
}

/* Average acceleration conserves the energy of an undamped linear system
 * exactly: 1/2 v^T M v + 1/2 q^T K q after 1000 steps. */
typedef struct energy_rec {
    double e0, e1;
    int count;
} energy_rec;

static int energy_out(void* ctx, double t, const double* q, const double* v, const double* a) {
    (void)t, (void)a;
    energy_rec* e = ctx;
    /* M = [[2, 0.5], [0.5, 1]], K = [[300, -100], [-100, 200]] */
    const double T = 0.5 * (2 * v[0] * v[0] + v[0] * v[1] + v[1] * v[1]);
    const double V = 0.5 * (300 * q[0] * q[0] - 200 * q[0] * q[1] + 200 * q[1] * q[1]);
    if (e->count++ == 0) e->e0 = T + V;
    e->e1 = T + V;
    return 0;
}

static void test_energy_conservation(void** state) {
    (void)state;
    lin s = {.n = 2, .M = {2, 0.5, 0.5, 1}, .C = {0}, .K = {300, -100, -100, 200}};
    kd_ode2 o = lin_ode(&s);
    kd_integrate_opts op;
    kd_integrate_opts_default(&op);
    op.t_end = 1.0, op.dt = 1e-3;
    const double q0[2] = {0.01, -0.02}, v0[2] = {0.3, 0.1};
    energy_rec e = {0};
    kd_error err;
    assert_int_equal(kd_integrate(&o, &op, q0, v0, energy_out, &e, NULL, &err), KD_OK);
    print_message("newmark energy drift over 1000 steps: %.3e\n", fabs(e.e1 - e.e0) / e.e0);
    assert_true(fabs(e.e1 - e.e0) < 1e-12 * e.e0);
    lin_free(&s);
}

static void test_failures(void** state) {
    (void)state;
    lin s = {.n = 1, .M = {1}, .C = {0}, .K = {100}, .fail_at = 0.5};
    kd_ode2 o = lin_ode(&s);
    kd_integrate_opts op;
    kd_integrate_opts_default(&op);
    op.t_end = 1.0, op.dt = 0.01;
    const double one = 1, zero = 0;
    kd_error err;
    kd_integrate_stats stats;
    assert_int_equal(kd_integrate(&o, &op, &one, &zero, record, &s, &stats, &err), KD_ERR_NUMERIC);
    assert_non_null(strstr(err.msg, "t = 0.5"));
    assert_true(stats.t_reached < 0.5 && stats.t_reached > 0.48);
    assert_true(s.nrec >= 49);  /* every state before the failure was delivered */
    s.fail_at = 0;
    op.dt = 0;
    assert_int_equal(kd_integrate(&o, &op, &one, &zero, NULL, NULL, NULL, &err), KD_ERR_USAGE);
    op.dt = 0.01, op.t_end = -1;
    assert_int_equal(kd_integrate(&o, &op, &one, &zero, NULL, NULL, NULL, &err), KD_ERR_USAGE);
    lin_free(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_order_convergence),
        cmocka_unit_test(test_adaptive_methods),
        cmocka_unit_test(test_gyroscopic_pair),
        cmocka_unit_test(test_energy_conservation),
        cmocka_unit_test(test_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
