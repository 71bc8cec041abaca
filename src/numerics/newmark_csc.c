/* One implicit Newmark step of a linear structure in compressed columns (kedyn/band.h,
 * kd_newmark_csc): M a + C v + K q = f with Rayleigh damping C = alpha M + beta K, constant
 * matrices. The acceleration form (theory.md sec. 13.4)
 *     (M + gamma h C + b h^2 K) a_{n+1} = f_{n+1} - C v* - K q*,
 *     q* = q_n + h v_n + h^2 (1/2 - b) a_n,  v* = v_n + h (1 - gamma) a_n,
 *     q_{n+1} = q* + b h^2 a_{n+1},  v_{n+1} = v* + gamma h a_{n+1}
 * with S = M + gamma h C + b h^2 K factored once by CHOLMOD (symmetric positive definite for
 * M positive definite); a step is one solve and two sparse products, without allocation (the
 * solve's workspace is made at set-up by a first solve). */
#include <stdlib.h>
#include <string.h>

#include <cholmod.h>

#include "kedyn/band.h"
#include "numerics/csc_order.h"

struct kd_newmark_csc {
    const kd_csc *K, *M;
    double h, b, gamma, alpha, beta, am, af;
    cholmod_common cc;
    cholmod_factor* L;
    cholmod_dense *rhs, *X, *Y, *E;
    double *qs, *vs, *w1, *w2;
};

void kd_newmark_csc_free(kd_newmark_csc** pw) {
    if (!pw || !*pw) return;
    kd_newmark_csc* w = *pw;
    cholmod_free_factor(&w->L, &w->cc);
    cholmod_free_dense(&w->rhs, &w->cc);
    cholmod_free_dense(&w->X, &w->cc);
    cholmod_free_dense(&w->Y, &w->cc);
    cholmod_free_dense(&w->E, &w->cc);
    cholmod_finish(&w->cc);
    free(w->qs);
    free(w);
    *pw = NULL;
}

kd_status kd_newmark_csc_init(const kd_csc* K, const kd_csc* M, double alpha, double beta, double h, double b,
                              double gamma, kd_newmark_csc** out) {
    return kd_newmark_csc_init_alpha(K, M, alpha, beta, h, b, gamma, 0.0, 0.0, out);
}

kd_status kd_newmark_csc_init_alpha(const kd_csc* K, const kd_csc* M, double alpha, double beta, double h, double b,
                                    double gamma, double am, double af, kd_newmark_csc** out) {
    *out = NULL;
    kd_newmark_csc* w = calloc(1, sizeof(*w));
    if (!w) return KD_ERR_NOMEM;
    const int n = K->n;
    w->K = K, w->M = M, w->h = h, w->b = b, w->gamma = gamma, w->alpha = alpha, w->beta = beta, w->am = am, w->af = af;
    cholmod_start(&w->cc);
    w->cc.print = 0;
    w->cc.error_handler = NULL;
    w->qs = malloc(sizeof(double) * 4 * (size_t)(n ? n : 1));
    kd_status st = w->qs ? KD_OK : KD_ERR_NOMEM;
    if (!st) w->vs = w->qs + n, w->w1 = w->vs + n, w->w2 = w->w1 + n;
    /* S = (1 - am + (1 - af) gamma h alpha) M + (1 - af)(gamma h beta + b h^2) K, upper */
    cholmod_sparse Kv = csc_cholmod_view(K), Mv = csc_cholmod_view(M);
    double cm[2] = {(1 - am) + (1 - af) * gamma * h * alpha, 0}, ck[2] = {(1 - af) * (gamma * h * beta + b * h * h), 0};
    cholmod_sparse* S = st ? NULL : cholmod_add(&Mv, &Kv, cm, ck, 1, 1, &w->cc);
    if (!st && S) {
        if (n >= 20000) {  /* nested dissection alone, as the large modal problems (eigen_cholmod.c) */
            w->cc.nmethods = 1;
            w->cc.method[0].ordering = CHOLMOD_NESDIS;
        }
        w->L = cholmod_analyze(S, &w->cc);
        if (!w->L || !cholmod_factorize(S, w->L, &w->cc) || w->cc.status != CHOLMOD_OK)
            st = w->cc.status == CHOLMOD_NOT_POSDEF ? KD_ERR_NUMERIC : KD_ERR_NOMEM;
    } else if (!st) {
        st = KD_ERR_NOMEM;
    }
    cholmod_free_sparse(&S, &w->cc);
    if (!st) w->rhs = cholmod_zeros((size_t)n, 1, CHOLMOD_REAL, &w->cc);
    /* a first solve sizes CHOLMOD's workspace, reused by every step */
    if (!st && (!w->rhs || !cholmod_solve2(CHOLMOD_A, w->L, w->rhs, NULL, &w->X, NULL, &w->Y, &w->E, &w->cc)))
        st = KD_ERR_NOMEM;
    if (st) {
        kd_newmark_csc_free(&w);
        return st;
    }
    *out = w;
    return KD_OK;
}

int kd_newmark_csc_step(kd_newmark_csc* w, const double* f, double* q, double* v, double* a) {
    const int n = w->K->n;
    const double h = w->h, b = w->b, g = w->gamma;
    double *qs = w->qs, *vs = w->vs, *r = w->rhs->x;
    for (int i = 0; i < n; i++) {
        qs[i] = q[i] + h * v[i] + h * h * (0.5 - b) * a[i];
        vs[i] = v[i] + h * (1 - g) * a[i];
    }
    /* r = f - K (q~ + beta v~) - M (am a_n + alpha v~), x~ = (1 - af) x* + af x_n (alpha family,
     * step_alpha.c; Newmark: am = af = 0) */
    const double am = w->am, af = w->af;
    for (int i = 0; i < n; i++) w->w1[i] = (1 - af) * qs[i] + af * q[i] + w->beta * ((1 - af) * vs[i] + af * v[i]);
    kd_csc_matvec(w->K, w->w1, r);
    for (int i = 0; i < n; i++) r[i] = f[i] - r[i];
    if (w->alpha != 0 || am != 0) {
        for (int i = 0; i < n; i++) w->w2[i] = am * a[i] + w->alpha * ((1 - af) * vs[i] + af * v[i]);
        kd_csc_matvec(w->M, w->w2, w->w1);
        for (int i = 0; i < n; i++) r[i] -= w->w1[i];
    }
    if (!cholmod_solve2(CHOLMOD_A, w->L, w->rhs, NULL, &w->X, NULL, &w->Y, &w->E, &w->cc)) return -1;
    const double* an = w->X->x;
    for (int i = 0; i < n; i++) {
        a[i] = an[i];
        q[i] = qs[i] + b * h * h * an[i];
        v[i] = vs[i] + g * h * an[i];
    }
    return 0;
}
