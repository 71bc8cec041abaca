/* The static shell problem of a pre-stress (prestress_membrane.h; theory.md sec. 14.7, 18.6):
 * K U = F over a shell body's own DOFs (u, v, w, rx, ry, rz per node, membrane and bending
 * coupled) with its own supports, for several load columns at once, and the membrane
 * resultants N = D_m B_m u_e of each column at the quadrature points of each element in the
 * element's own axes. Used for shells at rest under gravity (prestress_rest.c) and for the
 * unit inertia cases of shells not flat in their x-y plane in a moving frame
 * (prestress_membrane.c). */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/band.h"
#include "prestress_membrane.h"

#define SHELL_ND 6

/* Position of DOF `name` at node n in the all-DOF numbering, or -1. */
static int node_dof(const kd_model* m, int n, kd_dof_name name) {
    for (int a = 0; a < m->node_dof_num[n]; a++)
        if (m->dof_name[m->node_dof_adr[n] + a] == name) return m->node_dof_adr[n] + a;
    return -1;
}

int prestress_shell_flat(const kd_model* m, int b) {
    const kd_body* body = &m->body[b];
    double size = 0.0;
    for (int k = 0; k < body->node_num; k++)
        for (int i = 0; i < 2; i++) size = fmax(size, fabs(m->node_x[3 * (body->node_adr + k) + i]));
    for (int k = 0; k < body->node_num; k++)
        if (fabs(m->node_x[3 * (body->node_adr + k) + 2]) > 1e-9 * size) return 0;
    return 1;
}

void prestress_shell_free(prestress_shell_solution* s) {
    free(s->eq), free(s->u);
    memset(s, 0, sizeof(*s));
}

kd_status prestress_shell_solve(const kd_model* m, int b, int nrhs, prestress_shell_load load, const void* ctx,
                                prestress_shell_solution* s) {
    const kd_body* body = &m->body[b];
    const int nn = body->node_num, e0 = body->elem_adr, ne = body->elem_num, nd = SHELL_ND;
    static const kd_dof_name names[SHELL_ND] = {KD_DOF_U, KD_DOF_V, KD_DOF_W, KD_DOF_RX, KD_DOF_RY, KD_DOF_RZ};
    memset(s, 0, sizeof(*s));
    s->body = b, s->nrhs = nrhs;
    s->eq = malloc(sizeof(int) * (size_t)nd * (size_t)(nn > 0 ? nn : 1));
    if (!s->eq) return KD_ERR_NOMEM;
    int neq = 0;
    for (int k = 0; k < nn; k++)
        for (int c = 0; c < nd; c++) {
            const int i = node_dof(m, body->node_adr + k, names[c]);
            s->eq[nd * k + c] = (i >= 0 && m->dof_eq[i] < 0) ? -1 : neq++;
        }
    s->neq = neq;
    int kd = 0;
    for (int e = e0; e < e0 + ne; e++) {
        const int* nodes;
        const int nen = kd_model_elem_nodes(m, e, &nodes);
        int lo = neq, hi = -1;
        for (int a = 0; a < nen; a++)
            for (int c = 0; c < nd; c++) {
                const int q = s->eq[nd * (nodes[a] - body->node_adr) + c];
                if (q >= 0) lo = q < lo ? q : lo, hi = q > hi ? q : hi;
            }
        if (hi - lo > kd) kd = hi - lo;
    }
    /* the band for small bodies, compressed columns (CHOLMOD) from PRESTRESS_SPARSE_MIN on */
    const int sparse = neq >= PRESTRESS_SPARSE_MIN;
    kd_band K = {0};
    kd_triplet Kt = {0};
    s->u = calloc((size_t)(neq > 0 ? neq : 1) * (size_t)(nrhs > 0 ? nrhs : 1), sizeof(double));
    kd_status st = !s->u ? KD_ERR_NOMEM : neq > 0 && !sparse ? kd_band_init(&K, neq, kd) : KD_OK;
    double f[PRESTRESS_CASES_SHELL];
    for (int e = e0; e < e0 + ne && !st && neq > 0; e++) {
        const kd_element_props* p = &m->prop[m->elem_prop[e]];
        const int* nodes;
        const int nen = kd_model_elem_nodes(m, e, &nodes), n = p->ndof;
        const double* r0 = &m->node_x[3 * nodes[0]];
        int eqs[KD_ELEM_DOF_MAX];
        for (int a = 0; a < nen; a++)
            for (int c = 0; c < nd; c++) eqs[nd * a + c] = s->eq[nd * (nodes[a] - body->node_adr) + c];
        for (int i = 0; i < n; i++) {
            if (eqs[i] < 0) continue;
            for (int j = 0; j < n && !st; j++) {
                if (eqs[j] < eqs[i]) continue;
                if (!sparse) K.ab[kd + eqs[i] - eqs[j] + (size_t)eqs[j] * (kd + 1)] += p->k[i * n + j];
                else st = kd_triplet_add(&Kt, eqs[i], eqs[j], p->k[i * n + j]);
            }
            load(ctx, p, r0, i, f);
            for (int c = 0; c < nrhs; c++) s->u[(size_t)c * neq + eqs[i]] += f[c];
        }
    }
    int singular = 0;
    if (!st && neq > 0 && !sparse) {
        singular = LAPACKE_dpbsv(LAPACK_COL_MAJOR, 'U', neq, kd, nrhs, K.ab, kd + 1, s->u, neq) != 0;
    } else if (!st && neq > 0) {
        kd_csc Kc;
        st = kd_csc_from_triplet(&Kt, neq, &Kc);
        if (!st) st = kd_csc_solve_spd(&Kc, nrhs, s->u);
        kd_csc_free(&Kc);
        singular = st == KD_ERR_NUMERIC;
    }
    kd_triplet_free(&Kt);
    kd_band_free(&K);
    if (!st && singular) st = KD_ERR_NUMERIC;
    if (st) prestress_shell_free(s);
    return st;
}

void prestress_shell_point(const kd_model* m, int e, const prestress_shell_solution* s, int g, double* N) {
    const kd_body* body = &m->body[s->body];
    const kd_element_props* p = &m->prop[m->elem_prop[e]];
    const kd_quadrature* rule = p->family->quadrature(p);
    const int* nodes;
    const int nen = kd_model_elem_nodes(m, e, &nodes), n = p->ndof, ns = p->nstrain, nd = SHELL_ND;
    kd_element_point pt;
    p->family->eval(p, rule->xi[g], &pt);
    for (int c = 0; c < s->nrhs; c++) {
        double ue[KD_ELEM_DOF_MAX];
        for (int a = 0; a < nen; a++)
            for (int d = 0; d < nd; d++) {
                const int q = s->eq[nd * (nodes[a] - body->node_adr) + d];
                ue[nd * a + d] = q >= 0 ? s->u[(size_t)c * s->neq + q] : 0.0;
            }
        double eps[3] = {0, 0, 0};
        for (int r = 0; r < 3; r++)
            for (int a = 0; a < n; a++) eps[r] += pt.B[r][a] * ue[a];
        for (int r = 0; r < 3; r++)
            N[3 * c + r] = p->D[r * ns] * eps[0] + p->D[r * ns + 1] * eps[1] + p->D[r * ns + 2] * eps[2];
    }
}
