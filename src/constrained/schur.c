/* The sparse Schur complement of the augmented equations (theory.md sec. 6):
 *
 *     [ M    Phi_q^T ] [ q'' ]   [ Q       ]        S lambda = Phi_q M^-1 Q - gamma,
 *     [ Phi_q  0     ] [ lam ] = [ gamma   ]   =>   S = Phi_q M^-1 Phi_q^T = A A^T,  A = Phi_q M^-1/2.
 *
 * With M diagonal, S has the sparsity of Phi_q Phi_q^T (for a chain: banded). Its pattern, in a
 * fill-reducing (AMD) order of the constraint rows, and the list of products J_rk J_sk / m_k that
 * make each entry are built once; CHOLMOD's symbolic analysis is done once (natural order of the
 * already permuted S, simplicial LDL^T) and each evaluation costs a numeric factorisation linear
 * in the chain length, in place, without allocation.
 *
 * Redundant constraints make S singular. They are found at t0 (a failed or ill-conditioned
 * factorisation, then a dense rank-revealing QR of Phi_q^T to count them). Formulations that
 * accept them (Udwadia-Kalaba) then factorise S + reg I and refine x <- x + (S + reg I)^-1 (b - S x)
 * (iterated Tikhonov), which converges to the minimum-norm solution S^+ b for consistent b;
 * the null-space part of an inconsistent b only changes lambda along ker Phi_q^T, which
 * exerts no force. */
#include <lapacke.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "constrained_internal.h"

#define RCOND_SINGULAR 1e-13      /* reciprocal condition below which S is taken as singular */
#define RCOND_SUSPECT 1e-9        /* at t0: below this, count the rank by a dense QR */
#define TIKHONOV_REL 1e-8         /* reg = TIKHONOV_REL * max diag(S) */
#define TIKHONOV_ITERS 4
#define DENSE_RANK_MAX 4e6        /* largest n nc for the dense rank test at t0 (32 MB) */
#define DRIFT_LIMIT_REL 1e-5      /* |Phi| above this times (1 + |q|_inf) stops the integration */
#define DRIFT_LIMIT_TOL 10        /* adaptive runs: or above this times rtol (1 + |q|_inf) + atol */

int mbs_fail(mbs_ws* w, double t, const char* fmt, ...) {
    if (!w->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->why, sizeof(w->why), fmt, ap);
        va_end(ap);
        w->failed = 1;
        w->fail_t = t;
    }
    return -1;
}

/* The pattern of S = Phi_q M^-1 Phi_q^T in the AMD order of its rows (fill-reducing; for a chain
 * it keeps S banded), upper triangle in compressed columns, and the list of contributions that
 * fill its values at each evaluation in time linear in the number of Jacobian entries.
 * The coordinates fall into groups whose constraint rows couple in S: with a diagonal M each
 * coordinate k is a group, S_rs = sum_k J_rk J_sk / m_k, and a contribution is (entry of S, the
 * two Jacobian entries, k); with a block-diagonal M each block B is a group,
 * S_rs = sum_B (L_B^-1 J_rB^T) . (L_B^-1 J_sB^T), and a contribution is (entry of S, the two
 * rows' local columns in U_B, B). */
static int build_schur_pattern(mbs_ws* w) {
    const kd_cms* sys = w->sys;
    const int n = w->n, nc = w->nc, nnz = w->nnz;
    const int ngroup = w->blocked ? sys->nblocks : n;
    int ok = 0;
    int *colptr = calloc(ngroup + 1, sizeof(int)), *colrow = malloc(sizeof(int) * (nnz + 1));
    int *colk = malloc(sizeof(int) * (nnz + 1)), *next = calloc(ngroup + 1, sizeof(int));
    int* cblk = w->blocked ? malloc(sizeof(int) * n) : NULL;
    cholmod_triplet *T0 = NULL, *T = NULL;
    cholmod_sparse* S0 = NULL;
    w->perm = malloc(sizeof(int) * nc);
    w->iperm = malloc(sizeof(int) * nc);
    if (!colptr || !colrow || !colk || !next || !w->perm || !w->iperm || (w->blocked && !cblk)) goto done;
    if (!w->blocked) {
        /* Phi_q by columns: the rows that touch each coordinate */
        for (int k = 0; k < nnz; k++) colptr[sys->jac_col[k] + 1]++;
        for (int j = 0; j < n; j++) colptr[j + 1] += colptr[j];
        for (int r = 0; r < nc; r++)
            for (int k = sys->jac_rowptr[r]; k < sys->jac_rowptr[r + 1]; k++) {
                const int c = sys->jac_col[k], p = colptr[c] + next[c]++;
                colrow[p] = r, colk[p] = k;
            }
    } else {
        /* the distinct rows that touch each block, and where each Jacobian entry goes in U_B */
        const int nb = sys->nblocks;
        const int* bs = sys->block_start;
        for (int b = 0; b < nb; b++)
            for (int i = bs[b]; i < bs[b + 1]; i++) cblk[i] = b;
        for (int b = 0; b < nb; b++) next[b] = -1;
        for (int r = 0; r < nc; r++)
            for (int k = sys->jac_rowptr[r]; k < sys->jac_rowptr[r + 1]; k++) {
                const int b = cblk[sys->jac_col[k]];
                if (next[b] != r) next[b] = r, colptr[b + 1]++;
            }
        for (int b = 0; b < nb; b++) colptr[b + 1] += colptr[b];
        w->uoff[0] = 0;
        for (int b = 0; b < nb; b++)
            w->uoff[b + 1] = w->uoff[b] + (size_t)(bs[b + 1] - bs[b]) * (colptr[b + 1] - colptr[b]);
        w->U = malloc(sizeof(double) * (w->uoff[nb] + 1));
        if (!w->U) goto done;
        memcpy(w->brows, colptr, sizeof(int) * (nb + 1));
        int* fill = calloc(nb + 1, sizeof(int));
        if (!fill) goto done;
        for (int b = 0; b < nb; b++) next[b] = -1;
        for (int r = 0; r < nc; r++)
            for (int k = sys->jac_rowptr[r]; k < sys->jac_rowptr[r + 1]; k++) {
                const int c = sys->jac_col[k], b = cblk[c];
                if (next[b] != r) {
                    next[b] = r;
                    const int p = colptr[b] + fill[b]++;
                    colrow[p] = r, colk[p] = p - colptr[b];
                }
                const int loc = fill[b] - 1;
                w->jac_upos[k] = (int)(w->uoff[b] + (size_t)(c - bs[b]) + (size_t)(bs[b + 1] - bs[b]) * loc);
            }
        free(fill);
        w->row_of = malloc(sizeof(int) * (colptr[nb] + 1));
        if (!w->row_of) goto done;
        memcpy(w->row_of, colrow, sizeof(int) * colptr[nb]);
    }
    long total = 0;
    for (int j = 0; j < ngroup; j++) {
        const long c = colptr[j + 1] - colptr[j];
        total += c * (c + 1) / 2;
    }
    w->ncontrib = (int)total;
    w->contrib = malloc(sizeof(int) * 4 * (size_t)(total + 1));
    T0 = cholmod_allocate_triplet(nc, nc, total + nc, 1, CHOLMOD_PATTERN, &w->cc);
    T = cholmod_allocate_triplet(nc, nc, total + nc, 1, CHOLMOD_REAL, &w->cc);
    if (!w->contrib || !T0 || !T) goto done;
    /* unpermuted pattern (with the diagonal) for AMD */
    int* ti = T0->i;
    int* tj = T0->j;
    size_t t = 0;
    for (int r = 0; r < nc; r++) ti[t] = tj[t] = r, t++;
    for (int j = 0; j < ngroup; j++)
        for (int a = colptr[j]; a < colptr[j + 1]; a++)
            for (int b = a; b < colptr[j + 1]; b++) {
                const int r1 = colrow[a], r2 = colrow[b];
                ti[t] = r1 < r2 ? r1 : r2, tj[t] = r1 < r2 ? r2 : r1, t++;
            }
    T0->nnz = t;
    S0 = cholmod_triplet_to_sparse(T0, t, &w->cc);
    if (!S0 || !cholmod_amd(S0, NULL, 0, w->perm, &w->cc)) goto done;
    for (int i = 0; i < nc; i++) w->iperm[w->perm[i]] = i;
    /* permuted pattern */
    ti = T->i, tj = T->j, t = 0;
    for (int r = 0; r < nc; r++) ti[t] = tj[t] = r, t++;
    for (int j = 0; j < ngroup; j++)
        for (int a = colptr[j]; a < colptr[j + 1]; a++)
            for (int b = a; b < colptr[j + 1]; b++) {
                const int p1 = w->iperm[colrow[a]], p2 = w->iperm[colrow[b]];
                ti[t] = p1 < p2 ? p1 : p2, tj[t] = p1 < p2 ? p2 : p1, t++;
            }
    T->nnz = t;
    memset(T->x, 0, sizeof(double) * t);
    /* sorted columns (the diagonal last in each upper column), values filled per evaluation */
    w->S = cholmod_triplet_to_sparse(T, t, &w->cc);
    if (!w->S || !cholmod_sort(w->S, &w->cc)) goto done;
    /* contributions: (entry of S, Jacobian entry a, Jacobian entry b, coordinate) */
    const int* Sp = w->S->p;
    const int* Si = w->S->i;
    int c = 0;
    for (int j = 0; j < ngroup; j++)
        for (int a = colptr[j]; a < colptr[j + 1]; a++)
            for (int b = a; b < colptr[j + 1]; b++) {
                const int p1 = w->iperm[colrow[a]], p2 = w->iperm[colrow[b]];
                const int row = p1 < p2 ? p1 : p2, col = p1 < p2 ? p2 : p1;
                int lo = Sp[col], hi = Sp[col + 1] - 1;
                while (lo < hi) {
                    const int mid = (lo + hi) / 2;
                    if (Si[mid] < row) lo = mid + 1;
                    else hi = mid;
                }
                int* e = w->contrib + 4 * c++;
                e[0] = lo, e[1] = colk[a], e[2] = colk[b], e[3] = j;
            }
    ok = 1;
done:
    cholmod_free_triplet(&T0, &w->cc);
    cholmod_free_triplet(&T, &w->cc);
    cholmod_free_sparse(&S0, &w->cc);
    free(colptr), free(colrow), free(colk), free(next), free(cblk);
    return ok ? 0 : 1;
}

kd_status mbs_ws_init(mbs_ws* w, const kd_cms* sys, const kd_mbs_opts* o, kd_mbs_stats* stats, kd_error* err) {
    memset(w, 0, sizeof(*w));
    w->sys = sys, w->opts = o, w->stats = stats;
    w->n = sys->n, w->nc = sys->nc, w->nnz = sys->jac_nnz;
    const int n = w->n, nc = w->nc, nnz = w->nnz;
    const int nc1 = nc > 0 ? nc : 1;
    w->minv = malloc(sizeof(double) * n);
    w->jac = malloc(sizeof(double) * (nnz > 0 ? nnz : 1));
    w->phi = malloc(sizeof(double) * nc1);
    w->phit = malloc(sizeof(double) * nc1);
    w->gam = malloc(sizeof(double) * nc1);
    w->Q = malloc(sizeof(double) * n);
    w->qdd = malloc(sizeof(double) * n);
    w->lambda = calloc(nc1, sizeof(double));
    w->tn = malloc(sizeof(double) * n);
    w->tn2 = malloc(sizeof(double) * n);
    w->tn3 = malloc(sizeof(double) * n);
    w->tc = malloc(sizeof(double) * nc1);
    w->tc2 = malloc(sizeof(double) * nc1);
    w->tc3 = malloc(sizeof(double) * nc1);
    if (!w->minv || !w->jac || !w->phi || !w->phit || !w->gam || !w->Q || !w->qdd || !w->lambda || !w->tn ||
        !w->tn2 || !w->tn3 || !w->tc || !w->tc2 || !w->tc3)
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the dynamics workspace");
    w->blocked = sys->mass_blocks != NULL;
    if (w->blocked) {
        const int nb = sys->nblocks;
        w->boff = malloc(sizeof(size_t) * (nb + 1));
        w->uoff = malloc(sizeof(size_t) * (nb + 1));
        w->brows = calloc(nb + 1, sizeof(int));
        w->jac_upos = malloc(sizeof(int) * (nnz + 1));
        if (!w->boff || !w->uoff || !w->brows || !w->jac_upos)
            return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the mass blocks");
        w->boff[0] = 0;
        for (int b = 0; b < nb; b++) {
            const size_t d = (size_t)(sys->block_start[b + 1] - sys->block_start[b]);
            w->boff[b + 1] = w->boff[b] + d * d;
        }
        w->Mb = malloc(sizeof(double) * (w->boff[nb] + 1));
        w->Lb = malloc(sizeof(double) * (w->boff[nb] + 1));
        if (!w->Mb || !w->Lb) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the mass blocks");
        for (int i = 0; i < n; i++) w->minv[i] = 0;
    } else {
        for (int i = 0; i < n; i++) w->minv[i] = 1.0 / sys->mass[i];
    }
    if (nc == 0) return KD_OK;

    cholmod_start(&w->cc);
    w->cc_started = 1;
    w->cc.print = 0;
    w->B = cholmod_zeros(nc, 1, CHOLMOD_REAL, &w->cc);
    if (!w->B) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for CHOLMOD");
    if (build_schur_pattern(w)) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for S");
    /* Symbolic analysis once: the rows are already in AMD order, so CHOLMOD keeps the natural
     * order and a simplicial factorisation, which factorises S in place (no copy, no allocation
     * per evaluation). */
    w->cc.nmethods = 1;
    w->cc.method[0].ordering = CHOLMOD_NATURAL;
    w->cc.postorder = 0;
    w->cc.supernodal = CHOLMOD_SIMPLICIAL;
    w->L = cholmod_analyze(w->S, &w->cc);
    if (!w->L) return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "CHOLMOD analysis failed");
    w->chol_fl = w->cc.fl, w->chol_lnz = w->cc.lnz;
    return KD_OK;
}

void mbs_ws_free(mbs_ws* w) {
    if (w->cc_started) {
        cholmod_free_factor(&w->L, &w->cc);
        cholmod_free_sparse(&w->S, &w->cc);
        cholmod_free_dense(&w->B, &w->cc);
        cholmod_finish(&w->cc);
    }
    free(w->minv), free(w->jac), free(w->phi), free(w->phit), free(w->gam), free(w->Q), free(w->qdd);
    free(w->lambda), free(w->tn), free(w->tn2), free(w->tn3), free(w->tc), free(w->tc2), free(w->tc3);
    free(w->perm), free(w->iperm), free(w->contrib);
    free(w->boff), free(w->Mb), free(w->Lb), free(w->brows), free(w->uoff), free(w->U), free(w->jac_upos);
    free(w->row_of);
    memset(w, 0, sizeof(*w));
}

int mbs_mass_values(mbs_ws* w, double t, const double* q) {
    if (!w->blocked) return 0;
    if (w->sys->mass_blocks(w->sys->ctx, t, q, w->Mb)) return mbs_fail(w, t, "the mass matrix callback failed");
    return 0;
}

/* Dense Cholesky of one small block in place (lower triangle, column-major); 0 or 1 when not
 * positive definite. The blocks hold one body each (tens of coordinates): at this size the call
 * overhead of LAPACK, and OpenBLAS's threads, cost more than the arithmetic. */
static int chol_small(double* A, int d) {
    for (int j = 0; j < d; j++) {
        double* aj = A + (size_t)d * j;
        double s = aj[j];
        for (int k = 0; k < j; k++) s -= A[j + (size_t)d * k] * A[j + (size_t)d * k];
        if (!(s > 0)) return 1;
        const double l = sqrt(s);
        aj[j] = l;
        for (int i = j + 1; i < d; i++) {
            double x = aj[i];
            for (int k = 0; k < j; k++) x -= A[i + (size_t)d * k] * A[j + (size_t)d * k];
            aj[i] = x / l;
        }
    }
    return 0;
}

/* x <- L^-1 x and x <- L^-T x with the lower factor of chol_small */
static void lsolve_small(const double* L, int d, double* x) {
    for (int j = 0; j < d; j++) {
        const double* lj = L + (size_t)d * j;
        const double xj = x[j] /= lj[j];
        for (int i = j + 1; i < d; i++) x[i] -= lj[i] * xj;
    }
}
static void ltsolve_small(const double* L, int d, double* x) {
    for (int j = d - 1; j >= 0; j--) {
        const double* lj = L + (size_t)d * j;
        double a = x[j];
        for (int i = j + 1; i < d; i++) a -= lj[i] * x[i];
        x[j] = a / lj[j];
    }
}

/* Cholesky factor of every block */
int mbs_mass_eval(mbs_ws* w, double t, const double* q) {
    if (!w->blocked) return 0;
    if (mbs_mass_values(w, t, q)) return -1;
    const kd_cms* s = w->sys;
    memcpy(w->Lb, w->Mb, sizeof(double) * w->boff[s->nblocks]);
    for (int b = 0; b < s->nblocks; b++) {
        const int d = s->block_start[b + 1] - s->block_start[b];
        if (chol_small(w->Lb + w->boff[b], d))
            return mbs_fail(w, t, "the mass matrix block of coordinates %d..%d is not positive definite",
                            s->block_start[b], s->block_start[b + 1] - 1);
    }
    return 0;
}

void mbs_minv_apply(const mbs_ws* w, const double* x, double* y) {
    if (!w->blocked) {
        for (int i = 0; i < w->n; i++) y[i] = w->minv[i] * x[i];
        return;
    }
    const kd_cms* s = w->sys;
    if (y != x) memcpy(y, x, sizeof(double) * w->n);
    for (int b = 0; b < s->nblocks; b++) {
        const int d = s->block_start[b + 1] - s->block_start[b];
        lsolve_small(w->Lb + w->boff[b], d, y + s->block_start[b]);
        ltsolve_small(w->Lb + w->boff[b], d, y + s->block_start[b]);
    }
}

void mbs_mass_apply(const mbs_ws* w, const double* x, double* y) {
    const kd_cms* s = w->sys;
    if (!w->blocked) {
        for (int i = 0; i < w->n; i++) y[i] = s->mass[i] * x[i];
        return;
    }
    for (int b = 0; b < s->nblocks; b++) {
        const int o = s->block_start[b], d = s->block_start[b + 1] - o;
        const double* M = w->Mb + w->boff[b];
        for (int i = 0; i < d; i++) {
            double a = 0;
            for (int j = 0; j < d; j++) a += M[i + (size_t)d * j] * x[o + j];
            y[o + i] = a;
        }
    }
}

void mbs_jac_mult(const mbs_ws* w, const double* x, double* y) {
    const kd_cms* s = w->sys;
    for (int r = 0; r < w->nc; r++) {
        double a = 0;
        for (int k = s->jac_rowptr[r]; k < s->jac_rowptr[r + 1]; k++) a += w->jac[k] * x[s->jac_col[k]];
        y[r] = a;
    }
    mbs_flops(w, 2.0 * w->nnz);
}

void mbs_jac_tmult(const mbs_ws* w, const double* x, double* y) {
    const kd_cms* s = w->sys;
    memset(y, 0, sizeof(double) * w->n);
    for (int r = 0; r < w->nc; r++)
        for (int k = s->jac_rowptr[r]; k < s->jac_rowptr[r + 1]; k++) y[s->jac_col[k]] += w->jac[k] * x[r];
    mbs_flops(w, 2.0 * w->nnz);
}

/* U_B = L_B^-1 J_B^T for every block, from w->jac and the factors of the last mbs_mass_eval. */
static void fill_blocks_u(mbs_ws* w) {
    const kd_cms* s = w->sys;
    memset(w->U, 0, sizeof(double) * w->uoff[s->nblocks]);
    for (int k = 0; k < w->nnz; k++) w->U[w->jac_upos[k]] = w->jac[k];
    for (int b = 0; b < s->nblocks; b++) {
        const int d = s->block_start[b + 1] - s->block_start[b], nr = w->brows[b + 1] - w->brows[b];
        for (int a = 0; a < nr; a++) lsolve_small(w->Lb + w->boff[b], d, w->U + w->uoff[b] + (size_t)d * a);
    }
}

/* Factorise A A^T + reg I with the current w->jac; 0 on success, 1 when S is singular (reciprocal
 * condition estimate below rcond_min). */
static int factor_with(mbs_ws* w, double rcond_min) {
    double* Sx = w->S->x;
    const int* Sp = w->S->p;
    memset(Sx, 0, sizeof(double) * Sp[w->nc]);
    if (!w->blocked) {
        for (int c = 0; c < w->ncontrib; c++) {
            const int* e = w->contrib + 4 * c;
            Sx[e[0]] += w->jac[e[1]] * w->jac[e[2]] * w->minv[e[3]];
        }
    } else {
        fill_blocks_u(w);
        const int* bs = w->sys->block_start;
        for (int c = 0; c < w->ncontrib; c++) {
            const int* e = w->contrib + 4 * c;
            const int d = bs[e[3] + 1] - bs[e[3]];
            const double *ua = w->U + w->uoff[e[3]] + (size_t)d * e[1], *ub = w->U + w->uoff[e[3]] + (size_t)d * e[2];
            double a = 0;
            for (int i = 0; i < d; i++) a += ua[i] * ub[i];
            Sx[e[0]] += a;
        }
    }
    double beta[2] = {w->reg, 0};   /* S + reg I */
    int ok = cholmod_factorize_p(w->S, beta, NULL, 0, w->L, &w->cc);
    if (w->stats) w->stats->factorizations++;
    mbs_flops(w, 3.0 * w->ncontrib + w->chol_fl);
    if (!ok || w->cc.status == CHOLMOD_NOT_POSDEF) return 1;
    if (w->reg > 0) return 0;     /* S + reg I is positive definite by construction */
    const double rc = cholmod_rcond(w->L, &w->cc);
    return !(rc > rcond_min);
}

static int factor_current(mbs_ws* w) { return factor_with(w, RCOND_SINGULAR); }

int mbs_schur_factor(mbs_ws* w, double t, const double* q) {
    if (w->nc == 0) return mbs_mass_eval(w, t, q);
    if (mbs_mass_eval(w, t, q)) return -1;
    if (w->sys->jacobian(w->sys->ctx, t, q, w->jac)) return mbs_fail(w, t, "the constraint Jacobian callback failed");
    if (factor_current(w))
        return mbs_fail(w, t,
                        "singular configuration: Phi_q M^-1 Phi_q^T is not positive definite (constraints "
                        "dependent at this position, reciprocal condition %.2g)",
                        cholmod_rcond(w->L, &w->cc));
    return 0;
}

/* x = (S + reg I)^-1 b through CHOLMOD with reused workspace. */
/* x = (S + reg I)^-1 b with the simplicial LDL^T factor (unit L, D on its diagonal) by two
 * triangular sweeps in place, in the permuted order; cholmod_solve2 would reallocate its
 * workspace at every call. */
static int solve_once(mbs_ws* w, const double* b, double* x) {
    const cholmod_factor* L = w->L;
    if (L->is_super || L->is_ll) return 1;
    const int nc = w->nc;
    const int *Lp = L->p, *Li = L->i, *Lnz = L->nz;
    const double* Lx = L->x;
    double* y = w->B->x;
    for (int i = 0; i < nc; i++) y[i] = b[w->perm[i]];
    for (int j = 0; j < nc; j++) {                       /* L y = b */
        const double yj = y[j];
        for (int p = Lp[j] + 1; p < Lp[j] + Lnz[j]; p++) y[Li[p]] -= Lx[p] * yj;
    }
    for (int j = 0; j < nc; j++) y[j] /= Lx[Lp[j]];      /* D */
    for (int j = nc - 1; j >= 0; j--) {                  /* L^T x = y */
        double yj = y[j];
        for (int p = Lp[j] + 1; p < Lp[j] + Lnz[j]; p++) yj -= Lx[p] * y[Li[p]];
        y[j] = yj;
    }
    for (int i = 0; i < nc; i++) x[w->perm[i]] = y[i];
    mbs_flops(w, 4.0 * (w->chol_lnz - nc) + nc);
    return 0;
}

/* y = S x = Phi_q M^-1 Phi_q^T x */
static void schur_mult(mbs_ws* w, const double* x, double* y) {
    mbs_jac_tmult(w, x, w->tn2);
    mbs_minv_apply(w, w->tn2, w->tn2);
    mbs_jac_mult(w, w->tn2, y);
}

int mbs_schur_solve(mbs_ws* w, double t, const double* b, double* x) {
    if (w->nc == 0) return 0;
    if (w->reg == 0) {
        if (solve_once(w, b, x)) return mbs_fail(w, t, "CHOLMOD solve failed");
        return 0;
    }
    /* iterated Tikhonov: x_{k+1} = x_k + (S + reg I)^-1 (b - S x_k), x_0 = 0 */
    memset(x, 0, sizeof(double) * w->nc);
    for (int it = 0; it < TIKHONOV_ITERS; it++) {
        schur_mult(w, x, w->tc3);
        for (int r = 0; r < w->nc; r++) w->tc3[r] = b[r] - w->tc3[r];
        if (solve_once(w, w->tc3, w->tc3)) return mbs_fail(w, t, "CHOLMOD solve failed");
        for (int r = 0; r < w->nc; r++) x[r] += w->tc3[r];
    }
    return 0;
}

/* Scatter the columns of every U_B into the dense n x nc matrix D (column r: constraint row r). */
static void schur_rows_of_u(mbs_ws* w, double* D, int ld) {
    const kd_cms* s = w->sys;
    for (int b = 0; b < s->nblocks; b++) {
        const int o = s->block_start[b], d = s->block_start[b + 1] - o;
        (void)o;
        for (int a = w->brows[b]; a < w->brows[b + 1]; a++) {
            const int la = a - w->brows[b];
            const double* u = w->U + w->uoff[b] + (size_t)d * la;
            const int r = w->row_of[a];
            for (int i = 0; i < d; i++) D[o + i + (size_t)ld * r] = u[i];
        }
    }
}

kd_status mbs_schur_check_rank(mbs_ws* w, double t, const double* q, int accept_redundant, kd_error* err) {
    kd_mbs_stats* st = w->stats;
    st->dof = w->n - w->nc, st->redundant = 0;
    if (w->nc == 0) return KD_OK;
    if (mbs_mass_eval(w, t, q))
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: %s", w->fail_t, w->why);
    if (w->sys->jacobian(w->sys->ctx, t, q, w->jac))
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: the constraint Jacobian callback failed", t);
    if (!factor_with(w, RCOND_SUSPECT)) return KD_OK;
    /* S singular or nearly so: count the independent constraints by QR with column pivoting of Phi_q^T
     * (n x nc, dense; only reached for rank-deficient systems, and only up to DENSE_RANK_MAX entries) */
    const int n = w->n, nc = w->nc;
    if ((double)n * nc > DENSE_RANK_MAX) {
        if (!factor_current(w)) return KD_OK;   /* ill-conditioned but not singular */
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                            "t = %g: Phi_q M^-1 Phi_q^T is singular at the start (redundant constraints or a singular "
                            "configuration); the system is too large for the dense rank test",
                            t);
    }
    double* D = calloc((size_t)n * nc, sizeof(double));
    double* tau = malloc(sizeof(double) * nc);
    lapack_int* jpvt = calloc(nc, sizeof(lapack_int));
    if (!D || !tau || !jpvt) {
        free(D), free(tau), free(jpvt);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the rank test");
    }
    /* D = M^-1/2 Phi_q^T (diagonal M), or L^-1 Phi_q^T block by block: S = D^T D */
    if (!w->blocked) {
        for (int r = 0; r < nc; r++)
            for (int k = w->sys->jac_rowptr[r]; k < w->sys->jac_rowptr[r + 1]; k++)
                D[w->sys->jac_col[k] + (size_t)n * r] = w->jac[k] * sqrt(w->minv[w->sys->jac_col[k]]);
    } else {
        fill_blocks_u(w);
        schur_rows_of_u(w, D, n);
    }
    int rank = 0;
    if (LAPACKE_dgeqp3(LAPACK_COL_MAJOR, n, nc, D, n, jpvt, tau) == 0) {
        const double r00 = fabs(D[0]);
        for (int k = 0; k < (n < nc ? n : nc); k++)
            if (fabs(D[k + (size_t)n * k]) > 1e-10 * r00) rank++;
    }
    free(D), free(tau), free(jpvt);
    st->dof = n - rank, st->redundant = nc - rank;
    if (rank == nc) {
        if (!factor_current(w)) return KD_OK;
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: singular configuration at the start", t);
    }
    if (!accept_redundant)
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                            "t = %g: %d of the %d constraint equations are redundant (rank of Phi_q is %d); "
                            "use the udwadia-kalaba formulation, which takes redundant constraints",
                            t, nc - rank, nc, rank);
    /* regularised factorisation from now on; reg relative to the largest diagonal entry of S */
    double dmax = 0;
    if (!w->blocked) {
        for (int r = 0; r < nc; r++) {
            double d = 0;
            for (int k = w->sys->jac_rowptr[r]; k < w->sys->jac_rowptr[r + 1]; k++)
                d += w->jac[k] * w->jac[k] * w->minv[w->sys->jac_col[k]];
            if (d > dmax) dmax = d;
        }
    } else {
        const double* Sx = w->S->x;
        const int* Sp = w->S->p;
        for (int c = 0; c < nc; c++) dmax = fmax(dmax, Sx[Sp[c + 1] - 1]);   /* diagonal last in each column */
    }
    w->reg = TIKHONOV_REL * (dmax > 0 ? dmax : 1);
    if (factor_current(w))
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: regularised factorisation failed", t);
    return KD_OK;
}

int mbs_accel(mbs_ws* w, double t, const double* q, const double* v, int uk) {
    const kd_cms* s = w->sys;
    const kd_mbs_opts* o = w->opts;
    const int n = w->n, nc = w->nc;
    if (w->stats) w->stats->evaluations++;
    if (s->force(s->ctx, t, q, v, w->Q)) return mbs_fail(w, t, "the force callback failed");
    if (nc == 0) {
        if (mbs_mass_eval(w, t, q)) return -1;
        mbs_minv_apply(w, w->Q, w->qdd);
        return 0;
    }
    if (mbs_schur_factor(w, t, q)) return -1;
    if (s->gamma(s->ctx, t, q, v, w->gam)) return mbs_fail(w, t, "the gamma callback failed");
    if (o->stabilization == KD_MBS_STAB_BAUMGARTE && (o->alpha != 0 || o->beta != 0)) {
        /* gamma_s = gamma - 2 alpha Phi' - beta^2 Phi, Phi' = Phi_q q' + Phi_t */
        if (s->phi(s->ctx, t, q, w->phi) || s->phi_t(s->ctx, t, q, w->phit))
            return mbs_fail(w, t, "the constraint callback failed");
        mbs_jac_mult(w, v, w->tc);
        for (int r = 0; r < nc; r++)
            w->gam[r] -= 2 * o->alpha * (w->tc[r] + w->phit[r]) + o->beta * o->beta * w->phi[r];
    }
    mbs_minv_apply(w, w->Q, w->tn);                               /* a = M^-1 Q */
    mbs_jac_mult(w, w->tn, w->tc);                                /* Phi_q a */
    if (!uk) {
        /* augmented: S lambda = Phi_q M^-1 Q - gamma_s, q'' = M^-1 (Q - Phi_q^T lambda) */
        for (int r = 0; r < nc; r++) w->tc[r] -= w->gam[r];
        if (mbs_schur_solve(w, t, w->tc, w->lambda)) return -1;
        mbs_jac_tmult(w, w->lambda, w->tn);
        for (int i = 0; i < n; i++) w->tn[i] = w->Q[i] - w->tn[i];
        mbs_minv_apply(w, w->tn, w->qdd);
    } else {
        /* Udwadia-Kalaba: q'' = a + M^-1/2 B^+ (gamma_s - Phi_q a), B = Phi_q M^-1/2, with
         * B^+ = B^T (B B^T)^+ so that M^-1/2 B^+ r = M^-1 Phi_q^T S^+ r; the constraint force
         * M^-1/2 B^+ r equals -M^-1 Phi_q^T lambda, so lambda = -S^+ r. */
        for (int r = 0; r < nc; r++) w->tc[r] = w->gam[r] - w->tc[r];
        if (mbs_schur_solve(w, t, w->tc, w->tc2)) return -1;
        mbs_jac_tmult(w, w->tc2, w->tn2);
        for (int i = 0; i < n; i++) w->tn2[i] += w->Q[i];
        mbs_minv_apply(w, w->tn2, w->qdd);
        for (int r = 0; r < nc; r++) w->lambda[r] = -w->tc2[r];
    }
    mbs_flops(w, 4.0 * n + 2.0 * nc);
    for (int i = 0; i < n; i++)
        if (!isfinite(w->qdd[i])) return mbs_fail(w, t, "non-finite acceleration of coordinate %d", i);
    return 0;
}

static double inf_norm(const double* x, int n) {
    double m = 0;
    for (int i = 0; i < n; i++)
        if (fabs(x[i]) > m) m = fabs(x[i]);
    return m;
}

int mbs_project(mbs_ws* w, double t, double* q, double* v) {
    const kd_cms* s = w->sys;
    const int n = w->n, nc = w->nc;
    if (nc == 0) return 0;
    if (w->stats) w->stats->projections++;
    /* positions: q <- q - M^-1 Phi_q^T S^-1 Phi(q) until |Phi| <= tol or no longer decreasing */
    double prev = INFINITY;
    for (int it = 0; it < 20; it++) {
        if (s->phi(s->ctx, t, q, w->phi)) return mbs_fail(w, t, "the constraint callback failed");
        const double e = inf_norm(w->phi, nc);
        if (e <= w->opts->proj_tol || (it > 2 && e > 0.5 * prev)) {
            if (e > 1e-6 * (1 + inf_norm(q, n)))
                return mbs_fail(w, t, "projection onto the constraints did not converge (|Phi| = %.3g)", e);
            /* one more simplified Newton correction with the factorisation at hand takes |Phi| from
             * the tolerance down to round-off, so that successive projections do not feed noise of
             * the tolerance's size into an adaptive integrator's error test */
            if (e > 0 && it > 0) {
                if (mbs_schur_solve(w, t, w->phi, w->tc)) return -1;
                mbs_jac_tmult(w, w->tc, w->tn);
                mbs_minv_apply(w, w->tn, w->tn);
                for (int i = 0; i < n; i++) q[i] -= w->tn[i];
            }
            break;
        }
        prev = e;
        if (mbs_schur_factor(w, t, q) || mbs_schur_solve(w, t, w->phi, w->tc)) return -1;
        mbs_jac_tmult(w, w->tc, w->tn);
        mbs_minv_apply(w, w->tn, w->tn);
        for (int i = 0; i < n; i++) q[i] -= w->tn[i];
    }
    /* velocities: v <- v - M^-1 Phi_q^T S^-1 (Phi_q v + Phi_t) */
    if (mbs_schur_factor(w, t, q)) return -1;
    if (s->phi_t(s->ctx, t, q, w->phit)) return mbs_fail(w, t, "the constraint callback failed");
    mbs_jac_mult(w, v, w->tc);
    for (int r = 0; r < nc; r++) w->tc[r] += w->phit[r];
    if (mbs_schur_solve(w, t, w->tc, w->tc2)) return -1;
    mbs_jac_tmult(w, w->tc2, w->tn);
    mbs_minv_apply(w, w->tn, w->tn);
    for (int i = 0; i < n; i++) v[i] -= w->tn[i];
    return 0;
}

int mbs_project_tangent(mbs_ws* w, double t, double* x) {
    if (w->nc == 0) return 0;
    mbs_jac_mult(w, x, w->tc);
    if (mbs_schur_solve(w, t, w->tc, w->tc2)) return -1;
    mbs_jac_tmult(w, w->tc2, w->tn);
    mbs_minv_apply(w, w->tn, w->tn);
    for (int i = 0; i < w->n; i++) x[i] -= w->tn[i];
    return 0;
}

int mbs_emit(mbs_ws* w, double t, const double* q, const double* v, double work, kd_mbs_output_fn out, void* ctx) {
    const kd_cms* s = w->sys;
    kd_mbs_sample smp = {.t = t, .q = q, .qd = v, .qdd = w->qdd, .lambda = w->lambda, .work = work};
    if (w->nc > 0) {
        if (s->phi(s->ctx, t, q, w->phi) || s->phi_t(s->ctx, t, q, w->phit) || s->jacobian(s->ctx, t, q, w->jac))
            return mbs_fail(w, t, "the constraint callback failed");
        smp.drift_pos = inf_norm(w->phi, w->nc);
        mbs_jac_mult(w, v, w->tc);
        for (int r = 0; r < w->nc; r++) w->tc[r] += w->phit[r];
        smp.drift_vel = inf_norm(w->tc, w->nc);
    }
    /* a state far off the constraints is not a motion of the system: the integration passed a
     * singular configuration (a limit position) or diverged; stop before reporting it */
    double qmax = 0;
    for (int i = 0; i < w->n; i++) qmax = fmax(qmax, fabs(q[i]));
    /* an adaptive integration keeps Phi = 0 only to its tolerances: with Baumgarte's terms (which
     * damp the drift but do not remove it) the drift is of the order of the global error, a
     * small multiple of rtol |q| + atol (docs/theory.md, section 23) */
    const kd_mbs_opts* o = w->opts;
    double limit = DRIFT_LIMIT_REL * (1 + qmax);
    if (o->integrator == KD_MBS_CVODE || o->formulation == KD_MBS_IDA)
        limit = fmax(limit, DRIFT_LIMIT_TOL * (o->rtol * (1 + qmax) + o->atol));
    if (!(smp.drift_pos <= limit))
        return mbs_fail(w, t,
                        "the constraints are violated by %.3g: the motion reached a singular configuration "
                        "(a limit or dead-centre position) or diverged",
                        smp.drift_pos);
    /* T = v^T M(q) v / 2 (block masses: the values at q, leaving the factors of the last
     * evaluation, which the tangent projection may still use, untouched) */
    if (mbs_mass_values(w, t, q)) return -1;
    mbs_mass_apply(w, v, w->tn3);
    double T = 0;
    for (int i = 0; i < w->n; i++) T += 0.5 * v[i] * w->tn3[i];
    smp.kinetic = T;
    kd_mbs_stats* st = w->stats;
    if (smp.drift_pos > st->max_drift_pos) st->max_drift_pos = smp.drift_pos;
    if (smp.drift_vel > st->max_drift_vel) st->max_drift_vel = smp.drift_vel;
    st->t_reached = t;
    if (out && out(ctx, &smp)) return mbs_fail(w, t, "stopped by the output callback");
    return 0;
}
