/* Peak picking with half-power damping (docs/theory.md, "Peak picking"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/signal.h"

/* The half-power frequency on one side of the peak at line k (dir -1 left, +1 right): where
 * mag first falls to level, linearly between lines; NaN when the side reaches a valley (a
 * local minimum) or the band's edge [lo, hi] first. */
static double half_power(const double* f, const double* mag, int k, int dir, int lo, int hi, double level)
{
    for (int j = k + dir; j >= lo && j <= hi; j += dir) {
        if (mag[j] <= level) {
            int i = j - dir; /* mag[i] > level >= mag[j] */
            double t = (mag[i] - level) / (mag[i] - mag[j]);
            return f[i] + t * (f[j] - f[i]);
        }
        int nx = j + dir;
        if (nx >= lo && nx <= hi && mag[nx] > mag[j])
            return NAN; /* a valley above half power: a neighbouring mode */
    }
    return NAN;
}

/* The lowest magnitude from line k towards dir until a higher one than mag[k] or the edge. */
static double valley(const double* mag, int k, int dir, int lo, int hi)
{
    double m = mag[k];
    for (int j = k + dir; j >= lo && j <= hi; j += dir) {
        if (mag[j] > mag[k])
            break;
        if (mag[j] < m)
            m = mag[j];
    }
    return m;
}

static int by_magnitude(const void* a, const void* b)
{
    double x = ((const kd_peak*)a)->magnitude, y = ((const kd_peak*)b)->magnitude;
    return (x < y) - (x > y);
}

static int by_frequency(const void* a, const void* b)
{
    double x = ((const kd_peak*)a)->f_hz, y = ((const kd_peak*)b)->f_hz;
    return (x > y) - (x < y);
}

kd_status kd_peak_pick(const double* f, const double* mag, int nf, double fmin, double fmax,
                       double threshold, kd_peak* peaks, int max_peaks, int* npeaks,
                       kd_error* err)
{
    *npeaks = 0;
    if (nf < 3 || max_peaks < 1 || !(threshold >= 0.0 && threshold < 1.0))
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "peak picking needs 3 lines or more, max_peaks >= 1 and 0 <= threshold < 1");
    int lo = 0, hi = nf - 1;
    while (lo < nf && f[lo] < fmin)
        lo++;
    if (fmax > 0.0)
        while (hi >= 0 && f[hi] > fmax)
            hi--;
    if (hi - lo < 2)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "the band [%g, %g] Hz holds fewer than 3 lines",
                            fmin, fmax);
    double top = 0.0;
    for (int k = lo + 1; k < hi; k++)
        if (mag[k] > top)
            top = mag[k];
    /* candidates: local maxima above threshold top that stand out from the valleys on both
     * sides by a factor 1.2 (about 1.6 dB) */
    int cap = (hi - lo) / 2 + 1;
    kd_peak* c = malloc(sizeof *c * (size_t)cap);
    if (!c)
        return KD_ERR_NOMEM;
    int nc = 0;
    for (int k = lo + 1; k < hi && nc < cap; k++) {
        if (!(mag[k] > mag[k - 1] && mag[k] >= mag[k + 1]) || mag[k] < threshold * top || !(mag[k] > 0.0))
            continue;
        if (valley(mag, k, -1, lo, hi) * 1.2 > mag[k] || valley(mag, k, +1, lo, hi) * 1.2 > mag[k])
            continue;
        kd_peak p = {k, f[k], mag[k], NAN};
        /* frequency and magnitude: parabola through the log magnitudes of k-1, k, k+1 */
        double ym = log(mag[k - 1] > 0.0 ? mag[k - 1] : 1e-300), y0 = log(mag[k]);
        double yp = log(mag[k + 1] > 0.0 ? mag[k + 1] : 1e-300), den = ym - 2.0 * y0 + yp;
        if (den < 0.0) {
            double d = 0.5 * (ym - yp) / den;
            if (fabs(d) <= 0.5) {
                double df = d >= 0.0 ? f[k + 1] - f[k] : f[k] - f[k - 1];
                p.f_hz = f[k] + d * df;
                p.magnitude = exp(y0 - 0.25 * (ym - yp) * d);
            }
        }
        /* half-power points |H| = peak / sqrt(2): zeta = (f2 - f1) / (2 f) (theory.md) */
        double level = p.magnitude / sqrt(2.0);
        double f1 = half_power(f, mag, k, -1, lo, hi, level), f2 = half_power(f, mag, k, +1, lo, hi, level);
        if (isfinite(f1) && isfinite(f2))
            p.damping_ratio = (f2 - f1) / (2.0 * p.f_hz);
        c[nc++] = p;
    }
    qsort(c, (size_t)nc, sizeof *c, by_magnitude);
    int m = nc < max_peaks ? nc : max_peaks;
    memcpy(peaks, c, sizeof *c * (size_t)m);
    qsort(peaks, (size_t)m, sizeof *peaks, by_frequency);
    free(c);
    *npeaks = m;
    return KD_OK;
}
