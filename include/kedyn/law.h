/* kedyn: time laws.
 *
 * A law is a scalar function of time with its first two derivatives, used
 * for rotation angles (frame motion), drivers and loads. Forms (model file:
 * docs/model-format.md, "Laws"):
 *   constant  f = c                             (a plain number in a model file)
 *   speed     f = v t                           ({speed: v}: an angle from a speed)
 *   sine      f = A sin(w t + phi) + c          ({sine: {amplitude, omega, phase, offset}})
 *   spin_up   f = (W/T)[t^2/2 + (T/2pi)^2 (cos(2 pi t/T) - 1)]  for t <= T,
 *             f = W (t - T/2) after             ({spin_up: {omega: W, T}}; f' rises
 *                                                smoothly from 0 to W, f'' is continuous)
 *   table     cubic spline through (t_i, f_i)   ({table: {t: [...], value: [...]}} or
 *             or linear interpolation            {table: {file, column}}); C2 (spline)
 *                                                or C0 (linear)
 *   hermite   quintic Hermite through samples   (built in code, kd_law_hermite: a
 *             (t_i, f_i, f'_i, f''_i)            sampled motion, e.g. a rigid
 *                                                mechanism's solution); C2, and
 *                                                exact at the samples
 * Ownership: a table law owns its arrays; kd_law_free releases them.
 */
#ifndef KEDYN_LAW_H
#define KEDYN_LAW_H

#include "kedyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kd_law_type {
    KD_LAW_CONSTANT = 0,
    KD_LAW_SPEED,
    KD_LAW_SINE,
    KD_LAW_SPIN_UP,
    KD_LAW_TABLE,
    KD_LAW_HERMITE
} kd_law_type;

typedef struct kd_law {
    kd_law_type type;
    double value;                 /* constant c; speed v */
    double amplitude, omega, phase, offset;  /* sine */
    double spin_omega, spin_T;    /* spin_up W, T */
    int linear;                   /* table: 1 = linear interpolation (C0), 0 = cubic spline (C2) */
    int n;                        /* table points (>= 2, t strictly increasing) */
    double* t;                    /* (n) owned */
    double* f;                    /* (n) owned */
    double* d2;                   /* (n) spline second derivatives (hermite: the sampled f''), owned */
    double* df;                   /* (n) hermite: the sampled f', owned; NULL otherwise */
} kd_law;

/* A constant law. */
kd_law kd_law_constant(double c);

/* Make a table law from n points (copied); spline unless linear. Returns
 * KD_ERR_INPUT (err says why, no location) for n < 2 or non-increasing t. */
kd_status kd_law_table(kd_law* law, int n, const double* t, const double* f, int linear, kd_error* err);

/* Make a quintic Hermite law through n samples of f, f', f'' at strictly
 * increasing t (copied): exact value, slope and curvature at every sample.
 * Outside [t_0, t_(n-1)] it holds its end values. KD_ERR_INPUT as
 * kd_law_table. */
kd_status kd_law_hermite(kd_law* law, int n, const double* t, const double* f, const double* df, const double* d2f,
                         kd_error* err);

/* Deep copy (tables are duplicated). */
kd_status kd_law_copy(kd_law* dst, const kd_law* src);

void kd_law_free(kd_law* law);

/* f(t), f'(t), f''(t). Tables hold their end values (and zero slope)
 * outside [t_0, t_(n-1)]. */
void kd_law_eval(const kd_law* law, double t, double* f, double* df, double* d2f);

/* f(t) alone, the same bits as kd_law_eval's f (a sine without its cosine: loads of a time step). */
double kd_law_value(const kd_law* law, double t);

/* Number of continuous derivatives (2 or more for every form but the
 * linear table, which has 0). */
int kd_law_smoothness(const kd_law* law);

/* The time range in which the law is defined: [-inf, inf] except tables. */
void kd_law_range(const kd_law* law, double* t_min, double* t_max);

#ifdef __cplusplus
}
#endif
#endif
