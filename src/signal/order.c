/* Order tracking: resampling at constant shaft-angle increments, then Welch's method with the
 * angular sample rate, so that lines are orders of the shaft speed (docs/theory.md, "Order
 * tracking"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/signal.h"

#define KD_PI 3.14159265358979323846

/* x at the fractional sample position s (0 <= s <= n - 1) by the cubic Lagrange polynomial
 * through the four samples around it (three or two at the ends). */
static double interp_cubic(const double* x, long n, double s)
{
    long i = (long)floor(s);
    if (i >= n - 1)
        return x[n - 1];
    if (n < 4)
        return x[i] + (s - (double)i) * (x[i + 1] - x[i]);
    long i0 = i - 1;
    if (i0 < 0)
        i0 = 0;
    if (i0 > n - 4)
        i0 = n - 4;
    double t = s - (double)i0; /* position within nodes i0 .. i0+3 at 0, 1, 2, 3 */
    double l0 = -(t - 1.0) * (t - 2.0) * (t - 3.0) / 6.0;
    double l1 = t * (t - 2.0) * (t - 3.0) / 2.0;
    double l2 = -t * (t - 1.0) * (t - 3.0) / 2.0;
    double l3 = t * (t - 1.0) * (t - 2.0) / 6.0;
    return l0 * x[i0] + l1 * x[i0 + 1] + l2 * x[i0 + 2] + l3 * x[i0 + 3];
}

kd_status kd_order_track(const double* x, const double* angle, long n, double fs,
                         const kd_order_opts* o, kd_order_spectrum* out, kd_error* err)
{
    memset(out, 0, sizeof *out);
    if (!o || o->samples_per_rev < 4 || o->revs_per_segment < 1)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "order tracking needs samples_per_rev >= 4 and revs_per_segment >= 1");
    if (n < 2 || !(fs > 0.0))
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "order tracking needs a record and fs > 0");
    for (long k = 1; k < n; k++)
        if (!(angle[k] > angle[k - 1]))
            return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                                "the shaft angle must increase strictly (sample %ld: %g after %g)", k,
                                angle[k], angle[k - 1]);
    double dth = 2.0 * KD_PI / o->samples_per_rev;
    double span = angle[n - 1] - angle[0];
    long m = (long)floor(span / dth) + 1;
    long seg = (long)o->samples_per_rev * o->revs_per_segment;
    if (m < seg || seg > 1 << 26)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "the record turns %.3g revolutions, fewer than one segment (%d)", span / (2.0 * KD_PI),
                            o->revs_per_segment);
    double* y = malloc(sizeof(double) * (size_t)m);
    if (!y)
        return KD_ERR_NOMEM;
    /* theta_j = angle_0 + j dtheta: the sample position where the angle reaches it (linear in
     * between samples), then x there (cubic) */
    long i = 0;
    for (long j = 0; j < m; j++) {
        double th = angle[0] + (double)j * dth;
        while (i < n - 2 && angle[i + 1] <= th)
            i++;
        double s = (double)i + (th - angle[i]) / (angle[i + 1] - angle[i]);
        if (s > (double)(n - 1))
            s = (double)(n - 1);
        y[j] = interp_cubic(x, n, s);
    }
    kd_welch_opts wo = {(int)seg, o->overlap, o->window, o->detrend};
    kd_welch* w = NULL;
    kd_status st = kd_welch_new(&w, &wo, (double)o->samples_per_rev, err);
    if (st == KD_OK) {
        out->nf = kd_welch_lines(w);
        out->dorder = kd_welch_df(w);
        out->nseg = (int)kd_welch_segments(w, m);
        out->nresampled = m;
        out->order = malloc(sizeof(double) * (size_t)out->nf);
        out->amplitude = malloc(sizeof(double) * (size_t)out->nf);
        out->psd = malloc(sizeof(double) * (size_t)out->nf);
        if (!out->order || !out->amplitude || !out->psd)
            st = KD_ERR_NOMEM;
    }
    if (st == KD_OK) {
        for (int k = 0; k < out->nf; k++)
            out->order[k] = k * out->dorder;
        st = kd_welch_spectrum(w, y, m, out->psd, out->amplitude, err);
    }
    kd_welch_free(&w);
    free(y);
    if (st != KD_OK)
        kd_order_spectrum_free(out);
    return st;
}

void kd_order_spectrum_free(kd_order_spectrum* s)
{
    if (!s)
        return;
    free(s->order);
    free(s->amplitude);
    free(s->psd);
    memset(s, 0, sizeof *s);
}

void kd_angle_from_speed(const double* speed, long n, double fs, double per_rev, double* angle)
{
    /* theta' = 2 pi per_rev speed, trapezoidal rule */
    double c = 2.0 * KD_PI * per_rev / (2.0 * fs);
    if (n < 1)
        return;
    angle[0] = 0.0;
    for (long k = 1; k < n; k++)
        angle[k] = angle[k - 1] + c * (speed[k - 1] + speed[k]);
}
