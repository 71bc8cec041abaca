/* Implicit generalized-alpha / Newmark steps of a gyroscopic structure in compressed columns
 * (kedyn/newmark_gyro.h; theory.md sec. 20). The acceleration
 * form of kd_newmark_csc (newmark_csc.c, theory.md sec. 13.4) with a general C:
 *     S a_{n+1} = f - am M a_n - C ((1 - af) v* + af v_n) - K ((1 - af) q* + af q_n),
 *     S = (1 - am) M + (1 - af) gamma h C + (1 - af) b h^2 K,
 *     q* = q_n + h v_n + h^2 (1/2 - b) a_n,  v* = v_n + h (1 - gamma) a_n,
 *     q_{n+1} = q* + b h^2 a_{n+1},  v_{n+1} = v* + gamma h a_{n+1}.
 * S is nonsymmetric (C's Coriolis part is skew) with a symmetric pattern and a dominant diagonal
 * for small h: UMFPACK's symmetric strategy (diagonal pivots preferred) on the ordering of
 * csc_order_nodes, factored once; each step solves with umfpack_di_wsolve on workspace made at
 * set-up (no iterative refinement), so a step allocates nothing. */
#include <stdlib.h>
#include <string.h>

#include <cholmod.h>
#include <umfpack.h>

#include "kedyn/newmark_gyro.h"
#include "numerics/csc_order.h"

struct kd_newmark_gcsc {
    const kd_csc *K, *M, *C;
    int n;
    double h, b, gamma, am, af;
    kd_csc S;        /* both triangles */
    void* numeric;
    double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
    int* Wi;
    double *W, *qs, *vs, *w1, *w2, *r, *x;
};

void kd_csc_matvec_general(const kd_csc* c, const double* x, double* y) {
    memset(y, 0, sizeof(double) * (size_t)c->n);
    for (int j = 0; j < c->n; j++) {
        const double xj = x[j];
        for (int k = c->p[j]; k < c->p[j + 1]; k++) y[c->i[k]] += c->x[k] * xj;
    }
}

/* Position of row i in column j of the full pattern S (rows ascending), -1 when absent. */
static int find(const kd_csc* S, int i, int j) {
    int lo = S->p[j], hi = S->p[j + 1] - 1;
    while (lo <= hi) {
        const int mid = (lo + hi) / 2;
        if (S->i[mid] == i) return mid;
        if (S->i[mid] < i) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* S = cm M + ck K (symmetric, upper triangles on one pattern) on both triangles: column j holds
 * the rows i <= j of U's column j, then the rows i > j whose column i holds j, ascending. */
static kd_status mirror_sum(const kd_csc* K, const kd_csc* M, double cm, double ck, kd_csc* S) {
    const int n = K->n;
    memset(S, 0, sizeof(*S));
    S->n = n;
    S->p = calloc((size_t)n + 1, sizeof(int));
    int* next = malloc(sizeof(int) * ((size_t)n + 1));
    if (!S->p || !next) {
        free(next);
        return KD_ERR_NOMEM;
    }
    for (int j = 0; j < n; j++)
        for (int k = K->p[j]; k < K->p[j + 1]; k++) {
            S->p[j + 1]++;
            if (K->i[k] != j) S->p[K->i[k] + 1]++;
        }
    for (int j = 0; j < n; j++) S->p[j + 1] += S->p[j];
    const size_t nnz = (size_t)S->p[n];
    S->i = malloc(sizeof(int) * (nnz ? nnz : 1));
    S->x = malloc(sizeof(double) * (nnz ? nnz : 1));
    if (!S->i || !S->x) {
        free(next);
        return KD_ERR_NOMEM;
    }
    memcpy(next, S->p, sizeof(int) * ((size_t)n + 1));
    for (int j = 0; j < n; j++)  /* ascending j: each column's rows come out sorted */
        for (int k = K->p[j]; k < K->p[j + 1]; k++) {
            const int i = K->i[k];
            const double v = cm * M->x[k] + ck * K->x[k];
            S->i[next[j]] = i, S->x[next[j]++] = v;
            if (i != j) S->i[next[i]] = j, S->x[next[i]++] = v;
        }
    free(next);
    return KD_OK;
}

void kd_newmark_gcsc_free(kd_newmark_gcsc** pw) {
    if (!pw || !*pw) return;
    kd_newmark_gcsc* w = *pw;
    if (w->numeric) umfpack_di_free_numeric(&w->numeric);
    kd_csc_free(&w->S);
    free(w->Wi), free(w->W), free(w->qs);
    free(w);
    *pw = NULL;
}

kd_status kd_newmark_gcsc_init(const kd_csc* K, const kd_csc* M, const kd_csc* C, double h, double b, double gamma,
                               double am, double af, kd_newmark_gcsc** out) {
    *out = NULL;
    if (K->n != M->n || K->p[K->n] != M->p[M->n] || (C && C->n != K->n)) return KD_ERR_USAGE;
    kd_newmark_gcsc* w = calloc(1, sizeof(*w));
    if (!w) return KD_ERR_NOMEM;
    const int n = K->n;
    w->K = K, w->M = M, w->C = C, w->n = n, w->h = h, w->b = b, w->gamma = gamma, w->am = am, w->af = af;
    w->Wi = malloc(sizeof(int) * (size_t)(n ? n : 1));
    w->W = malloc(sizeof(double) * 5 * (size_t)(n ? n : 1));
    w->qs = malloc(sizeof(double) * 6 * (size_t)(n ? n : 1));
    kd_status st = w->Wi && w->W && w->qs ? KD_OK : KD_ERR_NOMEM;
    if (!st) w->vs = w->qs + n, w->w1 = w->vs + n, w->w2 = w->w1 + n, w->r = w->w2 + n, w->x = w->r + n;
    /* S: the symmetric part from K, M, then (1 - af) gamma h C entry by entry */
    const double cc = (1 - af) * gamma * h;
    if (!st) st = mirror_sum(K, M, 1 - am, (1 - af) * b * h * h, &w->S);
    for (int j = 0; C && !st && j < n; j++)
        for (int k = C->p[j]; k < C->p[j + 1] && !st; k++) {
            const int at = find(&w->S, C->i[k], j);
            if (at < 0) st = KD_ERR_USAGE;
            else w->S.x[at] += cc * C->x[k];
        }
    /* the ordering of the nodes (from K's upper pattern), then UMFPACK's symbolic and numeric LU */
    int* perm = st ? NULL : malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!st && !perm) st = KD_ERR_NOMEM;
    if (!st) {
        cholmod_common cm;
        cholmod_start(&cm);
        cm.print = 0;
        cm.error_handler = NULL;
        cholmod_sparse v;
        memset(&v, 0, sizeof(v));
        v.nrow = v.ncol = (size_t)n;
        v.nzmax = (size_t)K->p[n];
        v.p = K->p, v.i = K->i, v.x = K->x;
        v.stype = 1;
        v.itype = CHOLMOD_INT, v.xtype = CHOLMOD_REAL, v.dtype = CHOLMOD_DOUBLE;
        v.sorted = 1, v.packed = 1;
        const int ordered = csc_order_nodes(&v, perm, &cm) == 0;
        cholmod_finish(&cm);
        umfpack_di_defaults(w->control);
        w->control[UMFPACK_STRATEGY] = UMFPACK_STRATEGY_SYMMETRIC;
        w->control[UMFPACK_IRSTEP] = 0;
        if (ordered) w->control[UMFPACK_ORDERING] = UMFPACK_ORDERING_GIVEN;
        void* symbolic = NULL;
        int rc = umfpack_di_qsymbolic(n, n, w->S.p, w->S.i, w->S.x, ordered ? perm : NULL, &symbolic, w->control,
                                      w->info);
        if (rc == UMFPACK_OK)
            rc = umfpack_di_numeric(w->S.p, w->S.i, w->S.x, symbolic, &w->numeric, w->control, w->info);
        if (symbolic) umfpack_di_free_symbolic(&symbolic);
        if (rc != UMFPACK_OK)
            st = rc == UMFPACK_ERROR_out_of_memory ? KD_ERR_NOMEM : KD_ERR_NUMERIC;
    }
    free(perm);
    if (st) {
        kd_newmark_gcsc_free(&w);
        return st;
    }
    *out = w;
    return KD_OK;
}

int kd_newmark_gcsc_step(kd_newmark_gcsc* w, const double* f, double* q, double* v, double* a) {
    const int n = w->n;
    const double h = w->h, b = w->b, g = w->gamma, am = w->am, af = w->af;
    double *qs = w->qs, *vs = w->vs, *r = w->r;
    for (int i = 0; i < n; i++) {
        qs[i] = q[i] + h * v[i] + h * h * (0.5 - b) * a[i];
        vs[i] = v[i] + h * (1 - g) * a[i];
    }
    /* r = f - K q~ - C v~ - am M a_n, x~ = (1 - af) x* + af x_n */
    for (int i = 0; i < n; i++) w->w1[i] = (1 - af) * qs[i] + af * q[i];
    kd_csc_matvec(w->K, w->w1, r);
    for (int i = 0; i < n; i++) r[i] = f[i] - r[i];
    if (w->C) {
        for (int i = 0; i < n; i++) w->w1[i] = (1 - af) * vs[i] + af * v[i];
        kd_csc_matvec_general(w->C, w->w1, w->w2);
        for (int i = 0; i < n; i++) r[i] -= w->w2[i];
    }
    if (am != 0) {
        kd_csc_matvec(w->M, a, w->w2);
        for (int i = 0; i < n; i++) r[i] -= am * w->w2[i];
    }
    if (umfpack_di_wsolve(UMFPACK_A, w->S.p, w->S.i, w->S.x, w->x, r, w->numeric, w->control, w->info, w->Wi, w->W) !=
        UMFPACK_OK)
        return -1;
    const double* an = w->x;
    for (int i = 0; i < n; i++) {
        a[i] = an[i];
        q[i] = qs[i] + b * h * h * an[i];
        v[i] = vs[i] + g * h * an[i];
    }
    return 0;
}
