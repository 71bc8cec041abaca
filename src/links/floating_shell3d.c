/* A shell link as a floating-frame body of a spatial mechanism (kedyn/ffr3d.h; theory.md sec. 22,
 * SL6): the body invariants of sec. 17 F1 summed once from the shell elements' own inertia
 * invariants (sec. 10.7, 10.8), each element about its origin r0 (its first node, body frame);
 * the frame is the body frame with the nodes of the link's support set clamped to it. F3-F5
 * (floating_body3d.c) are then evaluated unchanged, with the membrane stress stiffening of SL8 when
 * the body's geometric_stiffness is on. Dense storage: n_f elastic coordinates cost
 * 9 n_f^2 doubles and O(9 n_f^2) per evaluation. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "floating3d_internal.h"
#include "kedyn/csc_factor.h"
#include "kedyn/model.h"

/* SL8: the membrane stress stiffening of a two-way shell. Per element record (elements sharing one
 * record share its points): at each point of the element's own rule the weight w det J, the
 * membrane strain rows B_m (3 x nd) and the displacement-gradient rows G_dc (d = 0, 1 in-plane, c =
 * 0..2, the own axes; the rows k_g of the fe layer is built from), then D_m (3 x 3). */
typedef struct f3_shell_geo {
    int nelem;
    int* elem_rec;                /* (nelem) record of each element */
    int* elem_nd;                 /* (nelem) element DOFs */
    int* elem_eq;                 /* (nelem x KD_ELEM_DOF_MAX) elastic index of each DOF, -1 held */
    int* rec_npt;                 /* (nrec) points */
    size_t* rec_off;              /* (nrec) first double of the record in data */
    double* data;                 /* per point: w det J, B_m (3 nd), G (6 nd); then D_m (9) */
    double qe[KD_ELEM_DOF_MAX], fe[KD_ELEM_DOF_MAX];   /* work of one element */
    /* SL10 (a reduced shell, n_r coordinates): S = G^+ (n_r x n_r), r and s (n_r each, one block),
     * zs and y (n_full each, one block), the factor of K_m */
    double *S, *r, *s, *zs, *y;
    kd_csc_factor* Km;
} f3_shell_geo;

void f3_shell_geo_free(f3_shell_geo* g) {
    if (!g) return;
    free(g->elem_rec), free(g->elem_nd), free(g->elem_eq), free(g->rec_npt), free(g->rec_off), free(g->data);
    free(g->S), free(g->r), free(g->zs);
    kd_csc_factor_free(&g->Km);
    free(g);
}

static kd_status shell_geo_init(f3_body* b, const kd_model* md, kd_error* err) {
    f3_shell_geo* g = b->sgeo = calloc(1, sizeof(*g));
    kd_element_point* pt = malloc(sizeof(*pt));
    const int ne = md->nelem, nr = md->nprop;
    if (g) {
        g->nelem = ne;
        g->elem_rec = malloc(sizeof(int) * (size_t)ne), g->elem_nd = malloc(sizeof(int) * (size_t)ne);
        g->elem_eq = malloc(sizeof(int) * (size_t)ne * KD_ELEM_DOF_MAX);
        g->rec_npt = calloc((size_t)nr, sizeof(int)), g->rec_off = calloc((size_t)nr, sizeof(size_t));
    }
    if (!g || !pt || !g->elem_rec || !g->elem_nd || !g->elem_eq || !g->rec_npt || !g->rec_off) {
        free(pt);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    size_t total = 0;
    for (int r = 0; r < nr; r++) {
        const kd_element_props* p = &md->prop[r];
        g->rec_npt[r] = p->family->quadrature(p)->n;
        g->rec_off[r] = total;
        total += (size_t)g->rec_npt[r] * (1 + 9 * (size_t)p->ndof) + 9;
    }
    g->data = malloc(sizeof(double) * (total + 1));
    if (!g->data) {
        free(pt);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    for (int r = 0; r < nr; r++) {
        const kd_element_props* p = &md->prop[r];
        const kd_quadrature* q = p->family->quadrature(p);
        const int nd = p->ndof, ns = p->nstrain;
        double* o = g->data + g->rec_off[r];
        for (int k = 0; k < q->n; k++) {
            p->family->eval(p, q->xi[k], pt);
            *o++ = q->w[k] * pt->measure;
            for (int i = 0; i < 3; i++, o += nd) memcpy(o, pt->B[i], sizeof(double) * (size_t)nd);
            for (int d = 0; d < 2; d++)
                for (int c = 0; c < 3; c++, o += nd) memcpy(o, pt->G[d][c], sizeof(double) * (size_t)nd);
        }
        for (int i = 0; i < 3; i++)   /* the membrane rows come first (shell strain rows, sec. 10.7) */
            for (int j = 0; j < 3; j++) *o++ = p->D[i * ns + j];
    }
    free(pt);
    for (int e = 0; e < ne; e++) {
        g->elem_rec[e] = md->elem_prop[e];
        g->elem_nd[e] = kd_model_elem_eqs(md, e, g->elem_eq + (size_t)e * KD_ELEM_DOF_MAX);
    }
    return KD_OK;
}

/* SL8: with the in-plane Green-Lagrange strain e = e_l + e_n, e_l = B_m q, e_n = (G_0.G_0, G_1.G_1,
 * 2 G_0.G_1) / 2 (G_d = (G_dc q)_c), N = D_m e, the energy beyond q^T K q / 2 is
 *   U_g = sum_e int (e_l^T D_m e_n + e_n^T D_m e_n / 2) dA,
 * and the force -dU_g/dq = -sum_e int (B_m^T D_m e_n + k_g(N) q) dA, k_g(N) q = sum_c sum_de N_de
 * G_dc^T (G_ec q) (theory.md sec. 5.7, the pre-stress stiffness of the current resultants).
 * One pass over the elements at the full coordinates z into F (full, may be NULL) and *U:
 *   mode 0 (SL8): F -= the force above, U = U_g;
 *   mode 1 (SL10): F += int B_m^T D_m e_n dA (the stretch of the slopes as a membrane load), U =
 *   int e_n^T D_m e_n dA / 2;
 *   mode 2 (SL10): F += int k_g(N*) q dA, N* = D_m (e_l + B_m zs + e_n) (zs: the relaxation's field). */
static double geo_pass(const f3_body* b, int mode, const double* z, const double* zs, double* F) {
    f3_shell_geo* g = b->sgeo;
    double u = 0;
    for (int e = 0; e < g->nelem; e++) {
        const int nd = g->elem_nd[e], r = g->elem_rec[e];
        const int* eq = g->elem_eq + (size_t)e * KD_ELEM_DOF_MAX;
        int any = 0;
        for (int a = 0; a < nd; a++) {
            g->qe[a] = eq[a] >= 0 ? z[eq[a]] : 0.0, g->fe[a] = 0.0;
            any |= g->qe[a] != 0.0;
        }
        if (!any) continue;
        double ze[KD_ELEM_DOF_MAX];
        for (int a = 0; a < nd && mode == 2; a++) ze[a] = eq[a] >= 0 ? zs[eq[a]] : 0.0;
        const int npt = g->rec_npt[r];
        const double* o = g->data + g->rec_off[r];
        const double* D = o + (size_t)npt * (1 + 9 * (size_t)nd);
        for (int k = 0; k < npt; k++, o += 1 + 9 * (size_t)nd) {
            const double w = o[0];
            const double* B = o + 1;
            const double* G = B + 3 * (size_t)nd;
            double el[3] = {0, 0, 0}, gr[6];
            for (int i = 0; i < 3 && mode != 1; i++) {
                double x = 0;
                for (int a = 0; a < nd; a++) x += B[(size_t)i * nd + a] * (mode == 2 ? g->qe[a] + ze[a] : g->qe[a]);
                el[i] = x;
            }
            for (int i = 0; i < 6; i++) {
                double x = 0;
                for (int a = 0; a < nd; a++) x += G[(size_t)i * nd + a] * g->qe[a];
                gr[i] = x;
            }
            const double en[3] = {0.5 * (gr[0] * gr[0] + gr[1] * gr[1] + gr[2] * gr[2]),
                                  0.5 * (gr[3] * gr[3] + gr[4] * gr[4] + gr[5] * gr[5]),
                                  gr[0] * gr[3] + gr[1] * gr[4] + gr[2] * gr[5]};
            double Nn[3], N[3];
            for (int i = 0; i < 3; i++) {
                Nn[i] = D[3 * i] * en[0] + D[3 * i + 1] * en[1] + D[3 * i + 2] * en[2];
                N[i] = Nn[i] + D[3 * i] * el[0] + D[3 * i + 1] * el[1] + D[3 * i + 2] * el[2];
            }
            if (mode == 2) Nn[0] = Nn[1] = Nn[2] = 0.0;   /* k_g(N*) q only */
            if (mode == 0)
                u += w * (el[0] * Nn[0] + el[1] * Nn[1] + el[2] * Nn[2] + 0.5 * (en[0] * Nn[0] + en[1] * Nn[1] + en[2] * Nn[2]));
            if (mode == 1) u += 0.5 * w * (en[0] * Nn[0] + en[1] * Nn[1] + en[2] * Nn[2]);
            if (!F) continue;
            /* (N_x, N_xy; N_xy, N_y) times the gradients: the coefficients of G_0c and G_1c */
            double c0[3], c1[3];
            for (int c = 0; c < 3; c++) c0[c] = N[0] * gr[c] + N[2] * gr[3 + c], c1[c] = N[2] * gr[c] + N[1] * gr[3 + c];
            for (int a = 0; a < nd; a++) {
                double f = B[a] * Nn[0] + B[nd + a] * Nn[1] + B[2 * (size_t)nd + a] * Nn[2];
                for (int c = 0; c < 3 && mode != 1; c++) f += G[(size_t)c * nd + a] * c0[c] + G[(size_t)(3 + c) * nd + a] * c1[c];
                g->fe[a] += w * f;
            }
        }
        if (F)
            for (int a = 0; a < nd; a++)
                if (eq[a] >= 0) F[eq[a]] += mode == 0 ? -g->fe[a] : g->fe[a];
    }
    return u;
}

/* SL10 at q_f = T x: the stretch of the slopes e_n as a membrane load r_f = int B_m^T D_m e_n; the
 * relaxation the full mesh's in-plane coordinates would give it, y = K_m^-1 r_f (K_m = int B_m^T
 * D_m B_m, factored once), less the one the basis gives it dynamically, s = G^+ r, r = T^T r_f
 * (G = T^T K_m T); with `field`, the relaxation field zs = T s - y. Returns
 *   U_g = x.r + r.s / 2 + int e_n^T D_m e_n / 2 - r_f.y / 2. */
static double relaxation(const f3_body* b, const double* zr, const double* z, int field) {
    f3_shell_geo* g = b->sgeo;
    const int nf = b->nf, nfull = b->nfull;
    double* F = b->zfull + nfull;
    memset(F, 0, sizeof(double) * (size_t)nfull);
    double u = geo_pass(b, 1, z, NULL, F);
    memcpy(g->y, F, sizeof(double) * (size_t)nfull);
    kd_csc_factor_solve(g->Km, g->y);   /* kept factor and workspaces: no allocation */
    for (int a = 0; a < nf; a++) g->r[a] = 0.0;
    for (int i = 0; i < nfull; i++) {
        const double* Ti = b->T + (size_t)i * nf;
        u -= 0.5 * F[i] * g->y[i];
        if (F[i] != 0.0)
            for (int a = 0; a < nf; a++) g->r[a] += Ti[a] * F[i];
    }
    for (int a = 0; a < nf; a++) {
        double x = 0;
        for (int c = 0; c < nf; c++) x += g->S[(size_t)a * nf + c] * g->r[c];
        g->s[a] = x, u += zr[a] * g->r[a] + 0.5 * g->r[a] * x;
    }
    for (int i = 0; field && i < nfull; i++) {
        const double* Ti = b->T + (size_t)i * nf;
        double x = -g->y[i];
        for (int a = 0; a < nf; a++) x += Ti[a] * g->s[a];
        g->zs[i] = x;
    }
    return u;
}

void f3_shell_geometric_force(const f3_body* b, const double* zr, double* Qr, double* U) {
    if (!b->T) {   /* SL8 */
        const double u = geo_pass(b, 0, zr, NULL, Qr);
        if (U) *U = u;
        return;
    }
    /* SL10: Q_r -= r + T^T int k_g(N*) q,   N* = D_m (e_l + B_m (T s - y) + e_n) */
    const f3_shell_geo* g = b->sgeo;
    const int nf = b->nf, nfull = b->nfull;
    const double* z = f3_body_expand(b, zr);
    const double u = relaxation(b, zr, z, Qr != NULL);
    if (U) *U = u;
    if (!Qr) return;
    double* F = b->zfull + nfull;
    memset(F, 0, sizeof(double) * (size_t)nfull);
    geo_pass(b, 2, z, g->zs, F);
    for (int a = 0; a < nf; a++) Qr[a] -= g->r[a];
    for (int i = 0; i < nfull; i++) {
        const double* Ti = b->T + (size_t)i * nf;
        if (F[i] != 0.0)
            for (int a = 0; a < nf; a++) Qr[a] -= Ti[a] * F[i];
    }
}

const double* f3_shell_relaxation(const f3_body* b, const double* zr) {
    if (!b->T || !b->sgeo || !b->sgeo->Km) return NULL;
    relaxation(b, zr, f3_body_expand(b, zr), 1);
    return b->sgeo->zs;
}

/* SL10: K_m = sum_e sum_p w B_m^T D_m B_m on the full coordinates (the same points as U_g), its
 * equations without membrane strain (the bending DOFs of a flat mesh) set to 1, factored once. A
 * shell off its plane whose K_m is singular (inextensional fields) is factored with 1e-10 of its
 * largest diagonal added: r_f lies in K_m's range and only B_m y enters, so that costs nothing. */
static kd_status membrane_factor(f3_body* b, kd_error* err) {
    f3_shell_geo* g = b->sgeo;
    const int n = b->nfull;
    kd_triplet t;
    memset(&t, 0, sizeof(t));
    t.nrow = t.ncol = n;
    kd_csc K = {0};
    double* diag = calloc((size_t)n + 1, sizeof(double));
    double ke[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    kd_status st = diag ? KD_OK : KD_ERR_NOMEM;
    for (int e = 0; e < g->nelem && !st; e++) {
        const int nd = g->elem_nd[e], r = g->elem_rec[e];
        const int* eq = g->elem_eq + (size_t)e * KD_ELEM_DOF_MAX;
        const int npt = g->rec_npt[r];
        const double* o = g->data + g->rec_off[r];
        const double* D = o + (size_t)npt * (1 + 9 * (size_t)nd);
        memset(ke, 0, sizeof(double) * (size_t)nd * nd);
        for (int k = 0; k < npt; k++, o += 1 + 9 * (size_t)nd) {
            const double w = o[0], *B = o + 1;
            for (int a = 0; a < nd; a++) {
                double DB[3];
                for (int i = 0; i < 3; i++)
                    DB[i] = D[3 * i] * B[a] + D[3 * i + 1] * B[nd + a] + D[3 * i + 2] * B[2 * (size_t)nd + a];
                for (int c = 0; c < nd; c++)
                    ke[a * nd + c] += w * (B[c] * DB[0] + B[nd + c] * DB[1] + B[2 * (size_t)nd + c] * DB[2]);
            }
        }
        for (int a = 0; a < nd && !st; a++)
            for (int c = 0; c < nd && !st; c++)
                if (eq[a] >= 0 && eq[c] >= 0 && eq[a] <= eq[c] && ke[a * nd + c] != 0.0) {
                    st = kd_triplet_add(&t, eq[a], eq[c], ke[a * nd + c]);
                    if (eq[a] == eq[c]) diag[eq[a]] += ke[a * nd + c];
                }
    }
    double dmax = 0;
    for (int i = 0; i < n; i++) dmax = fmax(dmax, diag[i]);
    for (int pass = 0; pass < 2 && !st; pass++) {
        for (int i = 0; i < n && !st; i++)   /* pass 0: the rows without membrane strain; 1: all, regularised */
            if ((diag[i] > 0) == (pass == 1)) st = kd_triplet_add(&t, i, i, pass ? 1e-10 * dmax : 1.0);
        if (!st) st = kd_csc_from_triplet(&t, n, &K);
        if (!st) st = kd_csc_factor_new(&K, &g->Km);
        kd_csc_free(&K);
        if (st != KD_ERR_NUMERIC || pass == 1) break;
        st = KD_OK;
    }
    kd_triplet_free(&t);
    free(diag);
    if (st == KD_ERR_NUMERIC)
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "shell body '%s': the membrane stiffness of its mesh", b->name);
    return st ? kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory") : KD_OK;
}

/* SL10: G = sum_e sum_p w E_p^T D_m E_p (E_p = B_m T_e, 3 x n_r), the membrane stiffness of the
 * basis, and S = G^+ (its eigenvalues below 1e-10 of the largest taken as zero: the bending
 * fields); the work of the reduced evaluation. After f3_shell_reduce set b->T. */
kd_status f3_shell_geo_reduce(f3_body* b, kd_error* err) {
    f3_shell_geo* g = b->sgeo;
    const int nr = b->nf;
    const size_t nr2 = (size_t)nr * nr;
    g->S = calloc(nr2, sizeof(double));
    g->r = malloc(sizeof(double) * 2 * (size_t)nr);
    g->zs = malloc(sizeof(double) * 2 * (size_t)b->nfull);
    double* E = malloc(sizeof(double) * 3 * (size_t)nr);
    double* DE = malloc(sizeof(double) * 3 * (size_t)nr);
    double* lam = malloc(sizeof(double) * (size_t)nr);
    kd_status st = g->S && g->r && g->zs && E && DE && lam ? KD_OK : kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    if (!st) g->s = g->r + nr, g->y = g->zs + b->nfull;
    if (!st) st = membrane_factor(b, err);
    double* Gm = g->S;
    for (int e = 0; e < g->nelem && !st; e++) {
        const int nd = g->elem_nd[e], r = g->elem_rec[e];
        const int* eq = g->elem_eq + (size_t)e * KD_ELEM_DOF_MAX;
        const int npt = g->rec_npt[r];
        const double* o = g->data + g->rec_off[r];
        const double* D = o + (size_t)npt * (1 + 9 * (size_t)nd);
        for (int k = 0; k < npt; k++, o += 1 + 9 * (size_t)nd) {
            const double w = o[0], *B = o + 1;
            memset(E, 0, sizeof(double) * 3 * (size_t)nr);
            for (int i = 0; i < 3; i++)
                for (int a = 0; a < nd; a++) {
                    if (eq[a] < 0 || B[(size_t)i * nd + a] == 0.0) continue;
                    const double* Ta = b->T + (size_t)eq[a] * nr;
                    for (int c = 0; c < nr; c++) E[(size_t)i * nr + c] += B[(size_t)i * nd + a] * Ta[c];
                }
            for (int i = 0; i < 3; i++)
                for (int c = 0; c < nr; c++)
                    DE[(size_t)i * nr + c] = D[3 * i] * E[c] + D[3 * i + 1] * E[nr + c] + D[3 * i + 2] * E[2 * (size_t)nr + c];
            for (int i = 0; i < 3; i++)
                for (int a = 0; a < nr; a++) {
                    const double x = w * E[(size_t)i * nr + a];
                    if (x != 0.0)
                        for (int c = 0; c < nr; c++) Gm[(size_t)a * nr + c] += x * DE[(size_t)i * nr + c];
                }
        }
    }
    /* S = V diag(1/lambda) V^T over the eigenvalues above the threshold (G symmetric: V in place) */
    if (!st && LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', nr, Gm, nr, lam) != 0)
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "shell body '%s': the membrane stiffness of its basis", b->name);
    if (!st) {
        double* V = malloc(sizeof(double) * nr2);
        if (!V) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
        else {
            memcpy(V, Gm, sizeof(double) * nr2);
            memset(Gm, 0, sizeof(double) * nr2);
            const double lmax = lam[nr - 1];
            for (int m = 0; m < nr; m++) {
                if (!(lam[m] > 1e-10 * lmax)) continue;
                for (int a = 0; a < nr; a++)
                    for (int c = 0; c < nr; c++) Gm[(size_t)a * nr + c] += V[(size_t)a * nr + m] * V[(size_t)c * nr + m] / lam[m];
            }
            free(V);
        }
    }
    free(E), free(DE), free(lam);
    return st;
}

int f3_shell_dof_component(kd_dof_name n) {
    switch (n) {
    case KD_DOF_U: return 0;
    case KD_DOF_V: return 1;
    case KD_DOF_W: return 2;
    case KD_DOF_RX: return 3;
    case KD_DOF_RY: return 4;
    case KD_DOF_RZ: return 5;
    default: return -1;
    }
}

kd_status f3_body_init_shell(f3_body* b, const kd_model* md, kd_error* err) {
    const int nn = md->nnode, nf = md->neq;
    /* SL9: a shell to be reduced (b->shell_modes > 0) keeps no dense n_f^2 block (floating_shell3d_modal.c) */
    const int dense = b->shell_modes == 0;
    if (nf < 1 || (dense && nf > KD_FFR3D_SHELL_MAX) || md->elem_rot)
        return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                            "shell body '%s': %d elastic coordinates (unreduced two-way shells take 1 to %d, dense "
                            "storage; `modes` reduces larger ones)",
                            b->name, nf, KD_FFR3D_SHELL_MAX);
    const size_t nf2 = dense ? (size_t)nf * nf : 0;
    b->elastic = 1, b->shell = 1;
    b->nodes = nn, b->nf = nf, b->size = KD_FFR3D_POSE + nf;
    b->node_coord = malloc(sizeof(int) * 6 * (size_t)nn);
    b->node_x = malloc(sizeof(double) * 3 * (size_t)nn);
    b->SN = calloc(3 * (size_t)nf, sizeof(double));
    b->X = calloc(9 * (size_t)nf, sizeof(double));
    b->Mij = calloc(9 * nf2 + 1, sizeof(double));
    b->Mff = calloc(nf2 + 1, sizeof(double));
    b->K = calloc(nf2 + 1, sizeof(double));
    if (!b->node_coord || !b->node_x || !b->SN || !b->X || !b->Mij || !b->Mff || !b->K)
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    memcpy(b->node_x, md->node_x, sizeof(double) * 3 * (size_t)nn);
    for (int k = 0; k < 6 * nn; k++) b->node_coord[k] = -1;
    for (int n = 0; n < nn; n++)
        for (int a = 0; a < md->node_dof_num[n]; a++) {
            const int d = f3_shell_dof_component(md->dof_name[md->node_dof_adr[n] + a]);
            if (d >= 0) b->node_coord[6 * n + d] = md->dof_eq[md->node_dof_adr[n] + a];
        }
    b->m = 0;
    memset(b->St0, 0, sizeof(b->St0));
    memset(b->P0, 0, sizeof(b->P0));
    for (int e = 0; e < md->nelem; e++) {
        const kd_element_props* p = &md->prop[md->elem_prop[e]];
        const int* enode = md->elem_node + md->elem_node_adr[e];
        const double* r0 = md->node_x + 3 * enode[0];
        int eqs[KD_ELEM_DOF_MAX];
        const int nd = kd_model_elem_eqs(md, e, eqs);
        /* the rigid fields in element DOFs: tr[k] the translation e_k, rot[j] the rotation e_j about
         * the body origin (u = e_j x x_node, theta = e_j) */
        double tr[3][KD_ELEM_DOF_MAX], rot[3][KD_ELEM_DOF_MAX];
        for (int k = 0, a = 0; k < md->elem_node_adr[e + 1] - md->elem_node_adr[e]; k++) {
            const int node = enode[k];
            const double* x = md->node_x + 3 * node;
            for (int c = 0; c < md->node_dof_num[node]; c++, a++) {
                const int d = f3_shell_dof_component(md->dof_name[md->node_dof_adr[node] + c]);
                for (int j = 0; j < 3; j++) {
                    const double ej[3] = {j == 0, j == 1, j == 2};
                    const double exr[3] = {ej[1] * x[2] - ej[2] * x[1], ej[2] * x[0] - ej[0] * x[2],
                                           ej[0] * x[1] - ej[1] * x[0]};
                    tr[j][a] = d == j ? 1.0 : 0.0;
                    rot[j][a] = d < 0 ? 0.0 : d < 3 ? exr[d] : d - 3 == j ? 1.0 : 0.0;
                }
            }
        }
        /* F1 about the body origin: X_ki = x_ik + r0_k s_i (element components are the body's) */
        for (int a = 0; a < nd; a++) {
            double Xe[9];
            for (int k = 0; k < 3; k++)
                for (int i = 0; i < 3; i++) Xe[3 * k + i] = p->x_ik[i][k][a] + r0[k] * p->s_i[i][a];
            /* the rigid invariants of the same fields: m = int rho, S_t0 = int rho u0,
             * P0_kl = int rho u0_k u0_l with u0_l = (e_j x u0)_i, (i, j, l) cyclic */
            b->m += p->s_i[0][a] * tr[0][a];
            for (int k = 0; k < 3; k++) {
                b->St0[k] += Xe[3 * k] * tr[0][a];
                b->P0[3 * k] += Xe[3 * k + 1] * rot[2][a];
                b->P0[3 * k + 1] += Xe[3 * k + 2] * rot[0][a];
                b->P0[3 * k + 2] += Xe[3 * k] * rot[1][a];
            }
            const int A = eqs[a];
            if (A < 0) continue;
            for (int i = 0; i < 3; i++) {
                b->SN[(size_t)i * nf + A] += p->s_i[i][a];
                for (int k = 0; k < 3; k++) b->X[(size_t)(3 * k + i) * nf + A] += Xe[3 * k + i];
            }
            for (int c = 0; c < nd && dense; c++) {
                const int B = eqs[c];
                if (B < 0) continue;
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++)
                        b->Mij[(size_t)(3 * i + j) * nf2 + (size_t)A * nf + B] += p->m_ij[i][j][a * nd + c];
                b->K[(size_t)A * nf + B] += p->k[a * nd + c];
            }
        }
    }
    for (int k = 0; k < 3; k++)
        for (int l = 0; l < k; l++) b->P0[3 * k + l] = b->P0[3 * l + k] = 0.5 * (b->P0[3 * k + l] + b->P0[3 * l + k]);
    for (int i = 0; i < 3; i++)
        for (size_t k = 0; k < nf2; k++) b->Mff[k] += b->Mij[(size_t)(4 * i) * nf2 + k];
    b->creg = 4.0 * 2.0 * (b->P0[0] + b->P0[4] + b->P0[8]) / 3.0;   /* 4 tr(I_theta) / 3 (F4) */
    b->omega_max = dense ? sqrt(kd_model_lambda_max(md)) : 0.0;   /* bounds rk4's step (run_spatial_two_way.c) */
    /* SL8; SL10: a reduced shell keeps the same element records on its full coordinates */
    return md->body[0].geometric ? shell_geo_init(b, md, err) : KD_OK;
}
