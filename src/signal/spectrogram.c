/* Spectrograms: the amplitude spectrum of each block (one Welch segment, no averaging) and the
 * mean speed over it, for waterfalls against time or speed (docs/theory.md, "Welch's method"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/signal.h"

kd_status kd_spectrogram_compute(const double* x, const double* speed, long n, double fs,
                                 const kd_welch_opts* o, kd_spectrogram* out, kd_error* err)
{
    memset(out, 0, sizeof *out);
    kd_welch* w = NULL;
    kd_status st = kd_welch_new(&w, o, fs, err);
    if (st != KD_OK)
        return st;
    long nb = kd_welch_segments(w, n);
    if (nb < 1) {
        kd_welch_free(&w);
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "the record (%ld samples) is shorter than one segment (%d)", n, o->segment);
    }
    if (nb > 100000000L / (o->segment / 2 + 1)) {
        kd_welch_free(&w);
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "%ld blocks of %d lines: too large a spectrogram (raise overlap's step or the segment)",
                            nb, o->segment / 2 + 1);
    }
    int nf = kd_welch_lines(w);
    out->nblocks = (int)nb;
    out->nf = nf;
    out->df = kd_welch_df(w);
    out->t = malloc(sizeof(double) * (size_t)nb);
    out->amplitude = malloc(sizeof(double) * (size_t)nb * (size_t)nf);
    if (speed)
        out->speed = malloc(sizeof(double) * (size_t)nb);
    if (!out->t || !out->amplitude || (speed && !out->speed)) {
        kd_welch_free(&w);
        kd_spectrogram_free(out);
        return KD_ERR_NOMEM;
    }
    /* the same step as the Welch estimator: segment - round(overlap segment) */
    long hop = o->segment - lround(o->overlap * o->segment);
    if (hop < 1)
        hop = 1;
    for (long b = 0; b < nb; b++) {
        const double* xb = x + b * hop;
        st = kd_welch_spectrum(w, xb, o->segment, NULL, out->amplitude + b * nf, err);
        if (st != KD_OK)
            break;
        out->t[b] = ((double)(b * hop) + 0.5 * (o->segment - 1)) / fs;
        if (speed) {
            double s = 0.0;
            for (int k = 0; k < o->segment; k++)
                s += speed[b * hop + k];
            out->speed[b] = s / o->segment;
        }
    }
    kd_welch_free(&w);
    if (st != KD_OK)
        kd_spectrogram_free(out);
    return st;
}

void kd_spectrogram_free(kd_spectrogram* s)
{
    if (!s)
        return;
    free(s->t);
    free(s->speed);
    free(s->amplitude);
    memset(s, 0, sizeof *s);
}
