/* Symmetric sparse matrices in compressed columns, upper triangle (kedyn/band.h): products,
 * assembly from triplets, and CHOLMOD's sparse Cholesky solve. */
#include <stdlib.h>
#include <string.h>

#include <cholmod.h>

#include "kedyn/band.h"
#include "numerics/csc_order.h"

void kd_csc_free(kd_csc* a) {
    free(a->p);
    free(a->i);
    free(a->x);
    memset(a, 0, sizeof(*a));
}

void kd_csc_matvec(const kd_csc* a, const double* x, double* y) {
    memset(y, 0, sizeof(double) * (size_t)a->n);
    for (int j = 0; j < a->n; j++) {
        const double xj = x[j];
        double yj = 0;
        for (int k = a->p[j]; k < a->p[j + 1]; k++) {
            const int i = a->i[k];
            y[i] += a->x[k] * xj;
            if (i != j) yj += a->x[k] * x[i];
        }
        y[j] += yj;
    }
}

kd_status kd_csc_from_triplet(const kd_triplet* t, int n, kd_csc* out) {
    memset(out, 0, sizeof(*out));
    out->n = n;
    int* count = calloc((size_t)n + 1, sizeof(int));
    int* row = malloc(sizeof(int) * (t->nnz ? t->nnz : 1));
    double* val = malloc(sizeof(double) * (t->nnz ? t->nnz : 1));
    out->p = malloc(sizeof(int) * ((size_t)n + 1));
    int* mark = malloc(sizeof(int) * ((size_t)n ? (size_t)n : 1));
    if (!count || !row || !val || !out->p || !mark) {
        free(count), free(row), free(val), free(mark);
        kd_csc_free(out);
        return KD_ERR_NOMEM;
    }
    /* bucket by column (the larger index), then sum duplicates per column with a marker */
    for (size_t k = 0; k < t->nnz; k++) count[(t->i[k] > t->j[k] ? t->i[k] : t->j[k]) + 1]++;
    for (int j = 0; j < n; j++) count[j + 1] += count[j];
    for (size_t k = 0; k < t->nnz; k++) {
        const int a = t->i[k] < t->j[k] ? t->i[k] : t->j[k], b = t->i[k] < t->j[k] ? t->j[k] : t->i[k];
        row[count[b]] = a, val[count[b]] = t->x[k];
        count[b]++;
    }
    for (int j = n; j > 0; j--) count[j] = count[j - 1];
    count[0] = 0;
    for (int j = 0; j < n; j++) mark[j] = -1;
    size_t nz = 0;
    for (int j = 0; j < n; j++) {
        const size_t start = nz;
        out->p[j] = (int)nz;
        for (int k = count[j]; k < count[j + 1]; k++) {
            const int i = row[k];
            if (mark[i] >= (int)start) {
                val[mark[i]] += val[k];
            } else {
                mark[i] = (int)nz;
                row[nz] = i, val[nz] = val[k];
                nz++;
            }
        }
        /* rows ascending (insertion sort: a column holds a few dozen entries) */
        for (size_t a = start + 1; a < nz; a++) {
            const int ri = row[a];
            const double vi = val[a];
            size_t b = a;
            for (; b > start && row[b - 1] > ri; b--) row[b] = row[b - 1], val[b] = val[b - 1];
            row[b] = ri, val[b] = vi;
        }
        for (size_t a = start; a < nz; a++) mark[row[a]] = (int)a;
    }
    out->p[n] = (int)nz;
    free(count), free(mark);
    int* ri = realloc(row, sizeof(int) * (nz ? nz : 1));  /* shrink; on failure keep the larger block */
    if (!ri) ri = row;
    double* vx = realloc(val, sizeof(double) * (nz ? nz : 1));
    if (!vx) vx = val;
    out->i = ri, out->x = vx;
    return KD_OK;
}

kd_status kd_csc_solve_spd(const kd_csc* a, int nrhs, double* b) {
    cholmod_common cc;
    cholmod_start(&cc);
    cc.print = 0;
    cc.error_handler = NULL;
    cholmod_sparse s = csc_cholmod_view(a);
    cholmod_dense B;
    memset(&B, 0, sizeof(B));
    B.nrow = B.d = (size_t)a->n, B.ncol = (size_t)nrhs, B.nzmax = B.nrow * B.ncol;
    B.x = b, B.xtype = CHOLMOD_REAL, B.dtype = CHOLMOD_DOUBLE;
    kd_status st = KD_OK;
    cholmod_factor* L = csc_order_analyze(&s, &cc);  /* AMD on the graph of the nodes */
    cholmod_dense* X = NULL;
    if (!L) st = KD_ERR_NOMEM;
    else if (!cholmod_factorize(&s, L, &cc) || cc.status != CHOLMOD_OK)
        st = cc.status == CHOLMOD_NOT_POSDEF ? KD_ERR_NUMERIC : KD_ERR_NOMEM;
    else if (!(X = cholmod_solve(CHOLMOD_A, L, &B, &cc)))
        st = KD_ERR_NOMEM;
    else
        memcpy(b, X->x, sizeof(double) * B.nzmax);
    cholmod_free_dense(&X, &cc);
    cholmod_free_factor(&L, &cc);
    cholmod_finish(&cc);
    return st;
}

void kd_csc_add_element(kd_csc* a, const double* ke, const int* eqs, int n) {
    for (int q = 0; q < n; q++) {
        const int j = eqs[q];
        if (j < 0) continue;
        for (int r = 0; r < n; r++) {
            const int i = eqs[r];
            if (i < 0 || i > j) continue;
            int lo = a->p[j], hi = a->p[j + 1] - 1;  /* rows ascending: bisection */
            while (lo < hi) {
                const int mid = (lo + hi) / 2;
                if (a->i[mid] < i) lo = mid + 1;
                else hi = mid;
            }
            a->x[lo] += ke[r * n + q];
        }
    }
}
