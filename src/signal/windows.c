/* Windows, their corrections and detrending (docs/theory.md, "Windows and corrections"). */
#include <math.h>
#include <string.h>

#include "kedyn/signal.h"
#include "signal_internal.h"

#define KD_PI 3.14159265358979323846

/* Default parameters of the windows that take one (kedyn/signal.h). */
static double exp_end(kd_window win) { return win.param > 0.0 ? win.param : 0.01; }
static double force_fraction(kd_window win) { return win.param > 0.0 ? win.param : 0.1; }

kd_status kd_window_fill(kd_window win, int n, double* w, kd_error* err)
{
    if (n < 2 || !w)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "a window needs at least 2 samples (got %d)", n);
    switch (win.type) {
    case KD_WINDOW_RECT:
        for (int k = 0; k < n; k++)
            w[k] = 1.0;
        return KD_OK;
    case KD_WINDOW_HANN:
        /* periodic: the n-point segment is one period of the 2 pi-periodic cosine */
        for (int k = 0; k < n; k++)
            w[k] = 0.5 * (1.0 - cos(2.0 * KD_PI * k / n));
        return KD_OK;
    case KD_WINDOW_FLATTOP: {
        /* 5-term flat-top (ISO 18431-1 / SRS); peak 1 at the centre, scalloping loss < 0.01 dB */
        const double* a = kd_flattop_a;
        for (int k = 0; k < n; k++) {
            double x = 2.0 * KD_PI * k / n, s = 0.0;
            for (int m = 0; m < 5; m++)
                s += ((m & 1) ? -a[m] : a[m]) * cos(m * x);
            w[k] = s / 4.6402;
        }
        return KD_OK;
    }
    case KD_WINDOW_EXPONENTIAL: {
        double end = exp_end(win);
        if (end > 1.0)
            return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                                "the exponential window's final value must be in (0, 1] (got %g)", end);
        /* w_k = exp(-sigma k / fs) with sigma = -ln(end) fs / (n - 1): w_{n-1} = end */
        double a = -log(end) / (n - 1);
        for (int k = 0; k < n; k++)
            w[k] = exp(-a * k);
        return KD_OK;
    }
    case KD_WINDOW_FORCE: {
        double fr = force_fraction(win);
        if (fr > 1.0)
            return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                                "the force window's fraction must be in (0, 1] (got %g)", fr);
        int keep = (int)ceil(fr * n);
        for (int k = 0; k < n; k++)
            w[k] = k < keep ? 1.0 : 0.0;
        return KD_OK;
    }
    }
    return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "unknown window type %d", (int)win.type);
}

void kd_window_corrections(const double* w, int n, kd_window_corr* c)
{
    double s1 = 0.0, s2 = 0.0;
    for (int k = 0; k < n; k++) {
        s1 += w[k];
        s2 += w[k] * w[k];
    }
    c->coherent_gain = s1 / n;
    c->power_gain = s2 / n;
    c->amplitude_factor = s1 != 0.0 ? n / s1 : 0.0;
    c->enbw_bins = s1 != 0.0 ? n * s2 / (s1 * s1) : 0.0;
}

double kd_window_sigma(kd_window win, int n, double fs)
{
    if (win.type != KD_WINDOW_EXPONENTIAL || n < 2)
        return 0.0;
    return -log(exp_end(win)) * fs / (n - 1);
}

double kd_window_damping_correction(double zeta_measured, double f_hz, double sigma)
{
    /* The window multiplies every decaying mode exp(-zeta omega t) by exp(-sigma t), so the
     * identified decay is zeta omega + sigma (theory.md, "Windows and corrections"). */
    return zeta_measured - sigma / (2.0 * KD_PI * f_hz);
}

static const char* const window_names[] = {"rect", "hann", "flattop", "exponential", "force"};

const char* kd_window_name(kd_window_type t)
{
    if ((int)t < 0 || (int)t >= (int)(sizeof window_names / sizeof *window_names))
        return "?";
    return window_names[t];
}

kd_status kd_window_type_from_name(const char* name, kd_window_type* t)
{
    for (int i = 0; i < (int)(sizeof window_names / sizeof *window_names); i++)
        if (name && strcmp(name, window_names[i]) == 0) {
            *t = (kd_window_type)i;
            return KD_OK;
        }
    return KD_ERR_USAGE;
}

void kd_detrend_apply(double* x, long n, kd_detrend d)
{
    if (d == KD_DETREND_NONE || n < 1)
        return;
    if (d == KD_DETREND_LINEAR && n >= 2) {
        /* least-squares line a + b (k - kc) about the centre kc, where the two columns are
         * orthogonal */
        double kc = 0.5 * (double)(n - 1), sx = 0.0, skx = 0.0, skk = 0.0;
        for (long k = 0; k < n; k++) {
            double t = (double)k - kc;
            sx += x[k];
            skx += t * x[k];
            skk += t * t;
        }
        double a = sx / (double)n, b = skx / skk;
        for (long k = 0; k < n; k++)
            x[k] -= a + b * ((double)k - kc);
        return;
    }
    double s = 0.0;
    for (long k = 0; k < n; k++)
        s += x[k];
    s /= (double)n;
    for (long k = 0; k < n; k++)
        x[k] -= s;
}
