/* Modal reduction of a spatial floating-frame link (kedyn/ffr3d.h, kd_ffr3d_reduce; theory.md
 * sec. 17, F11): Craig-Bampton component modes in the floating frame. The elastic coordinates
 * q_f (the nodal DOFs of nodes 2..n, the frame clamped at node 1) are split into the boundary
 * DOFs B (all six DOFs of every node a joint acts on) and the interior I, and
 *     q_f = T x,  x = (q_B, eta),  T = [I 0; Psi Phi],  Psi = -K_II^-1 K_IB,
 * Phi the lowest N modes of K_II phi = lambda M_II phi (the link clamped at its frame and at the
 * joint nodes), M-normalised; with the geometric stiffness the mainly axial modes are left out
 * (the interior axial DOFs follow the joint nodes, F11). Every invariant that is linear or quadratic in q_f is projected
 * once here (S_N T, X T, T^T m_ij T, T^T M_ff T, T^T K T); the joints keep the boundary nodes'
 * DOFs as coordinates; the geometric stiffness (quartic in q_f) is evaluated through T per
 * evaluation (floating_body3d.c). Set-up work, allocated once. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "floating3d_internal.h"

/* Y (nr x nr, row-major) = T^T A T, A (nfull x nfull, row-major); w (nfull x nr) scratch */
static void project2(const double* T, int nfull, int nr, const double* A, double* Y, double* w) {
    for (int i = 0; i < nfull; i++)
        for (int b = 0; b < nr; b++) {
            double x = 0;
            for (int j = 0; j < nfull; j++) x += A[(size_t)i * nfull + j] * T[(size_t)j * nr + b];
            w[(size_t)i * nr + b] = x;
        }
    for (int a = 0; a < nr; a++)
        for (int b = 0; b < nr; b++) {
            double x = 0;
            for (int i = 0; i < nfull; i++) x += T[(size_t)i * nr + a] * w[(size_t)i * nr + b];
            Y[(size_t)a * nr + b] = x;
        }
}

/* y (rows x nr) = x (rows x nfull) T */
static void project1(const double* T, int nfull, int nr, const double* x, int rows, double* y) {
    for (int r = 0; r < rows; r++)
        for (int a = 0; a < nr; a++) {
            double v = 0;
            for (int i = 0; i < nfull; i++) v += x[(size_t)r * nfull + i] * T[(size_t)i * nr + a];
            y[(size_t)r * nr + a] = v;
        }
}

kd_status f3_body_reduce(f3_body* b, int modes, const int* boundary, kd_error* err) {
    const int nfull = b->nf, nn = b->nodes;
    int nB = 0;
    for (int n = 1; n < nn; n++) nB += boundary[n] ? 6 : 0;
    /* with the geometric stiffness the interior axial modes are left out (F11: the interior axial
     * DOFs follow the joint nodes' axial displacement, the slopes' stretch relaxed in U_g) */
    const int nI = nfull - nB, nIa = b->beam.geometric ? (nn - 1 - (nB / 6)) : 0;
    const int nm = modes < nI - nIa ? modes : nI - nIa, nr = nB + nm;
    int* bmap = malloc(sizeof(int) * (size_t)nfull);    /* full DOF -> B index or -(I index) - 1 */
    int* axial = calloc((size_t)nfull + 1, sizeof(int)); /* interior index -> 1: an axial u */
    int* pick = malloc(sizeof(int) * ((size_t)nI + 1));  /* the retained modes */
    int* nc = malloc(sizeof(int) * 6 * (size_t)nn);
    double* T = calloc((size_t)nfull * nr + 1, sizeof(double));
    double* KII = malloc(sizeof(double) * ((size_t)nI * nI + 1));
    double* MII = malloc(sizeof(double) * ((size_t)nI * nI + 1));
    double* KIB = malloc(sizeof(double) * ((size_t)nI * nB + 1));
    double* lam = malloc(sizeof(double) * ((size_t)nI + 1));
    double* w = malloc(sizeof(double) * ((size_t)nfull * nfull + 1));
    double* SN = malloc(sizeof(double) * 3 * (size_t)nr);
    double* X = malloc(sizeof(double) * 9 * (size_t)nr);
    double* Mij = malloc(sizeof(double) * 9 * (size_t)nr * nr);
    double* Mff = malloc(sizeof(double) * (size_t)nr * nr);
    double* K = malloc(sizeof(double) * (size_t)nr * nr);
    double* zf = malloc(sizeof(double) * 2 * (size_t)nfull);
    kd_status st = KD_OK;
    if (!bmap || !axial || !pick || !nc || !T || !KII || !MII || !KIB || !lam || !w || !SN || !X || !Mij || !Mff || !K || !zf)
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    if (!st) {
        /* the boundary DOFs first (in node order), then the modes */
        int ib = 0, ii = 0;
        for (int k = 0; k < 6 * nn; k++) {
            const int c = b->node_coord[k];
            nc[k] = -1;
            if (c < 0) continue;
            if (boundary[k / 6]) bmap[c] = ib, nc[k] = ib++;
            else axial[ii] = k % 6 == 0, bmap[c] = -(ii++) - 1;
        }
        for (int i = 0; i < nfull; i++)
            for (int j = 0; j < nfull; j++) {
                const int a = bmap[i], c = bmap[j];
                if (a >= 0) continue;
                const size_t x = (size_t)(-a - 1);
                if (c < 0) {
                    KII[x * nI + (size_t)(-c - 1)] = b->K[(size_t)i * nfull + j];
                    MII[x * nI + (size_t)(-c - 1)] = b->Mff[(size_t)i * nfull + j];
                } else
                    KIB[x * nB + (size_t)c] = -b->K[(size_t)i * nfull + j];
            }
        /* Phi: K_II phi = lambda M_II phi (ascending, M-normalised); KII, MII overwritten */
        if (nI > 0 && LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'V', 'U', nI, KII, nI, MII, nI, lam) != 0)
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "elastic body '%s': the modes of the link clamped at its frame and joint nodes failed",
                              b->name);
    }
    if (!st && nI > 0 && nB > 0) {
        /* Psi = -K_II^-1 K_IB from the K_II rebuilt (dsygv overwrote it) */
        for (int i = 0; i < nfull; i++)
            for (int j = 0; j < nfull; j++)
                if (bmap[i] < 0 && bmap[j] < 0)
                    MII[(size_t)(-bmap[i] - 1) * nI + (size_t)(-bmap[j] - 1)] = b->K[(size_t)i * nfull + j];
        if (LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', nI, nB, MII, nI, KIB, nB) != 0)
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "elastic body '%s': the constraint modes failed", b->name);
    }
    if (!st) {
        /* the lowest nm modes (with the geometric stiffness: of those not mainly axial) */
        for (int m = 0, k = 0; m < nI && k < nm; m++) {
            double ax = 0, all = 0;
            for (int i = 0; i < nI; i++) {
                const double v = KII[(size_t)i * nI + m] * KII[(size_t)i * nI + m];
                all += v, ax += axial[i] ? v : 0.0;
            }
            if (!nIa || ax < 0.5 * all) pick[k++] = m;
        }
        for (int i = 0; i < nfull; i++) {
            double* Ti = T + (size_t)i * nr;
            if (bmap[i] >= 0) {
                Ti[bmap[i]] = 1.0;
                continue;
            }
            const size_t x = (size_t)(-bmap[i] - 1);
            for (int c = 0; c < nB; c++) Ti[c] = KIB[x * nB + (size_t)c];
            for (int m = 0; m < nm; m++) Ti[nB + m] = KII[x * nI + (size_t)pick[m]];   /* eigenvector: a column */
        }
        const size_t nf2 = (size_t)nfull * nfull, nr2 = (size_t)nr * nr;
        project1(T, nfull, nr, b->SN, 3, SN);
        project1(T, nfull, nr, b->X, 9, X);
        for (int k = 0; k < 9; k++) project2(T, nfull, nr, b->Mij + k * nf2, Mij + k * nr2, w);
        project2(T, nfull, nr, b->Mff, Mff, w);
        project2(T, nfull, nr, b->K, K, w);
        /* the highest frequency of the reduced link clamped at its frame (the explicit step's bound) */
        memcpy(w, K, sizeof(double) * nr2);
        double* Mc = malloc(sizeof(double) * nr2);
        double* ev = malloc(sizeof(double) * (size_t)nr);
        if (!Mc || !ev) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
        else {
            memcpy(Mc, Mff, sizeof(double) * nr2);
            b->omega_max = LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'N', 'U', nr, w, nr, Mc, nr, ev) == 0 ? sqrt(ev[nr - 1]) : 0.0;
        }
        free(Mc), free(ev);
    }
    if (!st) {
        free(b->SN), free(b->X), free(b->Mij), free(b->Mff), free(b->K);
        b->SN = SN, b->X = X, b->Mij = Mij, b->Mff = Mff, b->K = K;
        b->full_coord = b->node_coord, b->node_coord = nc;
        b->T = T, b->zfull = zf, b->nfull = nfull;
        b->nf = nr, b->size = KD_FFR3D_POSE + nr;
        SN = X = Mij = Mff = K = T = zf = NULL, nc = NULL;
    }
    free(bmap), free(axial), free(pick), free(nc), free(T), free(KII), free(MII), free(KIB), free(lam), free(w);
    free(SN), free(X), free(Mij), free(Mff), free(K), free(zf);
    return st;
}

/* The full elastic coordinates q_f = T x (z: the body's elastic coordinates). */
const double* f3_body_expand(const f3_body* b, const double* z) {
    if (!b->T) return z;
    for (int i = 0; i < b->nfull; i++) {
        const double* Ti = b->T + (size_t)i * b->nf;
        double v = 0;
        for (int a = 0; a < b->nf; a++) v += Ti[a] * z[a];
        b->zfull[i] = v;
    }
    return b->zfull;
}
