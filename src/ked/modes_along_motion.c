/* Natural frequencies of an elastic link along the rigid motion of its
 * mechanism, followed by the modal assurance criterion (kedyn/ked.h). */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/ked.h"
#include "kedyn/system.h"

void kd_ked_modes_free(kd_ked_modes* m) {
    if (!m) return;
    free(m->t);
    free(m->omega);
    memset(m, 0, sizeof(*m));
}

/* Dense symmetric part of a general band matrix (column-major n x n). */
static void band_to_sym(const kd_gband* B, double* A) {
    const int n = B->n, ld = B->kl + B->ku + 1;
    memset(A, 0, sizeof(double) * (size_t)n * (size_t)n);
    for (int j = 0; j < n; j++) {
        const int i0 = j - B->ku > 0 ? j - B->ku : 0, i1 = j + B->kl < n - 1 ? j + B->kl : n - 1;
        for (int i = i0; i <= i1; i++) {
            const double v = 0.5 * B->ab[B->ku + i - j + (size_t)j * ld];
            A[i + (size_t)j * n] += v;
            A[j + (size_t)i * n] += v;
        }
    }
}

kd_status kd_ked_modes_along_motion(kd_ked* k, int link, int count, kd_ked_modes* out, kd_error* err) {
    memset(out, 0, sizeof(*out));
    kd_ked_link* L = &k->link[link];
    kd_system s;
    kd_status st = kd_system_init(&s, L->model, err);
    if (st) return st;
    const int n = s.n, ns = k->rigid.nsamples;
    if (count > n) count = n;
    const int nev = count + 2 < n ? count + 2 : n;  /* two more, so a mode entering from above is followed */
    const size_t nn = (size_t)n * (size_t)n;
    kd_gband C = {0}, K = {0};
    double* buf = malloc(sizeof(double) * (4 * nn + 8 * (size_t)n + (size_t)n * (3 * (size_t)nev + 1) + (size_t)(count * nev) + 1));
    lapack_int* iwork = malloc(sizeof(lapack_int) * 6 * (size_t)n);
    out->t = malloc(sizeof(double) * (size_t)ns);
    out->omega = malloc(sizeof(double) * (size_t)ns * (size_t)count);
    if (!st) st = kd_gband_init(&C, n, s.kd, s.kd);
    if (!st) st = kd_gband_init(&K, n, s.kd, s.kd);
    if (!st && (!buf || !iwork || !out->t || !out->omega)) st = KD_ERR_NOMEM;
    double *A = buf, *B = A + nn, *M = B + nn, *work = M + nn, *w = work + nn + 8 * (size_t)n, *Z = w + n, *MZ = Z + (size_t)n * nev,
           *prev = MZ + (size_t)n * nev, *G = prev + (size_t)n * nev;
    lapack_int *ifail = iwork + 5 * (size_t)n, m_found = 0;
    const lapack_int lwork = (lapack_int)(nn + 8 * (size_t)n);  /* dsygvx needs 8n */
    if (!st) {
        band_to_sym(&s.M, M);
        out->nsamples = ns, out->count = count;
        out->mac_min = 1.0;
    }
    int* perm = calloc((size_t)nev, sizeof(int));
    int* used = calloc((size_t)(nev + count), sizeof(int));  /* new modes taken, then followed modes served */
    if (!st && (!perm || !used)) st = KD_ERR_NOMEM;
    if (st == KD_ERR_NOMEM) kd_error_set(err, st, "", KD_LOC_NONE, "out of memory");
    for (int i = 0; i < ns && !st; i++) {
        const double t = k->rigid.t[i];
        double N, dN, d2N;
        kd_law_eval(&L->preload, t, &N, &dN, &d2N);
        L->model->body[0].preload = N;
        kd_system_invalidate(&s);
        int changed;
        kd_system_matrices(&s, t, &C, &K, &changed);
        band_to_sym(&K, A);
        memcpy(B, M, sizeof(double) * nn);
        const lapack_int info =
            LAPACKE_dsygvx_work(LAPACK_COL_MAJOR, 1, 'V', 'I', 'U', n, A, n, B, n, 0.0, 0.0, 1, nev, 0.0, &m_found, w, Z,
                                n, work, lwork, iwork, ifail);
        if (info != 0 || m_found < nev) {
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                              "modes of link '%s' at t = %g s: the eigensolver failed (LAPACK dsygvx info %d)", L->name,
                              t, (int)info);
            break;
        }
        out->t[i] = t;
        if (i == 0) {
            for (int c = 0; c < nev; c++) perm[c] = c;
        } else {
            /* MAC of the followed shapes against the new ones: G = prev^T M Z (mass-normalised) */
            for (int c = 0; c < nev; c++)
                for (int r = 0; r < n; r++) {
                    double sum = 0.0;
                    for (int x = 0; x < n; x++) sum += M[r + (size_t)x * n] * Z[x + (size_t)c * n];
                    MZ[r + (size_t)c * n] = sum;
                }
            for (int p = 0; p < count; p++)
                for (int c = 0; c < nev; c++) {
                    double sum = 0.0;
                    for (int r = 0; r < n; r++) sum += prev[r + (size_t)p * n] * MZ[r + (size_t)c * n];
                    G[p + (size_t)c * count] = sum;
                }
            /* greedy assignment: the best remaining pair first */
            memset(used, 0, sizeof(int) * (size_t)(nev + count));
            int* assigned = used + nev;
            for (int step = 0; step < count; step++) {
                double best = -1.0;
                int bp = 0, bc = 0;
                for (int p = 0; p < count; p++) {
                    if (assigned[p]) continue;
                    for (int c = 0; c < nev; c++) {
                        const double mac = G[p + (size_t)c * count] * G[p + (size_t)c * count];
                        if (!used[c] && mac > best) best = mac, bp = p, bc = c;
                    }
                }
                assigned[bp] = 1;
                used[bc] = 1;
                perm[bp] = bc;
                if (best < out->mac_min) out->mac_min = best;
            }
            int swapped = 0;
            for (int p = 0; p < count; p++) swapped |= perm[p] != p;
            out->swaps += swapped;
        }
        /* keep the followed shapes, signs aligned with the previous instant */
        for (int p = 0; p < count; p++) {
            const int c = perm[p];
            const double sg = (i > 0 && G[p + (size_t)c * count] < 0) ? -1.0 : 1.0;
            for (int r = 0; r < n; r++) prev[r + (size_t)p * n] = sg * Z[r + (size_t)c * n];
            out->omega[(size_t)i * count + p] = sqrt(fmax(w[c], 0.0));
        }
    }
    free(perm);
    free(used);
    free(buf);
    free(iwork);
    kd_gband_free(&C);
    kd_gband_free(&K);
    kd_system_free(&s);
    if (st) kd_ked_modes_free(out);
    return st;
}
