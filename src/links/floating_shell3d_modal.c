/* Modal reduction of a two-way shell link (kedyn/ffr3d.h, kd_ffr3d_add_shell_reduced; theory.md
 * sec. 22, SL9): the Craig-Bampton basis of sec. 17 F11 with the static vectors of F12, built from
 * the SPARSE matrices of the shell's model. The elastic coordinates q_f (the model's equations: the
 * mesh with its support set clamped to the frame) split into the boundary DOFs B (every DOF of a
 * free node a joint acts on) and the interior I;
 *     q_f = T x,  x = (q_B, eta, xi),  T = [I 0 0; Psi Phi Y],  Psi = -K_II^-1 K_IB,
 * Phi the lowest N modes of K_II phi = lambda M_II phi (shift-invert Lanczos on CHOLMOD's factor,
 * as the plate `modes`), Y the static responses K_II y = f_I to the distributed inertia loads of
 * the frame's motion (rows of S_N and X), M_II-orthogonalised against Phi and each other. The
 * invariants quadratic in q_f are projected element by element, T_e^T m_ij,e T_e and T_e^T k_e
 * summed over the elements (no n_f x n_f matrix is formed); S_N T and X T as for beams. Memory
 * O(n_f (N + n_B + 6)) plus the sparse factor. Set-up work, allocated once. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "floating3d_internal.h"
#include "kedyn/band.h"
#include "kedyn/model.h"
#include "kedyn/modes.h"

/* The submatrix of the symmetric A (upper compressed columns) on the interior DOFs (imap[i] >= 0). */
static kd_status sub_csc(const kd_csc* A, const int* imap, int nI, kd_csc* out) {
    kd_triplet t;
    memset(&t, 0, sizeof(t));
    t.nrow = t.ncol = nI;
    kd_status st = KD_OK;
    for (int j = 0; j < A->n && !st; j++)
        for (int k = A->p[j]; k < A->p[j + 1] && !st; k++)
            if (imap[A->i[k]] >= 0 && imap[j] >= 0) st = kd_triplet_add(&t, imap[A->i[k]], imap[j], A->x[k]);
    if (!st) st = kd_csc_from_triplet(&t, nI, out);
    kd_triplet_free(&t);
    return st;
}

/* Y (nr x nr, row-major) += Te^T A Te, A (nd x nd row-major), Te (nd x nr); w (nd x nr) scratch */
static void project_elem(const double* A, int nd, const double* Te, int nr, double* Y, double* w) {
    for (int a = 0; a < nd; a++) {
        double* wa = w + (size_t)a * nr;
        memset(wa, 0, sizeof(double) * (size_t)nr);
        for (int c = 0; c < nd; c++) {
            const double x = A[a * nd + c];
            if (x == 0.0) continue;
            const double* tc = Te + (size_t)c * nr;
            for (int r = 0; r < nr; r++) wa[r] += x * tc[r];
        }
    }
    for (int a = 0; a < nd; a++) {
        const double* ta = Te + (size_t)a * nr;
        const double* wa = w + (size_t)a * nr;
        for (int r = 0; r < nr; r++) {
            if (ta[r] == 0.0) continue;
            double* y = Y + (size_t)r * nr;
            for (int s = 0; s < nr; s++) y[s] += ta[r] * wa[s];
        }
    }
}

kd_status f3_shell_reduce(f3_body* b, const kd_model* md, const int* joint_nodes, int njoint_nodes, int augment,
                          kd_error* err) {
    const int nfull = b->nf, nn = b->nodes;
    int nB = 0, nI = 0;
    int* imap = malloc(sizeof(int) * ((size_t)nfull + 1));   /* full DOF -> interior index or -1 */
    int* bmap = malloc(sizeof(int) * ((size_t)nfull + 1));   /* full DOF -> boundary index or -1 */
    int* nc = malloc(sizeof(int) * 6 * (size_t)nn);
    int* boundary = calloc((size_t)nn, sizeof(int));
    if (!imap || !bmap || !nc || !boundary) {
        free(imap), free(bmap), free(nc), free(boundary);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    for (int k = 0; k < njoint_nodes; k++)
        if (joint_nodes[k] >= 0 && joint_nodes[k] < nn) boundary[joint_nodes[k]] = 1;
    /* the boundary DOFs first (in node order; they stay coordinates for the joints), then the modes */
    for (int k = 0; k < 6 * nn; k++) {
        const int c = b->node_coord[k];
        nc[k] = -1;
        if (c < 0) continue;
        if (boundary[k / 6]) bmap[c] = nB, imap[c] = -1, nc[k] = nB++;
        else bmap[c] = -1, imap[c] = nI++;
    }
    const int nL = augment && nI > 0 ? 6 : 0, nRHS = nB + nL;
    const int nm = b->shell_modes < nI - 1 ? b->shell_modes : nI - 1;
    kd_csc K = {0}, M = {0}, KII = {0}, MII = {0};
    kd_modes md_ = {0};
    double* R = calloc((size_t)nI * nRHS + 1, sizeof(double));   /* column-major: -K_IB, then f_I */
    double* Yv = malloc(sizeof(double) * ((size_t)nI * nL + 1));
    double* v1 = malloc(sizeof(double) * ((size_t)nI + 1));
    double *T = NULL, *SN = NULL, *X = NULL, *Mij = NULL, *Mff = NULL, *Kr = NULL, *zf = NULL;
    kd_status st = R && Yv && v1 ? KD_OK : kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    if (!st && nm < 1)
        st = kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "shell body '%s': %d interior DOFs leave no modes to keep",
                          b->name, nI);
    if (!st) st = kd_assemble_stiffness_mass_csc(md, &K, &M, err);
    if (!st && (sub_csc(&K, imap, nI, &KII) || sub_csc(&M, imap, nI, &MII)))
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    if (!st) {
        /* F11: -K_IB (both triangles of the stored upper one); F12: the interior rows of the loads
         * of the frame's translational accelerations (S_N) and of rho x e_i (X_xi) */
        for (int j = 0; j < K.n; j++)
            for (int k = K.p[j]; k < K.p[j + 1]; k++) {
                const int i = K.i[k];
                if (imap[i] >= 0 && bmap[j] >= 0) R[(size_t)bmap[j] * nI + (size_t)imap[i]] -= K.x[k];
                if (imap[j] >= 0 && bmap[i] >= 0) R[(size_t)bmap[i] * nI + (size_t)imap[j]] -= K.x[k];
            }
        for (int i = 0; i < nfull; i++)
            for (int l = 0; l < nL && imap[i] >= 0; l++)
                R[(size_t)(nB + l) * nI + (size_t)imap[i]] = l < 3 ? b->SN[(size_t)l * nfull + i] : b->X[(size_t)(l - 3) * nfull + i];
        if (nRHS > 0 && kd_csc_solve_spd(&KII, nRHS, R) != KD_OK)
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "shell body '%s': the constraint modes failed", b->name);
    }
    if (!st) {
        /* Phi: the lowest nm modes of the shell clamped at its support set and its joint nodes */
        md_.neq = nI, md_.count = nm;
        md_.lambda = malloc(sizeof(double) * (size_t)nm);
        md_.shape = malloc(sizeof(double) * (size_t)nm * nI);
        const double hint = md->body[0].lambda_hint;
        if (!md_.lambda || !md_.shape) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
        else if (kd_eigen_cholmod(&KII, &MII, nm, hint > 0 ? -0.1 * hint : 0.0, &md_, err))
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                              "shell body '%s': the modes of the shell clamped at its support and joint nodes failed", b->name);
    }
    int na = 0;
    for (int l = 0; !st && l < nL; l++) {
        /* F12: each static response M_II-orthogonal to the modes and the vectors before it
         * (Gram-Schmidt, twice), M_II-normalised, kept unless it lies in their span */
        double* y = Yv + (size_t)na * nI;
        memcpy(y, R + (size_t)(nB + l) * nI, sizeof(double) * (size_t)nI);
        double n0 = 0, n1 = 0;
        for (int pass = 0; pass < 3; pass++) {
            kd_csc_matvec(&MII, y, v1);
            double nrm = 0;
            for (int i = 0; i < nI; i++) nrm += y[i] * v1[i];
            if (pass == 0) n0 = nrm;
            if (pass == 2) {
                n1 = nrm;
                break;
            }
            for (int k = 0; k < nm + na; k++) {
                const double* v = k < nm ? md_.shape + (size_t)k * nI : Yv + (size_t)(k - nm) * nI;
                double c = 0;
                for (int i = 0; i < nI; i++) c += v[i] * v1[i];
                for (int i = 0; i < nI; i++) y[i] -= c * v[i];
            }
        }
        if (!(n0 > 0) || n1 < 1e-12 * n0) continue;
        for (int i = 0; i < nI; i++) y[i] /= sqrt(n1);
        na++;
    }
    const int nr = nB + nm + na;
    const size_t nr2 = (size_t)nr * nr;
    if (!st) {
        T = calloc((size_t)nfull * nr, sizeof(double));
        SN = malloc(sizeof(double) * 3 * (size_t)nr), X = malloc(sizeof(double) * 9 * (size_t)nr);
        Mij = calloc(9 * nr2, sizeof(double)), Mff = calloc(nr2, sizeof(double)), Kr = calloc(nr2, sizeof(double));
        zf = malloc(sizeof(double) * 2 * (size_t)nfull);
        if (!T || !SN || !X || !Mij || !Mff || !Kr || !zf) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    if (!st) {
        for (int i = 0; i < nfull; i++) {
            double* Ti = T + (size_t)i * nr;
            if (bmap[i] >= 0) {
                Ti[bmap[i]] = 1.0;
                continue;
            }
            const size_t x = (size_t)imap[i];
            for (int c = 0; c < nB; c++) Ti[c] = R[(size_t)c * nI + x];
            for (int m = 0; m < nm; m++) Ti[nB + m] = md_.shape[(size_t)m * nI + x];
            for (int a = 0; a < na; a++) Ti[nB + nm + a] = Yv[(size_t)a * nI + x];
        }
        f3_project1(T, nfull, nr, b->SN, 3, SN);
        f3_project1(T, nfull, nr, b->X, 9, X);
        /* SL9: m_ij and K_ff projected element by element (F1 on the basis) */
        double* Te = malloc(sizeof(double) * KD_ELEM_DOF_MAX * (size_t)nr);
        double* w = malloc(sizeof(double) * KD_ELEM_DOF_MAX * (size_t)nr);
        if (!Te || !w) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
        for (int e = 0; e < md->nelem && !st; e++) {
            const kd_element_props* p = &md->prop[md->elem_prop[e]];
            int eqs[KD_ELEM_DOF_MAX];
            const int nd = kd_model_elem_eqs(md, e, eqs);
            for (int a = 0; a < nd; a++) {
                if (eqs[a] >= 0) memcpy(Te + (size_t)a * nr, T + (size_t)eqs[a] * nr, sizeof(double) * (size_t)nr);
                else memset(Te + (size_t)a * nr, 0, sizeof(double) * (size_t)nr);
            }
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) project_elem(p->m_ij[i][j], nd, Te, nr, Mij + (size_t)(3 * i + j) * nr2, w);
            project_elem(p->k, nd, Te, nr, Kr, w);
        }
        free(Te), free(w);
        for (int i = 0; i < 3; i++)
            for (size_t k = 0; k < nr2; k++) Mff[k] += Mij[(size_t)(4 * i) * nr2 + k];
        /* the highest frequency of the reduced shell clamped at its frame (rk4's step bound) */
        double* Kc = malloc(sizeof(double) * nr2);
        double* Mc = malloc(sizeof(double) * nr2);
        double* ev = malloc(sizeof(double) * (size_t)nr);
        if (!Kc || !Mc || !ev) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
        else {
            memcpy(Kc, Kr, sizeof(double) * nr2), memcpy(Mc, Mff, sizeof(double) * nr2);
            b->omega_max = LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'N', 'U', nr, Kc, nr, Mc, nr, ev) == 0 ? sqrt(ev[nr - 1]) : 0.0;
        }
        free(Kc), free(Mc), free(ev);
    }
    if (!st) {
        free(b->SN), free(b->X), free(b->Mij), free(b->Mff), free(b->K);
        b->SN = SN, b->X = X, b->Mij = Mij, b->Mff = Mff, b->K = Kr;
        b->full_coord = b->node_coord, b->node_coord = nc;
        b->T = T, b->zfull = zf, b->nfull = nfull;
        b->nf = nr, b->size = KD_FFR3D_POSE + nr;
        SN = X = Mij = Mff = Kr = T = zf = NULL, nc = NULL;
        if (b->sgeo) st = f3_shell_geo_reduce(b, err);   /* SL10 */
    }
    kd_csc_free(&K), kd_csc_free(&M), kd_csc_free(&KII), kd_csc_free(&MII);
    free(md_.lambda), free(md_.shape);
    free(imap), free(bmap), free(nc), free(boundary), free(R), free(Yv), free(v1);
    free(T), free(SN), free(X), free(Mij), free(Mff), free(Kr), free(zf);
    return st;
}
