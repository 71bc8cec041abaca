/* Maggi's equations (Kane's form for an assembled system, theory.md sec. 4) by coordinate
 * partitioning (Wehage and Haug):
 *
 *   q = (q_i, q_d): f independent coordinates w = q_i, nc dependent ones q_d with Phi_qd regular;
 *   q' = A w',  A = [I; -C],  C = Phi_qd^-1 Phi_qi;   q'' = A w'' + b,  b = (0, Phi_qd^-1 gamma);
 *   A^T M A w'' = A^T (Q - M b)                       (no multipliers: A^T Phi_q^T = 0);
 *   lambda afterwards from Phi_qd^T lambda = (Q - M q'')_d.
 *
 * Only (w, w', W) is integrated; q_d follows from Phi(q_i, q_d, t) = 0 by Newton's method and
 * q_d' from the velocity equation, so the constraints hold to the Newton tolerance at every
 * evaluation (no drift). The partition is chosen by LU with partial pivoting of Phi_q^T (the pivot
 * rows are the dependent coordinates) and chosen again at an output instant when KLU's estimate
 * of the reciprocal condition of Phi_qd has fallen below a tenth of its value at the last choice.
 * Phi_qd is factorised by KLU (sparse LU): symbolic analysis and a pivoting factorisation once per
 * partition, numeric refactorisation per Newton iteration. A^T M A is dense f x f: this
 * formulation is meant for mechanisms with few degrees of freedom. */
#include <klu.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "constrained_internal.h"

#define NEWTON_MAX 25
#define MAGGI_DENSE_MAX 1e7       /* largest n nc (and f^2) of the dense parts: 80 MB */

struct maggi {
    mbs_ws* w;
    int n, nc, f;
    int *dep, *ind;               /* (nc), (f) dependent and independent coordinates */
    int *Bp, *Bi;                 /* (nc + 1), (nnz) CSC pattern of Phi_qd */
    double* Bx;                   /* (nnz) its values */
    int* csr_to_b;                /* (nnz) position in Bx of each CSR entry, -1 for independent columns */
    int* role;                    /* (n) k for dep[k], -1 - k for ind[k] */
    klu_common kc;
    klu_symbolic* sym;
    klu_numeric* num;
    double rcond0;                /* reciprocal condition estimate when the partition was chosen */
    double cmax0;                 /* max |C| at the first evaluation after the partition was chosen (0: not yet) */
    double *q, *v;                /* (n) full coordinates and velocities of the last evaluation */
    double* C;                    /* (nc x f) Phi_qd^-1 Phi_qi, column-major */
    double *Mh, *rh;              /* (f x f), (f) reduced mass matrix and right-hand side */
    double* bd;                   /* (nc) */
    double* D;                    /* (n x nc) dense Phi_q^T for choosing the partition */
    lapack_int* ipiv;             /* (nc) */
    int* perm;                    /* (n) */
    double *A, *b;                /* (n x f), (n) partial velocities and remainder accelerations,
                                     for a route of its own (opts->reduced) */
    double* MA;                   /* (n x f) block masses only: M A, column-major */
    double* ye;                   /* (2 (2 f + 1)) state and derivative of one evaluation */
    double lu_flops, lu_nz;       /* KLU's flop count of one factorisation of Phi_qd, nnz(L + U) */
    kd_mbs_output_fn out;
    void* out_ctx;
};

static int cmp_int(const void* a, const void* b) { return *(const int*)a - *(const int*)b; }

/* Scatter w->jac into Phi_qd's values and refactorise. */
static int refactor(maggi* g, double t) {
    mbs_ws* w = g->w;
    for (int k = 0; k < w->nnz; k++)
        if (g->csr_to_b[k] >= 0) g->Bx[g->csr_to_b[k]] = w->jac[k];
    w->stats->factorizations++;
    mbs_flops(w, g->lu_flops);
    if (klu_refactor(g->Bp, g->Bi, g->Bx, g->sym, g->num, &g->kc) && g->kc.status == KLU_OK) return 0;
    /* the pivots of the last factorisation no longer do (rows of a kd_cms_rows view changed,
     * kedyn/cms_rows.h): factorise again with pivoting */
    klu_free_numeric(&g->num, &g->kc);
    g->num = klu_factor(g->Bp, g->Bi, g->Bx, g->sym, &g->kc);
    if (!g->num || g->kc.status != KLU_OK)
        return mbs_fail(w, t, "singular configuration: the dependent-coordinate block of Phi_q is singular");
    return 0;
}

/* Choose dependent coordinates at (t, q) and factorise Phi_qd (theory.md sec. 6). */
static int partition(maggi* g, double t, const double* q) {
    mbs_ws* w = g->w;
    const kd_cms* s = w->sys;
    const int n = g->n, nc = g->nc;
    if (s->jacobian(s->ctx, t, q, w->jac)) return mbs_fail(w, t, "the constraint Jacobian callback failed");
    memset(g->D, 0, sizeof(double) * (size_t)n * nc);
    for (int r = 0; r < nc; r++)
        for (int k = s->jac_rowptr[r]; k < s->jac_rowptr[r + 1]; k++) g->D[s->jac_col[k] + (size_t)n * r] = w->jac[k];
    if (LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, nc, g->D, n, g->ipiv) < 0) return mbs_fail(w, t, "LU of Phi_q^T failed");
    double umax = 0;
    for (int k = 0; k < nc; k++) umax = fmax(umax, fabs(g->D[k + (size_t)n * k]));
    for (int k = 0; k < nc; k++)
        if (!(fabs(g->D[k + (size_t)n * k]) > 1e-10 * umax))
            return mbs_fail(w, t,
                            "Phi_q has dependent rows (redundant constraints or a singular configuration); "
                            "the maggi formulation needs independent constraints, use udwadia-kalaba");
    for (int i = 0; i < n; i++) g->perm[i] = i;
    for (int k = 0; k < nc; k++) {
        const int p = g->ipiv[k] - 1, tmp = g->perm[k];
        g->perm[k] = g->perm[p], g->perm[p] = tmp;
    }
    memcpy(g->dep, g->perm, sizeof(int) * nc);
    memcpy(g->ind, g->perm + nc, sizeof(int) * g->f);
    qsort(g->dep, nc, sizeof(int), cmp_int);
    qsort(g->ind, g->f, sizeof(int), cmp_int);
    for (int k = 0; k < nc; k++) g->role[g->dep[k]] = k;
    for (int k = 0; k < g->f; k++) g->role[g->ind[k]] = -1 - k;
    /* CSC pattern of Phi_qd: column k is coordinate dep[k]; rows visited in order stay sorted */
    memset(g->Bp, 0, sizeof(int) * (nc + 1));
    for (int k = 0; k < w->nnz; k++)
        if (g->role[s->jac_col[k]] >= 0) g->Bp[g->role[s->jac_col[k]] + 1]++;
    for (int k = 0; k < nc; k++) g->Bp[k + 1] += g->Bp[k];
    int* next = g->perm;          /* reused as a counter per column */
    memset(next, 0, sizeof(int) * nc);
    for (int r = 0; r < nc; r++)
        for (int k = s->jac_rowptr[r]; k < s->jac_rowptr[r + 1]; k++) {
            const int c = g->role[s->jac_col[k]];
            if (c < 0) {
                g->csr_to_b[k] = -1;
                continue;
            }
            const int p = g->Bp[c] + next[c]++;
            g->Bi[p] = r;
            g->csr_to_b[k] = p;
            g->Bx[p] = w->jac[k];
        }
    klu_free_numeric(&g->num, &g->kc);
    klu_free_symbolic(&g->sym, &g->kc);
    g->sym = klu_analyze(nc, g->Bp, g->Bi, &g->kc);
    if (g->sym) g->num = klu_factor(g->Bp, g->Bi, g->Bx, g->sym, &g->kc);
    if (!g->sym || !g->num) return mbs_fail(w, t, "KLU factorisation of the dependent block failed");
    klu_rcond(g->sym, g->num, &g->kc);
    g->rcond0 = g->kc.rcond;
    g->cmax0 = 0;
    klu_flops(g->sym, g->num, &g->kc);
    g->lu_flops = g->kc.flops, g->lu_nz = (double)g->num->lnz + g->num->unz;
    w->stats->factorizations++;
    w->stats->repartitions++;
    return 0;
}

/* q_d from Phi(q, t) = 0 (Newton, q_i fixed), then Phi_q and its dependent block at the solution. */
static int solve_positions(maggi* g, double t) {
    mbs_ws* w = g->w;
    const kd_cms* s = w->sys;
    double prev = INFINITY;
    for (int it = 0;; it++) {
        if (s->phi(s->ctx, t, g->q, w->phi)) return mbs_fail(w, t, "the constraint callback failed");
        double e = 0, qs = 0;
        for (int r = 0; r < g->nc; r++) e = fmax(e, fabs(w->phi[r]));
        for (int i = 0; i < g->n; i++) qs = fmax(qs, fabs(g->q[i]));
        if (s->jacobian(s->ctx, t, g->q, w->jac)) return mbs_fail(w, t, "the constraint Jacobian callback failed");
        if (refactor(g, t)) return -1;
        if (e <= w->opts->proj_tol || (it > 2 && e > 0.5 * prev)) {
            if (e > 1e-6 * (1 + qs))
                return mbs_fail(w, t,
                                "the dependent coordinates did not converge (|Phi| = %.3g): no assembly near a "
                                "singular configuration (a limit or dead-centre position)",
                                e);
            return 0;
        }
        if (it == NEWTON_MAX)
            return mbs_fail(w, t,
                            "the dependent coordinates did not converge (|Phi| = %.3g): no assembly near a singular "
                            "configuration (a limit or dead-centre position)",
                            e);
        prev = e;
        klu_solve(g->sym, g->num, g->nc, 1, w->phi, &g->kc);
        mbs_flops(w, 2.0 * g->lu_nz + g->nc);
        for (int k = 0; k < g->nc; k++) g->q[g->dep[k]] -= w->phi[k];
    }
}

static void reduced_diagonal(maggi* g);
static int reduced_blocked(maggi* g, double t);

/* y = (w, w', W) -> (w', w'', Q^T q') and the full q, q', q'' in g->q, g->v, w->qdd. */
static int maggi_rhs(void* ctx, double t, const double* y, double* yd) {
    maggi* g = ctx;
    mbs_ws* w = g->w;
    const kd_cms* s = w->sys;
    const int n = g->n, nc = g->nc, f = g->f;
    w->stats->evaluations++;
    for (int k = 0; k < f; k++) g->q[g->ind[k]] = y[k];
    if (solve_positions(g, t)) return -1;
    /* velocities: Phi_qd q_d' = -(Phi_t + Phi_qi w') */
    for (int k = 0; k < f; k++) g->v[g->ind[k]] = y[f + k];
    for (int k = 0; k < nc; k++) g->v[g->dep[k]] = 0;
    if (s->phi_t(s->ctx, t, g->q, w->phit)) return mbs_fail(w, t, "the constraint callback failed");
    mbs_jac_mult(w, g->v, w->tc);
    for (int r = 0; r < nc; r++) w->tc[r] = -(w->tc[r] + w->phit[r]);
    klu_solve(g->sym, g->num, nc, 1, w->tc, &g->kc);
    for (int k = 0; k < nc; k++) g->v[g->dep[k]] = w->tc[k];
    /* forces, b_d = Phi_qd^-1 gamma, C = Phi_qd^-1 Phi_qi */
    if (s->force(s->ctx, t, g->q, g->v, w->Q)) return mbs_fail(w, t, "the force callback failed");
    if (s->gamma(s->ctx, t, g->q, g->v, g->bd)) return mbs_fail(w, t, "the gamma callback failed");
    klu_solve(g->sym, g->num, nc, 1, g->bd, &g->kc);
    memset(g->C, 0, sizeof(double) * (size_t)nc * f);
    for (int r = 0; r < nc; r++)
        for (int k = s->jac_rowptr[r]; k < s->jac_rowptr[r + 1]; k++) {
            const int c = g->role[s->jac_col[k]];
            if (c < 0) g->C[r + (size_t)nc * (-1 - c)] = w->jac[k];
        }
    klu_solve(g->sym, g->num, nc, f, g->C, &g->kc);
    mbs_flops(w, 2.0 * g->lu_nz * (f + 3) + 3.0 * nc);
    if (w->opts->reduced) {
        /* a route of its own (Kane's): A = [I; -C] and b = (0, b_d) by coordinate */
        /* the route forms its own inertia terms: M (diagonal or blocks) is not used here */
        memset(g->A, 0, sizeof(double) * (size_t)n * f);
        memset(g->b, 0, sizeof(double) * n);
        for (int k = 0; k < f; k++) {
            g->A[g->ind[k] + (size_t)n * k] = 1;
            for (int r = 0; r < nc; r++) g->A[g->dep[r] + (size_t)n * k] = -g->C[r + (size_t)nc * k];
        }
        for (int r = 0; r < nc; r++) g->b[g->dep[r]] = g->bd[r];
        if (w->opts->reduced(w->opts->reduced_ctx, t, g->q, g->v, f, g->A, g->b, w->Q, g->Mh, g->rh,
                             w->stats ? &w->stats->flops : &(double){0}))
            return mbs_fail(w, t, "the reduced-equations callback failed");
    } else if (w->blocked) {
        if (reduced_blocked(g, t)) return -1;
        mbs_flops(w, 2.0 * g->n * g->n * g->f + 2.0 * g->n * g->f * (g->f + 1));
    } else {
        reduced_diagonal(g);
        mbs_flops(w, 3.0 * nc * f * (f + 1) / 2 + 2.0 * nc * f + 2.0 * nc);
    }
    if (f > 0) {
        if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', f, g->Mh, f) != 0)
            return mbs_fail(w, t, "the reduced mass matrix A^T M A is not positive definite");
        LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', f, 1, g->Mh, f, g->rh, f);
        mbs_flops(w, (double)f * f * f / 3 + 2.0 * f * f);
    }
    /* q'' = A w'' + b */
    for (int k = 0; k < f; k++) w->qdd[g->ind[k]] = g->rh[k];
    for (int r = 0; r < nc; r++) {
        double a = g->bd[r];
        for (int k = 0; k < f; k++) a -= g->C[r + (size_t)nc * k] * g->rh[k];
        w->qdd[g->dep[r]] = a;
    }
    mbs_flops(w, 2.0 * nc * f);
    double p = 0;
    for (int i = 0; i < n; i++) p += w->Q[i] * g->v[i];
    for (int k = 0; k < f; k++) yd[k] = y[f + k], yd[f + k] = g->rh[k];
    yd[2 * f] = p;
    for (int i = 0; i < n; i++)
        if (!isfinite(w->qdd[i])) return mbs_fail(w, t, "non-finite acceleration of coordinate %d", i);
    return 0;
}

/* Diagonal M: A^T M A = M_ii + C^T M_dd C;  A^T (Q - M b) = Q_i - C^T (Q_d - M_dd b_d) */
static void reduced_diagonal(maggi* g) {
    mbs_ws* w = g->w;
    const kd_cms* s = w->sys;
    const int nc = g->nc, f = g->f;
    for (int r = 0; r < nc; r++) w->tc[r] = w->Q[g->dep[r]] - s->mass[g->dep[r]] * g->bd[r];
    for (int k = 0; k < f; k++) {
        const double* ck = g->C + (size_t)nc * k;
        double a = w->Q[g->ind[k]];
        for (int r = 0; r < nc; r++) a -= ck[r] * w->tc[r];
        g->rh[k] = a;
        for (int l = 0; l <= k; l++) {
            const double* cl = g->C + (size_t)nc * l;
            double m = (k == l) ? s->mass[g->ind[k]] : 0;
            for (int r = 0; r < nc; r++) m += s->mass[g->dep[r]] * ck[r] * cl[r];
            g->Mh[k + f * l] = m;
        }
    }
}

/* Block-diagonal M(q) (Kane's projection with a full mass matrix): A = P [I; -C] explicitly,
 * A^T M A from M A block by block, A^T (Q - M b) with b = (0, b_d). */
static int reduced_blocked(maggi* g, double t) {
    mbs_ws* w = g->w;
    const int n = g->n, nc = g->nc, f = g->f;
    if (mbs_mass_values(w, t, g->q)) return -1;
    memset(g->A, 0, sizeof(double) * (size_t)n * f);
    for (int k = 0; k < f; k++) {
        double* ak = g->A + (size_t)n * k;
        ak[g->ind[k]] = 1;
        for (int r = 0; r < nc; r++) ak[g->dep[r]] = -g->C[r + (size_t)nc * k];
        mbs_mass_apply(w, ak, g->MA + (size_t)n * k);
    }
    for (int i = 0; i < n; i++) w->tn3[i] = 0;
    for (int r = 0; r < nc; r++) w->tn3[g->dep[r]] = g->bd[r];
    mbs_mass_apply(w, w->tn3, w->tn2);                          /* M b */
    for (int i = 0; i < n; i++) w->tn2[i] = w->Q[i] - w->tn2[i];
    for (int k = 0; k < f; k++) {
        const double* ak = g->A + (size_t)n * k;
        double a = 0;
        for (int i = 0; i < n; i++) a += ak[i] * w->tn2[i];
        g->rh[k] = a;
        for (int l = 0; l <= k; l++) {
            const double* mal = g->MA + (size_t)n * l;
            double m = 0;
            for (int i = 0; i < n; i++) m += ak[i] * mal[i];
            g->Mh[k + f * l] = m;
        }
    }
    return 0;
}

/* Reactions: Phi_qd^T lambda = (Q - M q'')_d, with the factorisation of the last evaluation. */
static void maggi_lambda(maggi* g) {
    mbs_ws* w = g->w;
    mbs_mass_apply(w, w->qdd, w->tn);
    for (int r = 0; r < g->nc; r++) {
        const int i = g->dep[r];
        w->lambda[r] = w->Q[i] - w->tn[i];
    }
    klu_tsolve(g->sym, g->num, g->nc, 1, w->lambda, &g->kc);
    mbs_flops(w, 2.0 * g->lu_nz + 2.0 * g->nc);
}

static int maggi_output(void* ctx, double t, double* y, int* reinit) {
    maggi* g = ctx;
    mbs_ws* w = g->w;
    *reinit = 0;
    if (maggi_rhs(g, t, y, g->ye + 2 * g->f + 1)) return -1;  /* the rate: scratch (2 f + 1) */
    maggi_lambda(g);
    if (mbs_emit(w, t, g->q, g->v, y[2 * g->f], g->out, g->out_ctx)) return -1;
    /* choose the partition again when Phi_qd is getting ill-conditioned */
    klu_rcond(g->sym, g->num, &g->kc);
    /* KLU's estimate is taken after row scaling: a row with a single dependent entry (the
     * normalisation row of a spatial body's Euler parameters, kedyn/smech.h) always scales to 1.
     * The growth of C = Phi_qd^-1 Phi_qi (dependent velocities per unit independent velocity)
     * shows that singularity too. */
    double cmax = 0;
    for (size_t k = 0; k < (size_t)g->nc * g->f; k++) cmax = fmax(cmax, fabs(g->C[k]));
    if (!(g->cmax0 > 0)) g->cmax0 = fmax(cmax, 1.0);
    if (g->kc.rcond < 0.1 * g->rcond0 || cmax > 3.0 * g->cmax0) {
        if (partition(g, t, g->q)) return -1;
        for (int k = 0; k < g->f; k++) y[k] = g->q[g->ind[k]], y[g->f + k] = g->v[g->ind[k]];
        *reinit = 1;
    }
    return 0;
}

void mbs_maggi_free(maggi** gp) {
    maggi* g = *gp;
    if (!g) return;
    klu_free_numeric(&g->num, &g->kc);
    klu_free_symbolic(&g->sym, &g->kc);
    free(g->dep), free(g->ind), free(g->Bp), free(g->Bi), free(g->Bx), free(g->csr_to_b), free(g->role), free(g->q);
    free(g->v), free(g->C), free(g->Mh), free(g->rh), free(g->bd), free(g->D), free(g->ipiv), free(g->perm);
    free(g->A), free(g->b), free(g->MA), free(g->ye);
    free(g);
    *gp = NULL;
}

kd_status mbs_maggi_new(mbs_ws* w, double t0, const double* q0, maggi** out, kd_error* err) {
    const int n = w->n, nc = w->nc, f = n - nc, nnz = w->nnz;
    *out = NULL;
    if (w->stats->redundant > 0 || f < 0)
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                            "t = %g: the maggi formulation needs independent constraints; %d are redundant", t0,
                            w->stats->redundant);
    /* the partition is chosen on a dense copy of Phi_q^T and A^T M A is dense f x f */
    if ((double)n * nc > MAGGI_DENSE_MAX || (double)f * f > MAGGI_DENSE_MAX)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "the maggi formulation works on dense n x nc and f x f matrices (here %d x %d and %d x %d); "
                            "use the augmented formulation for systems this large",
                            n, nc, f, f);
    maggi* g = calloc(1, sizeof(*g));
    if (!g) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the maggi formulation");
    g->w = w, g->n = n, g->nc = nc, g->f = f;
    klu_defaults(&g->kc);
    g->dep = malloc(sizeof(int) * (nc + 1));
    g->ind = malloc(sizeof(int) * (f + 1));
    g->Bp = malloc(sizeof(int) * (nc + 1));
    g->Bi = malloc(sizeof(int) * (nnz + 1));
    g->Bx = malloc(sizeof(double) * (nnz + 1));
    g->csr_to_b = malloc(sizeof(int) * (nnz + 1));
    g->role = malloc(sizeof(int) * n);
    g->q = malloc(sizeof(double) * n);
    g->v = malloc(sizeof(double) * n);
    g->C = malloc(sizeof(double) * ((size_t)nc * f + 1));
    g->Mh = malloc(sizeof(double) * ((size_t)f * f + 1));
    g->rh = malloc(sizeof(double) * (f + 1));
    g->bd = malloc(sizeof(double) * (nc + 1));
    g->D = malloc(sizeof(double) * ((size_t)n * nc + 1));
    g->ipiv = malloc(sizeof(lapack_int) * (nc + 1));
    g->perm = malloc(sizeof(int) * n);
    g->A = malloc(sizeof(double) * ((size_t)n * f + 1));
    g->b = malloc(sizeof(double) * n);
    g->ye = malloc(sizeof(double) * 2 * (2 * f + 1));
    if (w->blocked) g->MA = malloc(sizeof(double) * ((size_t)n * f + 1));
    if (!g->dep || !g->ind || !g->Bp || !g->Bi || !g->Bx || !g->csr_to_b || !g->role || !g->q || !g->v || !g->C ||
        !g->Mh || !g->rh || !g->bd || !g->D || !g->ipiv || !g->perm || !g->A || !g->b || !g->ye ||
        (w->blocked && !g->MA)) {
        mbs_maggi_free(&g);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the maggi formulation");
    }
    memcpy(g->q, q0, sizeof(double) * n);
    memset(g->v, 0, sizeof(double) * n);
    if (partition(g, t0, g->q)) {
        mbs_maggi_free(&g);
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: %s", w->fail_t, w->why);
    }
    *out = g;
    return KD_OK;
}

int mbs_maggi_eval(maggi* g, double t, const double* q, const double* qd) {
    const int f = g->f;
    double *y = g->ye, *yd = g->ye + 2 * f + 1;   /* (w, w', W) and its rate */
    memcpy(g->q, q, sizeof(double) * g->n);
    for (int k = 0; k < f; k++) y[k] = q[g->ind[k]], y[f + k] = qd[g->ind[k]];
    y[2 * f] = 0;
    if (maggi_rhs(g, t, y, yd)) return -1;
    maggi_lambda(g);
    return 0;
}

kd_status mbs_run_maggi(mbs_ws* w, const double* q0, const double* qd0, kd_mbs_output_fn out, void* ctx,
                        kd_error* err) {
    maggi* g = NULL;
    kd_status st = mbs_maggi_new(w, w->opts->t0, q0, &g, err);
    if (st) return st;
    const int f = g->f;
    g->out = out, g->out_ctx = ctx;
    memcpy(g->v, qd0, sizeof(double) * w->n);
    double* y = malloc(sizeof(double) * (2 * f + 1));
    if (!y) {
        mbs_maggi_free(&g);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the maggi formulation");
    }
    for (int k = 0; k < f; k++) y[k] = g->q[g->ind[k]], y[f + k] = g->v[g->ind[k]];
    y[2 * f] = 0;
    mbs_ode ode = {2 * f + 1, &w->failed, g, maggi_rhs, NULL, NULL, maggi_output, f};
    st = mbs_ode_run(w, &ode, y, err);
    free(y);
    mbs_maggi_free(&g);
    return st;
}
