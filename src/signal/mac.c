/* Modal assurance criterion and pairing of two sets of modes (docs/theory.md, "MAC"). */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "kedyn/signal.h"

double kd_mac(const double* a, int a_complex, const double* b, int b_complex, int n)
{
    /* |a^H b|^2 / ((a^H a)(b^H b)) with a real vector's imaginary parts zero */
    double cr = 0.0, ci = 0.0, aa = 0.0, bb = 0.0;
    for (int k = 0; k < n; k++) {
        double ar = a_complex ? a[2 * k] : a[k], ai = a_complex ? a[2 * k + 1] : 0.0;
        double br = b_complex ? b[2 * k] : b[k], bi = b_complex ? b[2 * k + 1] : 0.0;
        cr += ar * br + ai * bi; /* conj(a) b */
        ci += ar * bi - ai * br;
        aa += ar * ar + ai * ai;
        bb += br * br + bi * bi;
    }
    if (!(aa > 0.0) || !(bb > 0.0))
        return 0.0;
    double m = (cr * cr + ci * ci) / (aa * bb);
    return m > 1.0 ? 1.0 : m;
}

kd_status kd_mac_matrix(const double* A, int a_complex, int na, const double* B, int b_complex,
                        int nb, int n, double* mac)
{
    if (na < 0 || nb < 0 || n < 1)
        return KD_ERR_USAGE;
    size_t sa = (size_t)n * (a_complex ? 2 : 1), sb = (size_t)n * (b_complex ? 2 : 1);
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++)
            mac[(size_t)i * nb + j] = kd_mac(A + i * sa, a_complex, B + j * sb, b_complex, n);
    return KD_OK;
}

/* Hungarian method (Kuhn-Munkres with potentials, O(r^2 c)) minimising the sum of cost[r x c],
 * r <= c: row i gets column col_of[i]. Arrays 1-based inside as in the classic formulation. */
static kd_status hungarian(const double* cost, int r, int c, int* col_of)
{
    double* u = calloc((size_t)r + 1, sizeof *u);
    double* v = calloc((size_t)c + 1, sizeof *v);
    double* minv = malloc(sizeof *minv * ((size_t)c + 1));
    int* p = calloc((size_t)c + 1, sizeof *p);   /* p[j]: row matched to column j (0 none) */
    int* way = calloc((size_t)c + 1, sizeof *way);
    char* used = malloc((size_t)c + 1);
    kd_status st = (u && v && minv && p && way && used) ? KD_OK : KD_ERR_NOMEM;
    for (int i = 1; st == KD_OK && i <= r; i++) {
        p[0] = i;
        int j0 = 0;
        for (int j = 0; j <= c; j++) {
            minv[j] = DBL_MAX;
            used[j] = 0;
        }
        do {
            used[j0] = 1;
            int i0 = p[j0], j1 = 0;
            double delta = DBL_MAX;
            for (int j = 1; j <= c; j++)
                if (!used[j]) {
                    double cur = cost[(size_t)(i0 - 1) * c + (j - 1)] - u[i0] - v[j];
                    if (cur < minv[j]) {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if (minv[j] < delta) {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            for (int j = 0; j <= c; j++)
                if (used[j]) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else
                    minv[j] -= delta;
            j0 = j1;
        } while (p[j0] != 0);
        do {
            int j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0);
    }
    if (st == KD_OK) {
        for (int i = 0; i < r; i++)
            col_of[i] = -1;
        for (int j = 1; j <= c; j++)
            if (p[j])
                col_of[p[j] - 1] = j - 1;
    }
    free(u);
    free(v);
    free(minv);
    free(p);
    free(way);
    free(used);
    return st;
}

kd_status kd_mac_pair(const double* mac, int na, int nb, double min_mac, int* pair, kd_error* err)
{
    if (na < 0 || nb < 0)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "negative MAC matrix size");
    for (int i = 0; i < na; i++)
        pair[i] = -1;
    if (na == 0 || nb == 0)
        return KD_OK;
    /* cost 1 - MAC on the smaller dimension as rows */
    int tr = na > nb, r = tr ? nb : na, c = tr ? na : nb;
    double* cost = malloc(sizeof *cost * (size_t)r * (size_t)c);
    int* col = malloc(sizeof *col * (size_t)r);
    if (!cost || !col) {
        free(cost);
        free(col);
        return KD_ERR_NOMEM;
    }
    for (int i = 0; i < r; i++)
        for (int j = 0; j < c; j++)
            cost[(size_t)i * c + j] = 1.0 - (tr ? mac[(size_t)j * nb + i] : mac[(size_t)i * nb + j]);
    kd_status st = hungarian(cost, r, c, col);
    if (st == KD_OK)
        for (int i = 0; i < r; i++) {
            if (col[i] < 0)
                continue;
            int a = tr ? col[i] : i, b = tr ? i : col[i];
            if (mac[(size_t)a * nb + b] >= min_mac)
                pair[a] = b;
        }
    free(cost);
    free(col);
    return st;
}
