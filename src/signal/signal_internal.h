/* Internal constants of src/signal shared between its files. */
#ifndef KEDYN_SIGNAL_INTERNAL_H
#define KEDYN_SIGNAL_INTERNAL_H

#define KD_SIG_PI 3.14159265358979323846

/* Cosine-sum windows w_k = sum_m (-1)^m a_m cos(2 pi m k / n) / sum_m a_m (periodic, peak 1):
 * Hann, and the 5-term flat-top of ISO 18431-1 (SRS). */
static const double kd_hann_a[2] = {0.5, 0.5};
static const double kd_flattop_a[5] = {1.0, 1.933, 1.286, 0.388, 0.0322};

#endif
