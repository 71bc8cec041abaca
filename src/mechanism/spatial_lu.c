/* Sparse LU of a square Phi_q by KLU (kedyn/smech_lu.h, theory.md sec. 11.3). */
#include <klu.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/smech_lu.h"

struct kd_smech_lu {
    int n, nnz;
    int *Ap, *Ai, *map;           /* CSC of Phi_q; map: CSR entry -> CSC entry */
    double* Ax;
    double rcond_ref, cond_ref;   /* klu_rcond, klu_condest at the last factorisation with pivoting */
    double rcond_est, cond_est;   /* klu_rcond, klu_condest at the last condition estimate */
    klu_common kc;
    klu_symbolic* sym;
    klu_numeric* num;
};

void kd_smech_lu_free(kd_smech_lu** plu) {
    kd_smech_lu* lu = *plu;
    if (!lu) return;
    if (lu->num) klu_free_numeric(&lu->num, &lu->kc);
    if (lu->sym) klu_free_symbolic(&lu->sym, &lu->kc);
    free(lu->Ap), free(lu->Ai), free(lu->map), free(lu->Ax);
    free(lu);
    *plu = NULL;
}

kd_status kd_smech_lu_new(const kd_smech* m, kd_smech_lu** out, kd_error* err) {
    *out = NULL;
    if (m->nc != m->n)
        return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "sparse LU: Phi_q is %d x %d, not square", m->nc,
                            m->n);
    kd_smech_lu* lu = calloc(1, sizeof(*lu));
    const int n = m->n, nnz = m->jac_nnz;
    if (lu) {
        lu->n = n, lu->nnz = nnz;
        lu->Ap = calloc((size_t)n + 1, sizeof(int));
        lu->Ai = malloc(sizeof(int) * ((size_t)nnz + 1));
        lu->map = malloc(sizeof(int) * ((size_t)nnz + 1));
        lu->Ax = calloc((size_t)nnz + 1, sizeof(double));
    }
    if (!lu || !lu->Ap || !lu->Ai || !lu->map || !lu->Ax) {
        kd_smech_lu_free(&lu);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    /* CSR -> CSC by counting: rows taken in order, so each column's row indices ascend */
    for (int k = 0; k < nnz; k++) lu->Ap[m->jac_col[k] + 1]++;
    for (int c = 0; c < n; c++) lu->Ap[c + 1] += lu->Ap[c];
    int* next = malloc(sizeof(int) * ((size_t)n + 1));
    if (!next) {
        kd_smech_lu_free(&lu);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    memcpy(next, lu->Ap, sizeof(int) * (size_t)n);
    for (int r = 0; r < n; r++)
        for (int k = m->jac_rowptr[r]; k < m->jac_rowptr[r + 1]; k++) {
            const int p = next[m->jac_col[k]]++;
            lu->Ai[p] = r, lu->map[k] = p;
        }
    free(next);
    klu_defaults(&lu->kc);
    lu->sym = klu_analyze(n, lu->Ap, lu->Ai, &lu->kc);
    if (!lu->sym) {
        kd_smech_lu_free(&lu);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "sparse LU: analysis failed");
    }
    *out = lu;
    return KD_OK;
}

static int factor_pivoting(kd_smech_lu* lu) {
    if (lu->num) klu_free_numeric(&lu->num, &lu->kc);
    lu->num = klu_factor(lu->Ap, lu->Ai, lu->Ax, lu->sym, &lu->kc);
    if (!lu->num || lu->kc.status != KLU_OK) return 1;
    if (!klu_rcond(lu->sym, lu->num, &lu->kc)) return 1;
    lu->rcond_ref = lu->kc.rcond, lu->cond_ref = 0.0;
    return !(lu->kc.rcond > 0);
}

int kd_smech_lu_factor(kd_smech_lu* lu, const double* jac, double* cond) {
    for (int k = 0; k < lu->nnz; k++) lu->Ax[lu->map[k]] = jac[k];
    int fresh = 0;
    if (!lu->num || !klu_refactor(lu->Ap, lu->Ai, lu->Ax, lu->sym, lu->num, &lu->kc) || lu->kc.status != KLU_OK ||
        !klu_rcond(lu->sym, lu->num, &lu->kc) || !(lu->kc.rcond > 0.1 * lu->rcond_ref)) {
        if (factor_pivoting(lu)) return 1;
        fresh = 1;
    }
    if (!cond) return 0;
    /* the pivots' ratio within a factor 2 of its value at the last estimate: that estimate scaled
     * by the ratio's change (a singular position shows in the pivots first); else Hager-Higham */
    const double rc = lu->kc.rcond;
    if (!fresh && lu->cond_est > 0 && rc > 0.5 * lu->rcond_est && rc < 2.0 * lu->rcond_est) {
        *cond = lu->cond_est * lu->rcond_est / rc;
        return 0;
    }
    if (!klu_condest(lu->Ap, lu->Ax, lu->sym, lu->num, &lu->kc)) return 1;
    /* the estimate grown tenfold on the kept pivot order: factorise with pivoting and look again */
    if (!fresh && lu->cond_ref > 0 && !(lu->kc.condest < 10.0 * lu->cond_ref)) {
        if (factor_pivoting(lu) || !klu_condest(lu->Ap, lu->Ax, lu->sym, lu->num, &lu->kc)) return 1;
        fresh = 1;
    }
    if (fresh || !(lu->cond_ref > 0)) lu->cond_ref = lu->kc.condest;
    if (!klu_rcond(lu->sym, lu->num, &lu->kc)) return 1;
    lu->rcond_est = lu->kc.rcond, lu->cond_est = lu->kc.condest;
    *cond = lu->kc.condest;
    return 0;
}

int kd_smech_lu_solve(kd_smech_lu* lu, int trans, double* x) {
    if (!lu->num) return 1;
    const int ok = trans ? klu_tsolve(lu->sym, lu->num, lu->n, 1, x, &lu->kc)
                         : klu_solve(lu->sym, lu->num, lu->n, 1, x, &lu->kc);
    return !ok;
}
