/* The gyroscopic and damping matrix of a moving system in compressed columns
 * (kedyn/modes_gyro_sparse.h): C = sum of the elements' [c] (Coriolis, from omega_L; theory.md
 * sec. 3) + alpha m + beta k of each body (Rayleigh), the C(t) of src/fe/system.c for models too
 * large for its band storage. Both triangles: [c] is skew. */
#include <stdlib.h>
#include <string.h>

#include "kedyn/element.h"
#include "kedyn/frame.h"
#include "kedyn/inertia.h"
#include "kedyn/model.h"
#include "kedyn/modes_gyro_sparse.h"

/* The full (both triangles) pattern of the symmetric upper pattern U into C, values 0. */
static kd_status mirror_pattern(const kd_csc* U, kd_csc* C) {
    const int n = U->n;
    memset(C, 0, sizeof(*C));
    C->n = n;
    C->p = calloc((size_t)n + 1, sizeof(int));
    int* next = malloc(sizeof(int) * ((size_t)n + 1));
    if (!C->p || !next) {
        free(next);
        kd_csc_free(C);
        return KD_ERR_NOMEM;
    }
    for (int j = 0; j < n; j++)
        for (int k = U->p[j]; k < U->p[j + 1]; k++) {
            C->p[j + 1]++;
            if (U->i[k] != j) C->p[U->i[k] + 1]++;
        }
    for (int j = 0; j < n; j++) C->p[j + 1] += C->p[j];
    const size_t nnz = (size_t)C->p[n];
    C->i = malloc(sizeof(int) * (nnz ? nnz : 1));
    C->x = calloc(nnz ? nnz : 1, sizeof(double));
    if (!C->i || !C->x) {
        free(next);
        kd_csc_free(C);
        return KD_ERR_NOMEM;
    }
    memcpy(next, C->p, sizeof(int) * ((size_t)n + 1));
    /* column by column of U, ascending: rows come out sorted in each column of C (the mirrored
     * entries (j, i), i < j, of column i arrive in ascending j after its own i <= ... ones) */
    for (int j = 0; j < n; j++)
        for (int k = U->p[j]; k < U->p[j + 1]; k++) {
            const int i = U->i[k];
            C->i[next[j]++] = i;                /* (i, j), i <= j */
            if (i != j) C->i[next[i]++] = j;    /* (j, i) below the diagonal of column i */
        }
    free(next);
    return KD_OK;
}

/* Position of row i in column j of C (its rows ascending); -1 when absent. */
static int find(const kd_csc* C, int i, int j) {
    int lo = C->p[j], hi = C->p[j + 1] - 1;
    while (lo <= hi) {
        const int mid = (lo + hi) / 2;
        if (C->i[mid] == i) return mid;
        if (C->i[mid] < i) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

kd_status kd_system_damping_csc(const kd_model* m, double t, const kd_csc* K, kd_csc* C, int* nonzero, kd_error* err) {
    *nonzero = 0;
    memset(C, 0, sizeof(*C));
    if (m->elem_rot)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "the sparse gyroscopic matrix does not support elements with their own axes");
    if (mirror_pattern(K, C))
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the sparse gyroscopic matrix");
    kd_frame* frame = calloc((size_t)m->nbody, sizeof(*frame));
    double* acc = calloc((size_t)m->nbody * 3 + 1, sizeof(double));
    kd_inertia_terms* terms = malloc(sizeof(*terms) * (size_t)(m->nprop ? m->nprop : 1));
    int* terms_body = calloc((size_t)(m->nprop ? m->nprop : 1), sizeof(int));
    if (!frame || !acc || !terms || !terms_body) {
        free(frame), free(acc), free(terms), free(terms_body);
        kd_csc_free(C);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the sparse gyroscopic matrix");
    }
    /* each elastic body's frame (as src/fe/system_sparse.c): [c] depends on omega_L only */
    for (int b = 0; b < m->nbody; b++) {
        if (m->body[b].type == KD_BODY_GROUND || m->body[b].type == KD_BODY_RIGID) continue;
        kd_motion_eval(&m->body[b].motion, m->body[b].rot, m->body[b].origin, t, &frame[b]);
    }
    double ce[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], me[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    for (int e = 0; e < m->nelem; e++) {
        const int b = m->elem_body[e], p = m->elem_prop[e];
        const kd_element_props* pr = &m->prop[p];
        const kd_body* body = &m->body[b];
        int eqs[KD_ELEM_DOF_MAX];
        const int n = kd_model_elem_eqs(m, e, eqs), nn = n * n;
        if (terms_body[p] != b + 1) {
            kd_inertia_terms_eval(pr, 0.0, frame[b].omega_L, frame[b].eps_L, acc + 3 * b, &terms[p]);
            terms_body[p] = b + 1;
        }
        memcpy(ce, terms[p].c, sizeof(double) * (size_t)nn);
        if (body->damp_alpha > 0 || body->damp_beta > 0) {  /* C_e = [c] + alpha m + beta k (system.c) */
            kd_element_mass(pr, me);
            for (int i = 0; i < nn; i++) ce[i] += body->damp_alpha * me[i] + body->damp_beta * pr->k[i];
        }
        for (int q = 0; q < n; q++) {
            if (eqs[q] < 0) continue;
            for (int r = 0; r < n; r++) {
                if (eqs[r] < 0 || ce[r * n + q] == 0.0) continue;
                const int at = find(C, eqs[r], eqs[q]);  /* in K's pattern: the element couples them */
                if (at >= 0) C->x[at] += ce[r * n + q], *nonzero = 1;
            }
        }
    }
    free(frame), free(acc), free(terms), free(terms_body);
    if (!*nonzero) kd_csc_free(C);
    return KD_OK;
}
