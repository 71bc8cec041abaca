/* Welch's averaged periodogram and the interpolation of spectral peaks (docs/theory.md,
 * "Welch's method"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/signal.h"
#include "signal_internal.h"

#define KD_PI 3.14159265358979323846

struct kd_welch {
    kd_welch_opts o;
    double fs;
    int nf;
    int step;         /* samples between the starts of successive segments */
    double sum_w;     /* sum(w): amplitude scale */
    double sum_w2;    /* sum(w^2): power scale */
    kd_fft* fft;
    double* w;        /* [segment] window */
    double* buf;      /* [segment] detrended, windowed segment */
    double* X;        /* [2 nf] its transform */
    double* acc;      /* [nf] sum over segments of |X_k|^2 */
};

kd_status kd_welch_new(kd_welch** out, const kd_welch_opts* o, double fs, kd_error* err)
{
    *out = NULL;
    if (!o || o->segment < 4)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "a segment needs at least 4 samples (got %d)",
                            o ? o->segment : 0);
    if (!(o->overlap >= 0.0 && o->overlap < 1.0))
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "overlap must be in [0, 1) (got %g)", o->overlap);
    if (!(fs > 0.0) || !isfinite(fs))
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "the sample rate must be positive (got %g)", fs);
    kd_welch* w = calloc(1, sizeof *w);
    if (!w)
        return KD_ERR_NOMEM;
    int n = o->segment;
    w->o = *o;
    w->fs = fs;
    w->nf = n / 2 + 1;
    w->step = n - (int)lround(o->overlap * n);
    if (w->step < 1)
        w->step = 1;
    w->w = malloc(sizeof(double) * (size_t)n);
    w->buf = malloc(sizeof(double) * (size_t)n);
    w->X = malloc(sizeof(double) * 2 * (size_t)w->nf);
    w->acc = malloc(sizeof(double) * (size_t)w->nf);
    kd_status st = (w->w && w->buf && w->X && w->acc) ? KD_OK : KD_ERR_NOMEM;
    if (st == KD_OK)
        st = kd_window_fill(o->window, n, w->w, err);
    if (st == KD_OK)
        st = kd_fft_new(&w->fft, n);
    if (st != KD_OK) {
        kd_welch_free(&w);
        return st;
    }
    for (int k = 0; k < n; k++) {
        w->sum_w += w->w[k];
        w->sum_w2 += w->w[k] * w->w[k];
    }
    *out = w;
    return KD_OK;
}

void kd_welch_free(kd_welch** p)
{
    if (!p || !*p)
        return;
    kd_welch* w = *p;
    kd_fft_free(&w->fft);
    free(w->w);
    free(w->buf);
    free(w->X);
    free(w->acc);
    free(w);
    *p = NULL;
}

int kd_welch_lines(const kd_welch* w) { return w->nf; }
double kd_welch_df(const kd_welch* w) { return w->fs / w->o.segment; }

long kd_welch_segments(const kd_welch* w, long n)
{
    if (n < w->o.segment)
        return 0;
    return 1 + (n - w->o.segment) / w->step;
}

kd_status kd_welch_spectrum(kd_welch* w, const double* x, long n, double* psd, double* amplitude,
                            kd_error* err)
{
    int ns = w->o.segment, nf = w->nf;
    long nseg = kd_welch_segments(w, n);
    if (nseg < 1)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "the record (%ld samples) is shorter than one segment (%d)", n, ns);
    memset(w->acc, 0, sizeof(double) * (size_t)nf);
    for (long s = 0; s < nseg; s++) {
        /* segment s: detrend, window, transform, accumulate |X_k|^2 (theory.md, Welch) */
        memcpy(w->buf, x + s * (long)w->step, sizeof(double) * (size_t)ns);
        kd_detrend_apply(w->buf, ns, w->o.detrend);
        for (int k = 0; k < ns; k++)
            w->buf[k] *= w->w[k];
        kd_fft_forward(w->fft, w->buf, w->X);
        for (int k = 0; k < nf; k++)
            w->acc[k] += w->X[2 * k] * w->X[2 * k] + w->X[2 * k + 1] * w->X[2 * k + 1];
    }
    for (int k = 0; k < nf; k++) {
        double p = w->acc[k] / (double)nseg;                  /* mean |X_k|^2 */
        int edge = (k == 0) || (ns % 2 == 0 && k == nf - 1); /* DC and Nyquist are not folded */
        /* one-sided PSD G_k = 2 |X_k|^2 / (fs sum w^2); amplitude 2 |X_k| / sum w */
        if (psd)
            psd[k] = (edge ? 1.0 : 2.0) * p / (w->fs * w->sum_w2);
        if (amplitude)
            amplitude[k] = (edge ? 1.0 : 2.0) * sqrt(p) / w->sum_w;
    }
    return KD_OK;
}

static double sinc_pi(double d) { return fabs(d) < 1e-12 ? 1.0 : sin(KD_PI * d) / (KD_PI * d); }

/* |W(d)| / |W(0)|: the kernel of a cosine-sum window (coefficients a[na]) d lines from a sine,
 * sinc(d) (a_0 + d^2 sum_m (-1)^m a_m / (d^2 - m^2)) / a_0 (theory.md, "Peak interpolation";
 * the rectangular window is na = 1). */
static double cos_sum_gain(const double* a, int na, double d)
{
    double s = a[0];
    for (int m = 1; m < na; m++) {
        double q = d * d - (double)(m * m);
        if (fabs(q) < 1e-12)
            q = q < 0.0 ? -1e-12 : 1e-12;
        s += d * d * ((m & 1) ? -a[m] : a[m]) / q;
    }
    return fabs(sinc_pi(d) * s) / a[0];
}

kd_status kd_spectrum_peak(const double* amp, int nf, double df, int k, kd_window win,
                           double* f_hz, double* amplitude)
{
    if (k < 1 || k >= nf - 1 || !(amp[k] > 0.0))
        return KD_ERR_USAGE;
    double a0 = amp[k], am = amp[k - 1], ap = amp[k + 1];
    double d, gain;
    if (win.type == KD_WINDOW_HANN || win.type == KD_WINDOW_RECT || win.type == KD_WINDOW_FLATTOP) {
        /* the ratio of the larger neighbour to the peak line, alpha = |W(1 - d)| / |W(d)|, is
         * inverted for the offset d in [0, 1/2] by bisection (it increases with d) */
        static const double one = 1.0;
        const double* a = win.type == KD_WINDOW_HANN ? kd_hann_a : win.type == KD_WINDOW_FLATTOP ? kd_flattop_a : &one;
        int na = win.type == KD_WINDOW_HANN ? 2 : win.type == KD_WINDOW_FLATTOP ? 5 : 1;
        int right = ap >= am;
        double alpha = (right ? ap : am) / a0, l = 0.0, h = 0.5;
        for (int it = 0; it < 60; it++) {
            double mid = 0.5 * (l + h);
            if (cos_sum_gain(a, na, 1.0 - mid) / cos_sum_gain(a, na, mid) < alpha)
                l = mid;
            else
                h = mid;
        }
        d = right ? 0.5 * (l + h) : -0.5 * (l + h);
        gain = cos_sum_gain(a, na, d);
        *f_hz = (k + d) * df;
        *amplitude = a0 / gain;
        return KD_OK;
    }
    /* parabola through the log magnitudes (Gaussian interpolation) */
    double ym = log(am > 0.0 ? am : 1e-300), y0 = log(a0), yp = log(ap > 0.0 ? ap : 1e-300);
    double den = ym - 2.0 * y0 + yp;
    d = den < 0.0 ? 0.5 * (ym - yp) / den : 0.0;
    if (d > 0.5)
        d = 0.5;
    if (d < -0.5)
        d = -0.5;
    *f_hz = (k + d) * df;
    *amplitude = exp(y0 - 0.25 * (ym - yp) * d);
    return KD_OK;
}
