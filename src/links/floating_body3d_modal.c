/* Modal reduction of a spatial floating-frame link (kedyn/ffr3d.h, kd_ffr3d_reduce; theory.md
 * sec. 17, F11): Craig-Bampton component modes in the floating frame. The elastic coordinates
 * q_f (the nodal DOFs of nodes 2..n, the frame clamped at node 1) are split into the boundary
 * DOFs B (all six DOFs of every node a joint acts on) and the interior I, and
 *     q_f = T x,  x = (q_B, eta),  T = [I 0; Psi Phi],  Psi = -K_II^-1 K_IB,
 * Phi the lowest N modes of K_II phi = lambda M_II phi (the link clamped at its frame and at the
 * joint nodes), M-normalised; with the geometric stiffness the mainly axial modes are left out
 * (the interior axial DOFs follow the joint nodes, F11). F12: then the static responses of the
 * same clamped link to the distributed inertia loads of the frame's motion (K_II y = f_I: the
 * rows of S_N and X_x., up to 6), M_II-orthogonal to the kept modes and M-normalised. Every
 * invariant that is linear or quadratic in q_f is projected once here (S_N T, X T, T^T m_ij T,
 * T^T M_ff T, T^T K T); the joints keep the boundary nodes' DOFs as coordinates; the geometric
 * stiffness (quartic in q_f) is evaluated through T per evaluation (floating_body3d.c) with the
 * projector onto the basis' axial strain fields (F12). Set-up work, allocated once. */
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
void f3_project1(const double* T, int nfull, int nr, const double* x, int rows, double* y) {
    for (int r = 0; r < rows; r++)
        for (int a = 0; a < nr; a++) {
            double v = 0;
            for (int i = 0; i < nfull; i++) v += x[(size_t)r * nfull + i] * T[(size_t)i * nr + a];
            y[(size_t)r * nr + a] = v;
        }
}

/* F12: P (ne x ne, row-major) = U U^T, U an orthonormal basis of the element axial strain fields
 * (u_{e+1} - u_e) / h of the columns of T (the uniform elements' weight h drops out). */
static kd_status axial_projector(f3_body* b, const double* T, int nr, kd_error* err) {
    const int ne = b->nodes - 1;
    double* E = calloc((size_t)ne * nr + 1, sizeof(double));
    double* sv = malloc(sizeof(double) * ((size_t)ne + (size_t)nr + 1));
    double* U = malloc(sizeof(double) * ((size_t)ne * ne + 1));
    double* sup = malloc(sizeof(double) * ((size_t)ne + (size_t)nr + 1));
    b->Pm = calloc((size_t)ne * ne, sizeof(double));
    b->sw = calloc(2 * (size_t)ne, sizeof(double));
    kd_status st = KD_OK;
    if (!E || !sv || !U || !sup || !b->Pm || !b->sw) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    for (int e = 0; e < ne && !st; e++) {
        const int c1 = b->node_coord[6 * e], c2 = b->node_coord[6 * (e + 1)];
        for (int a = 0; a < nr; a++)
            E[(size_t)e * nr + a] = ((c2 >= 0 ? T[(size_t)c2 * nr + a] : 0.0) - (c1 >= 0 ? T[(size_t)c1 * nr + a] : 0.0)) / b->Le;
    }
    if (!st && LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'A', 'N', ne, nr, E, nr, sv, U, ne, NULL, 1, sup) != 0)
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "elastic body '%s': the axial strain fields of the basis failed", b->name);
    if (!st) {
        const int ns = ne < nr ? ne : nr;
        int rank = 0;
        while (rank < ns && sv[rank] > 1e-8 * sv[0]) rank++;
        for (int i = 0; i < ne; i++)
            for (int j = 0; j < ne; j++) {
                double x = 0;
                for (int k = 0; k < rank; k++) x += U[(size_t)i * ne + k] * U[(size_t)j * ne + k];
                b->Pm[(size_t)i * ne + j] = x;
            }
    }
    free(E), free(sv), free(U), free(sup);
    return st;
}

kd_status f3_body_reduce(f3_body* b, int modes, const int* boundary, int augment, kd_error* err) {
    const int nfull = b->nf, nn = b->nodes;
    int nB = 0;
    for (int n = 1; n < nn; n++) nB += boundary[n] ? 6 : 0;
    /* with the geometric stiffness the interior axial modes are left out (F11: the interior axial
     * DOFs follow the joint nodes' axial displacement and the static vectors of F12) */
    const int nI = nfull - nB, nIa = b->beam.geometric ? (nn - 1 - (nB / 6)) : 0;
    /* F12: the loads of the frame's translational accelerations (rows of S_N) and of the
     * distributions rho x e_i of its angular accelerations and centrifugal field (X_xi) */
    const int nL = augment && nI > 0 ? 6 : 0;
    const int nm = modes < nI - nIa ? modes : nI - nIa, nrmax = nB + nm + nL;
    int nr = nB + nm, na = 0;
    int* bmap = malloc(sizeof(int) * (size_t)nfull);    /* full DOF -> B index or -(I index) - 1 */
    int* axial = calloc((size_t)nfull + 1, sizeof(int)); /* interior index -> 1: an axial u */
    int* pick = malloc(sizeof(int) * ((size_t)nI + 1));  /* the retained modes */
    int* nc = malloc(sizeof(int) * 6 * (size_t)nn);
    double* T = calloc((size_t)nfull * nrmax + 1, sizeof(double));
    double* KII = malloc(sizeof(double) * ((size_t)nI * nI + 1));
    double* MII = malloc(sizeof(double) * ((size_t)nI * nI + 1));
    double* KIB = calloc((size_t)nI * (nB + nL) + 1, sizeof(double));   /* then Psi and the static vectors */
    double* Y = malloc(sizeof(double) * ((size_t)nI * (nL + 1) + 1));   /* the retained static vectors */
    double* MY = malloc(sizeof(double) * ((size_t)nI + 1));
    double* lam = malloc(sizeof(double) * ((size_t)nI + 1));
    double* w = malloc(sizeof(double) * ((size_t)nfull * nfull + 1));
    double* SN = malloc(sizeof(double) * 3 * (size_t)nrmax);
    double* X = malloc(sizeof(double) * 9 * (size_t)nrmax);
    double* Mij = malloc(sizeof(double) * 9 * (size_t)nrmax * nrmax);
    double* Mff = malloc(sizeof(double) * (size_t)nrmax * nrmax);
    double* K = malloc(sizeof(double) * (size_t)nrmax * nrmax);
    double* zf = malloc(sizeof(double) * 2 * (size_t)nfull);
    kd_status st = KD_OK;
    if (!bmap || !axial || !pick || !nc || !T || !KII || !MII || !KIB || !Y || !MY || !lam || !w || !SN || !X || !Mij ||
        !Mff || !K || !zf)
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    const int nRHS = nB + nL;
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
        for (int i = 0; i < nfull; i++) {
            const int a = bmap[i];
            if (a >= 0) continue;
            const size_t x = (size_t)(-a - 1);
            for (int j = 0; j < nfull; j++) {
                const int c = bmap[j];
                if (c < 0) {
                    KII[x * nI + (size_t)(-c - 1)] = b->K[(size_t)i * nfull + j];
                    MII[x * nI + (size_t)(-c - 1)] = b->Mff[(size_t)i * nfull + j];
                } else
                    KIB[x * nRHS + (size_t)c] = -b->K[(size_t)i * nfull + j];
            }
            /* F12: the distributed loads, their interior rows */
            for (int l = 0; l < nL; l++) KIB[x * nRHS + (size_t)(nB + l)] = l < 3 ? b->SN[(size_t)l * nfull + i] : b->X[(size_t)(l - 3) * nfull + i];
        }
        /* Phi: K_II phi = lambda M_II phi (ascending, M-normalised); KII, MII overwritten */
        if (nI > 0 && LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'V', 'U', nI, KII, nI, MII, nI, lam) != 0)
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "elastic body '%s': the modes of the link clamped at its frame and joint nodes failed",
                              b->name);
    }
    if (!st && nI > 0 && nRHS > 0) {
        /* Psi = -K_II^-1 K_IB and the static responses K_II^-1 f_I from the K_II rebuilt (dsygv overwrote it) */
        for (int i = 0; i < nfull; i++)
            for (int j = 0; j < nfull; j++)
                if (bmap[i] < 0 && bmap[j] < 0)
                    MII[(size_t)(-bmap[i] - 1) * nI + (size_t)(-bmap[j] - 1)] = b->K[(size_t)i * nfull + j];
        if (LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', nI, nRHS, MII, nI, KIB, nRHS) != 0)
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
        /* F12: each static response made M_II-orthogonal to the kept modes and to the vectors
         * before it (Gram-Schmidt, twice), M_II-normalised, and kept unless it lies in their span */
        for (int i = 0; i < nfull && nL; i++)   /* M_II again (dsygv and dposv overwrote it) */
            for (int j = 0; j < nfull; j++)
                if (bmap[i] < 0 && bmap[j] < 0)
                    MII[(size_t)(-bmap[i] - 1) * nI + (size_t)(-bmap[j] - 1)] = b->Mff[(size_t)i * nfull + j];
        for (int l = 0; l < nL; l++) {
            double* y = Y + (size_t)na * nI;
            double ax = 0, all = 0;
            for (int i = 0; i < nI; i++) {
                y[i] = KIB[(size_t)i * nRHS + (size_t)(nB + l)];
                all += y[i] * y[i], ax += axial[i] ? y[i] * y[i] : 0.0;
            }
            /* augment 2 (`static_correction: soft`, F12): the mainly axial responses to the linearly
             * growing loads left out, the stiff ones that set the reduced link's top frequency */
            if (augment == 2 && l >= 3 && ax >= 0.5 * all) continue;
            double n0 = 0, n1 = 0;
            for (int pass = 0; pass < 3; pass++) {
                for (int i = 0; i < nI; i++) {
                    double v = 0;
                    for (int j = 0; j < nI; j++) v += MII[(size_t)i * nI + j] * y[j];
                    MY[i] = v;
                }
                double nrm = 0;
                for (int i = 0; i < nI; i++) nrm += y[i] * MY[i];
                if (pass == 0) n0 = nrm;
                if (pass == 2) {
                    n1 = nrm;
                    break;
                }
                for (int k = 0; k < nm + na; k++) {
                    const double* v = k < nm ? KII + pick[k] : Y + (size_t)(k - nm) * nI;
                    const size_t stride = k < nm ? (size_t)nI : 1;
                    double c = 0;
                    for (int i = 0; i < nI; i++) c += v[i * stride] * MY[i];
                    for (int i = 0; i < nI; i++) y[i] -= c * v[i * stride];
                }
            }
            if (!(n0 > 0) || n1 < 1e-12 * n0) continue;   /* in the span of the basis */
            for (int i = 0; i < nI; i++) y[i] /= sqrt(n1);
            na++;
        }
        nr = nB + nm + na;
        for (int i = 0; i < nfull; i++) {
            double* Ti = T + (size_t)i * nr;
            if (bmap[i] >= 0) {
                Ti[bmap[i]] = 1.0;
                continue;
            }
            const size_t x = (size_t)(-bmap[i] - 1);
            for (int c = 0; c < nB; c++) Ti[c] = KIB[x * nRHS + (size_t)c];
            for (int m = 0; m < nm; m++) Ti[nB + m] = KII[x * nI + (size_t)pick[m]];   /* eigenvector: a column */
            for (int a = 0; a < na; a++) Ti[nB + nm + a] = Y[(size_t)a * nI + x];
        }
        const size_t nf2 = (size_t)nfull * nfull, nr2 = (size_t)nr * nr;
        f3_project1(T, nfull, nr, b->SN, 3, SN);
        f3_project1(T, nfull, nr, b->X, 9, X);
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
    if (!st && b->beam.geometric) st = axial_projector(b, T, nr, err);
    if (!st) {
        free(b->SN), free(b->X), free(b->Mij), free(b->Mff), free(b->K);
        b->SN = SN, b->X = X, b->Mij = Mij, b->Mff = Mff, b->K = K;
        b->full_coord = b->node_coord, b->node_coord = nc;
        b->T = T, b->zfull = zf, b->nfull = nfull;
        b->nf = nr, b->size = KD_FFR3D_POSE + nr;
        SN = X = Mij = Mff = K = T = zf = NULL, nc = NULL;
    }
    free(bmap), free(axial), free(pick), free(nc), free(T), free(KII), free(MII), free(KIB), free(Y), free(MY), free(lam), free(w);
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
