/* The stiffness of a steady frame motion in compressed columns (kedyn/modes_speed.h): the
 * element terms of src/fe/system.c (element_ck, geometric_stiffness) for models too large for
 * its band storage, without gyroscopic matrix. The membrane pre-stress is solved for the unit
 * cases this instant needs only (prestress_membrane_solve_cases), then K + k(eps) + k(omega) + k_g
 * and M are assembled in one pass over the elements, one search of an entry's position for both. */
#include "kedyn/modes_speed.h"

#include <stdlib.h>
#include <string.h>

#include "kedyn/frame.h"
#include "kedyn/inertia.h"
#include "kedyn/model.h"
#include "assemble_csc.h"
#include "prestress_membrane.h"

/* M = E + W W of the frame (sec. 5.7), W = skew(omega): the in-plane body force per unit mass
 * is -(a + M r). */
static void body_m(const kd_frame* f, double* W, double* Mw) {
    kd_skew(W, f->omega_L);
    kd_skew(Mw, f->eps_L);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) Mw[3 * i + j] += W[3 * i] * W[j] + W[3 * i + 1] * W[3 + j] + W[3 * i + 2] * W[6 + j];
}

kd_status kd_system_stiffness_csc(const kd_model* m, double t, kd_csc* K, kd_csc* M, int* gyroscopic, kd_error* err) {
    *gyroscopic = 0;
    if (m->elem_rot)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "the sparse stiffness at speed does not support elements with their own axes");
    kd_status st = KD_OK;
    memset(K, 0, sizeof(*K));
    memset(M, 0, sizeof(*M));
    prestress_membrane* ps = NULL;
    kd_frame* frame = calloc((size_t)m->nbody, sizeof(*frame));
    double* acc = calloc((size_t)m->nbody * 3, sizeof(double));
    kd_inertia_terms* terms = malloc(sizeof(*terms) * (size_t)(m->nprop ? m->nprop : 1));
    int* terms_body = calloc((size_t)(m->nprop ? m->nprop : 1), sizeof(int));
    double* S = NULL;
    kd_element_point* pts = NULL;  /* the quadrature points of record pts_prop (2D, pre-stressed) */
    int pts_prop = -1;
    unsigned char* need = calloc((size_t)m->nbody * PRESTRESS_CASES, 1);
    if (!frame || !acc || !terms || !terms_body || !need)
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    /* each elastic body's frame, its effective acceleration a_O,L - R^T g (system.c) and the
     * pre-stress cases of nonzero coefficient: a_x, a_y, (E + W W)_xx, _xy, _yx, _yy */
    for (int b = 0; b < m->nbody && !st; b++) {
        if (m->body[b].type == KD_BODY_GROUND || m->body[b].type == KD_BODY_RIGID) continue;
        kd_motion_eval(&m->body[b].motion, m->body[b].rot, m->body[b].origin, t, &frame[b]);
        const double *R = frame[b].R, *g = m->gravity;
        for (int i = 0; i < 3; i++)
            acc[3 * b + i] = frame[b].aO_L[i] - (R[i] * g[0] + R[3 + i] * g[1] + R[6 + i] * g[2]);
        double W[9], Mw[9];
        body_m(&frame[b], W, Mw);
        const double coef[PRESTRESS_CASES] = {acc[3 * b], acc[3 * b + 1], Mw[0], Mw[1], Mw[3], Mw[4]};
        for (int c = 0; c < PRESTRESS_CASES; c++) need[(size_t)b * PRESTRESS_CASES + c] = coef[c] != 0.0;
    }
    if (!st) st = prestress_membrane_solve_cases(m, -1, need, &ps, err);
    if (!st && ps &&
        (!(S = malloc(sizeof(double) * (size_t)ps->rule_max * KD_GRAD_MAX * KD_GRAD_MAX)) ||
         !(pts = malloc(sizeof(*pts) * (size_t)(ps->rule_max > 0 ? ps->rule_max : 1)))))
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    if (!st && kd_assemble_csc_pattern(m, K))
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the sparse global matrices");
    const size_t nnz = st ? 0 : (size_t)K->p[K->n];
    if (!st) {
        M->n = K->n;
        M->p = malloc(sizeof(int) * ((size_t)K->n + 1));
        M->i = malloc(sizeof(int) * (nnz ? nnz : 1));
        K->x = calloc(nnz ? nnz : 1, sizeof(double));
        M->x = calloc(nnz ? nnz : 1, sizeof(double));
        if (!M->p || !M->i || !K->x || !M->x)
            st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the sparse global matrices");
    }
    if (!st) {
        memcpy(M->p, K->p, sizeof(int) * ((size_t)K->n + 1));
        memcpy(M->i, K->i, sizeof(int) * nnz);
    }
    double me[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    int me_prop = -1;
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
            body_m(&frame[b], W, Mw);
            prestress_membrane_field(ps, m, e, a, Mw, S);
            if (p != pts_prop) {  /* the points depend on the record only: once per run of its elements */
                const kd_quadrature* q = pr->family->quadrature(pr);
                for (int g = 0; g < q->n; g++) pr->family->eval(pr, q->xi[g], &pts[g]);
                pts_prop = p;
            }
            kd_element_geometric_stiffness_at(pr, pts, S, kg);
            geo = 1;
        } else {
            const double* w = frame[b].omega_L;
            geo = kd_model_elem_geometric(m, e, a[0], w[1] * w[1] + w[2] * w[2], kg);
        }
        if (geo)
            for (int i = 0; i < nn; i++) ke[i] += kg[i];
        if (p != me_prop) kd_element_mass(pr, me), me_prop = p;
        kd_assemble_csc_scatter(K, M, ke, me, eqs, n);
    }
    prestress_membrane_free(&ps);
    free(frame), free(acc), free(terms), free(terms_body), free(S), free(pts), free(need);
    if (st) {
        kd_csc_free(K);
        kd_csc_free(M);
    }
    return st;
}
