/* The in-plane pre-stress of two-dimensional bodies at rest under gravity
 * (kd_model_rest_prestress, kedyn/model.h; theory.md sec. 14.2): the unit inertia cases of the membrane problem
 * (prestress_membrane.h) combined with the frame acceleration a body at rest
 * feels, a = -R^T g, and no rotation (M = E + W W = 0), as kd_system combines
 * them for a body without motion. A shell not flat in its x-y plane, or flat with gravity
 * normal to it, takes the static shell problem under its weight instead (membrane and bending
 * coupled) and the in-plane resultants of its solution (theory.md sec. 14.7). */
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
 * plane? Those take the membrane problem (gravity normal to a flat body loads it in bending
 * alone; shells not flat take the static shell problem, rest_shell). */
static int rest_loaded(const kd_model* m, int b) {
    const kd_body* body = &m->body[b];
    if (!body->geometric || body->elem_num == 0) return 0;
    const kd_element_props* p = &m->prop[m->elem_prop[body->elem_adr]];
    if (p->family->domain != KD_DOMAIN_TRIANGLE && p->family->domain != KD_DOMAIN_QUADRILATERAL) return 0;
    double a[3];
    rest_acceleration(m, b, a);
    const double g = sqrt(m->gravity[0] * m->gravity[0] + m->gravity[1] * m->gravity[1] + m->gravity[2] * m->gravity[2]);
    if (hypot(a[0], a[1]) <= 1e-12 * g) return 0;
    return prestress_shell_flat(m, b);
}

/* Does shell body b take the static shell problem: geometric stiffness, weight, and either not
 * flat in its x-y plane (curved, folded, warped) or flat with gravity normal to it (theory.md
 * sec. 14.7)? */
static int rest_shell(const kd_model* m, int b) {
    const kd_body* body = &m->body[b];
    if (!body->geometric || body->elem_num == 0 || rest_loaded(m, b)) return 0;
    const kd_element_props* p = &m->prop[m->elem_prop[body->elem_adr]];
    return p->kind.theory == KD_THEORY_SHELL;
}

/* The weight's load of row i of element record p: f = s_c (R^T g)_c (gravity in body components). */
static void weight_load(const void* ctx, const kd_element_props* p, const double r0[3], int i, double* f) {
    const double* gb = ctx;
    (void)r0;
    f[0] = p->s_i[0][i] * gb[0] + p->s_i[1][i] * gb[1] + p->s_i[2][i] * gb[2];
}

/* Shell body b under its weight at rest (theory.md sec. 14.7): K u = f with the body's own
 * supports, f = sum_c s_c (R^T g)_c per element (the element invariants, sec. 3), the static
 * shell problem of prestress_shell.c, then at each quadrature point of each element
 * N = D_m B_m u_e in the element's own axes, written as the tensors S of
 * kd_element_geometric_stiffness from S + adr[e] (adr[e] already set). */
static kd_status shell_rest_body(const kd_model* m, int b, const int* adr, double* S, kd_error* err) {
    const kd_body* body = &m->body[b];
    double gb[3];  /* gravity in body components, R^T g */
    for (int k = 0; k < 3; k++)
        gb[k] = body->rot[k] * m->gravity[0] + body->rot[3 + k] * m->gravity[1] + body->rot[6 + k] * m->gravity[2];
    prestress_shell_solution sol;
    kd_status st = prestress_shell_solve(m, b, 1, weight_load, gb, &sol);
    if (st == KD_ERR_NOMEM) return kd_error_set(err, st, "", KD_LOC_NONE, "out of memory for the pre-stress at rest");
    if (st == KD_ERR_NUMERIC)
        return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                            "body '%s': its static problem under gravity is singular (its supports hold no rigid "
                            "motion; set geometric_stiffness: false)", body->name);
    if (st) return kd_error_set(err, st, "", KD_LOC_NONE, "body '%s': its static problem under gravity failed", body->name);
    for (int e = body->elem_adr; e < body->elem_adr + body->elem_num; e++) {
        const kd_element_props* p = &m->prop[m->elem_prop[e]];
        const int ng = p->family->quadrature(p)->n;
        for (int g = 0; g < ng; g++) {
            double N[3];
            prestress_shell_point(m, e, &sol, g, N);
            double* Sg = S + adr[e] + (size_t)g * KD_GRAD_MAX * KD_GRAD_MAX;
            memset(Sg, 0, sizeof(double) * KD_GRAD_MAX * KD_GRAD_MAX);
            Sg[0] = N[0], Sg[1] = Sg[KD_GRAD_MAX] = N[2], Sg[KD_GRAD_MAX + 1] = N[1];
        }
    }
    prestress_shell_free(&sol);
    return KD_OK;
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
    /* the bodies of the static shell problem (theory.md sec. 14.7) */
    int shells = 0;
    int* shell = calloc((size_t)(m->nbody > 0 ? m->nbody : 1), sizeof(int));
    if (!shell) {
        free(mc.body);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the pre-stress at rest");
    }
    for (int b = 0; b < m->nbody; b++) shells |= shell[b] = rest_shell(m, b);
    prestress_membrane* ps = NULL;
    kd_status st = any ? prestress_membrane_solve(&mc, &ps, err) : KD_OK;
    free(mc.body);
    if (st || (!ps && !shells)) {
        free(shell);
        return st;
    }
    size_t total = 0;
    for (int e = 0; e < m->nelem; e++)
        if ((ps && ps->elem_adr[e] >= 0) || shell[m->elem_body[e]]) {
            const kd_element_props* p = &m->prop[m->elem_prop[e]];
            total += (size_t)p->family->quadrature(p)->n * KD_GRAD_MAX * KD_GRAD_MAX;
        }
    m->rest_adr = malloc(sizeof(int) * (m->nelem > 0 ? (size_t)m->nelem : 1u));
    m->rest_S = malloc(sizeof(double) * (total ? total : 1));
    if (!m->rest_adr || !m->rest_S) {
        prestress_membrane_free(&ps);
        free(shell);
        free(m->rest_adr), free(m->rest_S);
        m->rest_adr = NULL, m->rest_S = NULL;
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the pre-stress at rest");
    }
    const double M[9] = {0};
    size_t used = 0;
    for (int e = 0; e < m->nelem; e++) {
        m->rest_adr[e] = -1;
        const kd_element_props* p = &m->prop[m->elem_prop[e]];
        if (ps && ps->elem_adr[e] >= 0) {
            double a[3];
            rest_acceleration(m, m->elem_body[e], a);
            prestress_membrane_field(ps, m, e, a, M, m->rest_S + used);
        } else if (!shell[m->elem_body[e]]) {
            continue;
        }
        m->rest_adr[e] = (int)used;
        used += (size_t)p->family->quadrature(p)->n * KD_GRAD_MAX * KD_GRAD_MAX;
    }
    prestress_membrane_free(&ps);
    for (int b = 0; b < m->nbody && !st; b++)
        if (shell[b]) st = shell_rest_body(m, b, m->rest_adr, m->rest_S, err);
    free(shell);
    if (st) {
        free(m->rest_adr), free(m->rest_S);
        m->rest_adr = NULL, m->rest_S = NULL;
    }
    return st;
}
