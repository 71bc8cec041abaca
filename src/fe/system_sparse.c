/* The stiffness of a steady frame motion in compressed columns (kedyn/modes_speed.h): the
 * element terms of src/fe/system.c (element_ck, geometric_stiffness) for models too large for
 * its band storage, without gyroscopic matrix. */
#include "kedyn/modes_speed.h"

#include <stdlib.h>
#include <string.h>

#include "kedyn/frame.h"
#include "kedyn/inertia.h"
#include "kedyn/model.h"
#include "prestress_membrane.h"

kd_status kd_system_stiffness_csc(const kd_model* m, double t, kd_csc* K, kd_csc* M, int* gyroscopic, kd_error* err) {
    *gyroscopic = 0;
    if (m->elem_rot)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "the sparse stiffness at speed does not support elements with their own axes");
    kd_status st = kd_assemble_stiffness_mass_csc(m, K, M, err);
    if (st) return st;
    memset(K->x, 0, sizeof(double) * (size_t)K->p[K->n]);
    prestress_membrane* ps = NULL;
    kd_frame* frame = calloc((size_t)m->nbody, sizeof(*frame));
    double* acc = calloc((size_t)m->nbody * 3, sizeof(double));
    kd_inertia_terms* terms = malloc(sizeof(*terms) * (size_t)(m->nprop ? m->nprop : 1));
    int* terms_body = calloc((size_t)(m->nprop ? m->nprop : 1), sizeof(int));
    double* S = NULL;
    if (!frame || !acc || !terms || !terms_body) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    if (!st) st = prestress_membrane_solve(m, &ps, err);
    if (!st && ps && !(S = malloc(sizeof(double) * (size_t)ps->rule_max * KD_GRAD_MAX * KD_GRAD_MAX)))
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    /* each elastic body's frame and its effective acceleration a_O,L - R^T g (system.c) */
    for (int b = 0; b < m->nbody && !st; b++) {
        if (m->body[b].type == KD_BODY_GROUND || m->body[b].type == KD_BODY_RIGID) continue;
        kd_motion_eval(&m->body[b].motion, m->body[b].rot, m->body[b].origin, t, &frame[b]);
        const double *R = frame[b].R, *g = m->gravity;
        for (int i = 0; i < 3; i++)
            acc[3 * b + i] = frame[b].aO_L[i] - (R[i] * g[0] + R[3 + i] * g[1] + R[6 + i] * g[2]);
    }
    double ke[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], kg[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    for (int e = 0; e < m->nelem && !st; e++) {
        const int b = m->elem_body[e], p = m->elem_prop[e];
        const kd_element_props* pr = &m->prop[p];
        int eqs[KD_ELEM_DOF_MAX];
        const int n = kd_model_elem_eqs(m, e, eqs), nn = n * n;
        const double* a = acc + 3 * b;
        if (terms_body[p] != b + 1) {  /* per element record and body (system.c, record_terms) */
            kd_inertia_terms_eval(pr, 0.0, frame[b].omega_L, frame[b].eps_L, a, &terms[p]);
            terms_body[p] = b + 1;
        }
        const kd_inertia_terms* it = &terms[p];
        for (int i = 0; i < nn; i++) ke[i] = pr->k[i] + it->k_eps[i] + it->k_omega[i];
        for (int i = 0; i < n && !*gyroscopic; i++)
            for (int j = 0; j < n; j++)
                if (eqs[i] >= 0 && eqs[j] >= 0 && it->c[i * n + j] != 0.0) *gyroscopic = 1;
        /* geometric stiffness (system.c, geometric_stiffness): 2D elements from the in-plane
         * pre-stress of the unit cases times a and M = E + W W (sec. 5.7), beams from the axial force */
        int geo;
        if (ps && ps->elem_adr[e] >= 0) {
            double W[9], Mw[9];
            kd_skew(W, frame[b].omega_L);
            kd_skew(Mw, frame[b].eps_L);
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) Mw[3 * i + j] += W[3 * i] * W[j] + W[3 * i + 1] * W[3 + j] + W[3 * i + 2] * W[6 + j];
            prestress_membrane_field(ps, m, e, a, Mw, S);
            kd_element_geometric_stiffness(pr, S, kg);
            geo = 1;
        } else {
            const double* w = frame[b].omega_L;
            geo = kd_model_elem_geometric(m, e, a[0], w[1] * w[1] + w[2] * w[2], kg);
        }
        if (geo)
            for (int i = 0; i < nn; i++) ke[i] += kg[i];
        kd_csc_add_element(K, ke, eqs, n);
    }
    prestress_membrane_free(&ps);
    free(frame), free(acc), free(terms), free(terms_body), free(S);
    if (st) {
        kd_csc_free(K);
        kd_csc_free(M);
    }
    return st;
}
