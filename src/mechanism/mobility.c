/* Mobility of a mechanism: rank of Phi_q, degrees of freedom, Grübler's
 * count and redundant constraints (theory.md sec. 6). */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mechanism_internal.h"

/* Relative tolerance on singular values for the rank. */
#define RANK_TOL 1e-9

/* Numerical rank of the first nrow rows of Phi_q (dense in w->A), by the SVD. */
static int rank_of(const kd_mech* m, kd_mech_work* w, int nrow, double* cond) {
    if (nrow == 0) {
        *cond = 1.0;
        return 0;
    }
    kd_mech_jac_dense(m, w->jac, 0, nrow, w->K, nrow);
    for (int i = 0; i < m->n + m->nc; i++) w->rhs[i] = 0.0;
    int rank = 0;
    mech_lsq(w, nrow, m->n, w->K, nrow, w->rhs, RANK_TOL, w->s, &rank);
    *cond = mech_cond(w->s, nrow < m->n ? nrow : m->n, rank);
    return rank;
}

kd_status kd_mech_mobility_at(const kd_mech* m, double t, const double* q, kd_mech_mobility* mob, kd_error* err) {
    memset(mob, 0, sizeof(*mob));
    kd_mech_work* w = kd_mech_work_new(m);
    if (!w) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    kd_mech_jacobian(m, t, q, w->jac);
    double cond_joint;
    mob->rank_joint = rank_of(m, w, m->nc_joint, &cond_joint);
    mob->rank = rank_of(m, w, m->nc, &mob->cond);
    mob->dof = m->n - mob->rank_joint;
    mob->dof_undriven = m->n - mob->rank;
    mob->gruebler = m->n - m->nc_joint;

    /* Redundant rows, in row order: Gram-Schmidt on the rows of Phi_q; a row
     * whose part orthogonal to the rows kept before it is below RANK_TOL times
     * the largest row norm adds no constraint. */
    const int n = m->n;
    double* basis = w->K;  /* (rank x n), rows kept */
    double* v = w->x;
    kd_mech_jac_dense(m, w->jac, 0, m->nc, w->A, w->ld_A);
    double scale = 0.0;
    for (int r = 0; r < m->nc; r++) {
        double nr = 0.0;
        for (int c = 0; c < n; c++) nr += w->A[(size_t)c * w->ld_A + r] * w->A[(size_t)c * w->ld_A + r];
        scale = fmax(scale, sqrt(nr));
    }
    int kept = 0;
    for (int r = 0; r < m->nc; r++) {
        for (int c = 0; c < n; c++) v[c] = w->A[(size_t)c * w->ld_A + r];
        for (int pass = 0; pass < 2; pass++)  /* twice: re-orthogonalisation */
            for (int k = 0; k < kept; k++) {
                double p = 0.0;
                for (int c = 0; c < n; c++) p += basis[(size_t)k * n + c] * v[c];
                for (int c = 0; c < n; c++) v[c] -= p * basis[(size_t)k * n + c];
            }
        double nv = 0.0;
        for (int c = 0; c < n; c++) nv += v[c] * v[c];
        nv = sqrt(nv);
        if (nv <= RANK_TOL * 1e2 * scale || kept >= n) {
            if (mob->nredundant < KD_MECH_REDUNDANT_MAX) mob->redundant_row[mob->nredundant] = r;
            mob->nredundant++;
            continue;
        }
        for (int c = 0; c < n; c++) basis[(size_t)kept * n + c] = v[c] / nv;
        kept++;
    }
    kd_mech_work_free(&w);
    return KD_OK;
}

void kd_mech_redundant_names(const kd_mech* m, const kd_mech_mobility* mob, char* buf, int n) {
    buf[0] = '\0';
    const int count = mob->nredundant < KD_MECH_REDUNDANT_MAX ? mob->nredundant : KD_MECH_REDUNDANT_MAX;
    for (int i = 0; i < count; i++) {
        const int r = mob->redundant_row[i];
        const kd_mjoint* j = &m->joint[m->row_joint[r]];
        const size_t len = strlen(buf);
        if (r >= m->nc_joint)
            snprintf(buf + len, (size_t)n - len, "%sdriver of %s", i ? ", " : "", j->name);
        else
            snprintf(buf + len, (size_t)n - len, "%s%s (%s, equation %d)", i ? ", " : "", j->name,
                     kd_joint_type_str(j->type), r - j->row + 1);
    }
}
