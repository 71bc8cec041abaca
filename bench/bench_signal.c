/* Benchmark of measured-record processing (src/signal): Welch on a 1e6-sample record, and LSCF
 * with its stabilisation diagram on 6 channels x 4096 lines. Prints one line per case:
 *   welch samples segment overlap segments best_s per_sample_ns rel_err_amplitude
 *   lscf channels lines order_max poles modes best_s per_order_ms max_rel_err_f
 * usage: bench_signal [repeats] [order_max]  (best of `repeats`, default 5; order_max 40) */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kedyn/signal.h"
#include "blas_threads.h"
#include "core/util.h"

#define PI 3.14159265358979323846

static unsigned long long rng = 88172645463325252ull;
static double grand(void)
{
    double u[2];
    for (int i = 0; i < 2; i++) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        u[i] = ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
    }
    return sqrt(-2.0 * log(u[0])) * cos(2.0 * PI * u[1]);
}

int main(int argc, char** argv)
{
    app_blas_threads_default();
    int repeats = argc > 1 ? atoi(argv[1]) : 5;
    int order_max = argc > 2 ? atoi(argv[2]) : 40;
    if (repeats < 1 || order_max < 2) {
        fprintf(stderr, "usage: bench_signal [repeats] [order_max]\n");
        return 2;
    }
    /* Welch: 1e6 samples at 10 kHz, a 1 V sine at 1234.5 Hz in unit noise; Hann, 4096, 50 % */
    long n = 1000000;
    double fs = 10000.0;
    double* x = malloc(sizeof(double) * (size_t)n);
    for (long j = 0; j < n; j++)
        x[j] = sin(2.0 * PI * 1234.5 * j / fs) + grand();
    kd_welch_opts wo = {4096, 0.5, {KD_WINDOW_HANN, 0}, KD_DETREND_MEAN};
    kd_welch* w = NULL;
    if (kd_welch_new(&w, &wo, fs, NULL) != KD_OK)
        return 3;
    int nf = kd_welch_lines(w);
    double* psd = malloc(sizeof(double) * (size_t)nf);
    double* amp = malloc(sizeof(double) * (size_t)nf);
    double best = INFINITY;
    for (int r = 0; r < repeats; r++) {
        double t0 = util_now_s();
        if (kd_welch_spectrum(w, x, n, psd, amp, NULL) != KD_OK)
            return 3;
        double t = util_now_s() - t0;
        if (t < best)
            best = t;
    }
    int k = (int)(1234.5 / kd_welch_df(w));
    for (int i = k - 3; i <= k + 3; i++)
        if (amp[i] > amp[k])
            k = i;
    double fp, ap;
    kd_spectrum_peak(amp, nf, kd_welch_df(w), k, wo.window, &fp, &ap);
    printf("welch %ld %d %.2f %ld %.4f %.2f %.1e\n", n, wo.segment, wo.overlap, kd_welch_segments(w, n), best,
           best / n * 1e9, fabs(ap - 1.0));
    kd_welch_free(&w);
    free(x);
    free(psd);
    free(amp);

    /* LSCF: 6 accelerances on 4096 lines (0.05 Hz) of 8 modes, 1 % noise, band 5-200 Hz */
    int nch = 6, nl = 4096;
    static const double fm[8] = {12.0, 31.0, 47.0, 52.0, 88.0, 121.0, 150.0, 183.0};
    double* f = malloc(sizeof(double) * (size_t)nl);
    double* frf = malloc(sizeof(double) * 2 * (size_t)nch * (size_t)nl);
    for (int i = 0; i < nl; i++)
        f[i] = 0.05 * i;
    for (int c = 0; c < nch; c++)
        for (int i = 0; i < nl; i++) {
            double wv = 2.0 * PI * f[i];
            double complex h = 0.0;
            for (int m = 0; m < 8; m++) {
                double wr = 2.0 * PI * fm[m], ph = sin((m + 1) * PI * (c + 0.5) / nch) * sin((m + 1) * PI * 0.13);
                h += -wv * wv * ph / (wr * wr - wv * wv + 2.0 * I * 0.01 * wr * wv);
            }
            frf[2 * ((size_t)c * nl + i)] = creal(h) * (1.0 + 0.01 * grand());
            frf[2 * ((size_t)c * nl + i) + 1] = cimag(h) * (1.0 + 0.01 * grand());
        }
    kd_lscf_opts lo = {5.0, 200.0, 2, order_max, 0, 0, 0, 0, 0, KD_FRF_ACCELERATION};
    kd_modal_fit fit = {0};
    best = INFINITY;
    for (int r = 0; r < repeats; r++) {
        kd_modal_fit_free(&fit);
        kd_error err;
        double t0 = util_now_s();
        if (kd_lscf(f, frf, nl, nch, &lo, &fit, &err) != KD_OK) {
            fprintf(stderr, "bench_signal: %s\n", err.msg);
            return 3;
        }
        double t = util_now_s() - t0;
        if (t < best)
            best = t;
    }
    double emax = 0.0;
    for (int m = 0; m < 8; m++) {
        double e = INFINITY;
        for (int i = 0; i < fit.nmodes; i++)
            if (fabs(fit.f_hz[i] - fm[m]) / fm[m] < e)
                e = fabs(fit.f_hz[i] - fm[m]) / fm[m];
        if (e > emax)
            emax = e;
    }
    if (getenv("KD_BENCH_VERBOSE"))
        for (int i = 0; i < fit.nmodes; i++)
            fprintf(stderr, "  mode %.4f Hz zeta %.5f\n", fit.f_hz[i], fit.zeta[i]);
    printf("lscf %d %d %d %d %d %.4f %.2f %.1e\n", nch, nl, order_max, fit.npoles, fit.nmodes, best,
           best / (order_max - 1) * 1e3, emax);
    kd_modal_fit_free(&fit);
    free(f);
    free(frf);
    return 0;
}
