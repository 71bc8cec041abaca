/* Frequency response functions from simulated hammer tests (src/signal/frf.c) against the
 * closed forms H(s) = (K + s C + s^2 M)^-1 of an SDOF and a 2-DOF system (non-proportional
 * damping). The responses to a sin^2 force pulse are integrated by a fine classical RK4 of
 * this file (200 steps per sample, the pulse's end on a step), not by kedyn's integrators:
 *   - one hit, rectangular windows: H1 = H(i w) to 1e-4 in the band the pulse excites;
 *   - an exponential window (to 1 % at the record's end) on the response and the force: the
 *     estimate is exactly the Laplace transform ratio H(sigma + i w), sigma the window's decay;
 *   - 16 hits of random strength with noise on the responses: H1 averages the noise out
 *     (unbiased), H2 is biased high where the response is weak, H1 = gamma^2 H2, and the
 *     coherence drops where the signal-to-noise ratio does;
 *   - dB and phase of a known complex value. */
#include <complex.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/signal.h"

#define PI 3.14159265358979323846

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static double urand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}
static double grand(void) { return sqrt(-2.0 * log(urand())) * cos(2.0 * PI * urand()); }

/* An n-DOF linear system M x'' + C x' + K x = e_0 F(t) (n <= 2), row-major matrices. */
typedef struct sys {
    int n;
    double M[4], C[4], K[4];
} sys;

/* A smooth hammer pulse F0 sin^2(pi t / tau) on [0, tau]: its spectrum falls as f^-3, so the
 * sampled pulse's aliases are below 1e-6 (a half-sine's, f^-2, would leave 2e-4 at 20 kHz). */
static double pulse(double t, double F0, double tau)
{
    double v = sin(PI * t / tau);
    return t >= 0.0 && t < tau ? F0 * v * v : 0.0;
}

/* state derivative: y = (x, v); M v' = e0 F - C v - K x, M diagonal here */
static void deriv(const sys* s, double t, const double* y, double F0, double tau, double* dy)
{
    int n = s->n;
    for (int i = 0; i < n; i++) {
        double r = i == 0 ? pulse(t, F0, tau) : 0.0;
        for (int j = 0; j < n; j++)
            r -= s->C[i * n + j] * y[n + j] + s->K[i * n + j] * y[j];
        dy[i] = y[n + i];
        dy[n + i] = r / s->M[i * n + i];
    }
}

/* Response x_i(t_j), t_j = j / fs, j < ns, to the pulse (RK4, `sub` steps per sample). */
static void simulate(const sys* s, double F0, double tau, double fs, long ns, int sub, double* force, double** x)
{
    int n = s->n;
    double y[4] = {0}, k1[4], k2[4], k3[4], k4[4], tmp[4];
    double h = 1.0 / (fs * sub);
    for (long j = 0; j < ns; j++) {
        double t = j / fs;
        force[j] = pulse(t, F0, tau);
        for (int i = 0; i < n; i++)
            x[i][j] = y[i];
        for (int q = 0; q < sub; q++) {
            double tq = t + q * h;
            deriv(s, tq, y, F0, tau, k1);
            for (int i = 0; i < 2 * n; i++)
                tmp[i] = y[i] + 0.5 * h * k1[i];
            deriv(s, tq + 0.5 * h, tmp, F0, tau, k2);
            for (int i = 0; i < 2 * n; i++)
                tmp[i] = y[i] + 0.5 * h * k2[i];
            deriv(s, tq + 0.5 * h, tmp, F0, tau, k3);
            for (int i = 0; i < 2 * n; i++)
                tmp[i] = y[i] + h * k3[i];
            deriv(s, tq + h, tmp, F0, tau, k4);
            for (int i = 0; i < 2 * n; i++)
                y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
}

/* Closed form H_i0(s) = [(K + s C + s^2 M)^-1]_(i, 0). */
static double complex h_exact(const sys* s, double complex p, int i)
{
    if (s->n == 1)
        return 1.0 / (s->K[0] + p * s->C[0] + p * p * s->M[0]);
    double complex a[4];
    for (int k = 0; k < 4; k++)
        a[k] = s->K[k] + p * s->C[k] + p * p * s->M[k];
    double complex det = a[0] * a[3] - a[1] * a[2];
    return i == 0 ? a[3] / det : -a[2] / det;
}

static sys sdof(void)
{
    double m = 1.5, fn = 25.0, zeta = 0.02, k = m * pow(2.0 * PI * fn, 2);
    sys s = {1, {m}, {2.0 * zeta * sqrt(k * m)}, {k}};
    return s;
}

static sys two_dof(void)
{
    /* masses 2 and 1 kg, springs 1e5 and 6e4 N/m, dampers 20 (ground) and 8 (between) N s/m:
     * modes near 26 and 51 Hz, damping not proportional */
    double m1 = 2.0, m2 = 1.0, k1 = 1e5, k2 = 6e4, c1 = 20.0, c2 = 8.0;
    sys s = {2, {m1, 0, 0, m2}, {c1 + c2, -c2, -c2, c2}, {k1 + k2, -k2, -k2, k2}};
    return s;
}

/* max over lines in [f1, f2] of |H1 - H(sigma + i w)| / |H| */
static double frf_error(const kd_frf* r, const sys* s, int out, double sigma, double f1, double f2, const double* h)
{
    double e = 0.0;
    for (int k = 0; k < r->nf; k++) {
        if (r->f[k] < f1 || r->f[k] > f2)
            continue;
        double complex he = h_exact(s, sigma + I * 2.0 * PI * r->f[k], out);
        double complex hm = h[2 * ((size_t)out * r->nf + k)] + I * h[2 * ((size_t)out * r->nf + k) + 1];
        double d = cabs(hm - he) / cabs(he);
        if (d > e)
            e = d;
    }
    return e;
}

static void hammer_against_closed_form(void** state)
{
    (void)state;
    double fs = 20000.0, tau = 0.004;
    long n = 8 * 20000;
    sys systems[2] = {sdof(), two_dof()};
    for (int si = 0; si < 2; si++) {
        const sys* s = &systems[si];
        double* force = malloc(sizeof(double) * (size_t)n);
        double* x[2] = {malloc(sizeof(double) * (size_t)n), malloc(sizeof(double) * (size_t)n)};
        simulate(s, 100.0, tau, fs, n, 10, force, x);
        const double* fp[1] = {force};
        const double* xp[2] = {x[0], x[1]};
        /* rectangular windows: the responses have decayed to exp(-25) by the record's end */
        kd_frf_opts o = {0, 0.0, {KD_WINDOW_RECT, 0}, {KD_WINDOW_RECT, 0}, KD_DETREND_NONE};
        kd_frf r;
        assert_int_equal(kd_frf_estimate(fp, xp, 1, s->n, n, fs, &o, &r, NULL), KD_OK);
        assert_int_equal(r.nf, (int)(n / 2 + 1));
        assert_true(fabs(r.df - 0.125) < 1e-15);
        assert_true(r.sigma == 0.0);
        for (int out = 0; out < s->n; out++) {
            double e = frf_error(&r, s, out, 0.0, 2.0, 200.0, r.h1);
            assert_true(e < 1e-5);
            /* one hit: the coherence is 1 */
            for (int k = 1; k < 1600; k++)
                assert_true(fabs(r.coherence[(size_t)out * r.nf + k] - 1.0) < 1e-9);
        }
        kd_frf_free(&r);
        /* exponential window to 1 % on the response (and with it the force): H(sigma + i w) */
        o.output_window = (kd_window){KD_WINDOW_EXPONENTIAL, 0.01};
        o.input_window = (kd_window){KD_WINDOW_FORCE, 0.01};
        assert_int_equal(kd_frf_estimate(fp, xp, 1, s->n, n, fs, &o, &r, NULL), KD_OK);
        double sigma = log(100.0) * fs / (n - 1);
        assert_true(fabs(r.sigma - sigma) < 1e-12);
        for (int out = 0; out < s->n; out++) {
            assert_true(frf_error(&r, s, out, sigma, 2.0, 200.0, r.h1) < 1e-5);
            /* and not the undamped-window one: at resonance the difference is large */
            assert_true(frf_error(&r, s, out, 0.0, 2.0, 200.0, r.h1) > 0.05);
        }
        kd_frf_free(&r);
        free(force);
        free(x[0]);
        free(x[1]);
    }
}

static void averaged_hits_with_noise(void** state)
{
    (void)state;
    sys s = two_dof();
    double fs = 2000.0, tau = 0.004;
    long n = 4096; /* 2 s: decayed to exp(-7) at least; exponential window to 1 % */
    int nh = 16;
    double** force = malloc(sizeof(double*) * (size_t)nh);
    double** resp = malloc(sizeof(double*) * 2 * (size_t)nh);
    double peak = 0.0;
    for (int h = 0; h < nh; h++) {
        force[h] = malloc(sizeof(double) * (size_t)n);
        resp[2 * h] = malloc(sizeof(double) * (size_t)n);
        resp[2 * h + 1] = malloc(sizeof(double) * (size_t)n);
        double* xx[2] = {resp[2 * h], resp[2 * h + 1]};
        simulate(&s, 50.0 + 100.0 * urand(), tau, fs, n, 100, force[h], xx);
        for (long j = 0; j < n; j++)
            if (fabs(xx[0][j]) > peak)
                peak = fabs(xx[0][j]);
    }
    /* white noise of 0.5 % of the largest displacement on every response sample */
    for (int h = 0; h < 2 * nh; h++)
        for (long j = 0; j < n; j++)
            resp[h][j] += 0.005 * peak * grand();
    kd_frf_opts o = {0, 0.0, {KD_WINDOW_FORCE, 0.05}, {KD_WINDOW_EXPONENTIAL, 0.01}, KD_DETREND_NONE};
    kd_frf r;
    assert_int_equal(kd_frf_estimate((const double* const*)force, (const double* const*)resp, nh, 2, n, fs, &o, &r,
                                     NULL),
                     KD_OK);
    assert_int_equal(r.navg, nh);
    for (int out = 0; out < 2; out++) {
        double hi_snr = 0.0, lo_coh = 0.0, h2_bias = 0.0, h1_bias = 0.0, hmax = 0.0;
        int nlo = 0;
        for (int k = 1; k < r.nf; k++)
            if (cabs(h_exact(&s, r.sigma + I * 2.0 * PI * r.f[k], out)) > hmax)
                hmax = cabs(h_exact(&s, r.sigma + I * 2.0 * PI * r.f[k], out));
        for (int k = 1; k < r.nf; k++) {
            size_t i = (size_t)out * r.nf + k;
            double complex h1 = r.h1[2 * i] + I * r.h1[2 * i + 1], h2 = r.h2[2 * i] + I * r.h2[2 * i + 1];
            double complex he = h_exact(&s, r.sigma + I * 2.0 * PI * r.f[k], out);
            /* H1 / H2 = gamma^2 (real) */
            assert_true(cabs(h1 - r.coherence[i] * h2) <= 1e-9 * cabs(h1));
            if (cabs(he) > 0.3 * hmax) {
                /* around the two modes the signal dominates */
                double e = cabs(h1 - he) / cabs(he);
                if (e > hi_snr)
                    hi_snr = e;
                assert_true(r.coherence[i] > 0.99);
            }
            if (r.f[k] > 150.0 && r.f[k] < 300.0) {
                /* above the modes the response falls to the noise's level */
                lo_coh += r.coherence[i];
                h2_bias += cabs(h2) / cabs(he);
                h1_bias += cabs(h1) / cabs(he);
                nlo++;
            }
        }
        lo_coh /= nlo;
        h2_bias /= nlo;
        h1_bias /= nlo;
        assert_true(hi_snr < 0.02);
        assert_true(lo_coh < 0.8);
        assert_true(h2_bias > 1.5);              /* H2 = H / gamma^2: biased by the noise */
        /* H1: unbiased by noise on the output (the driving point, where gamma^2 is about 0.5 in
         * this band; the transfer point's response is far below the noise there) */
        if (out == 0)
            assert_true(fabs(h1_bias - 1.0) < 0.1);
    }
    kd_frf_free(&r);
    for (int h = 0; h < nh; h++) {
        free(force[h]);
        free(resp[2 * h]);
        free(resp[2 * h + 1]);
    }
    free(force);
    free(resp);
}

static void db_and_phase(void** state)
{
    (void)state;
    double h[6] = {10.0, 0.0, 0.0, -0.1, -1.0, 0.0};
    double db[3], ph[3];
    kd_frf_db_phase(h, 3, db, ph);
    assert_true(fabs(db[0] - 20.0) < 1e-12 && fabs(db[1] + 20.0) < 1e-12 && fabs(db[2]) < 1e-12);
    assert_true(fabs(ph[0]) < 1e-12 && fabs(ph[1] + 90.0) < 1e-12 && fabs(ph[2] - 180.0) < 1e-12);
    kd_error err;
    kd_frf r;
    const double* f[1] = {h};
    assert_int_equal(kd_frf_estimate(f, f, 1, 1, 6, 100.0, &(kd_frf_opts){8, 0, {0, 0}, {0, 0}, 0}, &r, &err),
                     KD_ERR_USAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hammer_against_closed_form),
        cmocka_unit_test(averaged_hits_with_noise),
        cmocka_unit_test(db_and_phase),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
