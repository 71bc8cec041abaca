/* A constrained system without some of its constraint rows (kedyn/cms_rows.h; theory.md sec.
 * 11.2). Every callback evaluates the base system into
 * a work buffer and keeps the rows of the view, slot by slot. The rows left out are the ones
 * where the dependencies among the rows (the left null space Z of Phi_q, from an SVD of the dense
 * Phi_q) are largest; they move along the motion (Bricard's linkage: the coefficient of a row in
 * its one dependency passes through zero), so the choice is checked at every Jacobian (the
 * dependencies scaled to Z_D = I on the rows left out: an entry of the kept rows' part beyond
 * 1 / SWITCH_RATIO means they are losing their rank) and then made again (QR with column pivoting
 * of Z^T). A row that comes back takes the
 * slot of the one that leaves: the slots that may hold such rows (the support of Z at the start)
 * share one pattern, the union of those rows' columns, so the view's pattern never changes. */
#include "kedyn/cms_rows.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SWITCH_RATIO 0.05         /* change the rows left out below this fraction of the best */

struct kd_cms_rows {
    kd_cms base;
    int nc, nd;                   /* rows kept, rows left out */
    int* drop;                    /* (nd) base rows left out */
    int* row;                     /* (nc) base row in each slot */
    int* cand;                    /* (base nc) 1: a row of the dependencies (may be left out) */
    int* rowptr;                  /* (nc + 1) pattern of the view's Phi_q */
    int* col;                     /* (nnz) */
    int* upos;                    /* (n) position of a column in the union pattern, -1: none */
    int nu;                       /* columns of the union pattern */
    double* buf;                  /* (max(base nc, base nnz)) */
    double *A, *U, *S, *Zt, *tau;      /* dense Phi_q (base nc x n), its SVD, Z^T; the check's work */
    lapack_int* piv;
    long switches;
    int deferred;                 /* 1: the Jacobian keeps the rows; kd_cms_rows_revise changes them */
};

static void pick(const kd_cms_rows* r, double* out) {
    for (int i = 0; i < r->nc; i++) out[i] = r->buf[r->row[i]];
}
static int v_phi(void* c, double t, const double* q, double* phi) {
    kd_cms_rows* r = c;
    const int s = r->base.phi(r->base.ctx, t, q, r->buf);
    pick(r, phi);
    return s;
}
static int v_phi_t(void* c, double t, const double* q, double* phi_t) {
    kd_cms_rows* r = c;
    const int s = r->base.phi_t(r->base.ctx, t, q, r->buf);
    pick(r, phi_t);
    return s;
}
static int v_gamma(void* c, double t, const double* q, const double* qd, double* g) {
    kd_cms_rows* r = c;
    const int s = r->base.gamma(r->base.ctx, t, q, qd, r->buf);
    pick(r, g);
    return s;
}
static int v_force(void* c, double t, const double* q, const double* qd, double* Q) {
    const kd_cms_rows* r = c;
    return r->base.force(r->base.ctx, t, q, qd, Q);
}
static int v_mass(void* c, double t, const double* q, double* blocks) {
    const kd_cms_rows* r = c;
    return r->base.mass_blocks(r->base.ctx, t, q, blocks);
}

/* Z^T at the base Jacobian in r->buf (nd x base nc, the last nd left singular vectors). */
static int dependencies(kd_cms_rows* r) {
    const kd_cms* b = &r->base;
    const int nc = b->nc, n = b->n, nd = r->nd;
    memset(r->A, 0, sizeof(double) * (size_t)nc * n);
    for (int i = 0; i < nc; i++)
        for (int e = b->jac_rowptr[i]; e < b->jac_rowptr[i + 1]; e++) r->A[i + (size_t)nc * b->jac_col[e]] = r->buf[e];
    double vt = 0;
    if (LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'A', 'N', nc, n, r->A, nc, r->S, r->U, nc, &vt, 1, r->S + nc) != 0) return -1;
    for (int k = 0; k < nd; k++)
        for (int i = 0; i < nc; i++)
            r->Zt[k + (size_t)nd * i] = r->cand[i] ? r->U[i + (size_t)nc * (nc - nd + k)] : 0.0;
    return 0;
}

/* The best rows to leave out (QR with column pivoting of Z^T) into best (nd). */
static int best_rows(kd_cms_rows* r, int* best) {
    const int nc = r->base.nc, nd = r->nd;
    double* Z = r->A;  /* a copy: dgeqp3 overwrites it */
    memcpy(Z, r->Zt, sizeof(double) * (size_t)nd * nc);
    memset(r->piv, 0, sizeof(lapack_int) * (size_t)nc);
    if (LAPACKE_dgeqp3(LAPACK_COL_MAJOR, nd, nc, Z, nd, r->piv, r->tau) != 0) return -1;
    for (int k = 0; k < nd; k++) best[k] = r->piv[k] - 1;
    return 0;
}

/* Dot product of base rows a and b of the Jacobian in r->buf (sorted columns). */
static double row_dot(const kd_cms_rows* r, int a, int b) {
    const kd_cms* s = &r->base;
    int i = s->jac_rowptr[a], j = s->jac_rowptr[b];
    double d = 0;
    while (i < s->jac_rowptr[a + 1] && j < s->jac_rowptr[b + 1]) {
        if (s->jac_col[i] < s->jac_col[j]) i++;
        else if (s->jac_col[i] > s->jac_col[j]) j++;
        else d += r->buf[i++] * r->buf[j++];
    }
    return d;
}

/* 1 when the kept rows are still a good choice at the base Jacobian in r->buf. */
static int healthy(kd_cms_rows* r) {
    const int nc = r->nc, nd = r->nd;
    double* G = r->U;                  /* Phi_O Phi_O^T (nc x nc) */
    double* B = r->A;                  /* Phi_O Phi_D^T (nc x nd) */
    for (int i = 0; i < nc; i++) {
        for (int j = 0; j <= i; j++) G[i + (size_t)nc * j] = row_dot(r, r->row[i], r->row[j]);
        for (int k = 0; k < nd; k++) B[i + (size_t)nc * k] = row_dot(r, r->row[i], r->drop[k]);
    }
    if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', nc, G, nc) != 0) return 0;
    double gmax = 0, gmin = INFINITY;
    for (int i = 0; i < nc; i++) gmax = fmax(gmax, G[i + (size_t)nc * i]), gmin = fmin(gmin, G[i + (size_t)nc * i]);
    if (!(gmin > 1e-8 * gmax)) return 0;
    if (LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', nc, nd, G, nc, B, nc) != 0) return 0;
    for (size_t k = 0; k < (size_t)nc * nd; k++)
        if (!(fabs(B[k]) < 1.0 / SWITCH_RATIO)) return 0;
    return 1;
}

/* The rows left out chosen again from Z at the base Jacobian in r->buf (QR with column pivoting
 * of Z^T); a row coming back takes the slot of a row leaving. Returns 1 when they changed. */
static int choose_again(kd_cms_rows* r) {
    int best[64];
    if (dependencies(r) || best_rows(r, best)) return 0;
    int used[64] = {0}, changed = 0;
    for (int k = 0; k < r->nd; k++) {
        int still = 0;
        for (int j = 0; j < r->nd; j++) still |= best[j] == r->drop[k];
        if (still) continue;
        changed = 1;
        for (int j = 0; j < r->nd; j++) {
            int was = 0;
            for (int l = 0; l < r->nd; l++) was |= r->drop[l] == best[j];
            if (was || used[j]) continue;
            used[j] = 1;
            for (int i = 0; i < r->nc; i++)
                if (r->row[i] == best[j]) r->row[i] = r->drop[k];
            break;
        }
    }
    memcpy(r->drop, best, sizeof(int) * (size_t)r->nd);
    r->switches += changed;
    return changed;
}

static int v_jac(void* c, double t, const double* q, double* jac) {
    kd_cms_rows* r = c;
    const kd_cms* b = &r->base;
    const int s = b->jacobian(b->ctx, t, q, r->buf);
    if (s) return s;
    /* revisit the rows left out: the dependencies with Z_D = I, Z_O = -(Phi_O Phi_O^T)^-1 Phi_O Phi_D^T
     * (the kept rows O, the rows left out D); when an entry of Z_O outgrows 1 / SWITCH_RATIO (or
     * Phi_O Phi_O^T is singular) the kept rows are losing their rank: choose again from Z (SVD) */
    if (!r->deferred && !healthy(r)) choose_again(r);
    /* the slots' values: a candidate row's entries at their columns of the union pattern */
    for (int i = 0; i < r->nc; i++) {
        const int br = r->row[i];
        double* out = jac + r->rowptr[i];
        if (r->cand[br]) {
            memset(out, 0, sizeof(double) * (size_t)r->nu);
            for (int e = b->jac_rowptr[br]; e < b->jac_rowptr[br + 1]; e++) out[r->upos[b->jac_col[e]]] = r->buf[e];
        } else {
            memcpy(out, r->buf + b->jac_rowptr[br], sizeof(double) * (size_t)(b->jac_rowptr[br + 1] - b->jac_rowptr[br]));
        }
    }
    return 0;
}

kd_cms_rows* kd_cms_rows_of(const kd_cms* cms) { return cms->jacobian == v_jac ? cms->ctx : NULL; }

void kd_cms_rows_defer(kd_cms_rows* r, int on) { r->deferred = on; }

int kd_cms_rows_revise(kd_cms_rows* r, double t, const double* q) {
    if (r->base.jacobian(r->base.ctx, t, q, r->buf)) return -1;
    return healthy(r) ? 0 : choose_again(r);
}

kd_status kd_cms_rows_new(const kd_cms* base, double t, const double* q, const int* drop, int ndrop,
                          kd_cms_rows** out, kd_cms* cms, kd_error* err) {
    *out = NULL;
    kd_cms_rows* r = calloc(1, sizeof(*r));
    if (!r) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    r->base = *base;  /* base may alias cms */
    const int nc = base->nc, n = base->n, nnz = base->jac_nnz;
    r->nd = ndrop;
    r->drop = malloc(sizeof(int) * (size_t)(ndrop ? ndrop : 1));
    r->row = malloc(sizeof(int) * (size_t)(nc ? nc : 1));
    r->cand = calloc((size_t)(nc ? nc : 1), sizeof(int));
    r->rowptr = calloc((size_t)nc + 1, sizeof(int));
    r->upos = malloc(sizeof(int) * (size_t)(n ? n : 1));
    r->buf = malloc(sizeof(double) * (size_t)(nc > nnz ? nc : (nnz ? nnz : 1)));
    r->A = malloc(sizeof(double) * ((size_t)nc * n + 1));
    r->U = malloc(sizeof(double) * ((size_t)nc * nc + 1));
    r->S = malloc(sizeof(double) * ((size_t)nc + n + 1));
    r->Zt = malloc(sizeof(double) * ((size_t)ndrop * nc + 1));
    r->tau = malloc(sizeof(double) * ((size_t)nc + 1));
    r->piv = malloc(sizeof(lapack_int) * ((size_t)nc + 1));
    kd_status st = KD_OK;
    if (!r->drop || !r->row || !r->cand || !r->rowptr || !r->upos || !r->buf || !r->A || !r->U || !r->S || !r->Zt ||
        !r->tau || !r->piv)
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    if (!st) {
        /* the candidates: the rows of the dependencies at (t, q) (Z's support) */
        memcpy(r->drop, drop, sizeof(int) * (size_t)ndrop);
        for (int i = 0; i < nc; i++) r->cand[i] = 1;
        if (base->jacobian(base->ctx, t, q, r->buf) || dependencies(r))
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "t = %g: the dependencies of Phi_q's rows", t);
        double zmax = 0;
        for (size_t k = 0; !st && k < (size_t)ndrop * nc; k++) zmax = fmax(zmax, fabs(r->Zt[k]));
        for (int i = 0; !st && i < nc; i++) {
            double z = 0;
            for (int k = 0; k < ndrop; k++) z = fmax(z, fabs(r->Zt[k + (size_t)ndrop * i]));
            r->cand[i] = z > 1e-9 * zmax;
        }
        for (int k = 0; !st && k < ndrop; k++) r->cand[drop[k]] = 1;
    }
    if (!st) {
        /* slots: the kept rows in order; the union pattern of the candidate rows */
        for (int i = 0; i < n; i++) r->upos[i] = -1;
        for (int i = 0; i < nc; i++)
            for (int e = base->jac_rowptr[i]; r->cand[i] && e < base->jac_rowptr[i + 1]; e++) r->upos[base->jac_col[e]] = 0;
        for (int i = 0; i < n; i++)
            if (r->upos[i] == 0) r->upos[i] = r->nu++;
        int nnzv = 0;
        for (int i = 0; i < nc; i++) {
            int dropped = 0;
            for (int k = 0; k < ndrop; k++) dropped |= drop[k] == i;
            if (dropped) continue;
            r->row[r->nc++] = i;
            nnzv += r->cand[i] ? r->nu : base->jac_rowptr[i + 1] - base->jac_rowptr[i];
        }
        r->col = malloc(sizeof(int) * (size_t)(nnzv ? nnzv : 1));
        if (!r->col) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    if (st) {
        kd_cms_rows_free(&r);
        return st;
    }
    for (int k = 0; k < r->nc; k++) {
        const int i = r->row[k];
        int* c = r->col + r->rowptr[k];
        int m = 0;
        if (r->cand[i]) {
            for (int j = 0; j < n; j++)
                if (r->upos[j] >= 0) c[m++] = j;
        } else {
            for (int e = base->jac_rowptr[i]; e < base->jac_rowptr[i + 1]; e++) c[m++] = base->jac_col[e];
        }
        r->rowptr[k + 1] = r->rowptr[k] + m;
    }
    *cms = r->base;
    cms->nc = r->nc, cms->jac_nnz = r->rowptr[r->nc], cms->jac_rowptr = r->rowptr, cms->jac_col = r->col;
    cms->ctx = r;
    cms->phi = base->phi ? v_phi : NULL, cms->jacobian = base->jacobian ? v_jac : NULL;
    cms->phi_t = base->phi_t ? v_phi_t : NULL, cms->gamma = base->gamma ? v_gamma : NULL;
    cms->force = base->force ? v_force : NULL, cms->mass_blocks = base->mass_blocks ? v_mass : NULL;
    *out = r;
    return KD_OK;
}

void kd_cms_rows_expand(const kd_cms_rows* r, int nc_base, const double* lambda, double* full) {
    if (!r) {
        memcpy(full, lambda, sizeof(double) * (size_t)nc_base);
        return;
    }
    memset(full, 0, sizeof(double) * (size_t)nc_base);
    for (int i = 0; i < r->nc; i++) full[r->row[i]] = lambda[i];
}

long kd_cms_rows_switches(const kd_cms_rows* r) { return r ? r->switches : 0; }

void kd_cms_rows_free(kd_cms_rows** rp) {
    kd_cms_rows* r = *rp;
    if (!r) return;
    free(r->drop), free(r->row), free(r->cand), free(r->rowptr), free(r->col), free(r->upos), free(r->buf);
    free(r->A), free(r->U), free(r->S), free(r->Zt), free(r->tau), free(r->piv);
    free(r);
    *rp = NULL;
}
