/* The fixed-step integrators' step for tridiagonal systems without C (src/numerics/step_alpha.c,
 * tri_step: the residual, both substitutions and the Newmark update fused, in pairs) against the
 * general banded step of the same system stored with bandwidth 2 (the extra diagonals zero:
 * kd_gband_residual3 by diagonals, LAPACK's band Cholesky, the substitutions with their inner
 * loops, alpha_update), which forms every nonzero term by the same operations in the same
 * order: the states of every step must be equal (==, so +0 and -0 alike), for Newmark, HHT and
 * generalized-alpha, odd and even n. Then the physics: the free vibration of the lowest mode of
 * a fixed-free chain of springs and masses (lumped, so the modes are known in closed form:
 * omega_k = 2 sqrt(k/m) sin((2 j - 1) pi / (2 (2 n + 1)))) follows cos(omega t) to the
 * trapezoidal rule's phase error. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/integrate.h"

typedef struct chain {
    int n;
    kd_gband K;  /* the stiffness to copy, in the system's band */
    double amp, w;
} chain;

/* A(i, j) of a band (kl = ku) */
static double* at(kd_gband* a, int i, int j) { return &a->ab[(size_t)(a->ku + i - j) + (size_t)j * (a->kl + a->ku + 1)]; }

static int chain_matrices(void* ctx, double t, kd_gband* C, kd_gband* K, int* changed) {
    (void)t;
    chain* c = ctx;
    memset(C->ab, 0, sizeof(double) * (size_t)(C->kl + C->ku + 1) * (size_t)C->n);
    memcpy(K->ab, c->K.ab, sizeof(double) * (size_t)(K->kl + K->ku + 1) * (size_t)K->n);
    *changed = 0;
    return 0;
}

static int chain_force(void* ctx, double t, double* f) {
    chain* c = ctx;
    memset(f, 0, sizeof(double) * (size_t)c->n);
    f[c->n - 1] = c->amp * sin(c->w * t);
    return 0;
}

typedef struct record {
    int n, steps;
    double* x;  /* q, v, a of every output */
} record;

static int keep(void* ctx, double t, const double* q, const double* v, const double* a) {
    (void)t;
    record* r = ctx;
    double* p = r->x + (size_t)r->steps * 3 * (size_t)r->n;
    memcpy(p, q, sizeof(double) * (size_t)r->n);
    memcpy(p + r->n, v, sizeof(double) * (size_t)r->n);
    memcpy(p + 2 * r->n, a, sizeof(double) * (size_t)r->n);
    r->steps++;
    return 0;
}

/* fixed-free chain of n masses m (consistent mass of bar elements when lumped = 0) and springs k,
 * the stiffness of each spring varied by +-10 % so that no two rows are alike; bandwidth kb */
static void build(int n, int kb, int lumped, kd_gband* M, kd_gband* K) {
    assert_int_equal(kd_gband_init(M, n, kb, kb), KD_OK);
    assert_int_equal(kd_gband_init(K, n, kb, kb), KD_OK);
    const double m = 2.0, k = 4.2e6;
    for (int e = 0; e < n; e++) {  /* element e joins node e - 1 (fixed when e = 0) and e */
        const double ke = k * (1.0 + 0.1 * sin(1.0 + e)), me = m;
        const int i = e - 1, j = e;
        *at(K, j, j) += ke;
        *at(M, j, j) += lumped ? me : me / 3.0;
        if (i >= 0) {
            *at(K, i, i) += ke, *at(K, i, j) -= ke, *at(K, j, i) -= ke;
            if (!lumped) *at(M, i, i) += me / 3.0, *at(M, i, j) += me / 6.0, *at(M, j, i) += me / 6.0;
        }
    }
}

static void integrate(int n, int kb, kd_integrator method, double rho, int nsteps, double* x) {
    kd_gband M;
    chain c = {.n = n, .amp = 10.0, .w = 200.0};
    build(n, kb, 0, &M, &c.K);
    kd_ode2 sys = {.n = n, .kl = kb, .ku = kb, .M = &M, .ctx = &c, .matrices = chain_matrices, .force = chain_force};
    kd_integrate_opts o;
    kd_integrate_opts_default(&o);
    o.method = method, o.rho_inf = rho, o.t0 = 0.0, o.dt = 1e-5, o.t_end = nsteps * 1e-5;
    double* q0 = calloc(2 * (size_t)n, sizeof(double));
    assert_non_null(q0);
    q0[n - 1] = 1e-6, q0[n / 2] = -2e-7;  /* not at rest: the first steps have no zero terms */
    record r = {.n = n, .x = x};
    kd_error err;
    assert_int_equal(kd_integrate(&sys, &o, q0, q0 + n, keep, &r, NULL, &err), KD_OK);
    assert_int_equal(r.steps, nsteps + 1);
    free(q0);
    kd_gband_free(&M);
    kd_gband_free(&c.K);
}

static void test_same_as_band(void** state) {
    (void)state;
    const kd_integrator methods[3] = {KD_INT_NEWMARK, KD_INT_HHT, KD_INT_GENERALIZED_ALPHA};
    const int sizes[4] = {2, 3, 24, 25}, nsteps = 2000;
    for (int s = 0; s < 4; s++)
        for (int k = 0; k < 3; k++) {
            const int n = sizes[s];
            const size_t len = (size_t)(nsteps + 1) * 3 * (size_t)n;
            double* a = malloc(sizeof(double) * len);
            double* b = malloc(sizeof(double) * len);
            assert_non_null(a);
            assert_non_null(b);
            integrate(n, 1, methods[k], 0.6, nsteps, a);
            integrate(n, 2, methods[k], 0.6, nsteps, b);
            long differ = 0;
            double big = 0;
            for (size_t i = 0; i < len; i++) {
                differ += a[i] != b[i];
                big = fmax(big, fabs(a[i]));
            }
            if (differ) print_error("n = %d, method %d: %ld of %zu values differ\n", n, k, differ, len);
            assert_int_equal(differ, 0);
            assert_true(big > 0);
            free(a), free(b);
        }
}

static int free_force(void* ctx, double t, double* f) {
    (void)t;
    memset(f, 0, sizeof(double) * (size_t)((chain*)ctx)->n);
    return 0;
}

/* uniform lumped chain, started in its lowest mode: q(t) = phi cos(omega t), omega in closed form;
 * the trapezoidal rule (Newmark 1/4, 1/2) keeps the amplitude and lags the phase by
 * (omega dt)^2 omega t / 12 */
static void test_lowest_mode(void** state) {
    (void)state;
    const int n = 25, nsteps = 4000;
    const double m = 2.0, k = 4.2e6, dt = 1e-5;
    kd_gband M;
    chain c = {.n = n};
    assert_int_equal(kd_gband_init(&M, n, 1, 1), KD_OK);
    assert_int_equal(kd_gband_init(&c.K, n, 1, 1), KD_OK);
    for (int e = 0; e < n; e++) {
        *at(&c.K, e, e) += k, *at(&M, e, e) = m;
        if (e > 0) *at(&c.K, e - 1, e - 1) += k, *at(&c.K, e - 1, e) -= k, *at(&c.K, e, e - 1) -= k;
    }
    const double th = 3.14159265358979323846 / (2.0 * (2 * n + 1)), w = 2.0 * sqrt(k / m) * sin(th);
    double* q0 = calloc(2 * (size_t)n, sizeof(double));
    assert_non_null(q0);
    for (int i = 0; i < n; i++) q0[i] = 1e-3 * sin((2.0 * (i + 1)) * th);  /* phi_i = sin(2 i th) */
    kd_ode2 sys = {.n = n, .kl = 1, .ku = 1, .M = &M, .ctx = &c, .matrices = chain_matrices, .force = free_force};
    kd_integrate_opts o;
    kd_integrate_opts_default(&o);
    o.method = KD_INT_NEWMARK, o.t0 = 0.0, o.dt = dt, o.t_end = nsteps * dt;
    double* x = malloc(sizeof(double) * (size_t)(nsteps + 1) * 3 * n);
    assert_non_null(x);
    record r = {.n = n, .x = x};
    kd_error err;
    assert_int_equal(kd_integrate(&sys, &o, q0, q0 + n, keep, &r, NULL, &err), KD_OK);
    double worst = 0;
    for (int s = 0; s <= nsteps; s++) {
        const double t = s * dt, lag = w * dt * w * dt * w * t / 12.0;
        for (int i = 0; i < n; i++) worst = fmax(worst, fabs(x[(size_t)s * 3 * n + i] - q0[i] * cos(w * t - lag)));
    }
    print_message("tri_step_test: lowest mode, omega = %.6f rad/s, worst |q - phi cos(omega t - lag)| = %.3e of 1e-3\n", w, worst);
    assert_true(worst < 1e-12);
    free(x), free(q0);
    kd_gband_free(&M);
    kd_gband_free(&c.K);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_band),
        cmocka_unit_test(test_lowest_mode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
