/* Spectra of synthetic signals (src/signal/windows.c, fft.c, welch.c, spectrogram.c, order.c)
 * against closed forms (docs/theory.md, "Signal processing and modal identification"):
 *   - the FFT against the direct sum of the DFT definition;
 *   - window corrections against their closed forms (Hann coherent gain 1/2, ENBW 1.5 lines);
 *   - sines: frequency to half a line from the largest line, to 1e-3 line with interpolation,
 *     amplitude with the window's correction (Hann, rectangular, flat-top without interpolation);
 *   - damped sines: the peak at the damped frequency, the half-power width 2 sigma, and the
 *     exponential window's damping correction;
 *   - Parseval: the integral of the PSD equals the mean square (exactly for one rectangular
 *     segment; statistically for white noise, whose PSD is 2 var / fs);
 *   - spectrogram: the block peak follows a stepped frequency and the block's mean speed;
 *   - order tracking: orders 3 and 7 of a shaft accelerating from 100 to 160 rpm land on their
 *     order lines with their amplitudes, which a plain spectrum smears. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/signal.h"

#define PI 3.14159265358979323846

/* Reproducible Gaussian noise: xorshift64 and Box-Muller. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double urand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}
static double grand(void) { return sqrt(-2.0 * log(urand())) * cos(2.0 * PI * urand()); }

static int argmax(const double* a, int lo, int hi)
{
    int k = lo;
    for (int i = lo; i <= hi; i++)
        if (a[i] > a[k])
            k = i;
    return k;
}

static void fft_matches_dft(void** state)
{
    (void)state;
    int ns[3] = {16, 27, 100};
    for (int t = 0; t < 3; t++) {
        int n = ns[t];
        double* x = malloc(sizeof(double) * (size_t)n);
        double* X = malloc(sizeof(double) * 2 * (size_t)(n / 2 + 1));
        for (int j = 0; j < n; j++)
            x[j] = grand();
        kd_fft* f = NULL;
        assert_int_equal(kd_fft_new(&f, n), KD_OK);
        assert_int_equal(kd_fft_size(f), n);
        kd_fft_forward(f, x, X);
        for (int k = 0; k <= n / 2; k++) {
            double re = 0.0, im = 0.0;
            for (int j = 0; j < n; j++) {
                re += x[j] * cos(2.0 * PI * j * k / n);
                im -= x[j] * sin(2.0 * PI * j * k / n);
            }
            assert_true(fabs(X[2 * k] - re) < 1e-10 * n && fabs(X[2 * k + 1] - im) < 1e-10 * n);
        }
        kd_fft_free(&f);
        assert_null(f);
        free(x);
        free(X);
    }
}

/* Plans made and destroyed from several threads at once (the planner's mutex) give the same
 * transforms as one thread's. */
static void* fft_worker(void* arg)
{
    int* ok = arg;
    double x[60], X[62], Y[62];
    for (int j = 0; j < 60; j++)
        x[j] = sin(0.37 * j * j);
    for (int rep = 0; rep < 200; rep++) {
        kd_fft *a = NULL, *b = NULL;
        if (kd_fft_new(&a, 60) != KD_OK || kd_fft_new(&b, 60 + rep % 7) != KD_OK)
            *ok = 0;
        kd_fft_forward(a, x, X);
        kd_fft_free(&b);
        kd_fft_forward(a, x, Y);
        for (int k = 0; k < 62; k++)
            if (X[k] != Y[k])
                *ok = 0;
        double re = 0.0; /* line 5 against the DFT sum */
        for (int j = 0; j < 60; j++)
            re += x[j] * cos(2.0 * PI * 5 * j / 60);
        if (fabs(X[10] - re) > 1e-10)
            *ok = 0;
        kd_fft_free(&a);
    }
    return NULL;
}

static void fft_plans_from_threads(void** state)
{
    (void)state;
    pthread_t th[4];
    int ok[4] = {1, 1, 1, 1};
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&th[i], NULL, fft_worker, &ok[i]), 0);
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_true(ok[i]);
    }
}

static void window_corrections(void** state)
{
    (void)state;
    int n = 1024;
    double* w = malloc(sizeof(double) * (size_t)n);
    kd_window_corr c;
    /* Hann: coherent gain 1/2, power gain 3/8, ENBW 1.5 lines */
    assert_int_equal(kd_window_fill((kd_window){KD_WINDOW_HANN, 0}, n, w, NULL), KD_OK);
    kd_window_corrections(w, n, &c);
    assert_true(fabs(c.coherent_gain - 0.5) < 1e-12 && fabs(c.power_gain - 0.375) < 1e-12);
    assert_true(fabs(c.enbw_bins - 1.5) < 1e-12 && fabs(c.amplitude_factor - 2.0) < 1e-12);
    /* flat-top (5 terms, ISO 18431-1): coherent gain a0 / sum a = 1 / 4.6402, ENBW 3.77 lines */
    assert_int_equal(kd_window_fill((kd_window){KD_WINDOW_FLATTOP, 0}, n, w, NULL), KD_OK);
    kd_window_corrections(w, n, &c);
    assert_true(fabs(c.coherent_gain - 1.0 / 4.6402) < 1e-12);
    if (getenv("KD_TEST_VERBOSE"))
        printf("flat-top ENBW %.5f lines\n", c.enbw_bins);
    assert_true(fabs(c.enbw_bins - 3.77) < 0.01);
    /* exponential to 0.01 at the last sample: decay rate sigma = ln(100) fs / (n - 1) */
    kd_window e = {KD_WINDOW_EXPONENTIAL, 0.01};
    assert_int_equal(kd_window_fill(e, n, w, NULL), KD_OK);
    assert_true(fabs(w[n - 1] - 0.01) < 1e-14 && w[0] == 1.0);
    assert_true(fabs(kd_window_sigma(e, n, 1000.0) - log(100.0) * 1000.0 / (n - 1)) < 1e-12);
    assert_true(kd_window_sigma((kd_window){KD_WINDOW_HANN, 0}, n, 1000.0) == 0.0);
    /* zeta_true = zeta_measured - sigma / omega */
    assert_true(fabs(kd_window_damping_correction(0.03, 10.0, 2.0 * PI * 10.0 * 0.01) - 0.02) < 1e-15);
    /* names */
    kd_window_type t;
    assert_int_equal(kd_window_type_from_name("flattop", &t), KD_OK);
    assert_int_equal(t, KD_WINDOW_FLATTOP);
    assert_string_equal(kd_window_name(KD_WINDOW_EXPONENTIAL), "exponential");
    assert_int_equal(kd_window_type_from_name("hanning", &t), KD_ERR_USAGE);
    kd_error err;
    assert_int_equal(kd_window_fill((kd_window){KD_WINDOW_EXPONENTIAL, 2.0}, n, w, &err), KD_ERR_USAGE);
    free(w);
}

static void detrend_removes_lines(void** state)
{
    (void)state;
    /* a straight line vanishes; what remains of line + noise is orthogonal to 1 and k (the
     * normal equations of the least-squares line) */
    double x[101], y[101];
    for (int k = 0; k <= 100; k++) {
        x[k] = 3.0 - 0.25 * k;
        y[k] = x[k] + grand();
    }
    kd_detrend_apply(x, 101, KD_DETREND_LINEAR);
    kd_detrend_apply(y, 101, KD_DETREND_LINEAR);
    double s0 = 0.0, s1 = 0.0;
    for (int k = 0; k <= 100; k++) {
        assert_true(fabs(x[k]) < 1e-13);
        s0 += y[k];
        s1 += k * y[k];
    }
    assert_true(fabs(s0) < 1e-12 && fabs(s1) < 1e-10);
    double z[4] = {1, 2, 3, 6};
    kd_detrend_apply(z, 4, KD_DETREND_MEAN);
    assert_true(fabs(z[0] + 2.0) < 1e-15 && fabs(z[3] - 3.0) < 1e-15);
}

/* Welch amplitude spectrum of two sines between lines: largest line within df/2, interpolated
 * within 1e-3 df, amplitudes corrected. */
static void sine_frequency_amplitude(void** state)
{
    (void)state;
    double fs = 2048.0, f1 = 123.27, a1 = 2.5, f2 = 400.81, a2 = 0.7;
    long n = 1 << 16;
    double* x = malloc(sizeof(double) * (size_t)n);
    for (long j = 0; j < n; j++) {
        double t = j / fs;
        x[j] = a1 * sin(2.0 * PI * f1 * t + 0.3) + a2 * cos(2.0 * PI * f2 * t) + 0.1;
    }
    kd_window_type types[3] = {KD_WINDOW_HANN, KD_WINDOW_RECT, KD_WINDOW_FLATTOP};
    for (int t = 0; t < 3; t++) {
        kd_welch_opts o = {4096, 0.5, {types[t], 0}, KD_DETREND_MEAN};
        kd_welch* w = NULL;
        assert_int_equal(kd_welch_new(&w, &o, fs, NULL), KD_OK);
        int nf = kd_welch_lines(w);
        double df = kd_welch_df(w);
        assert_int_equal(nf, 2049);
        assert_true(fabs(df - 0.5) < 1e-15);
        assert_int_equal(kd_welch_segments(w, n), 31);
        double* amp = malloc(sizeof(double) * (size_t)nf);
        assert_int_equal(kd_welch_spectrum(w, x, n, NULL, amp, NULL), KD_OK);
        double fe[2] = {f1, f2}, ae[2] = {a1, a2};
        for (int s = 0; s < 2; s++) {
            int lo = (int)(fe[s] / df) - 20;
            int k = argmax(amp, lo, lo + 40);
            assert_true(fabs(k * df - fe[s]) <= 0.5 * df);
            double fp, ap;
            assert_int_equal(kd_spectrum_peak(amp, nf, df, k, o.window, &fp, &ap), KD_OK);
            /* measured: Hann 4e-11 / 5e-12, rectangular 1.1e-4 / 3.3e-5, flat-top 2.1e-5 / 3e-7
             * (frequency in lines / relative amplitude) */
            assert_true(fabs(fp - fe[s]) < 1e-3 * df);
            assert_true(fabs(ap - ae[s]) < 1e-3 * ae[s]);
            if (types[t] == KD_WINDOW_FLATTOP)
                assert_true(fabs(amp[k] - ae[s]) < 1e-3 * ae[s]); /* flat: no interpolation needed */
            else
                assert_true(amp[k] < 0.95 * ae[s]); /* the scalloping loss (> 5 % here) */
        }
        free(amp);
        kd_welch_free(&w);
        assert_null(w);
    }
    free(x);
}

/* Parseval: one rectangular segment without detrending: sum(psd) df = mean(x^2) exactly; white
 * noise of variance s^2 with Hann and overlap: PSD level 2 s^2 / fs and its integral s^2. */
static void psd_parseval(void** state)
{
    (void)state;
    double fs = 1000.0;
    int ns = 1000;
    double* x = malloc(sizeof(double) * (size_t)ns);
    double ms = 0.0;
    for (int j = 0; j < ns; j++) {
        x[j] = 0.3 + grand() + sin(2.0 * PI * 50.3 * j / fs);
        ms += x[j] * x[j] / ns;
    }
    kd_welch_opts o1 = {ns, 0.0, {KD_WINDOW_RECT, 0}, KD_DETREND_NONE};
    kd_welch* w = NULL;
    assert_int_equal(kd_welch_new(&w, &o1, fs, NULL), KD_OK);
    double* psd = malloc(sizeof(double) * (size_t)kd_welch_lines(w));
    assert_int_equal(kd_welch_spectrum(w, x, ns, psd, NULL, NULL), KD_OK);
    double integral = 0.0;
    for (int k = 0; k < kd_welch_lines(w); k++)
        integral += psd[k] * kd_welch_df(w);
    assert_true(fabs(integral - ms) < 1e-12 * ms);
    free(psd);
    kd_welch_free(&w);
    free(x);

    long n = 1 << 18;
    double sigma = 1.7, var = 0.0;
    x = malloc(sizeof(double) * (size_t)n);
    for (long j = 0; j < n; j++) {
        x[j] = sigma * grand();
        var += x[j] * x[j] / (double)n;
    }
    kd_welch_opts o = {1024, 0.5, {KD_WINDOW_HANN, 0}, KD_DETREND_MEAN};
    assert_int_equal(kd_welch_new(&w, &o, fs, NULL), KD_OK);
    int nf = kd_welch_lines(w);
    psd = malloc(sizeof(double) * (size_t)nf);
    assert_int_equal(kd_welch_spectrum(w, x, n, psd, NULL, NULL), KD_OK);
    integral = 0.0;
    double level = 0.0;
    for (int k = 0; k < nf; k++) {
        integral += psd[k] * kd_welch_df(w);
        if (k > 0 && k < nf - 1)
            level += psd[k] / (nf - 2);
    }
    /* 511 segments of 1024: relative standard error of the integral about 1/sqrt(2^18) */
    if (getenv("KD_TEST_VERBOSE"))
        printf("noise: integral %.3e rel, level %.3e rel\n", integral / var - 1.0, level / (2.0 * sigma * sigma / fs) - 1.0);
    assert_true(fabs(integral - var) < 0.01 * var);
    assert_true(fabs(level - 2.0 * sigma * sigma / fs) < 0.01 * 2.0 * sigma * sigma / fs);
    free(psd);
    kd_welch_free(&w);
    free(x);
}

/* x = A exp(-s t) sin(wd t) in one rectangular segment (zero-padded to a fine grid): the peak
 * at fd, half-power width 2 s, so zeta = s / wn from peak picking; with an exponential window
 * of decay rate sw the width is 2 (s + sw) and kd_window_damping_correction recovers s / wn. */
static void damped_sine_damping(void** state)
{
    (void)state;
    double fs = 1000.0, fn = 80.0, zeta = 0.002, wn = 2.0 * PI * fn;
    double sg = zeta * wn, wd = wn * sqrt(1.0 - zeta * zeta);
    int n = 1 << 16; /* 65.5 s, df = 0.015 Hz; the half-power band (0.32 Hz) spans 21 lines */
    int rec = 16000; /* the record: 16 s (decayed to exp(-16)); zeros after */
    double* x = calloc((size_t)n, sizeof(double));
    for (int j = 0; j < rec; j++)
        x[j] = 3.0 * exp(-sg * j / fs) * sin(wd * j / fs);
    for (int pass = 0; pass < 2; pass++) {
        double* y = malloc(sizeof(double) * (size_t)n);
        memcpy(y, x, sizeof(double) * (size_t)n);
        double sw = 0.0;
        if (pass == 1) {
            kd_window e = {KD_WINDOW_EXPONENTIAL, 0.001};
            double* wv = malloc(sizeof(double) * (size_t)rec);
            assert_int_equal(kd_window_fill(e, rec, wv, NULL), KD_OK);
            for (int j = 0; j < rec; j++)
                y[j] *= wv[j];
            sw = kd_window_sigma(e, rec, fs);
            free(wv);
        }
        kd_welch_opts o = {n, 0.0, {KD_WINDOW_RECT, 0}, KD_DETREND_NONE};
        kd_welch* w = NULL;
        assert_int_equal(kd_welch_new(&w, &o, fs, NULL), KD_OK);
        int nf = kd_welch_lines(w);
        double* amp = malloc(sizeof(double) * (size_t)nf);
        double* f = malloc(sizeof(double) * (size_t)nf);
        assert_int_equal(kd_welch_spectrum(w, y, n, NULL, amp, NULL), KD_OK);
        for (int k = 0; k < nf; k++)
            f[k] = k * kd_welch_df(w);
        kd_peak p[4];
        int np = 0;
        assert_int_equal(kd_peak_pick(f, amp, nf, 10.0, 400.0, 0.1, p, 4, &np, NULL), KD_OK);
        assert_int_equal(np, 1);
        /* X(w) = wd / ((s + iw)^2 + wd^2): an SDOF receptance of wn'^2 = s^2 + wd^2 and
         * zeta' wn' = s (+ sw with the window): peak at wn' sqrt(1 - 2 zeta'^2) ~ wd, half-power
         * zeta' (to O(zeta'^2)) */
        double st = sg + sw, wn2 = sqrt(st * st + wd * wd), fd = wd / (2.0 * PI);
        assert_true(fabs(p[0].f_hz - fd) < 0.1 * kd_welch_df(w));
        double zm = p[0].damping_ratio;
        double zc = kd_window_damping_correction(zm, p[0].f_hz, sw);
        if (getenv("KD_TEST_VERBOSE"))
            printf("damped sine pass %d: f %.2e lines, zeta_m %.3e rel, corrected %.3e rel\n", pass,
                   (p[0].f_hz - fd) / kd_welch_df(w), zm / (st / wn2) - 1.0, zc / zeta - 1.0);
        assert_true(fabs(zm - st / wn2) < 0.005 * st / wn2);
        assert_true(fabs(zc - zeta) < 0.005 * zeta);
        if (pass == 1)
            assert_true(zm > 1.3 * zeta); /* the window's own damping: sw = 0.43 1/s, s = 1.0 1/s */
        free(amp);
        free(f);
        free(y);
        kd_welch_free(&w);
    }
    free(x);
}

/* A sine whose frequency steps with the speed: each block's peak at 5 x speed (in rev/s). */
static void spectrogram_follows_speed(void** state)
{
    (void)state;
    double fs = 1024.0;
    long n = 8 * 1024;
    double* x = malloc(sizeof(double) * (size_t)n);
    double* rpm = malloc(sizeof(double) * (size_t)n);
    double ph = 0.0;
    for (long j = 0; j < n; j++) {
        rpm[j] = 600.0 + 600.0 * (double)(j / 1024); /* 600, 1200, ... rpm for 1 s each */
        double f = 5.0 * rpm[j] / 60.0;
        x[j] = sin(ph);
        ph += 2.0 * PI * f / fs;
    }
    kd_welch_opts o = {1024, 0.0, {KD_WINDOW_HANN, 0}, KD_DETREND_NONE};
    kd_spectrogram s;
    assert_int_equal(kd_spectrogram_compute(x, rpm, n, fs, &o, &s, NULL), KD_OK);
    assert_int_equal(s.nblocks, 8);
    assert_int_equal(s.nf, 513);
    for (int b = 0; b < s.nblocks; b++) {
        double rev_s = s.speed[b] / 60.0;
        assert_true(fabs(s.speed[b] - 600.0 * (b + 1)) < 1e-9);
        assert_true(fabs(s.t[b] - (b * 1024 + 511.5) / fs) < 1e-12);
        int k = argmax(s.amplitude + (size_t)b * s.nf, 1, s.nf - 2);
        assert_true(fabs(k * s.df - 5.0 * rev_s) <= 0.5 * s.df);
        assert_true(fabs(s.amplitude[(size_t)b * s.nf + k] - 1.0) < 0.01);
    }
    kd_spectrogram_free(&s);
    assert_null(s.amplitude);
    kd_error err;
    assert_int_equal(kd_spectrogram_compute(x, NULL, 100, fs, &o, &s, &err), KD_ERR_USAGE);
    free(x);
    free(rpm);
}

/* Orders 3 and 7 of a shaft accelerating linearly from 100 to 160 rpm over 60 s: the order
 * spectrum has them on their lines with amplitudes 1 and 0.5; a plain Welch spectrum of the
 * same record spreads order 3 over 5-8 Hz. */
static void order_tracking_run_up(void** state)
{
    (void)state;
    double fs = 500.0, T = 60.0;
    long n = (long)(T * fs) + 1;
    double* x = malloc(sizeof(double) * (size_t)n);
    double* rpm = malloc(sizeof(double) * (size_t)n);
    double* th = malloc(sizeof(double) * (size_t)n);
    for (long j = 0; j < n; j++) {
        double t = j / fs;
        rpm[j] = 100.0 + 60.0 * t / T;
        double theta = 2.0 * PI * (100.0 * t + 30.0 * t * t / T) / 60.0; /* integral of rpm / 60 */
        x[j] = cos(3.0 * theta) + 0.5 * sin(7.0 * theta + 1.0);
    }
    kd_angle_from_speed(rpm, n, fs, 1.0 / 60.0, th);
    /* the trapezoidal angle of a linear speed is exact */
    assert_true(fabs(th[n - 1] - 2.0 * PI * (100.0 * T + 30.0 * T) / 60.0) < 1e-9);
    kd_order_opts o = {64, 16, 0.5, {KD_WINDOW_HANN, 0}, KD_DETREND_MEAN};
    kd_order_spectrum os;
    assert_int_equal(kd_order_track(x, th, n, fs, &o, &os, NULL), KD_OK);
    assert_true(fabs(os.dorder - 1.0 / 16.0) < 1e-15);
    assert_int_equal(os.nf, 513);
    assert_true(os.nseg >= 15);
    int k3 = 3 * 16, k7 = 7 * 16;
    assert_true(fabs(os.order[k3] - 3.0) < 1e-12);
    if (getenv("KD_TEST_VERBOSE"))
        printf("order 3: %.3e, order 7: %.3e\n", os.amplitude[k3] - 1.0, os.amplitude[k7] - 0.5);
    /* measured 8e-7 and 1.2e-5 (the cubic interpolation at 27 samples per period of order 7) */
    assert_true(fabs(os.amplitude[k3] - 1.0) < 1e-5);
    assert_true(fabs(os.amplitude[k7] - 0.5) < 5e-5);
    assert_int_equal(argmax(os.amplitude, 1, os.nf - 2), k3);
    /* the plain spectrum of the same record: order 3 smeared (peak amplitude < 0.5) */
    kd_welch_opts wo = {8192, 0.5, {KD_WINDOW_HANN, 0}, KD_DETREND_MEAN};
    kd_welch* w = NULL;
    assert_int_equal(kd_welch_new(&w, &wo, fs, NULL), KD_OK);
    double* amp = malloc(sizeof(double) * (size_t)kd_welch_lines(w));
    assert_int_equal(kd_welch_spectrum(w, x, n, NULL, amp, NULL), KD_OK);
    int kp = argmax(amp, 1, kd_welch_lines(w) - 2);
    if (getenv("KD_TEST_VERBOSE"))
        printf("plain spectrum peak %.3f at %.2f Hz\n", amp[kp], kp * kd_welch_df(w));
    assert_true(amp[kp] < 0.5);
    free(amp);
    kd_welch_free(&w);
    kd_order_spectrum_free(&os);
    assert_null(os.amplitude);
    /* a decreasing angle is refused, the result left empty */
    th[10] = th[9];
    kd_error err;
    assert_int_equal(kd_order_track(x, th, n, fs, &o, &os, &err), KD_ERR_USAGE);
    assert_null(os.amplitude);
    free(x);
    free(rpm);
    free(th);
}

static void welch_bad_input(void** state)
{
    (void)state;
    kd_error err;
    kd_welch* w = NULL;
    kd_welch_opts o = {2, 0.5, {KD_WINDOW_HANN, 0}, KD_DETREND_NONE};
    assert_int_equal(kd_welch_new(&w, &o, 100.0, &err), KD_ERR_USAGE);
    o.segment = 64;
    o.overlap = 1.0;
    assert_int_equal(kd_welch_new(&w, &o, 100.0, &err), KD_ERR_USAGE);
    o.overlap = 0.5;
    assert_int_equal(kd_welch_new(&w, &o, 0.0, &err), KD_ERR_USAGE);
    assert_int_equal(kd_welch_new(&w, &o, 100.0, &err), KD_OK);
    double x[32] = {0};
    assert_int_equal(kd_welch_spectrum(w, x, 32, NULL, NULL, &err), KD_ERR_USAGE);
    assert_non_null(strstr(err.msg, "shorter than one segment"));
    kd_welch_free(&w);
    kd_welch_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fft_matches_dft),
        cmocka_unit_test(fft_plans_from_threads),
        cmocka_unit_test(window_corrections),
        cmocka_unit_test(detrend_removes_lines),
        cmocka_unit_test(sine_frequency_amplitude),
        cmocka_unit_test(psd_parseval),
        cmocka_unit_test(damped_sine_damping),
        cmocka_unit_test(spectrogram_follows_speed),
        cmocka_unit_test(order_tracking_run_up),
        cmocka_unit_test(welch_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
