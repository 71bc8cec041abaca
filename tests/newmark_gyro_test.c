/* The sparse gyroscopic step (src/numerics/newmark_gyro_csc.c, kedyn/newmark_gyro.h) on the Q4
 * membrane plate of the thesis (0.2 x 0.16 m, t = 1 mm, steel, the edge x = 0 held) spinning about
 * its normal at 3 000 rad/s, Coriolis coupling of u and v, stiffening pre-stress on:
 *   - against the band step: the same Newmark / generalized-alpha recurrences written here on the
 *     moving system's band matrices (kd_system, src/fe/system.c: another assembly of M, C, K)
 *     with LAPACK's banded LU (dgbtrf / dgbtrs) instead of UMFPACK's sparse LU: the trajectories
 *     agree to round-off;
 *   - energy balance of the free system (f = 0, consistent a_0): the gyroscopic forces do no work,
 *     so the trapezoidal rule (b = 1/4, gamma = 1/2) keeps E = (v^T M v + q^T K q) / 2 to
 *     round-off over 2 000 steps, while the Coriolis coupling moves the motion far from the
 *     uncoupled one (it is not idle). */
#include <lapacke.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/kedyn.h"
#include "kedyn/modes_gyro_sparse.h"
#include "kedyn/modes_speed.h"
#include "kedyn/newmark_gyro.h"
#include "kedyn/system.h"
#include "model_text.h"

enum { NX = 12, NY = 10 };
static const double SPEED = 3000.0;

static kd_model* membrane(double speed) {
    char text[2048];
    snprintf(text, sizeof text,
             "kedyn: 1\n"
             "materials: {steel: {E: 210e9, rho: 7800, nu: 0.3}}\n"
             "bodies:\n"
             "  - name: plate\n"
             "    type: plate\n"
             "    theory: membrane\n"
             "    interpolation: q4\n"
             "    material: steel\n"
             "    thickness: 0.001\n"
             "    mesh: {rectangle: [0.2, 0.16], divisions: [%d, %d], origin: [0, -0.08, 0]}\n"
             "    node_sets:\n"
             "      root: {x: 0}\n"
             "supports:\n"
             "  - {body: plate, nodes: root, fix: [u, v]}\n"
             "motion:\n"
             "  - {body: plate, rotation: {axis: z, law: {speed: %g}}}\n",
             NX, NY, speed);
    return model_from_text(text);
}

typedef struct sparse_sys {
    kd_csc K, M, C;
    int coupled;
} sparse_sys;

static void sparse_matrices(const kd_model* m, sparse_sys* s) {
    kd_error err;
    int gyro;
    if (kd_system_stiffness_csc(m, 0.0, &s->K, &s->M, &gyro, &err)) fail_msg("%s", err.msg);
    if (kd_system_damping_csc(m, 0.0, &s->K, &s->C, &s->coupled, &err)) fail_msg("%s", err.msg);
    assert_int_equal(gyro, 1);
    assert_int_equal(s->coupled, 1);
}

static void sparse_free(sparse_sys* s) { kd_csc_free(&s->K), kd_csc_free(&s->M), kd_csc_free(&s->C); }

static double band_at(const kd_gband* a, int i, int j) {
    if (i - j > a->kl || j - i > a->ku) return 0.0;
    return a->ab[a->ku + i - j + (size_t)j * (a->kl + a->ku + 1)];
}

/* The generalized-alpha recurrences (newmark_gyro_csc.c's, written out) on band M, C, K with
 * LAPACK's banded LU of S: `steps` steps under the constant load f from (q, v, a). */
static void band_run(const kd_gband* M, const kd_gband* C, const kd_gband* K, double h, double b, double g, double am,
                     double af, const double* f, int steps, double* q, double* v, double* a) {
    const int n = M->n, kl = M->kl, ku = M->ku, ld = 2 * kl + ku + 1;
    double* S = calloc((size_t)ld * n, sizeof(double));
    int* piv = malloc(sizeof(int) * (size_t)n);
    double *qs = malloc(sizeof(double) * n), *vs = malloc(sizeof(double) * n), *r = malloc(sizeof(double) * n);
    for (int j = 0; j < n; j++)
        for (int i = j - ku < 0 ? 0 : j - ku; i <= j + kl && i < n; i++)
            S[kl + ku + i - j + (size_t)j * ld] = (1 - am) * band_at(M, i, j) + (1 - af) * g * h * band_at(C, i, j) +
                                                  (1 - af) * b * h * h * band_at(K, i, j);
    assert_int_equal(LAPACKE_dgbtrf(LAPACK_COL_MAJOR, n, n, kl, ku, S, ld, piv), 0);
    for (int s = 0; s < steps; s++) {
        for (int i = 0; i < n; i++) {
            qs[i] = q[i] + h * v[i] + h * h * (0.5 - b) * a[i];
            vs[i] = v[i] + h * (1 - g) * a[i];
        }
        for (int i = 0; i < n; i++) {
            double ri = f[i];
            for (int j = i - kl < 0 ? 0 : i - kl; j <= i + ku && j < n; j++)
                ri -= band_at(K, i, j) * ((1 - af) * qs[j] + af * q[j]) +
                      band_at(C, i, j) * ((1 - af) * vs[j] + af * v[j]) + am * band_at(M, i, j) * a[j];
            r[i] = ri;
        }
        assert_int_equal(LAPACKE_dgbtrs(LAPACK_COL_MAJOR, 'N', n, kl, ku, 1, S, ld, piv, r, n), 0);
        for (int i = 0; i < n; i++) {
            a[i] = r[i];
            q[i] = qs[i] + b * h * h * r[i];
            v[i] = vs[i] + g * h * r[i];
        }
    }
    free(S), free(piv), free(qs), free(vs), free(r);
}

static double max_abs(const double* x, int n) {
    double m = 0;
    for (int i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
    return m;
}

/* Newmark (b = 1/4, gamma = 1/2) and generalized-alpha (rho_inf = 0.8) against the band step. */
static void test_against_band_step(void** state) {
    (void)state;
    kd_model* m = membrane(SPEED);
    const int n = m->neq;
    sparse_sys sp;
    sparse_matrices(m, &sp);
    kd_system s;
    kd_error err;
    if (kd_system_init(&s, m, &err)) fail_msg("%s", err.msg);
    kd_gband C = {0}, K = {0};
    assert_int_equal(kd_gband_init(&C, n, s.kd, s.kd), KD_OK);
    assert_int_equal(kd_gband_init(&K, n, s.kd, s.kd), KD_OK);
    int changed;
    assert_int_equal(kd_system_matrices(&s, 0.0, &C, &K, &changed), 0);
    /* a load in the plane at the free corner and one along the free edge */
    double* f = calloc((size_t)n, sizeof(double));
    f[n - 2] = 50.0, f[n - 1] = -20.0, f[n / 2] = 30.0;
    const double rho = 0.8, params[2][2] = {{0.0, 0.0}, {(2 * rho - 1) / (rho + 1), rho / (rho + 1)}};
    const double h = 2e-6;
    for (int c = 0; c < 2; c++) {
        const double am = params[c][0], af = params[c][1];
        const double b = c ? 0.25 * (1 - am + af) * (1 - am + af) : 0.25, g = c ? 0.5 - am + af : 0.5;
        double* x = calloc(6 * (size_t)n, sizeof(double));
        double *q = x, *v = x + n, *a = x + 2 * n, *qb = x + 3 * n, *vb = x + 4 * n, *ab = x + 5 * n;
        kd_newmark_gcsc* w = NULL;
        assert_int_equal(kd_newmark_gcsc_init(&sp.K, &sp.M, &sp.C, h, b, g, am, af, &w), KD_OK);
        enum { STEPS = 300 };
        for (int k = 0; k < STEPS; k++) assert_int_equal(kd_newmark_gcsc_step(w, f, q, v, a), 0);
        band_run(&s.M, &C, &K, h, b, g, am, af, f, STEPS, qb, vb, ab);
        double dq = 0, dv = 0;
        for (int i = 0; i < n; i++) dq = fmax(dq, fabs(q[i] - qb[i])), dv = fmax(dv, fabs(v[i] - vb[i]));
        dq /= max_abs(qb, n), dv /= max_abs(vb, n);
        print_message("%s, %d steps: sparse LU vs band LU, max |dq| / max |q| = %.2e, |dv| / |v| = %.2e\n",
                      c ? "generalized-alpha" : "newmark", STEPS, dq, dv);
        assert_true(dq < 1e-10);
        assert_true(dv < 1e-10);
        kd_newmark_gcsc_free(&w);
        free(x);
    }
    free(f);
    kd_gband_free(&C), kd_gband_free(&K);
    kd_system_free(&s);
    sparse_free(&sp);
    kd_model_free(&m);
}

static double energy(const sparse_sys* s, const double* q, const double* v, double* tmp, int n) {
    double e = 0;
    kd_csc_matvec(&s->M, v, tmp);
    for (int i = 0; i < n; i++) e += 0.5 * v[i] * tmp[i];
    kd_csc_matvec(&s->K, q, tmp);
    for (int i = 0; i < n; i++) e += 0.5 * q[i] * tmp[i];
    return e;
}

/* The free system from a static deflection: the energy stays, and the Coriolis coupling changes
 * the motion (against the same run with C = 0). */
static void test_free_energy(void** state) {
    (void)state;
    kd_model* m = membrane(SPEED);
    const int n = m->neq;
    sparse_sys sp;
    sparse_matrices(m, &sp);
    double* x = calloc(9 * (size_t)n, sizeof(double));
    double *q = x, *v = x + n, *a = x + 2 * n, *q0 = x + 3 * n, *tmp = x + 4 * n, *f = x + 5 * n;
    double *qn = x + 6 * n, *vn = x + 7 * n, *an = x + 8 * n;
    /* q0 = K^-1 p (a load at the free edge), a0 = -M^-1 K q0 (v0 = 0) */
    q0[n - 2] = 100.0, q0[n - 1] = 40.0;
    assert_int_equal(kd_csc_solve_spd(&sp.K, 1, q0), KD_OK);
    kd_csc_matvec(&sp.K, q0, a);
    for (int i = 0; i < n; i++) a[i] = -a[i];
    assert_int_equal(kd_csc_solve_spd(&sp.M, 1, a), KD_OK);
    memcpy(q, q0, sizeof(double) * n);
    memcpy(qn, q0, sizeof(double) * n), memcpy(an, a, sizeof(double) * n);
    kd_newmark_gcsc *w = NULL, *wn = NULL;
    const double h = 2e-6;
    assert_int_equal(kd_newmark_gcsc_init(&sp.K, &sp.M, &sp.C, h, 0.25, 0.5, 0, 0, &w), KD_OK);
    assert_int_equal(kd_newmark_gcsc_init(&sp.K, &sp.M, NULL, h, 0.25, 0.5, 0, 0, &wn), KD_OK);
    const double e0 = energy(&sp, q, v, tmp, n);
    double drift = 0, power = 0, vmax = 0;
    enum { STEPS = 2000 };
    for (int k = 0; k < STEPS; k++) {
        assert_int_equal(kd_newmark_gcsc_step(w, f, q, v, a), 0);
        assert_int_equal(kd_newmark_gcsc_step(wn, f, qn, vn, an), 0);
        drift = fmax(drift, fabs(energy(&sp, q, v, tmp, n) - e0) / e0);
        /* v^T C v: the power of the Coriolis forces, against |v| |C v| */
        kd_csc_matvec_general(&sp.C, v, tmp);
        double p = 0, vv = 0, cc = 0;
        for (int i = 0; i < n; i++) p += v[i] * tmp[i], vv += v[i] * v[i], cc += tmp[i] * tmp[i];
        if (vv > 0) power = fmax(power, fabs(p) / sqrt(vv * cc));
        vmax = fmax(vmax, sqrt(vv));
    }
    double dq = 0;
    for (int i = 0; i < n; i++) dq = fmax(dq, fabs(q[i] - qn[i]));
    dq /= max_abs(q0, n);
    print_message("free gyroscopic plate, %d steps: energy drift %.2e, |v^T C v| / (|v| |C v|) <= %.2e, "
                  "coupled vs uncoupled motion %.2e of the initial deflection\n",
                  STEPS, drift, power, dq);
    assert_true(vmax > 0);
    assert_true(drift < 1e-10);
    assert_true(power < 1e-12);
    assert_true(dq > 1e-2);
    kd_newmark_gcsc_free(&w), kd_newmark_gcsc_free(&wn);
    free(x);
    sparse_free(&sp);
    kd_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_band_step),
        cmocka_unit_test(test_free_energy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
