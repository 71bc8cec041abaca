/* Real-to-complex FFTs on FFTW. The plan is made once per size; FFTW's planner (plan creation
 * and destruction) is not thread-safe, so both hold one process-wide mutex, while the
 * transforms (fftw_execute_dft_r2c on the caller's arrays) run concurrently. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

#include "kedyn/signal.h"

struct kd_fft {
    int n;
    fftw_plan plan;
};

static pthread_mutex_t planner_lock = PTHREAD_MUTEX_INITIALIZER;

kd_status kd_fft_new(kd_fft** out, int n)
{
    *out = NULL;
    if (n < 1)
        return KD_ERR_USAGE;
    kd_fft* f = calloc(1, sizeof *f);
    /* Arrays only to plan on: FFTW_ESTIMATE does not touch them, FFTW_UNALIGNED lets the plan
     * run on any caller's arrays (fftw_execute_dft_r2c, the new-array interface). */
    double* x = fftw_malloc(sizeof(double) * (size_t)n);
    fftw_complex* X = fftw_malloc(sizeof(fftw_complex) * (size_t)(n / 2 + 1));
    if (!f || !x || !X) {
        free(f);
        fftw_free(x);
        fftw_free(X);
        return KD_ERR_NOMEM;
    }
    pthread_mutex_lock(&planner_lock);
    f->plan = fftw_plan_dft_r2c_1d(n, x, X, FFTW_ESTIMATE | FFTW_UNALIGNED | FFTW_PRESERVE_INPUT);
    pthread_mutex_unlock(&planner_lock);
    fftw_free(x);
    fftw_free(X);
    if (!f->plan) {
        free(f);
        return KD_ERR_NUMERIC;
    }
    f->n = n;
    *out = f;
    return KD_OK;
}

void kd_fft_free(kd_fft** p)
{
    if (!p || !*p)
        return;
    pthread_mutex_lock(&planner_lock);
    fftw_destroy_plan((*p)->plan);
    pthread_mutex_unlock(&planner_lock);
    free(*p);
    *p = NULL;
}

int kd_fft_size(const kd_fft* f) { return f->n; }

void kd_fft_forward(const kd_fft* f, const double* x, double* X)
{
    /* PRESERVE_INPUT: x is read only; the cast drops const for FFTW's prototype. */
    fftw_execute_dft_r2c(f->plan, (double*)x, (fftw_complex*)X);
}
