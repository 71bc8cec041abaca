/* Spatial mechanisms: mobility (rank, Grübler-Kutzbach, redundant rows), kinematics with singular
 * positions, inverse dynamics by multipliers and by projection (theory.md sec. "Spatial rigid
 * mechanisms", S9, S10). Dense LAPACK on Phi_q: tens of bodies; the workspace is allocated once
 * per analysis. */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/smech_lu.h"
#include "kedyn/smech_qr.h"
#include "spatial_internal.h"

#define RANK_TOL 1e-9

typedef struct sp_work {
    int n, nc, N, ld;
    double *jac, *A, *K, *b, *s, *phi, *Q, *Mb, *x, *P, *work;
    int lwork;
} sp_work;

static void work_free(sp_work* w) {
    free(w->jac), free(w->A), free(w->K), free(w->b), free(w->s), free(w->phi), free(w->Q), free(w->Mb), free(w->x);
    free(w->P), free(w->work);
    memset(w, 0, sizeof(*w));
}

static int work_new(const kd_smech* m, sp_work* w) {
    memset(w, 0, sizeof(*w));
    const int n = m->n, nc = m->nc, N = n + nc, nd = m->ndriver > 0 ? m->ndriver : 1;
    w->n = n, w->nc = nc, w->N = N, w->ld = N;
    w->jac = malloc(sizeof(double) * (size_t)(m->jac_nnz + 1));
    w->A = malloc(sizeof(double) * (size_t)N * N);
    w->K = malloc(sizeof(double) * (size_t)N * N);
    w->b = malloc(sizeof(double) * (size_t)N * (nd + 1));
    w->s = malloc(sizeof(double) * (size_t)(N + 1));
    w->phi = malloc(sizeof(double) * (size_t)(nc + 1));
    w->Q = malloc(sizeof(double) * (size_t)(n + 1));
    w->Mb = malloc(sizeof(double) * (size_t)KD_SPOSE * KD_SPOSE * m->nbody);
    w->x = malloc(sizeof(double) * (size_t)(N + 1));
    w->P = malloc(sizeof(double) * (size_t)N * nd);
    double qw = 0;
    lapack_int rank;
    LAPACKE_dgelss_work(LAPACK_COL_MAJOR, N, N, nd, NULL, N, NULL, N, NULL, -1, &rank, &qw, -1);
    w->lwork = (int)qw + 16 * N + 64;
    w->work = malloc(sizeof(double) * (size_t)w->lwork);
    if (!w->jac || !w->A || !w->K || !w->b || !w->s || !w->phi || !w->Q || !w->Mb || !w->x || !w->P || !w->work) {
        work_free(w);
        return -1;
    }
    return 0;
}

/* Minimum-norm least squares A X = B (rows x cols, nrhs columns, B with leading dimension
 * w->ld); A (leading dimension w->ld) destroyed. */
static int lsq(sp_work* w, int rows, int cols, double* A, double* B, int nrhs, int* rank) {
    lapack_int r = 0;
    const int info = (int)LAPACKE_dgelss_work(LAPACK_COL_MAJOR, rows, cols, nrhs, A, w->ld, B, w->ld, w->s, RANK_TOL,
                                              &r, w->work, w->lwork);
    if (rank) *rank = (int)r;
    return info;
}

static double cond_of(const double* s, int ns, int rank) {
    if (rank < 1) return 1.0;
    if (rank > ns || !(s[rank - 1] > 0)) return INFINITY;
    return s[0] / s[rank - 1];
}

static int rank_rows(const kd_smech* m, sp_work* w, int nrow, double* cond) {
    if (nrow == 0) return *cond = 1.0, 0;
    kd_smech_jac_dense(m, w->jac, nrow, w->K, w->ld);
    memset(w->b, 0, sizeof(double) * (size_t)w->N);
    int rank = 0;
    lsq(w, nrow, m->n, w->K, w->b, 1, &rank);
    *cond = cond_of(w->s, nrow < m->n ? nrow : m->n, rank);
    return rank;
}

/* ---- the sparse path (theory.md sec. 11.3) ----------------------------------------------
 * A fully driven mechanism without redundant rows has a square, regular Phi_q: every Newton
 * step, velocity, acceleration and multiplier is one solve with its sparse LU, at a cost linear in
 * the number of bodies of a chain, where the dense SVD of the n x n Phi_q costs n^3. */

static int sparse_wanted(const kd_smech* m) {
    return m->nc == m->n && (m->linalg == KD_SMECH_LINALG_SPARSE ||
                             (m->linalg == KD_SMECH_LINALG_AUTO && m->n >= KD_SMECH_SPARSE_MIN));
}

/* The single-instant functions' LU (m->lu, made once; the workspace rule of jl_work). */
static kd_smech_lu* cached_lu(const kd_smech* m) {
    if (!m->lu) {
        kd_error e;
        kd_smech_lu* lu = NULL;
        if (kd_smech_lu_new(m, &lu, &e)) return NULL;
        ((kd_smech*)m)->lu = lu;
    }
    return m->lu;
}

typedef struct sp_sparse {
    kd_smech_lu* lu;
    double *jac, *b, *Mb, *Q;
} sp_sparse;

static void sparse_free(sp_sparse* s) { free(s->jac), free(s->b), free(s->Mb), free(s->Q); }

static int sparse_new(const kd_smech* m, kd_smech_lu* lu, sp_sparse* s) {
    s->lu = lu;
    s->jac = malloc(sizeof(double) * (size_t)(m->jac_nnz + 1));
    s->b = malloc(sizeof(double) * (size_t)(m->n + 1));
    s->Mb = malloc(sizeof(double) * (size_t)(KD_SPOSE * KD_SPOSE * m->nbody + 1));
    s->Q = malloc(sizeof(double) * (size_t)(m->n + 1));
    if (!lu || !s->jac || !s->b || !s->Mb || !s->Q) {
        sparse_free(s);
        return -1;
    }
    return 0;
}

/* Phi_q at (t, q) factorised, with its 1-norm condition estimate. 0, or 1 when singular. */
static int sparse_factor(const kd_smech* m, sp_sparse* s, double t, const double* q, double* cond) {
    kd_smech_jacobian(m, t, q, s->jac);
    double c = INFINITY;
    const int bad = kd_smech_lu_factor(s->lu, s->jac, &c);
    if (cond) *cond = bad ? INFINITY : c;
    return bad || !(c < 1.0 / RANK_TOL);
}

/* Newton with the LU; at the solution Phi_q stays factorised (velocity, acceleration). Returns
 * KD_OK, KD_ERR_NUMERIC (no convergence or singular). */
static kd_status sparse_position(const kd_smech* m, sp_sparse* s, double t, double* q, kd_smech_info* info,
                                 kd_error* err) {
    const double tol = 1e-11 * fmax(1.0, m->length_scale);
    memset(info, 0, sizeof(*info));
    double* phi = s->b;
    for (int it = 0; it <= 50; it++) {
        kd_smech_phi(m, t, q, phi);
        double r = 0;
        for (int i = 0; i < m->nc; i++) r = fmax(r, fabs(phi[i]));
        info->residual = r, info->iterations = it;
        const int sing = sparse_factor(m, s, t, q, r <= tol ? &info->cond : NULL);
        info->rank = sing ? m->n - 1 : m->n;  /* a singular LU: rank below n, not counted */
        if (r <= tol || sing) return sing ? kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                                                         "t = %g s: Phi_q is singular", t)
                                          : KD_OK;
        if (!isfinite(r)) break;
        for (int i = 0; i < m->n; i++) phi[i] = -phi[i];
        kd_smech_lu_solve(s->lu, 0, phi);
        for (int i = 0; i < m->n; i++) q[i] += phi[i];
    }
    return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                        "cannot assemble at t = %g s: |Phi| = %.3g after 50 Newton iterations", t, info->residual);
}

/* q' = -Phi_q^-1 Phi_t and q'' = Phi_q^-1 gamma with the factor at q. */
static void sparse_rates(const kd_smech* m, sp_sparse* s, double t, const double* q, double* qd, double* qdd) {
    kd_smech_phi_t(m, t, q, qd);
    for (int i = 0; i < m->n; i++) qd[i] = -qd[i];
    kd_smech_lu_solve(s->lu, 0, qd);
    if (!qdd) return;
    kd_smech_gamma(m, t, q, qd, qdd);
    kd_smech_lu_solve(s->lu, 0, qdd);
}

/* Phi_q^T lambda = Q - M q'' (the factor at q, the Jacobian in s->jac). */
static void sparse_multipliers(const kd_smech* m, sp_sparse* s, double t, const double* q, const double* qd,
                               const double* qdd, double* lambda) {
    kd_smech_mass_blocks(m, q, s->Mb);
    kd_smech_force(m, t, q, qd, s->Q);
    for (int b = 0; b < m->nbody; b++)
        for (int i = 0; i < KD_SPOSE; i++) {
            double a = s->Q[KD_SPOSE * b + i];
            for (int c = 0; c < KD_SPOSE; c++) a -= s->Mb[(size_t)49 * b + 7 * c + i] * qdd[KD_SPOSE * b + c];
            lambda[KD_SPOSE * b + i] = a;
        }
    kd_smech_lu_solve(s->lu, 1, lambda);
}

/* The single-instant functions on the sparse path: 1 when it applies (s ready, Phi_q factorised
 * at (t, q) and regular), 0 when the dense path must answer. */
static int sparse_at(const kd_smech* m, sp_sparse* s, double t, const double* q, double* cond) {
    if (!sparse_wanted(m) || sparse_new(m, cached_lu(m), s)) return 0;
    if (sparse_factor(m, s, t, q, cond)) {
        sparse_free(s);
        return 0;
    }
    return 1;
}

/* ---- the sparse path of a non-square Phi_q (theory.md sec. 11.4) ---------------------------
 * Undriven degrees of freedom (nc < n) or redundant rows (nc > n, or nc = n with a rank drop):
 * the rank-revealing sparse QR of Phi_q^T (kedyn/smech_qr.h) gives the rank, the redundant rows in
 * the dense route's order, minimum-norm solutions of Phi_q x = b and least-squares multipliers. */

/* Asked after the LU declined (Phi_q not square, or square and singular). */
static int qr_wanted(const kd_smech* m) {
    return m->linalg == KD_SMECH_LINALG_SPARSE || (m->linalg == KD_SMECH_LINALG_AUTO && m->n >= KD_SMECH_SPARSE_MIN);
}

typedef struct sp_qr {
    kd_smech_qr* qr;
    double *jac, *b, *x;          /* (jac_nnz), (max(n, nc)), (n) */
} sp_qr;

static void qr_free(sp_qr* s) {
    kd_smech_qr_free(&s->qr);
    free(s->jac), free(s->b), free(s->x);
}

static int qr_new(const kd_smech* m, sp_qr* s) {
    kd_error e;
    memset(s, 0, sizeof(*s));
    const int nb = m->n > m->nc ? m->n : m->nc;
    kd_smech_qr_new(m, KD_SMECH_QR_TOL, &s->qr, &e);
    s->jac = malloc(sizeof(double) * (size_t)(m->jac_nnz + 1));
    s->b = malloc(sizeof(double) * (size_t)(nb + 1));
    s->x = malloc(sizeof(double) * (size_t)(m->n + 1));
    if (!s->qr || !s->jac || !s->b || !s->x) {
        qr_free(s);
        return -1;
    }
    return 0;
}

/* Phi_q^T at (t, q) factorised; rank (all rows) and its condition estimate cond (may be NULL).
 * 0, or 1 on failure. */
static int qr_factor(const kd_smech* m, sp_qr* s, double t, const double* q, int* rank, double* cond) {
    kd_smech_jacobian(m, t, q, s->jac);
    if (kd_smech_qr_factor(s->qr, s->jac)) return 1;
    kd_smech_qr_rank(s->qr, NULL, rank, NULL, 0, NULL);
    if (cond) *cond = kd_smech_qr_cond(s->qr);
    return 0;
}

/* Gauss-Newton with minimum-norm steps (the dense route's, on the QR). KD_OK, KD_ERR_NUMERIC,
 * KD_ERR_NOMEM. */
static kd_status qr_position(const kd_smech* m, sp_qr* s, double t, double* q, kd_smech_info* info, kd_error* err) {
    const double tol = 1e-11 * fmax(1.0, m->length_scale);
    memset(info, 0, sizeof(*info));
    for (int it = 0; it <= 50; it++) {
        kd_smech_phi(m, t, q, s->b);
        double r = 0;
        for (int i = 0; i < m->nc; i++) r = fmax(r, fabs(s->b[i]));
        info->residual = r, info->iterations = it;
        if (qr_factor(m, s, t, q, &info->rank, r <= tol ? &info->cond : NULL))
            return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "t = %g s: sparse QR failed", t);
        if (r <= tol) return KD_OK;
        if (!isfinite(r)) break;
        for (int i = 0; i < m->nc; i++) s->b[i] = -s->b[i];
        kd_smech_qr_solve(s->qr, s->b, s->x);
        for (int i = 0; i < m->n; i++) q[i] += s->x[i];
    }
    return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                        "cannot assemble at t = %g s: |Phi| = %.3g after 50 Newton iterations", t, info->residual);
}

/* Phi_q x = rhs (minimum norm) with the factor at q; project: x = x + Phi_q^+ (rhs - Phi_q x). rhs
 * may be s->b. */
static void qr_rows(const kd_smech* m, sp_qr* s, double* x, const double* rhs, int project) {
    if (!project) {
        kd_smech_qr_solve(s->qr, rhs, x);
        return;
    }
    for (int i = 0; i < m->nc; i++) {
        double a = rhs[i];
        for (int k = m->jac_rowptr[i]; k < m->jac_rowptr[i + 1]; k++) a -= s->jac[k] * x[m->jac_col[k]];
        s->b[i] = a;
    }
    kd_smech_qr_solve(s->qr, s->b, s->x);
    for (int i = 0; i < m->n; i++) x[i] += s->x[i];
}

/* q' (project: a guess projected) and q'' (may be NULL) with the factor at q. */
static void qr_rates(const kd_smech* m, sp_qr* s, double t, const double* q, double* qd, double* qdd, int project) {
    kd_smech_phi_t(m, t, q, s->b);
    for (int i = 0; i < m->nc; i++) s->b[i] = -s->b[i];
    qr_rows(m, s, qd, s->b, project);
    if (!qdd) return;
    kd_smech_gamma(m, t, q, qd, s->b);
    kd_smech_qr_solve(s->qr, s->b, qdd);
}

/* Phi_q^T lambda = Q - M q'' (least squares; zero on the redundant rows) with the factor at q. */
static void qr_multipliers(const kd_smech* m, sp_qr* s, double t, const double* q, const double* qd,
                           const double* qdd, double* Mb, double* lambda) {
    kd_smech_mass_blocks(m, q, Mb);
    kd_smech_force(m, t, q, qd, s->x);
    for (int b = 0; b < m->nbody; b++)
        for (int i = 0; i < KD_SPOSE; i++) {
            double a = s->x[KD_SPOSE * b + i];
            for (int c = 0; c < KD_SPOSE; c++) a -= Mb[(size_t)49 * b + 7 * c + i] * qdd[KD_SPOSE * b + c];
            s->b[KD_SPOSE * b + i] = a;
        }
    kd_smech_qr_tsolve(s->qr, s->b, lambda);
}

/* The single-instant functions on the QR path: 1 when it applies (s ready, Phi_q^T factorised at
 * (t, q)), 0 when the dense path must answer. */
static int qr_at(const kd_smech* m, sp_qr* s, double t, const double* q, int* rank) {
    if (!qr_wanted(m) || qr_new(m, s)) return 0;
    if (qr_factor(m, s, t, q, rank, NULL)) {
        qr_free(s);
        return 0;
    }
    return 1;
}

kd_status kd_smech_mobility_at(const kd_smech* m, double t, const double* q, kd_smech_mobility* mob, kd_error* err) {
    memset(mob, 0, sizeof(*mob));
    mob->gruebler = 6 * m->nbody - m->nc_joint;  /* S9: 7 coordinates less one normalisation per body */
    sp_sparse sp;
    if (sparse_at(m, &sp, t, q, &mob->cond)) {
        /* a regular square Phi_q: every row independent, the drivers take the n - nc_mech DOF */
        sparse_free(&sp);
        mob->rank_driven = m->n, mob->rank = m->nc_mech;
        mob->dof = m->n - mob->rank, mob->dof_undriven = 0;
        return KD_OK;
    }
    sp_qr sq;
    int rank;
    if (qr_at(m, &sq, t, q, &rank)) {
        /* the rows independent of those before them in the pass order: the dense route's rank and
         * redundant rows (sec. 11.4); cond: estimated from below with the factor */
        int dead[KD_SMECH_REDUNDANT_MAX], nd;
        kd_smech_qr_rank(sq.qr, &mob->rank, &mob->rank_driven, dead, KD_SMECH_REDUNDANT_MAX, &nd);
        mob->cond = kd_smech_qr_cond(sq.qr);
        qr_free(&sq);
        mob->dof = m->n - mob->rank, mob->dof_undriven = m->n - mob->rank_driven;
        mob->nredundant = nd < KD_SMECH_REDUNDANT_MAX ? nd : KD_SMECH_REDUNDANT_MAX;
        memcpy(mob->redundant_row, dead, sizeof(int) * (size_t)mob->nredundant);
        return KD_OK;
    }
    sp_work w;
    if (work_new(m, &w)) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    kd_smech_jacobian(m, t, q, w.jac);
    double c;
    mob->rank = rank_rows(m, &w, m->nc_mech, &c);
    mob->rank_driven = rank_rows(m, &w, m->nc, &mob->cond);
    mob->dof = m->n - mob->rank;
    mob->dof_undriven = m->n - mob->rank_driven;
    mob->gruebler = 6 * m->nbody - m->nc_joint;  /* S9: 7 coordinates less one normalisation per body */
    /* redundant rows: Gram-Schmidt (twice) over the rows in order, normalisation rows first so
     * that a redundancy is named at a joint */
    const int n = m->n;
    kd_smech_jac_dense(m, w.jac, m->nc, w.A, w.ld);
    double scale = 0;
    for (int r = 0; r < m->nc; r++) {
        double nr = 0;
        for (int k = 0; k < n; k++) nr += w.A[(size_t)k * w.ld + r] * w.A[(size_t)k * w.ld + r];
        scale = fmax(scale, sqrt(nr));
    }
    double* basis = w.K;
    int kept = 0;
    for (int pass = 0; pass < m->nc; pass++) {
        const int r = pass < m->nbody ? m->nc_joint + pass : pass < m->nc_mech ? pass - m->nbody : pass;
        double* v = w.x;
        for (int k = 0; k < n; k++) v[k] = w.A[(size_t)k * w.ld + r];
        for (int it = 0; it < 2; it++)
            for (int b = 0; b < kept; b++) {
                double p = 0;
                for (int k = 0; k < n; k++) p += basis[(size_t)b * n + k] * v[k];
                for (int k = 0; k < n; k++) v[k] -= p * basis[(size_t)b * n + k];
            }
        double nv = 0;
        for (int k = 0; k < n; k++) nv += v[k] * v[k];
        nv = sqrt(nv);
        if (nv > 1e-7 * scale && kept < n) {
            for (int k = 0; k < n; k++) basis[(size_t)kept * n + k] = v[k] / nv;
            kept++;
        } else if (mob->nredundant < KD_SMECH_REDUNDANT_MAX)
            mob->redundant_row[mob->nredundant++] = r;
    }
    work_free(&w);
    return KD_OK;
}

void kd_smech_redundant_names(const kd_smech* m, const kd_smech_mobility* mob, char* buf, int n) {
    int used = 0;
    if (n > 0) buf[0] = 0;
    for (int i = 0; i < mob->nredundant && used < n; i++) {
        const int r = mob->redundant_row[i], o = m->row_owner[r];
        char one[160];
        if (o >= 0)
            snprintf(one, sizeof(one), "%s (%s, row %d)", m->joint[o].name, kd_sjoint_name(m->joint[o].type),
                     r - m->joint[o].row + 1);
        else if (o >= -m->nbody)
            snprintf(one, sizeof(one), "%s (normalisation)", m->body_name[-1 - o]);
        else
            snprintf(one, sizeof(one), "driver of %s", m->joint[m->driver[-(1 + m->nbody) - o].joint].name);
        used += snprintf(buf + used, (size_t)(n - used), "%s%s", i ? ", " : "", one);
    }
}

/* ---- positions, velocities, accelerations ---------------------------------------------- */

static kd_status position(const kd_smech* m, sp_work* w, double t, double* q, kd_smech_info* info, kd_error* err) {
    const double tol = 1e-11 * fmax(1.0, m->length_scale);
    kd_smech_info loc;
    if (!info) info = &loc;
    memset(info, 0, sizeof(*info));
    for (int it = 0; it <= 50; it++) {
        kd_smech_phi(m, t, q, w->phi);
        double r = 0;
        for (int i = 0; i < m->nc; i++) r = fmax(r, fabs(w->phi[i]));
        info->residual = r, info->iterations = it;
        kd_smech_jacobian(m, t, q, w->jac);
        kd_smech_jac_dense(m, w->jac, m->nc, w->A, w->ld);
        for (int i = 0; i < m->nc; i++) w->b[i] = -w->phi[i];
        for (int i = m->nc; i < w->N; i++) w->b[i] = 0;
        int rank = 0;
        if (lsq(w, m->nc, m->n, w->A, w->b, 1, &rank))
            return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g s: LAPACK failure", t);
        info->rank = rank;
        info->cond = cond_of(w->s, m->nc < m->n ? m->nc : m->n, rank);
        if (r <= tol) return KD_OK;
        if (!isfinite(r)) break;
        for (int i = 0; i < m->n; i++) q[i] += w->b[i];
    }
    return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                        "cannot assemble at t = %g s: |Phi| = %.3g after 50 Newton iterations", t, info->residual);
}

kd_status kd_smech_solve_position(const kd_smech* m, double t, double* q, kd_smech_info* info, kd_error* err) {
    sp_sparse sp;
    if (sparse_wanted(m) && !sparse_new(m, cached_lu(m), &sp)) {
        /* from a guess that assembles on the sparse path; otherwise the dense one from the same guess */
        double* q1 = malloc(sizeof(double) * (size_t)(m->n + 1));
        kd_smech_info loc;
        kd_error e;
        const kd_status s1 = q1 ? (memcpy(q1, q, sizeof(double) * (size_t)m->n),
                                   sparse_position(m, &sp, t, q1, info ? info : &loc, &e))
                                : KD_ERR_NOMEM;
        if (!s1) memcpy(q, q1, sizeof(double) * (size_t)m->n);
        free(q1);
        sparse_free(&sp);
        if (!s1) return KD_OK;
    }
    sp_qr sq;
    if (qr_wanted(m) && !qr_new(m, &sq)) {
        kd_smech_info loc;
        const kd_status s1 = qr_position(m, &sq, t, q, info ? info : &loc, err);
        qr_free(&sq);
        return s1;
    }
    sp_work w;
    if (work_new(m, &w)) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    kd_status st = position(m, &w, t, q, info, err);
    work_free(&w);
    return st;
}

/* Phi_q x = rhs (minimum norm; project: x = qd - Phi_q^+ (Phi_q qd - rhs)). */
static kd_status solve_rows(const kd_smech* m, sp_work* w, double t, const double* q, double* x, const double* rhs,
                            int project, kd_error* err) {
    kd_smech_jacobian(m, t, q, w->jac);
    kd_smech_jac_dense(m, w->jac, m->nc, w->A, w->ld);
    for (int i = 0; i < m->nc; i++) {
        double a = rhs[i];
        if (project)
            for (int k = m->jac_rowptr[i]; k < m->jac_rowptr[i + 1]; k++) a -= w->jac[k] * x[m->jac_col[k]];
        w->b[i] = a;
    }
    for (int i = m->nc; i < w->N; i++) w->b[i] = 0;
    int rank;
    if (lsq(w, m->nc, m->n, w->A, w->b, 1, &rank))
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g s: LAPACK failure", t);
    for (int i = 0; i < m->n; i++) x[i] = project ? x[i] + w->b[i] : w->b[i];
    return KD_OK;
}

static kd_status velocity(const kd_smech* m, sp_work* w, double t, const double* q, double* qd, int project,
                          kd_error* err) {
    kd_smech_phi_t(m, t, q, w->phi);
    for (int i = 0; i < m->nc; i++) w->phi[i] = -w->phi[i];
    return solve_rows(m, w, t, q, qd, w->phi, project, err);
}

static kd_status acceleration(const kd_smech* m, sp_work* w, double t, const double* q, const double* qd,
                              double* qdd, kd_error* err) {
    kd_smech_gamma(m, t, q, qd, w->phi);
    return solve_rows(m, w, t, q, qdd, w->phi, 0, err);
}

kd_status kd_smech_solve_velocity(const kd_smech* m, double t, const double* q, double* qd, int project,
                                  kd_error* err) {
    sp_sparse sp;
    if (sparse_at(m, &sp, t, q, NULL)) {  /* a square regular Phi_q: the projection is the solution */
        sparse_rates(m, &sp, t, q, qd, NULL);
        sparse_free(&sp);
        return KD_OK;
    }
    sp_qr sq;
    int rank;
    if (qr_at(m, &sq, t, q, &rank)) {
        qr_rates(m, &sq, t, q, qd, NULL, project);
        qr_free(&sq);
        return KD_OK;
    }
    sp_work w;
    if (work_new(m, &w)) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    kd_status st = velocity(m, &w, t, q, qd, project, err);
    work_free(&w);
    return st;
}

kd_status kd_smech_solve_acceleration(const kd_smech* m, double t, const double* q, const double* qd, double* qdd,
                                      kd_error* err) {
    sp_sparse sp;
    if (sparse_at(m, &sp, t, q, NULL)) {
        kd_smech_gamma(m, t, q, qd, qdd);
        kd_smech_lu_solve(sp.lu, 0, qdd);
        sparse_free(&sp);
        return KD_OK;
    }
    sp_qr sq;
    int rank;
    if (qr_at(m, &sq, t, q, &rank)) {
        kd_smech_gamma(m, t, q, qd, sq.b);
        kd_smech_qr_solve(sq.qr, sq.b, qdd);
        qr_free(&sq);
        return KD_OK;
    }
    sp_work w;
    if (work_new(m, &w)) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    kd_status st = acceleration(m, &w, t, q, qd, qdd, err);
    work_free(&w);
    return st;
}

/* ---- kinematics: one loop over the instants, on the route of Phi_q ------------------------- */

/* A route of the kinematics loop: its Newton solve of the position from a guess q, and the rates
 * q', q'' at the q it assembled (with its factor of Phi_q there). */
typedef struct kin_route {
    kd_status (*position)(const kd_smech* m, void* self, double t, double* q, kd_smech_info* info, kd_error* err);
    kd_status (*rates)(const kd_smech* m, void* self, double t, const double* q, double* qd, double* qdd,
                       kd_error* err);
    void* self;
} kin_route;

static kd_status sparse_position_of(const kd_smech* m, void* self, double t, double* q, kd_smech_info* info,
                                    kd_error* err) {
    return sparse_position(m, self, t, q, info, err);
}
static kd_status sparse_rates_of(const kd_smech* m, void* self, double t, const double* q, double* qd, double* qdd,
                                 kd_error* err) {
    (void)err;
    sparse_rates(m, self, t, q, qd, qdd);
    return KD_OK;
}
static kd_status qr_position_of(const kd_smech* m, void* self, double t, double* q, kd_smech_info* info,
                                kd_error* err) {
    return qr_position(m, self, t, q, info, err);
}
static kd_status qr_rates_of(const kd_smech* m, void* self, double t, const double* q, double* qd, double* qdd,
                             kd_error* err) {
    (void)err;
    qr_rates(m, self, t, q, qd, qdd, 0);
    return KD_OK;
}
static kd_status dense_position_of(const kd_smech* m, void* self, double t, double* q, kd_smech_info* info,
                                   kd_error* err) {
    return position(m, self, t, q, info, err);
}
static kd_status dense_rates_of(const kd_smech* m, void* self, double t, const double* q, double* qd, double* qdd,
                                kd_error* err) {
    kd_status st = velocity(m, self, t, q, qd, 0, err);
    return st ? st : acceleration(m, self, t, q, qd, qdd, err);
}

/* The instants k h, h = t_end / steps, from q (3 n: q, q', q''; q assembled at t = 0, info of that
 * solve): between instants the predictor q + h q' + h^2/2 q'' and the route's Newton; at each
 * instant the rates, the condition and rank checks (rank0: the rank at t = 0) and the sink. cmax:
 * the largest condition number met. */
static kd_status kinematics_loop(const kd_smech* m, const kin_route* r, double t_end, int steps, double cond_max,
                                 int rank0, kd_smech_sink sink, void* ctx, double* q, kd_smech_info* info,
                                 double* cmax, kd_error* err) {
    const int n = m->n;
    double *qd = q + n, *qdd = q + 2 * n;
    const double h = t_end / (steps > 0 ? steps : 1);
    for (int k = 0; k <= steps; k++) {
        const double t = k * h;
        kd_status st;
        if (k > 0) {
            for (int i = 0; i < n; i++) q[i] += h * qd[i] + 0.5 * h * h * qdd[i];
            const double cond_prev = info->cond;
            st = r->position(m, r->self, t, q, info, err);
            if (st == KD_ERR_NUMERIC)  /* assembled at t - h, not at t: a limit position between */
                return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                                    "singular position between t = %g and %g s: the mechanism does not assemble "
                                    "past it (a limit position; condition number of Phi_q %.3g at t = %g s)",
                                    t - h, t, cond_prev, t - h);
            if (st) return st;
        }
        if ((st = r->rates(m, r->self, t, q, qd, qdd, err))) return st;
        if (info->cond > *cmax) *cmax = info->cond;
        if (info->cond > cond_max || info->rank < rank0)
            return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                                "singular position at t = %g s: the condition number of Phi_q is %.3g (above "
                                "cond_max %.3g; rank %d of %d)",
                                t, info->cond, cond_max, info->rank, rank0);
        if (sink && sink(ctx, t, q, qd, qdd, info))
            return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g s: the output failed", t);
    }
    return KD_OK;
}

/* q, q', q'' (3 n) with q = q0 and zero rates, or NULL. */
static double* kinematics_state(const kd_smech* m) {
    double* q = calloc(3 * (size_t)m->n, sizeof(double));
    if (q) memcpy(q, m->q0, sizeof(double) * (size_t)m->n);
    return q;
}

/* Kinematics on the sparse LU (its own: the sink may call the single-instant functions, which use
 * m->lu). Returns KD_OK, an error, or -1 (before any output) when Phi_q is not regular at the
 * assembled start. */
static int kinematics_sparse(const kd_smech* m, double t_end, int steps, double cond_max, kd_smech_sink sink,
                             void* ctx, double* cond_max_met, kd_error* err) {
    kd_smech_lu* lu = NULL;
    kd_error e0;
    if (kd_smech_lu_new(m, &lu, &e0)) return -1;
    sp_sparse sp;
    double* q = kinematics_state(m);
    if (!q || sparse_new(m, lu, &sp)) {
        free(q), kd_smech_lu_free(&lu);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    kd_smech_info info;
    double cmax = 0;
    int st = -1;
    if (!sparse_position(m, &sp, 0.0, q, &info, err)) {
        const kin_route r = {sparse_position_of, sparse_rates_of, &sp};
        st = kinematics_loop(m, &r, t_end, steps, cond_max, m->n, sink, ctx, q, &info, &cmax, err);
        if (cond_max_met) *cond_max_met = cmax;
    }
    free(q), sparse_free(&sp), kd_smech_lu_free(&lu);
    return st;
}

/* Kinematics on the QR (a fully driven mechanism with redundant rows: rank n of nc > n rows). */
static kd_status kinematics_qr(const kd_smech* m, double t_end, int steps, double cond_max, kd_smech_sink sink,
                               void* ctx, double* cond_max_met, kd_error* err) {
    sp_qr sq;
    double* q = kinematics_state(m);
    if (!q || qr_new(m, &sq)) {
        free(q);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    kd_smech_info info;
    double cmax = 0;
    kd_status st = qr_position(m, &sq, 0.0, q, &info, err);
    if (!st && info.rank < m->n)
        st = kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                          "kinematics needs a fully driven mechanism: %d degree(s) of freedom left by the drivers",
                          m->n - info.rank);
    if (!st) {
        const kin_route r = {qr_position_of, qr_rates_of, &sq};
        st = kinematics_loop(m, &r, t_end, steps, cond_max, info.rank, sink, ctx, q, &info, &cmax, err);
    }
    if (cond_max_met) *cond_max_met = cmax;
    free(q), qr_free(&sq);
    return st;
}

kd_status kd_smech_kinematics(const kd_smech* m, double t_end, int steps, double cond_max, kd_smech_sink sink,
                              void* ctx, double* cond_max_met, kd_error* err) {
    if (sparse_wanted(m)) {
        const int s = kinematics_sparse(m, t_end, steps, cond_max, sink, ctx, cond_max_met, err);
        if (s != -1) return (kd_status)s;
        kd_error_clear(err);
    }
    if (qr_wanted(m)) return kinematics_qr(m, t_end, steps, cond_max, sink, ctx, cond_max_met, err);
    sp_work w;
    if (work_new(m, &w)) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    double* q = kinematics_state(m);
    if (!q) {
        work_free(&w);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    kd_smech_info info;
    double cmax = 0;
    kd_status st = position(m, &w, 0.0, q, &info, err);
    if (!st && info.rank < m->n) {
        kd_smech_mobility mob;
        st = kd_smech_mobility_at(m, 0.0, q, &mob, err);
        if (!st)
            st = kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                              "kinematics needs a fully driven mechanism: %d degree(s) of freedom left by the "
                              "drivers",
                              mob.dof_undriven);
    }
    if (!st) {
        const kin_route r = {dense_position_of, dense_rates_of, &w};
        st = kinematics_loop(m, &r, t_end, steps, cond_max, info.rank, sink, ctx, q, &info, &cmax, err);
    }
    if (cond_max_met) *cond_max_met = cmax;
    free(q);
    work_free(&w);
    return st;
}

kd_status kd_smech_reactions_alloc(const kd_smech* m, kd_smech_reactions* r) {
    r->F = calloc((size_t)(6 * m->njoint + 1), sizeof(double));
    r->drive = calloc((size_t)(m->ndriver + 1), sizeof(double));
    r->lambda = calloc((size_t)(m->nc + 1), sizeof(double));
    if (!r->F || !r->drive || !r->lambda) {
        kd_smech_reactions_free(r);
        return KD_ERR_NOMEM;
    }
    return KD_OK;
}

void kd_smech_reactions_free(kd_smech_reactions* r) {
    free(r->F), free(r->drive), free(r->lambda);
    r->F = r->drive = r->lambda = NULL;
}

/* The force F (global) and moment about the joint's point on body 1 of the generalised
 * constraint force g = -Phi_q^T lambda of the joint's (and its driver's) rows on one body:
 * Q_r = F, Q_p = J_a^T F + 2 E^T n, so n = E (Q_p - J_a^T F) / 2 (S10). */
/* Joint k's generalised constraint force on its body `side` (S10), g = -Phi_q,k^T lambda_k
 * restricted to that body's seven columns, from the CSR Jacobian. */
static void joint_force(const kd_smech* m, const kd_sjoint* j, int side, const double* jac, const double* lambda,
                        double g[7]) {
    for (int c = 0; c < 7; c++) g[c] = 0.0;
    for (int pass = 0; pass < 2; pass++) {
        const int r0 = pass ? (j->driver >= 0 ? m->driver[j->driver].row : 0) : j->row;
        const int nr = pass ? (j->driver >= 0) : j->nrow;
        for (int r = r0; r < r0 + nr; r++)
            for (int k = m->jac_rowptr[r]; k < m->jac_rowptr[r + 1]; k++)
                if (m->jac_slot[k] / KD_SPOSE == side) g[m->jac_slot[k] % KD_SPOSE] -= jac[k] * lambda[r];
    }
}

void kd_smech_reactions_jac(const kd_smech* m, const double* q, const double* jac, kd_smech_reactions* r) {
    for (int k = 0; k < m->njoint; k++) {
        const kd_sjoint* j = m->joint + k;
        const int side = j->body[1] >= 0 ? 1 : 0;
        double g[7];
        joint_force(m, j, side, jac, r->lambda, g);
        const int b = j->body[side];
        sp_vterm a;
        sp_term(m, b, j->s[side], 1, q, NULL, &a);
        double E[3][4], F[3] = {g[0], g[1], g[2]}, n[3];
        sp_E(q + KD_SPOSE * b + 3, E);
        double qp[4];
        for (int c = 0; c < 4; c++) qp[c] = g[3 + c] - (a.J[0][c] * F[0] + a.J[1][c] * F[1] + a.J[2][c] * F[2]);
        for (int i = 0; i < 3; i++) n[i] = 0.5 * (E[i][0] * qp[0] + E[i][1] * qp[1] + E[i][2] * qp[2] + E[i][3] * qp[3]);
        double* out = r->F + 6 * k;
        if (side == 1) {
            for (int i = 0; i < 3; i++) out[i] = F[i], out[3 + i] = n[i];
        } else {
            /* body 1 is ground: the reaction on it is minus that on body 0, moved to its point */
            double P1[3];
            memcpy(P1, j->s[1], sizeof(P1));
            const double d[3] = {a.v[0] - P1[0], a.v[1] - P1[1], a.v[2] - P1[2]};
            const double dxF[3] = {d[1] * F[2] - d[2] * F[1], d[2] * F[0] - d[0] * F[2], d[0] * F[1] - d[1] * F[0]};
            for (int i = 0; i < 3; i++) out[i] = -F[i], out[3 + i] = -n[i] - dxF[i];
        }
    }
    for (int d = 0; d < m->ndriver; d++) r->drive[d] = -r->lambda[m->driver[d].row];
}

void kd_smech_reactions_of(const kd_smech* m, double t, const double* q, kd_smech_reactions* r) {
    double* jac = m->jl_work + (size_t)SP_SLOTS * m->nc;  /* past the local rows (spatial_model.c) */
    kd_smech_jacobian(m, t, q, jac);
    kd_smech_reactions_jac(m, q, jac, r);
}

/* Inverse dynamics on the QR path, for a fully driven mechanism with redundant rows (rank n):
 * q'' = Phi_q^+ gamma (solve_qdd; else qdd is given), then Phi_q^T lambda = Q - M q'' in least
 * squares with zero multipliers on the redundant rows: the constraint force Phi_q^T lambda and the
 * drives are unique, the split of the joints' reactions among redundant rows is not (sec. 11.4).
 * 1 when done, 0 when the dense path must answer. */
static int inverse_qr(const kd_smech* m, double t, const double* q, const double* qd, double* qdd, int solve_qdd,
                      kd_smech_reactions* r) {
    sp_qr sq;
    int rank;
    if (!qr_at(m, &sq, t, q, &rank)) return 0;
    double* Mb = malloc(sizeof(double) * (size_t)(KD_SPOSE * KD_SPOSE * m->nbody + 1));
    double* a = solve_qdd && !qdd ? malloc(sizeof(double) * (size_t)(m->n + 1)) : qdd;
    if (rank < m->n || !Mb || !a) {
        if (a != qdd) free(a);
        free(Mb), qr_free(&sq);
        return 0;
    }
    if (solve_qdd) {
        kd_smech_gamma(m, t, q, qd, sq.b);
        kd_smech_qr_solve(sq.qr, sq.b, a);
    }
    qr_multipliers(m, &sq, t, q, qd, a, Mb, r->lambda);
    kd_smech_reactions_jac(m, q, sq.jac, r);
    if (a != qdd) free(a);
    free(Mb), qr_free(&sq);
    return 1;
}

kd_status kd_smech_inverse_multipliers(const kd_smech* m, double t, const double* q, const double* qd, double* qdd,
                                       kd_smech_reactions* r, kd_error* err) {
    sp_sparse sp;
    if (sparse_at(m, &sp, t, q, NULL)) {
        /* square Phi_q: q'' = Phi_q^-1 gamma, Phi_q^T lambda = Q - M q'' (the augmented system's solution) */
        double* a = qdd ? qdd : sp.b;
        kd_smech_gamma(m, t, q, qd, a);
        kd_smech_lu_solve(sp.lu, 0, a);
        sparse_multipliers(m, &sp, t, q, qd, a, r->lambda);
        kd_smech_reactions_jac(m, q, sp.jac, r);
        sparse_free(&sp);
        return KD_OK;
    }
    if (inverse_qr(m, t, q, qd, qdd, 1, r)) return KD_OK;
    sp_work w;
    if (work_new(m, &w)) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    const int n = m->n, nc = m->nc, N = n + nc;
    double* K = w.A;
    memset(K, 0, sizeof(double) * (size_t)N * N);
    kd_smech_mass_blocks(m, q, w.Mb);
    for (int b = 0; b < m->nbody; b++)
        for (int i = 0; i < KD_SPOSE; i++)
            for (int k = 0; k < KD_SPOSE; k++)
                K[(size_t)(KD_SPOSE * b + k) * N + KD_SPOSE * b + i] = w.Mb[(size_t)49 * b + 7 * k + i];
    kd_smech_jacobian(m, t, q, w.jac);
    for (int rr = 0; rr < nc; rr++)
        for (int k = m->jac_rowptr[rr]; k < m->jac_rowptr[rr + 1]; k++) {
            K[(size_t)m->jac_col[k] * N + n + rr] = w.jac[k];
            K[(size_t)(n + rr) * N + m->jac_col[k]] = w.jac[k];
        }
    kd_smech_force(m, t, q, qd, w.b);
    kd_smech_gamma(m, t, q, qd, w.b + n);
    int rank;
    if (lsq(&w, N, N, K, w.b, 1, &rank)) {
        work_free(&w);
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g s: LAPACK failure", t);
    }
    if (qdd) memcpy(qdd, w.b, sizeof(double) * (size_t)n);
    memcpy(r->lambda, w.b + n, sizeof(double) * (size_t)nc);
    work_free(&w);
    kd_smech_reactions_of(m, t, q, r);
    return KD_OK;
}

kd_status kd_smech_inverse_projection(const kd_smech* m, double t, const double* q, const double* qd,
                                      const double* qdd, kd_smech_reactions* r, kd_error* err) {
    sp_sparse sp;
    if (sparse_at(m, &sp, t, q, NULL)) {
        /* square Phi_q: the drivers' partial velocities are A = Phi_q^-1 E (E: the unit columns of the
         * driver rows, S10), so A^T (M q'' - Q) = E^T Phi_q^-T (M q'' - Q): one transposed solve,
         * Phi_q^T lambda = Q - M q'', gives every drive (-lambda at its row) and the joint multipliers */
        sparse_multipliers(m, &sp, t, q, qd, qdd, r->lambda);
        kd_smech_reactions_jac(m, q, sp.jac, r);
        sparse_free(&sp);
        return KD_OK;
    }
    if (inverse_qr(m, t, q, qd, (double*)qdd, 0, r)) return KD_OK;
    sp_work w;
    if (work_new(m, &w)) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    const int n = m->n, nc = m->nc, nd = m->ndriver, nm = m->nc_mech, ld = w.ld;
    kd_smech_jacobian(m, t, q, w.jac);
    /* A: Phi_mech A = 0, Phi_driver A = I (n x nd, least squares, minimum norm) */
    kd_smech_jac_dense(m, w.jac, nc, w.A, ld);
    memset(w.P, 0, sizeof(double) * (size_t)ld * (nd > 0 ? nd : 1));
    for (int d = 0; d < nd; d++) w.P[(size_t)d * ld + m->driver[d].row] = 1.0;
    int rank;
    if (nd > 0 && lsq(&w, nc, n, w.A, w.P, nd, &rank)) goto fail;
    /* R = M q'' - Q */
    double* R = w.x;
    kd_smech_mass_blocks(m, q, w.Mb);
    kd_smech_force(m, t, q, qd, w.Q);
    for (int b = 0; b < m->nbody; b++)
        for (int i = 0; i < KD_SPOSE; i++) {
            double a = -w.Q[KD_SPOSE * b + i];
            for (int k = 0; k < KD_SPOSE; k++) a += w.Mb[(size_t)49 * b + 7 * k + i] * qdd[KD_SPOSE * b + k];
            R[KD_SPOSE * b + i] = a;
        }
    memset(r->lambda, 0, sizeof(double) * (size_t)nc);
    for (int d = 0; d < nd; d++) {
        double a = 0;
        for (int i = 0; i < n; i++) a += w.P[(size_t)d * ld + i] * R[i];
        r->lambda[m->driver[d].row] = -a;  /* drive = A^T (M q'' - Q) = -lambda_d */
    }
    /* Phi_mech^T lambda_mech = -(R + Phi_driver^T lambda_driver) */
    kd_smech_jac_dense(m, w.jac, nc, w.K, ld);
    double* B = w.b;
    for (int i = 0; i < n; i++) {
        double a = -R[i];
        for (int d = 0; d < nd; d++) a -= w.K[(size_t)i * ld + m->driver[d].row] * r->lambda[m->driver[d].row];
        B[i] = a;
    }
    for (int i = n; i < w.N; i++) B[i] = 0;
    /* transpose of the mechanism rows into A (n x nm) */
    for (int rr = 0; rr < nm; rr++)
        for (int i = 0; i < n; i++) w.A[(size_t)rr * ld + i] = w.K[(size_t)i * ld + rr];
    if (lsq(&w, n, nm, w.A, B, 1, &rank)) goto fail;
    memcpy(r->lambda, B, sizeof(double) * (size_t)nm);
    work_free(&w);
    kd_smech_reactions_of(m, t, q, r);
    return KD_OK;
fail:
    work_free(&w);
    return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g s: LAPACK failure", t);
}
