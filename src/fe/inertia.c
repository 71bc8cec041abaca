/* Inertia terms of an element in a moving frame from its invariants, and
 * the placement of an element in its body (kedyn/inertia.h; theory.md
 * sec. 3). */
#include "kedyn/inertia.h"

#include <string.h>

void kd_skew(double S[9], const double v[3]) {
    S[0] = 0, S[1] = -v[2], S[2] = v[1];
    S[3] = v[2], S[4] = 0, S[5] = -v[0];
    S[6] = -v[1], S[7] = v[0], S[8] = 0;
}

void kd_element_place_set(kd_element_place* at, const double r0[3], const double* R) {
    static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(at->r0, r0, sizeof(at->r0));
    memcpy(at->R, R ? R : I, sizeof(at->R));
    at->rotated = R && memcmp(R, I, sizeof(I)) != 0;
}

void kd_element_place_on_axis(kd_element_place* at, double s0) {
    const double r0[3] = {s0, 0.0, 0.0};
    kd_element_place_set(at, r0, NULL);
}

/* The DOF triples of element p: trip[k][0..2] the element DOFs of the x, y,
 * z components of a node's translation or rotation; returns their count, or
 * -1 when some DOF belongs to no complete triple. */
static int dof_triples(const kd_element_props* p, int trip[][3]) {
    const kd_element_family* fam = p->family;
    int nt = 0, off = 0;
    for (int a = 0; a < p->nnode; a++) {
        kd_dof_name dofs[KD_NODE_DOF_MAX];
        const int nd = fam->node_dofs(p->kind, a, dofs);
        int pos[KD_DOF_NAMES];
        for (int k = 0; k < KD_DOF_NAMES; k++) pos[k] = -1;
        for (int k = 0; k < nd; k++) pos[dofs[k]] = off + k;
        int covered = 0;
        for (int base = KD_DOF_U; base <= KD_DOF_RX; base += 3) {
            const int have = (pos[base] >= 0) + (pos[base + 1] >= 0) + (pos[base + 2] >= 0);
            if (have == 0) continue;
            if (have != 3) return -1;
            for (int c = 0; c < 3; c++) trip[nt][c] = pos[base + c];
            nt++;
            covered += 3;
        }
        if (covered != nd) return -1;  /* curvatures or other scalar DOFs */
        off += nd;
    }
    return nt;
}

int kd_element_place_rotatable(const kd_element_props* p) {
    int trip[2 * KD_ELEM_NODE_MAX][3];
    return dof_triples(p, trip) >= 0;
}

/* rows (stride 1 between columns, `stride` between rows) of a triple: new
 * x_c = sum_k R_ck x_k over the triple's entries (body = R element). */
static void rotate_triple(const double R[9], double* v, const int t[3], int stride) {
    const double x0 = v[t[0] * stride], x1 = v[t[1] * stride], x2 = v[t[2] * stride];
    for (int c = 0; c < 3; c++) v[t[c] * stride] = R[3 * c] * x0 + R[3 * c + 1] * x1 + R[3 * c + 2] * x2;
}

void kd_element_place_matrix(const kd_element_props* p, const kd_element_place* at, double* A) {
    if (!at->rotated) return;
    int trip[2 * KD_ELEM_NODE_MAX][3];
    const int nt = dof_triples(p, trip), n = p->ndof;
    for (int k = 0; k < nt; k++)
        for (int j = 0; j < n; j++) rotate_triple(at->R, A + j, trip[k], n);  /* rows: T^T A */
    for (int k = 0; k < nt; k++)
        for (int i = 0; i < n; i++) rotate_triple(at->R, A + (size_t)i * n, trip[k], 1);  /* columns: (.) T */
}

void kd_element_place_vector(const kd_element_props* p, const kd_element_place* at, double* v) {
    if (!at->rotated) return;
    int trip[2 * KD_ELEM_NODE_MAX][3];
    const int nt = dof_triples(p, trip);
    for (int k = 0; k < nt; k++) rotate_triple(at->R, v, trip[k], 1);
}

/* The terms in element coordinates and DOFs: w, e, a, r0 element components. */
static void terms_local(const kd_element_props* p, const double r0[3], const double w[3], const double e[3],
                        const double a[3], kd_inertia_terms* out) {
    const int n = p->ndof, nc = p->ncomp, nn = n * n;
    double W[9], E[9], WW[9];
    kd_skew(W, w);
    kd_skew(E, e);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) WW[3 * i + j] = W[3 * i] * W[j] + W[3 * i + 1] * W[3 + j] + W[3 * i + 2] * W[6 + j];
    /* the n x n blocks and n loads the element has (every reader stays within them; the whole
     * struct, 3 KD_ELEM_DOF_MAX^2 doubles, was a tenth of a stability map's time) */
    memset(out->c, 0, sizeof(double) * (size_t)nn);
    memset(out->k_eps, 0, sizeof(double) * (size_t)nn);
    memset(out->k_omega, 0, sizeof(double) * (size_t)nn);
    memset(out->q, 0, sizeof(double) * (size_t)n);

    /* Matrices: weighted sums of the m_ij blocks over the displacement
     * components the element has (planar: x, y). */
    for (int i = 0; i < nc; i++)
        for (int j = 0; j < nc; j++) {
            const double cw = 2.0 * W[3 * i + j], ce = E[3 * i + j], cww = WW[3 * i + j];
            if (cw == 0.0 && ce == 0.0 && cww == 0.0) continue;
            const double* mij = p->m_ij[i][j];
            for (int k = 0; k < nn; k++) {
                out->c[k] += cw * mij[k];
                out->k_eps[k] += ce * mij[k];
                out->k_omega[k] += cww * mij[k];
            }
        }

    /* Load vector: frame acceleration plus q_i(eps) + q_i(w) with the
     * point position r = r0 + x: X_ij = x_ij + r0_j s_i. */
    for (int i = 0; i < nc; i++) {
        for (int dof = 0; dof < n; dof++) out->q[dof] += a[i] * p->s_i[i][dof];
        for (int j = 0; j < 3; j++) {
            const double coef = E[3 * i + j] + WW[3 * i + j];
            if (coef == 0.0) continue;
            for (int dof = 0; dof < n; dof++) {
                const double X = p->x_ik[i][j][dof] + (r0[j] != 0.0 ? r0[j] * p->s_i[i][dof] : 0.0);
                out->q[dof] += coef * X;
            }
        }
    }
}

/* v_e = R^T v_b */
static void to_element(const double R[9], const double* v, double* out) {
    for (int j = 0; j < 3; j++) out[j] = R[j] * v[0] + R[3 + j] * v[1] + R[6 + j] * v[2];
}

void kd_inertia_terms_place(const kd_element_props* p, const kd_element_place* at, const double w[3],
                            const double e[3], const double a[3], kd_inertia_terms* out) {
    if (!at->rotated) {
        terms_local(p, at->r0, w, e, a, out);
        return;
    }
    double r0e[3], we[3], ee[3], ae[3];
    to_element(at->R, at->r0, r0e);
    to_element(at->R, w, we);
    to_element(at->R, e, ee);
    to_element(at->R, a, ae);
    terms_local(p, r0e, we, ee, ae, out);
    kd_element_place_matrix(p, at, out->c);
    kd_element_place_matrix(p, at, out->k_eps);
    kd_element_place_matrix(p, at, out->k_omega);
    kd_element_place_vector(p, at, out->q);
}

void kd_inertia_terms_eval(const kd_element_props* p, double s0, const double w[3], const double e[3],
                           const double a[3], kd_inertia_terms* out) {
    const double r0[3] = {s0, 0.0, 0.0};
    terms_local(p, r0, w, e, a, out);
}

void kd_model_elem_place(const kd_model* m, int e, kd_element_place* at) {
    const int first = m->elem_node[m->elem_node_adr[e]];
    kd_element_place_set(at, &m->node_x[3 * first], m->elem_rot ? &m->elem_rot[9 * (size_t)e] : NULL);
}
