/* Time laws and their derivatives (kedyn/law.h). */
#include "kedyn/law.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

kd_law kd_law_constant(double c) {
    kd_law law;
    memset(&law, 0, sizeof(law));
    law.type = KD_LAW_CONSTANT;
    law.value = c;
    return law;
}

void kd_law_free(kd_law* law) {
    if (!law) return;
    free(law->t);
    free(law->f);
    free(law->d2);
    free(law->df);
    law->t = law->f = law->d2 = law->df = NULL;
    law->n = 0;
}

/* Natural cubic spline: second derivatives d2 from the tridiagonal,
 * symmetric positive definite system of the interior points (LAPACK dptsv). */
static kd_status spline_init(kd_law* law) {
    const int n = law->n, m = n - 2;
    memset(law->d2, 0, sizeof(double) * (size_t)n);
    if (m < 1) return KD_OK;
    double* d = malloc(sizeof(double) * (size_t)m);
    double* e = malloc(sizeof(double) * (size_t)(m > 1 ? m - 1 : 1));
    if (!d || !e) {
        free(d);
        free(e);
        return KD_ERR_NOMEM;
    }
    for (int i = 1; i <= m; i++) {
        const double h0 = law->t[i] - law->t[i - 1], h1 = law->t[i + 1] - law->t[i];
        d[i - 1] = (h0 + h1) / 3.0;
        if (i < m) e[i - 1] = h1 / 6.0;
        law->d2[i] = (law->f[i + 1] - law->f[i]) / h1 - (law->f[i] - law->f[i - 1]) / h0;
    }
    const lapack_int info = LAPACKE_dptsv(LAPACK_COL_MAJOR, m, 1, d, e, law->d2 + 1, m);
    free(d);
    free(e);
    return info == 0 ? KD_OK : KD_ERR_NUMERIC;
}

kd_status kd_law_table(kd_law* law, int n, const double* t, const double* f, int linear, kd_error* err) {
    memset(law, 0, sizeof(*law));
    law->type = KD_LAW_TABLE;
    law->linear = linear;
    if (n < 2) return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "a table needs at least 2 points (got %d)", n);
    for (int i = 0; i < n; i++) {
        if (!isfinite(t[i]) || !isfinite(f[i]))
            return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "table point %d is not a finite number", i + 1);
        if (i > 0 && !(t[i] > t[i - 1]))
            return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                                "table times must increase strictly (point %d: t = %g after %g)", i + 1, t[i], t[i - 1]);
    }
    law->n = n;
    law->t = malloc(sizeof(double) * (size_t)n);
    law->f = malloc(sizeof(double) * (size_t)n);
    law->d2 = malloc(sizeof(double) * (size_t)n);
    if (!law->t || !law->f || !law->d2) {
        kd_law_free(law);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for a table of %d points", n);
    }
    memcpy(law->t, t, sizeof(double) * (size_t)n);
    memcpy(law->f, f, sizeof(double) * (size_t)n);
    if (linear) {
        memset(law->d2, 0, sizeof(double) * (size_t)n);
        return KD_OK;
    }
    if (spline_init(law) != KD_OK) {
        kd_law_free(law);
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "the spline through the table failed");
    }
    return KD_OK;
}

kd_status kd_law_hermite(kd_law* law, int n, const double* t, const double* f, const double* df, const double* d2f,
                         kd_error* err) {
    kd_status st = kd_law_table(law, n, t, f, 1, err);
    if (st) return st;
    law->type = KD_LAW_HERMITE;
    law->linear = 0;
    law->df = malloc(sizeof(double) * (size_t)n);
    if (!law->df) {
        kd_law_free(law);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for %d samples", n);
    }
    for (int i = 0; i < n; i++)
        if (!isfinite(df[i]) || !isfinite(d2f[i])) {
            kd_law_free(law);
            return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "sample %d has a derivative that is not finite", i + 1);
        }
    memcpy(law->df, df, sizeof(double) * (size_t)n);
    memcpy(law->d2, d2f, sizeof(double) * (size_t)n);
    return KD_OK;
}

kd_status kd_law_copy(kd_law* dst, const kd_law* src) {
    *dst = *src;
    if (src->type != KD_LAW_TABLE && src->type != KD_LAW_HERMITE) return KD_OK;
    dst->t = dst->f = dst->d2 = dst->df = NULL;
    const size_t bytes = sizeof(double) * (size_t)src->n;
    dst->t = malloc(bytes);
    dst->f = malloc(bytes);
    dst->d2 = malloc(bytes);
    if (src->df) dst->df = malloc(bytes);
    if (!dst->t || !dst->f || !dst->d2 || (src->df && !dst->df)) {
        kd_law_free(dst);
        return KD_ERR_NOMEM;
    }
    memcpy(dst->t, src->t, bytes);
    memcpy(dst->f, src->f, bytes);
    memcpy(dst->d2, src->d2, bytes);
    if (src->df) memcpy(dst->df, src->df, bytes);
    return KD_OK;
}

/* Interval [t_lo, t_lo+1] holding t (bisection); t inside the range. */
static int table_interval(const kd_law* law, double t) {
    int lo = 0, hi = law->n - 1;
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (law->t[mid] <= t) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* Quintic Hermite on one interval: p(s) = sum c_k s^k, s = (t - t_lo)/h,
 * with p, p', p'' matching the samples at both ends. */
static void hermite_eval(const kd_law* law, double t, double* f, double* df, double* d2f) {
    const int n = law->n;
    if (t < law->t[0] || t > law->t[n - 1]) {
        *f = t < law->t[0] ? law->f[0] : law->f[n - 1];
        *df = *d2f = 0.0;
        return;
    }
    const int lo = table_interval(law, t), hi = lo + 1;
    const double h = law->t[hi] - law->t[lo], s = (t - law->t[lo]) / h;
    const double c0 = law->f[lo], c1 = h * law->df[lo], c2 = 0.5 * h * h * law->d2[lo];
    const double D0 = law->f[hi] - (c0 + c1 + c2), D1 = h * law->df[hi] - (c1 + 2 * c2), D2 = h * h * law->d2[hi] - 2 * c2;
    const double c3 = 10 * D0 - 4 * D1 + 0.5 * D2, c4 = -15 * D0 + 7 * D1 - D2, c5 = 6 * D0 - 3 * D1 + 0.5 * D2;
    *f = c0 + s * (c1 + s * (c2 + s * (c3 + s * (c4 + s * c5))));
    *df = (c1 + s * (2 * c2 + s * (3 * c3 + s * (4 * c4 + s * 5 * c5)))) / h;
    *d2f = (2 * c2 + s * (6 * c3 + s * (12 * c4 + s * 20 * c5))) / (h * h);
}

/* Table: interval by bisection, then the spline (or line) on it. */
static void table_eval(const kd_law* law, double t, double* f, double* df, double* d2f) {
    const int n = law->n;
    /* the end points themselves belong to the spline (a record starting at
     * t = 0 has its measured slope there); outside, the end values hold */
    if (t < law->t[0] || t > law->t[n - 1]) {
        *f = t < law->t[0] ? law->f[0] : law->f[n - 1];
        *df = *d2f = 0.0;
        return;
    }
    int lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (law->t[mid] <= t) lo = mid;
        else hi = mid;
    }
    const double h = law->t[hi] - law->t[lo], a = law->t[hi] - t, b = t - law->t[lo];
    const double M0 = law->d2[lo], M1 = law->d2[hi];
    const double c0 = law->f[lo] / h - M0 * h / 6.0, c1 = law->f[hi] / h - M1 * h / 6.0;
    *f = M0 * a * a * a / (6 * h) + M1 * b * b * b / (6 * h) + c0 * a + c1 * b;
    *df = -M0 * a * a / (2 * h) + M1 * b * b / (2 * h) - c0 + c1;
    *d2f = (M0 * a + M1 * b) / h;
}

void kd_law_eval(const kd_law* law, double t, double* f, double* df, double* d2f) {
    switch (law->type) {
    case KD_LAW_CONSTANT:
        *f = law->value;
        *df = *d2f = 0.0;
        return;
    case KD_LAW_SPEED:
        *f = law->value * t;
        *df = law->value;
        *d2f = 0.0;
        return;
    case KD_LAW_SINE: {
        const double w = law->omega, arg = w * t + law->phase;
        *f = law->amplitude * sin(arg) + law->offset;
        *df = law->amplitude * w * cos(arg);
        *d2f = -law->amplitude * w * w * sin(arg);
        return;
    }
    case KD_LAW_SPIN_UP: {
        /* theta = (W/T)[t^2/2 + (T/2pi)^2 (cos(2 pi t/T) - 1)], t <= T */
        const double W = law->spin_omega, T = law->spin_T;
        if (t >= T) {
            *f = W * (t - T / 2);
            *df = W;
            *d2f = 0.0;
        } else if (t <= 0.0) {
            *f = *df = *d2f = 0.0;
        } else {
            const double k = 2 * PI / T;
            *f = W / T * (t * t / 2 + (cos(k * t) - 1) / (k * k));
            *df = W / T * (t - sin(k * t) / k);
            *d2f = W / T * (1 - cos(k * t));
        }
        return;
    }
    case KD_LAW_TABLE: table_eval(law, t, f, df, d2f); return;
    case KD_LAW_HERMITE: hermite_eval(law, t, f, df, d2f); return;
    }
}

double kd_law_value(const kd_law* law, double t) {
    switch (law->type) {
    case KD_LAW_CONSTANT: return law->value;
    case KD_LAW_SPEED: return law->value * t;
    case KD_LAW_SINE: return law->amplitude * sin(law->omega * t + law->phase) + law->offset;
    default: break;
    }
    double f, df, d2f;
    kd_law_eval(law, t, &f, &df, &d2f);
    return f;
}

int kd_law_smoothness(const kd_law* law) { return law->type == KD_LAW_TABLE && law->linear ? 0 : 2; }

void kd_law_range(const kd_law* law, double* t_min, double* t_max) {
    if (law->type == KD_LAW_TABLE || law->type == KD_LAW_HERMITE) {
        *t_min = law->t[0];
        *t_max = law->t[law->n - 1];
    } else {
        *t_min = -INFINITY;
        *t_max = INFINITY;
    }
}
