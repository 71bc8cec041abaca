/* Modes of a moving system: the quadratic eigenproblem with gyroscopic and
 * damping matrices in state-space form (kedyn/modes.h; theory.md sec. 3). */
#include <complex.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/modes.h"
#include "kedyn/system.h"

/* Dense column-major copy of a compact general band. */
static void gband_to_dense(const kd_gband* a, double* d, int ldd, int row0, int col0, double scale) {
    const int ld = a->kl + a->ku + 1;
    for (int j = 0; j < a->n; j++) {
        const int i0 = j - a->ku > 0 ? j - a->ku : 0, i1 = j + a->kl < a->n - 1 ? j + a->kl : a->n - 1;
        for (int i = i0; i <= i1; i++)
            d[(size_t)(row0 + i) + (size_t)(col0 + j) * (size_t)ldd] = scale * a->ab[a->ku + i - j + (size_t)j * (size_t)ld];
    }
}

static int by_omega(const void* a, const void* b) {
    const kd_gyro_eig *x = a, *y = b;
    return (x->omega > y->omega) - (x->omega < y->omega);
}

void kd_gyro_free(kd_gyro_ws* w) {
    if (!w) return;
    free(w->A);
    free(w->B);
    free(w->ar);
    free(w->ai);
    free(w->be);
    free(w->vr);
    free(w->work);
    free(w->ent);
    memset(w, 0, sizeof(*w));
}

kd_status kd_gyro_init(kd_gyro_ws* w, int n, kd_error* err) {
    memset(w, 0, sizeof(*w));
    const int n2 = 2 * n;
    const size_t nn = (size_t)n2 * (size_t)n2;
    w->n = n;
    w->A = malloc(sizeof(double) * nn);
    w->B = malloc(sizeof(double) * nn);
    w->ar = malloc(sizeof(double) * (size_t)n2);
    w->ai = malloc(sizeof(double) * (size_t)n2);
    w->be = malloc(sizeof(double) * (size_t)n2);
    w->vr = malloc(sizeof(double) * nn);
    w->ent = malloc(sizeof(kd_gyro_eig) * (size_t)(3 * n + 1)); /* pairs below n, reals from n */
    double wq = 0;
    if (w->A && w->B && w->ar && w->ai && w->be && w->vr && w->ent &&
        LAPACKE_dggev_work(LAPACK_COL_MAJOR, 'N', 'V', n2, w->A, n2, w->B, n2, w->ar, w->ai, w->be, NULL, n2, w->vr,
                           n2, &wq, -1) == 0) {
        w->lwork = (int)wq;
        w->work = malloc(sizeof(double) * (size_t)(w->lwork + 1));
    }
    if (!w->work) {
        kd_gyro_free(w);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the state-space eigenproblem");
    }
    return KD_OK;
}

kd_status kd_gyro_solve(kd_gyro_ws* w, const kd_gband* M, const kd_gband* C, const kd_gband* K, double t,
                        kd_error* err) {
    const int n = w->n, n2 = 2 * n;
    const size_t nn = (size_t)n2 * (size_t)n2;
    double *A = w->A, *B = w->B, *ar = w->ar, *ai = w->ai, *be = w->be;
    memset(A, 0, sizeof(double) * nn);
    memset(B, 0, sizeof(double) * nn);
    /* A = [[0, I], [-K, -C]], B = [[I, 0], [0, M]] */
    for (int i = 0; i < n; i++) {
        A[(size_t)i + (size_t)(n + i) * n2] = 1.0;
        B[(size_t)i + (size_t)i * n2] = 1.0;
    }
    gband_to_dense(K, A, n2, n, 0, -1.0);
    gband_to_dense(C, A, n2, n, n, -1.0);
    gband_to_dense(M, B, n2, n, n, 1.0);
    lapack_int info = LAPACKE_dggev_work(LAPACK_COL_MAJOR, 'N', 'V', n2, A, n2, B, n2, ar, ai, be, NULL, n2, w->vr, n2,
                                         w->work, w->lwork);
    if (info != 0)
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                            "at t = %g s: the state-space eigensolver failed (LAPACK dggev info %d)", t, (int)info);
    /* One entry per eigenvalue pair: complex pairs by their member with
     * Im s > 0; real eigenvalues (rigid-body s = 0, divergence s = +-a, or
     * overdamped) are paired in order of decreasing real part, each pair an
     * entry with omega = 0 and the larger real part as growth rate. */
    double smax = 0;
    for (int k = 0; k < n2; k++)
        if (be[k] != 0.0) smax = fmax(smax, hypot(ar[k], ai[k]) / fabs(be[k]));
    int ne = 0, nreal = 0;
    kd_gyro_eig* ent = w->ent;
    kd_gyro_eig* reals = ent + n;  /* pair entries stay below n: ne_c + nreal / 2 = n */
    for (int k = 0; k < n2; k++) {
        if (be[k] == 0.0) continue;  /* infinite eigenvalue: none for M > 0 */
        const double re = ar[k] / be[k], im = ai[k] / be[k];
        if (fabs(im) <= 1e-9 * smax) reals[nreal++] = (kd_gyro_eig){0.0, re, k};
        else if (im > 0) ent[ne++] = (kd_gyro_eig){im, re, k};
    }
    for (int i = 0; i < nreal; i++)  /* descending real part */
        for (int j = i + 1; j < nreal; j++)
            if (reals[j].growth > reals[i].growth) {
                const kd_gyro_eig tmp = reals[i];
                reals[i] = reals[j], reals[j] = tmp;
            }
    for (int i = 0; i < nreal; i += 2) ent[ne++] = reals[i];
    qsort(ent, (size_t)ne, sizeof(*ent), by_omega);
    w->nent = ne;
    w->smax = smax;
    return KD_OK;
}

void kd_gyro_shape(const kd_gyro_ws* w, int k, double* xr, double* xi) {
    /* Displacement part of the eigenvector: LAPACK stores a complex pair as
     * columns (re, im) at the first index with Im > 0. */
    const int n = w->n, n2 = 2 * n, c = w->ent[k].index;
    const int cplx = w->ai[c] != 0.0;
    const double* vre = w->vr + (size_t)c * n2;
    for (int i = 0; i < n; i++) {
        xr[i] = vre[i];
        xi[i] = cplx ? vre[(size_t)n2 + i] : 0.0;
    }
}

kd_status kd_modes_state_space(kd_system* s, double t, int count, kd_modes* out, kd_error* err) {
    memset(out, 0, sizeof(*out));
    const int n = s->n;
    if (n > KD_GYRO_MAX)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "modes of a moving system use a dense state-space solver limited to %d DOF (the model has %d)",
                            KD_GYRO_MAX, n);
    if (count > n) count = n;
    kd_gband C = {0}, K = {0};
    kd_gyro_ws w = {0};
    double* xri = malloc(sizeof(double) * 2 * (size_t)n);
    kd_status st = kd_gband_init(&C, n, s->kd, s->kd);
    if (!st) st = kd_gband_init(&K, n, s->kd, s->kd);
    if (st || !xri) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the state-space eigenproblem");
        goto done;
    }
    if ((st = kd_gyro_init(&w, n, err))) goto done;
    int changed;
    kd_system_matrices(s, t, &C, &K, &changed);
    if ((st = kd_gyro_solve(&w, &s->M, &C, &K, t, err))) goto done;
    const int ne = w.nent;
    const kd_gyro_eig* ent = w.ent;
    if (count > ne) count = ne;
    out->neq = n;
    out->count = count;
    out->solver = KD_EIGEN_DENSE;
    out->lambda = malloc(sizeof(double) * (size_t)count);
    out->omega = malloc(sizeof(double) * (size_t)count);
    out->growth = malloc(sizeof(double) * (size_t)count);
    out->shape = malloc(sizeof(double) * (size_t)count * (size_t)n);
    if (!out->lambda || !out->omega || !out->growth || !out->shape) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the modes");
        goto done;
    }
    /* Unstable: a growth rate beyond what round-off can make of a defective
     * (double) eigenvalue, about sqrt(eps) |s|. */
    for (int k = 0; k < ne; k++)
        if (ent[k].growth > 1e-6 * w.smax) out->unstable = 1;
    for (int k = 0; k < count; k++) {
        out->omega[k] = ent[k].omega;
        out->lambda[k] = ent[k].omega * ent[k].omega;
        out->growth[k] = ent[k].growth;
        double *vre = xri, *vim = xri + n;
        kd_gyro_shape(&w, k, vre, vim);
        double best = 0, pr = 1, pi = 0;
        for (int i = 0; i < n; i++) {
            const double mag = hypot(vre[i], vim[i]);
            if (mag > best) best = mag, pr = vre[i], pi = vim[i];
        }
        /* rotate the phase so the largest entry is real and positive */
        const double complex rot = best > 0 ? conj(pr + I * pi) / best : 1.0;
        double* x = out->shape + (size_t)k * n;
        for (int i = 0; i < n; i++) x[i] = creal((vre[i] + I * vim[i]) * rot) / (best > 0 ? best : 1.0);
    }
done:
    if (st) kd_modes_free(out);
    kd_gband_free(&C);
    kd_gband_free(&K);
    kd_gyro_free(&w);
    free(xri);
    return st;
}
