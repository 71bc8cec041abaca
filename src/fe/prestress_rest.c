/* The in-plane pre-stress of two-dimensional bodies at rest under gravity
 * (kd_model_rest_prestress, kedyn/model.h; theory.md sec. 14.2): the unit inertia cases of the membrane problem
 * (prestress_membrane.h) combined with the frame acceleration a body at rest
 * feels, a = -R^T g, and no rotation (M = E + W W = 0), as kd_system combines
 * them for a body without motion. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prestress_membrane.h"

/* The frame acceleration body b feels at rest, a = -R^T g (body components). */
static void rest_acceleration(const kd_model* m, int b, double a[3]) {
    const double* R = m->body[b].rot; /* row-major, body axes in columns */
    const double* g = m->gravity;
    for (int k = 0; k < 3; k++) a[k] = -(R[k] * g[0] + R[3 + k] * g[1] + R[6 + k] * g[2]);
}

/* Is body b a flat 2D body (z = 0 in its axes) with geometric stiffness and gravity in its
 * plane? Only those carry a membrane pre-stress at rest (gravity normal to the plate loads it
 * in bending alone; a curved shell is not treated: its k_g at rest stays 0). */
static int rest_loaded(const kd_model* m, int b) {
    const kd_body* body = &m->body[b];
    if (!body->geometric || body->elem_num == 0) return 0;
    const kd_element_props* p = &m->prop[m->elem_prop[body->elem_adr]];
    if (p->family->domain != KD_DOMAIN_TRIANGLE && p->family->domain != KD_DOMAIN_QUADRILATERAL) return 0;
    double a[3], size = 0;
    rest_acceleration(m, b, a);
    const double g = sqrt(m->gravity[0] * m->gravity[0] + m->gravity[1] * m->gravity[1] + m->gravity[2] * m->gravity[2]);
    if (hypot(a[0], a[1]) <= 1e-12 * g) return 0;
    for (int k = 0; k < body->node_num; k++)
        for (int i = 0; i < 2; i++) size = fmax(size, fabs(m->node_x[3 * (body->node_adr + k) + i]));
    for (int k = 0; k < body->node_num; k++)
        if (fabs(m->node_x[3 * (body->node_adr + k) + 2]) > 1e-9 * size) return 0;
    return 1;
}

kd_status kd_model_rest_prestress(kd_model* m, kd_error* err) {
    m->rest_adr = NULL, m->rest_S = NULL;
    if (m->gravity[0] == 0.0 && m->gravity[1] == 0.0 && m->gravity[2] == 0.0) return KD_OK;
    /* the membrane solve of prestress_membrane.h on a shallow copy whose bodies keep their
     * geometric flag only when rest_loaded (the solver takes every body with the flag) */
    kd_model mc = *m;
    mc.body = malloc(sizeof(*mc.body) * (size_t)m->nbody);
    if (!mc.body) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the pre-stress at rest");
    memcpy(mc.body, m->body, sizeof(*mc.body) * (size_t)m->nbody);
    int any = 0;
    for (int b = 0; b < m->nbody; b++) {
        mc.body[b].geometric = rest_loaded(m, b);
        any |= mc.body[b].geometric;
    }
    prestress_membrane* ps = NULL;
    kd_status st = any ? prestress_membrane_solve(&mc, &ps, err) : KD_OK;
    free(mc.body);
    if (st || !ps) return st;
    size_t total = 0;
    for (int e = 0; e < m->nelem; e++)
        if (ps->elem_adr[e] >= 0) {
            const kd_element_props* p = &m->prop[m->elem_prop[e]];
            total += (size_t)p->family->quadrature(p)->n * KD_GRAD_MAX * KD_GRAD_MAX;
        }
    m->rest_adr = malloc(sizeof(int) * (m->nelem > 0 ? (size_t)m->nelem : 1u));
    m->rest_S = malloc(sizeof(double) * (total ? total : 1));
    if (!m->rest_adr || !m->rest_S) {
        prestress_membrane_free(&ps);
        free(m->rest_adr), free(m->rest_S);
        m->rest_adr = NULL, m->rest_S = NULL;
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the pre-stress at rest");
    }
    const double M[9] = {0};
    size_t used = 0;
    for (int e = 0; e < m->nelem; e++) {
        m->rest_adr[e] = -1;
        if (ps->elem_adr[e] < 0) continue;
        double a[3];
        rest_acceleration(m, m->elem_body[e], a);
        const kd_element_props* p = &m->prop[m->elem_prop[e]];
        prestress_membrane_field(ps, m, e, a, M, m->rest_S + used);
        m->rest_adr[e] = (int)used;
        used += (size_t)p->family->quadrature(p)->n * KD_GRAD_MAX * KD_GRAD_MAX;
    }
    prestress_membrane_free(&ps);
    return KD_OK;
}
