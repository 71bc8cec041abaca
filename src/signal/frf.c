/* Frequency response functions from hammer tests: H1, H2 and the coherence from auto- and
 * cross-spectra averaged over every block of every hit (docs/theory.md, "FRF estimators"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/signal.h"

#define KD_PI 3.14159265358979323846

kd_status kd_frf_estimate(const double* const* force, const double* const* response, int nhits,
                          int nout, long n, double fs, const kd_frf_opts* o, kd_frf* out,
                          kd_error* err)
{
    memset(out, 0, sizeof *out);
    if (!o || nhits < 1 || nout < 1 || !force || !response)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "an FRF needs at least one hit and one response");
    if (!(fs > 0.0))
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "the sample rate must be positive (got %g)", fs);
    long lseg = o->segment > 0 ? o->segment : n;
    if (lseg < 4 || lseg > n || lseg > (1L << 28))
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "an FRF block of %ld samples does not fit a record of %ld", lseg, n);
    if (!(o->overlap >= 0.0 && o->overlap < 1.0))
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "overlap must be in [0, 1) (got %g)", o->overlap);
    int ns = (int)lseg, nf = ns / 2 + 1;
    long step = ns - lround(o->overlap * ns);
    if (step < 1)
        step = 1;
    long nblk = 1 + (n - ns) / step;

    double* win_in = malloc(sizeof(double) * (size_t)ns);
    double* win_out = malloc(sizeof(double) * (size_t)ns);
    double* buf = malloc(sizeof(double) * (size_t)ns);
    double* F = malloc(sizeof(double) * 2 * (size_t)nf);
    double* X = malloc(sizeof(double) * 2 * (size_t)nf);
    double* gxx = calloc((size_t)nout * (size_t)nf, sizeof(double));
    double* gfx = calloc(2 * (size_t)nout * (size_t)nf, sizeof(double));
    out->f = malloc(sizeof(double) * (size_t)nf);
    out->h1 = malloc(sizeof(double) * 2 * (size_t)nout * (size_t)nf);
    out->h2 = malloc(sizeof(double) * 2 * (size_t)nout * (size_t)nf);
    out->coherence = malloc(sizeof(double) * (size_t)nout * (size_t)nf);
    out->g_ff = calloc((size_t)nf, sizeof(double));
    kd_fft* fft = NULL;
    kd_status st = (win_in && win_out && buf && F && X && gxx && gfx && out->f && out->h1 && out->h2 &&
                    out->coherence && out->g_ff)
                       ? KD_OK
                       : KD_ERR_NOMEM;
    if (st == KD_OK)
        st = kd_window_fill(o->input_window, ns, win_in, err);
    if (st == KD_OK)
        st = kd_window_fill(o->output_window, ns, win_out, err);
    if (st == KD_OK)
        st = kd_fft_new(&fft, ns);
    if (st == KD_OK) {
        /* an exponential response window also multiplies the force: then H is the FRF of the
         * system with every pole's decay raised by sigma (theory.md, "Windows and corrections") */
        if (o->output_window.type == KD_WINDOW_EXPONENTIAL)
            for (int k = 0; k < ns; k++)
                win_in[k] *= win_out[k];
        double sw2 = 0.0;
        for (int k = 0; k < ns; k++)
            sw2 += win_in[k] * win_in[k];
        for (int h = 0; h < nhits; h++)
            for (long b = 0; b < nblk; b++) {
                /* G_ff += |F|^2, G_xx += |X|^2, G_fx += conj(F) X (theory.md, FRF estimators) */
                memcpy(buf, force[h] + b * step, sizeof(double) * (size_t)ns);
                kd_detrend_apply(buf, ns, o->detrend);
                for (int k = 0; k < ns; k++)
                    buf[k] *= win_in[k];
                kd_fft_forward(fft, buf, F);
                for (int k = 0; k < nf; k++)
                    out->g_ff[k] += F[2 * k] * F[2 * k] + F[2 * k + 1] * F[2 * k + 1];
                for (int j = 0; j < nout; j++) {
                    memcpy(buf, response[(long)h * nout + j] + b * step, sizeof(double) * (size_t)ns);
                    kd_detrend_apply(buf, ns, o->detrend);
                    for (int k = 0; k < ns; k++)
                        buf[k] *= win_out[k];
                    kd_fft_forward(fft, buf, X);
                    double* gx = gxx + (size_t)j * nf;
                    double* gc = gfx + 2 * (size_t)j * nf;
                    for (int k = 0; k < nf; k++) {
                        double fr = F[2 * k], fi = F[2 * k + 1], xr = X[2 * k], xi = X[2 * k + 1];
                        gx[k] += xr * xr + xi * xi;
                        gc[2 * k] += fr * xr + fi * xi;
                        gc[2 * k + 1] += fr * xi - fi * xr;
                    }
                }
            }
        /* H1 = G_fx / G_ff; H2 = G_xx / G_xf = G_xx / conj(G_fx); gamma^2 = |G_fx|^2 / (G_ff G_xx) */
        for (int j = 0; j < nout; j++)
            for (int k = 0; k < nf; k++) {
                size_t i = (size_t)j * nf + (size_t)k;
                double gff = out->g_ff[k], gx = gxx[i], cr = gfx[2 * i], ci = gfx[2 * i + 1];
                double c2 = cr * cr + ci * ci;
                out->h1[2 * i] = gff > 0.0 ? cr / gff : 0.0;
                out->h1[2 * i + 1] = gff > 0.0 ? ci / gff : 0.0;
                out->h2[2 * i] = c2 > 0.0 ? gx * cr / c2 : 0.0;
                out->h2[2 * i + 1] = c2 > 0.0 ? gx * ci / c2 : 0.0;
                double coh = (gff > 0.0 && gx > 0.0) ? c2 / (gff * gx) : 0.0;
                out->coherence[i] = coh > 1.0 ? 1.0 : coh;
            }
        double navg = (double)nhits * (double)nblk;
        for (int k = 0; k < nf; k++) {
            int edge = k == 0 || (ns % 2 == 0 && k == nf - 1);
            out->g_ff[k] *= (edge ? 1.0 : 2.0) / (navg * fs * sw2);
            out->f[k] = k * fs / ns;
        }
        out->nf = nf;
        out->nout = nout;
        out->navg = (int)navg;
        out->df = fs / ns;
        out->sigma = kd_window_sigma(o->output_window, ns, fs);
    }
    kd_fft_free(&fft);
    free(win_in);
    free(win_out);
    free(buf);
    free(F);
    free(X);
    free(gxx);
    free(gfx);
    if (st != KD_OK)
        kd_frf_free(out);
    return st;
}

void kd_frf_free(kd_frf* r)
{
    if (!r)
        return;
    free(r->f);
    free(r->h1);
    free(r->h2);
    free(r->coherence);
    free(r->g_ff);
    memset(r, 0, sizeof *r);
}

void kd_frf_db_phase(const double* h, int nf, double* mag_db, double* phase_deg)
{
    for (int k = 0; k < nf; k++) {
        double re = h[2 * k], im = h[2 * k + 1], m = hypot(re, im);
        if (mag_db)
            mag_db[k] = m > 0.0 ? 20.0 * log10(m) : -400.0;
        if (phase_deg) {
            double p = atan2(im, re) * 180.0 / KD_PI;
            phase_deg[k] = p <= -180.0 ? p + 360.0 : p;
        }
    }
}
