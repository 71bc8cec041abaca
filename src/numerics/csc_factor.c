/* A kept CHOLMOD factor with its solve workspaces (kedyn/csc_factor.h). */
#include <stdlib.h>
#include <string.h>

#include <cholmod.h>

#include "kedyn/csc_factor.h"
#include "numerics/csc_order.h"

struct kd_csc_factor {
    cholmod_common cc;
    cholmod_factor* L;
    cholmod_dense B;              /* wraps the caller's b */
    cholmod_dense *X, *Y, *E;     /* cholmod_solve2's workspaces, kept */
};

void kd_csc_factor_free(kd_csc_factor** f) {
    if (!f || !*f) return;
    kd_csc_factor* w = *f;
    cholmod_free_dense(&w->X, &w->cc), cholmod_free_dense(&w->Y, &w->cc), cholmod_free_dense(&w->E, &w->cc);
    cholmod_free_factor(&w->L, &w->cc);
    cholmod_finish(&w->cc);
    free(w);
    *f = NULL;
}

kd_status kd_csc_factor_solve(kd_csc_factor* f, double* b) {
    f->B.x = b;
    if (!cholmod_solve2(CHOLMOD_A, f->L, &f->B, NULL, &f->X, NULL, &f->Y, &f->E, &f->cc)) return KD_ERR_NOMEM;
    memcpy(b, f->X->x, sizeof(double) * f->B.nrow);
    return KD_OK;
}

kd_status kd_csc_factor_new(const kd_csc* a, kd_csc_factor** out) {
    *out = NULL;
    kd_csc_factor* f = calloc(1, sizeof(*f));
    double* z = calloc((size_t)a->n + 1, sizeof(double));
    if (!f || !z) {
        free(f), free(z);
        return KD_ERR_NOMEM;
    }
    cholmod_start(&f->cc);
    f->cc.print = 0;
    f->cc.error_handler = NULL;
    cholmod_sparse s = csc_cholmod_view(a);
    f->B.nrow = f->B.d = f->B.nzmax = (size_t)a->n, f->B.ncol = 1;
    f->B.xtype = CHOLMOD_REAL, f->B.dtype = CHOLMOD_DOUBLE;
    kd_status st = KD_OK;
    f->L = csc_order_analyze(&s, &f->cc);   /* AMD on the graph of the nodes */
    if (!f->L) st = KD_ERR_NOMEM;
    else if (!cholmod_factorize(&s, f->L, &f->cc) || f->cc.status != CHOLMOD_OK)
        st = f->cc.status == CHOLMOD_NOT_POSDEF ? KD_ERR_NUMERIC : KD_ERR_NOMEM;
    else st = kd_csc_factor_solve(f, z);   /* the workspaces */
    free(z);
    if (st) kd_csc_factor_free(&f);
    *out = f;
    return st;
}
