/* The in-plane pre-stress of two-dimensional bodies at rest under gravity
 * (kd_model_rest_prestress, kedyn/model.h; theory.md sec. 14.2): the unit inertia cases of the membrane problem
 * (prestress_membrane.h) combined with the frame acceleration a body at rest
 * feels, a = -R^T g, and no rotation (M = E + W W = 0), as kd_system combines
 * them for a body without motion. A shell not flat in its x-y plane, or flat with gravity
 * normal to it, takes the static shell problem under its weight instead (membrane and bending
 * coupled) and the in-plane resultants of its solution (theory.md sec. 14.7). */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/band.h"
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

/* Does shell body b take the static shell problem: geometric stiffness, weight, and either not
 * flat in its x-y plane (curved, folded, warped) or flat with gravity normal to it (theory.md
 * sec. 14.7)? */
static int rest_shell(const kd_model* m, int b) {
    const kd_body* body = &m->body[b];
    if (!body->geometric || body->elem_num == 0 || rest_loaded(m, b)) return 0;
    const kd_element_props* p = &m->prop[m->elem_prop[body->elem_adr]];
    return p->kind.theory == KD_THEORY_SHELL;
}

/* Position of DOF `name` at node n in the all-DOF numbering, or -1. */
static int node_dof(const kd_model* m, int n, kd_dof_name name) {
    for (int a = 0; a < m->node_dof_num[n]; a++)
        if (m->dof_name[m->node_dof_adr[n] + a] == name) return m->node_dof_adr[n] + a;
    return -1;
}

/* Shell body b under its weight at rest (theory.md sec. 14.7): K u = f with the body's own
 * supports, f = sum_c s_c (R^T g)_c per element (the element invariants, sec. 3), by a band
 * Cholesky (CHOLMOD's sparse one from PRESTRESS_SPARSE_MIN equations on), then at each
 * quadrature point of each element N = D_m B_m u_e in the element's own axes, written as the
 * tensors S of kd_element_geometric_stiffness from S + adr[e] (adr[e] already set). */
static kd_status shell_rest_body(const kd_model* m, int b, const int* adr, double* S, kd_error* err) {
    const kd_body* body = &m->body[b];
    const int nn = body->node_num, e0 = body->elem_adr, ne = body->elem_num, nd = 6;
    static const kd_dof_name names[6] = {KD_DOF_U, KD_DOF_V, KD_DOF_W, KD_DOF_RX, KD_DOF_RY, KD_DOF_RZ};
    int* eq = malloc(sizeof(int) * (size_t)nd * (size_t)(nn > 0 ? nn : 1));
    if (!eq) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the pre-stress at rest");
    int neq = 0;
    for (int k = 0; k < nn; k++)
        for (int c = 0; c < nd; c++) {
            const int i = node_dof(m, body->node_adr + k, names[c]);
            eq[nd * k + c] = (i >= 0 && m->dof_eq[i] < 0) ? -1 : neq++;
        }
    int kd = 0;
    for (int e = e0; e < e0 + ne; e++) {
        const int* nodes;
        const int nen = kd_model_elem_nodes(m, e, &nodes);
        int lo = neq, hi = -1;
        for (int a = 0; a < nen; a++)
            for (int c = 0; c < nd; c++) {
                const int q = eq[nd * (nodes[a] - body->node_adr) + c];
                if (q >= 0) lo = q < lo ? q : lo, hi = q > hi ? q : hi;
            }
        if (hi - lo > kd) kd = hi - lo;
    }
    double gb[3];  /* gravity in body components, R^T g */
    for (int k = 0; k < 3; k++)
        gb[k] = body->rot[k] * m->gravity[0] + body->rot[3 + k] * m->gravity[1] + body->rot[6 + k] * m->gravity[2];
    const int sparse = neq >= PRESTRESS_SPARSE_MIN;
    kd_band K = {0};
    kd_triplet Kt = {0};
    double* u = calloc((size_t)(neq > 0 ? neq : 1), sizeof(double));
    kd_status st = !u ? KD_ERR_NOMEM : neq > 0 && !sparse ? kd_band_init(&K, neq, kd) : KD_OK;
    for (int e = e0; e < e0 + ne && !st && neq > 0; e++) {
        const kd_element_props* p = &m->prop[m->elem_prop[e]];
        const int* nodes;
        const int nen = kd_model_elem_nodes(m, e, &nodes), n = p->ndof;
        int eqs[KD_ELEM_DOF_MAX];
        for (int a = 0; a < nen; a++)
            for (int c = 0; c < nd; c++) eqs[nd * a + c] = eq[nd * (nodes[a] - body->node_adr) + c];
        for (int i = 0; i < n; i++) {
            if (eqs[i] < 0) continue;
            for (int j = 0; j < n && !st; j++) {
                if (eqs[j] < eqs[i]) continue;
                if (!sparse) K.ab[kd + eqs[i] - eqs[j] + (size_t)eqs[j] * (kd + 1)] += p->k[i * n + j];
                else st = kd_triplet_add(&Kt, eqs[i], eqs[j], p->k[i * n + j]);
            }
            u[eqs[i]] += p->s_i[0][i] * gb[0] + p->s_i[1][i] * gb[1] + p->s_i[2][i] * gb[2];
        }
    }
    int singular = 0;
    if (!st && neq > 0 && !sparse) {
        singular = LAPACKE_dpbsv(LAPACK_COL_MAJOR, 'U', neq, kd, 1, K.ab, kd + 1, u, neq) != 0;
    } else if (!st && neq > 0) {
        kd_csc Kc;
        st = kd_csc_from_triplet(&Kt, neq, &Kc);
        if (!st) st = kd_csc_solve_spd(&Kc, 1, u);
        kd_csc_free(&Kc);
        singular = st == KD_ERR_NUMERIC;
        if (singular) st = KD_OK;
    }
    kd_triplet_free(&Kt);
    if (st == KD_ERR_NOMEM) st = kd_error_set(err, st, "", KD_LOC_NONE, "out of memory for the pre-stress at rest");
    if (singular)
        st = kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                          "body '%s': its static problem under gravity is singular (its supports hold no rigid motion; "
                          "set geometric_stiffness: false)", body->name);
    for (int e = e0; e < e0 + ne && !st; e++) {
        const kd_element_props* p = &m->prop[m->elem_prop[e]];
        const kd_quadrature* rule = p->family->quadrature(p);
        const int* nodes;
        const int nen = kd_model_elem_nodes(m, e, &nodes), n = p->ndof, ns = p->nstrain;
        double ue[KD_ELEM_DOF_MAX];
        for (int a = 0; a < nen; a++)
            for (int c = 0; c < nd; c++) {
                const int q = eq[nd * (nodes[a] - body->node_adr) + c];
                ue[nd * a + c] = q >= 0 ? u[q] : 0.0;
            }
        for (int g = 0; g < rule->n; g++) {
            kd_element_point pt;
            p->family->eval(p, rule->xi[g], &pt);
            double eps[3] = {0, 0, 0}, N[3];
            for (int r = 0; r < 3; r++)
                for (int a = 0; a < n; a++) eps[r] += pt.B[r][a] * ue[a];
            for (int r = 0; r < 3; r++) N[r] = p->D[r * ns] * eps[0] + p->D[r * ns + 1] * eps[1] + p->D[r * ns + 2] * eps[2];
            double* Sg = S + adr[e] + (size_t)g * KD_GRAD_MAX * KD_GRAD_MAX;
            memset(Sg, 0, sizeof(double) * KD_GRAD_MAX * KD_GRAD_MAX);
            Sg[0] = N[0], Sg[1] = Sg[KD_GRAD_MAX] = N[2], Sg[KD_GRAD_MAX + 1] = N[1];
        }
    }
    kd_band_free(&K);
    free(u), free(eq);
    return st;
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
