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

typedef struct eig_entry {
    double omega, growth;
    int index;                    /* column of the eigenvector */
} eig_entry;

static int by_omega(const void* a, const void* b) {
    const eig_entry *x = a, *y = b;
    return (x->omega > y->omega) - (x->omega < y->omega);
}

kd_status kd_modes_state_space(kd_system* s, double t, int count, kd_modes* out, kd_error* err) {
    memset(out, 0, sizeof(*out));
    const int n = s->n, n2 = 2 * n;
    if (n > KD_GYRO_MAX)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "modes of a moving system use a dense state-space solver limited to %d DOF (the model has %d)",
                            KD_GYRO_MAX, n);
    if (count > n) count = n;
    kd_gband C = {0}, K = {0};
    const size_t nn = (size_t)n2 * (size_t)n2;
    double* A = calloc(nn, sizeof(double));
    double* B = calloc(nn, sizeof(double));
    double *ar = malloc(sizeof(double) * (size_t)n2), *ai = malloc(sizeof(double) * (size_t)n2);
    double* be = malloc(sizeof(double) * (size_t)n2);
    double* vr = malloc(sizeof(double) * nn);
    eig_entry* ent = malloc(sizeof(eig_entry) * (size_t)(3 * n)); /* pairs below n, reals from n */
    kd_status st = kd_gband_init(&C, n, s->kd, s->kd);
    if (!st) st = kd_gband_init(&K, n, s->kd, s->kd);
    if (st || !A || !B || !ar || !ai || !be || !vr || !ent) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the state-space eigenproblem");
        goto done;
    }
    int changed;
    kd_system_matrices(s, t, &C, &K, &changed);
    /* A = [[0, I], [-K, -C]], B = [[I, 0], [0, M]] */
    for (int i = 0; i < n; i++) {
        A[(size_t)i + (size_t)(n + i) * n2] = 1.0;
        B[(size_t)i + (size_t)i * n2] = 1.0;
    }
    gband_to_dense(&K, A, n2, n, 0, -1.0);
    gband_to_dense(&C, A, n2, n, n, -1.0);
    gband_to_dense(&s->M, B, n2, n, n, 1.0);
    lapack_int info = LAPACKE_dggev(LAPACK_COL_MAJOR, 'N', 'V', n2, A, n2, B, n2, ar, ai, be, NULL, n2, vr, n2);
    if (info != 0) {
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "at t = %g s: the state-space eigensolver failed (LAPACK dggev info %d)", t, (int)info);
        goto done;
    }
    /* One entry per eigenvalue pair: complex pairs by their member with
     * Im s > 0; real eigenvalues (rigid-body s = 0, divergence s = +-a, or
     * overdamped) are paired in order of decreasing real part, each pair an
     * entry with omega = 0 and the larger real part as growth rate. */
    double smax = 0;
    for (int k = 0; k < n2; k++)
        if (be[k] != 0.0) smax = fmax(smax, hypot(ar[k], ai[k]) / fabs(be[k]));
    int ne = 0, nreal = 0;
    eig_entry* reals = ent + n;  /* pair entries stay below n: ne_c + nreal / 2 = n */
    for (int k = 0; k < n2; k++) {
        if (be[k] == 0.0) continue;  /* infinite eigenvalue: none for M > 0 */
        const double re = ar[k] / be[k], im = ai[k] / be[k];
        if (fabs(im) <= 1e-9 * smax) reals[nreal++] = (eig_entry){0.0, re, k};
        else if (im > 0) ent[ne++] = (eig_entry){im, re, k};
    }
    for (int i = 0; i < nreal; i++)  /* descending real part */
        for (int j = i + 1; j < nreal; j++)
            if (reals[j].growth > reals[i].growth) {
                const eig_entry tmp = reals[i];
                reals[i] = reals[j], reals[j] = tmp;
            }
    for (int i = 0; i < nreal; i += 2) ent[ne++] = reals[i];
    qsort(ent, (size_t)ne, sizeof(*ent), by_omega);
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
        if (ent[k].growth > 1e-6 * smax) out->unstable = 1;
    for (int k = 0; k < count; k++) {
        out->omega[k] = ent[k].omega;
        out->lambda[k] = ent[k].omega * ent[k].omega;
        out->growth[k] = ent[k].growth;
        /* Displacement part of the eigenvector: LAPACK stores a complex pair
         * as columns (re, im) at the first index with Im > 0. */
        const int c = ent[k].index;
        const int cplx = ai[c] != 0.0;
        const double* vre = vr + (size_t)c * n2;
        const double* vim = cplx ? vr + (size_t)(c + 1) * n2 : NULL;
        double best = 0, pr = 1, pi = 0;
        for (int i = 0; i < n; i++) {
            const double mag = hypot(vre[i], vim ? vim[i] : 0.0);
            if (mag > best) best = mag, pr = vre[i], pi = vim ? vim[i] : 0.0;
        }
        /* rotate the phase so the largest entry is real and positive */
        const double complex rot = best > 0 ? conj(pr + I * pi) / best : 1.0;
        double* x = out->shape + (size_t)k * n;
        for (int i = 0; i < n; i++) x[i] = creal((vre[i] + I * (vim ? vim[i] : 0.0)) * rot) / (best > 0 ? best : 1.0);
    }
done:
    if (st) kd_modes_free(out);
    kd_gband_free(&C);
    kd_gband_free(&K);
    free(A);
    free(B);
    free(ar);
    free(ai);
    free(be);
    free(vr);
    free(ent);
    return st;
}
