/* Element matrices and invariants of any family by quadrature over its
 * reference domain, from the family's table alone (kedyn/element.h;
 * theory.md sec. 3 and 5).
 *
 * The sums run in a fixed order (per quadrature point: stiffness, geometric
 * invariants, m_ij, then s_i and x_ik; within each, the family's rows in
 * their order), so a family reproduces its matrices to the bit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "element_family_list.h"
#include "kedyn/element.h"

/* out += s * a^T b over the first n entries (a, b rows of length n). */
static void add_outer(double* out, int n, double s, const double* a, const double* b) {
    if (s == 0.0) return;
    for (int i = 0; i < n; i++) {
        if (a[i] == 0.0) continue;
        const double sa = s * a[i];
        for (int j = 0; j < n; j++) out[i * n + j] += sa * b[j];
    }
}

/* Geometric stiffness density of a pre-stress S at a point, times dV:
 * kg += dV sum_c sum_de S_de G_d,c^T G_e,c (theory.md sec. 5). */
static void add_geometric(double* kg, int n, double dV, const double* S, const kd_element_point* pt) {
    for (int c = 0; c < 3; c++)
        for (int d = 0; d < KD_GRAD_MAX; d++)
            for (int e = 0; e < KD_GRAD_MAX; e++)
                add_outer(kg, n, S[d * KD_GRAD_MAX + e] * dV, pt->G[d][c], pt->G[e][c]);
}

/* Stiffness, precomputed geometric invariants and inertia invariants. */
static void integrate(kd_element_props* p) {
    const kd_element_family* fam = p->family;
    const kd_quadrature* q = fam->quadrature(p);
    const int n = p->ndof, ns = p->nstrain, nt = fam->ntrans;
    const int closed_mass = p->mass > 0.0;  /* the family gave int rho dV in closed form */
    kd_element_point pt;
    for (int g = 0; g < q->n; g++) {
        fam->eval(p, q->xi[g], &pt);
        const double dV = q->w[g] * pt.measure;

        /* Strain energy (theory.md sec. 5): k = int B^T D B. */
        for (int r = 0; r < ns; r++)
            for (int s = 0; s < ns; s++) add_outer(p->k, n, p->D[r * ns + s] * dV, pt.B[r], pt.B[s]);

        /* Geometric invariants of the pre-stress basis fields. */
        for (int k = 0; k < p->ngeo; k++) {
            double S[KD_GRAD_MAX * KD_GRAD_MAX];
            fam->prestress_basis(p, k, q->xi[g], S);
            add_geometric(p->g_k[k], n, dV, S, &pt);
        }

        /* Inertia invariants over the volume (theory.md sec. 3), with
         * N_i = N0_i + sum_a t_a Nt_a,i integrated over t by the transverse
         * moments rho0, rho1_a, rho2_ab. */
        const double m0 = p->rho0 * dV;
        double m1[KD_TRANS_MAX], m2[KD_TRANS_MAX][KD_TRANS_MAX];
        for (int a = 0; a < nt; a++) {
            m1[a] = p->rho1[a] * dV;
            for (int b = 0; b < nt; b++) m2[a][b] = p->rho2[a][b] * dV;
        }
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                double* mij = p->m_ij[i][j];
                add_outer(mij, n, m0, pt.N0[i], pt.N0[j]);
                for (int a = 0; a < nt; a++) {
                    add_outer(mij, n, m1[a], pt.N0[i], pt.Nt[a][j]);
                    add_outer(mij, n, m1[a], pt.Nt[a][i], pt.N0[j]);
                }
                for (int a = 0; a < nt; a++)
                    for (int b = 0; b < nt; b++) add_outer(mij, n, m2[a][b], pt.Nt[a][i], pt.Nt[b][j]);
            }
            /* s_i = int rho N_i^T dV */
            for (int a = 0; a < n; a++) p->s_i[i][a] += m0 * pt.N0[i][a];
            for (int t = 0; t < nt; t++)
                if (m1[t] != 0.0)
                    for (int a = 0; a < n; a++) p->s_i[i][a] += m1[t] * pt.Nt[t][i][a];
            /* x_ik = int rho N_i^T r_k dV with r = x + sum_b t_b e_b:
             * rho0 x_k N0 + rho1_b e_b,k N0 + rho1_a x_k Nt_a + rho2_ab e_b,k Nt_a. */
            for (int k = 0; k < 3; k++) {
                double* xik = p->x_ik[i][k];
                const double c0 = m0 * pt.x[k];
                if (c0 != 0.0)
                    for (int a = 0; a < n; a++) xik[a] += c0 * pt.N0[i][a];
                for (int b = 0; b < nt; b++) {
                    const double cb = m1[b] * p->trans_dir[b][k];
                    if (cb != 0.0)
                        for (int a = 0; a < n; a++) xik[a] += cb * pt.N0[i][a];
                }
                for (int t = 0; t < nt; t++) {
                    const double ct = m1[t] * pt.x[k];
                    if (ct != 0.0)
                        for (int a = 0; a < n; a++) xik[a] += ct * pt.Nt[t][i][a];
                    for (int b = 0; b < nt; b++) {
                        const double ctb = m2[t][b] * p->trans_dir[b][k];
                        if (ctb != 0.0)
                            for (int a = 0; a < n; a++) xik[a] += ctb * pt.Nt[t][i][a];
                    }
                }
            }
        }
        if (!closed_mass) p->mass += m0;  /* int rho dV */
    }
}

/* A degenerate or inverted element has d(measure) <= 0 somewhere: checked
 * at the quadrature points and the nodes (a quadrilateral with a re-entrant
 * corner has det J < 0 there first), relative to the size L^dim of the
 * element so that collinear nodes in rounding do not pass. */
static int measure_positive(const kd_element_props* p) {
    const kd_element_family* fam = p->family;
    const kd_quadrature* q = fam->quadrature(p);
    const int dim = fam->domain == KD_DOMAIN_LINE ? 1 : (fam->domain == KD_DOMAIN_HEXAHEDRON ? 3 : 2);
    const double tiny = 1e-10 * pow(p->L, dim);
    kd_element_point pt;
    for (int g = 0; g < q->n + fam->nnode; g++) {
        fam->eval(p, g < q->n ? q->xi[g] : fam->node_xi[g - q->n], &pt);
        if (!(pt.measure > tiny)) return 0;
    }
    return 1;
}

/* The block of p's matrices and vectors, sized by its ndof (row stride
 * ndof), zeroed: k, m_ij, g_k (the family's precomputed pre-stress fields:
 * all three when it has any, beams always), s_i, x_ik. */
static kd_status props_alloc(kd_element_props* p) {
    const size_t n = (size_t)p->ndof, nn = n * n;
    const int ng = p->ngeo > 0 || p->family->domain == KD_DOMAIN_LINE ? 3 : 0;
    p->store = calloc((10 + (size_t)ng) * nn + 12 * n, sizeof(double));
    if (!p->store) return KD_ERR_NOMEM;
    double* at = p->store;
    p->k = at, at += nn;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) p->m_ij[i][j] = at, at += nn;
    for (int k = 0; k < ng; k++) p->g_k[k] = at, at += nn;
    for (int i = 0; i < 3; i++) p->s_i[i] = at, at += n;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) p->x_ik[i][k] = at, at += n;
    return KD_OK;
}

void kd_element_props_free(kd_element_props* p) {
    free(p->store);
    p->store = NULL;
}

/* Common set-up of kd_element_props_init and kd_element_props_init_nodes
 * (p zeroed by them). */
static kd_status props_init(kd_element_props* p, kd_element_kind kind, const kd_element_consts* c,
                            const double x[][3], double L) {
    const kd_element_family* fam = kd_element_family_of(kind);
    if (!fam) return KD_ERR_USAGE;
    p->kind = kind;
    p->family = fam;
    p->c = *c;
    p->L = L;
    p->nnode = fam->nnode;
    for (int a = 0; a < fam->nnode; a++)
        for (int k = 0; k < 3; k++) p->node_x[a][k] = x[a][k];
    for (int a = 0; a < fam->nnode; a++) {
        kd_dof_name dofs[KD_NODE_DOF_MAX];
        p->ndof += fam->node_dofs(kind, a, dofs);
    }
    if (p->ndof > KD_ELEM_DOF_MAX) return KD_ERR_USAGE;
    memcpy(p->trans_dir, fam->trans_dir, sizeof(p->trans_dir));
    for (int k = 0; k < 3; k++) p->frame[k][k] = 1.0;
    const kd_status st = fam->init(p);
    if (st) return st;
    if (!measure_positive(p)) return KD_ERR_INPUT;
    if (props_alloc(p)) return KD_ERR_NOMEM;
    integrate(p);
    return KD_OK;
}

kd_status kd_element_props_init_nodes(kd_element_props* p, kd_element_kind kind, const kd_element_consts* c,
                                      const double x[][3]) {
    memset(p, 0, sizeof(*p));
    const kd_element_family* fam = kd_element_family_of(kind);
    if (!fam || fam->nnode > KD_ELEM_NODE_MAX) return KD_ERR_USAGE;
    /* a characteristic size: the distance of nodes 1 and 2 (a line element's length) */
    const double dx = x[1][0] - x[0][0], dy = x[1][1] - x[0][1], dz = x[1][2] - x[0][2];
    return props_init(p, kind, c, x, sqrt(dx * dx + dy * dy + dz * dz));
}

kd_status kd_element_props_init(kd_element_props* p, kd_element_kind kind, const kd_element_consts* c, double L) {
    const double x[2][3] = {{0.0, 0.0, 0.0}, {L, 0.0, 0.0}};
    memset(p, 0, sizeof(*p));
    const kd_element_family* fam = kd_element_family_of(kind);
    if (!fam || fam->domain != KD_DOMAIN_LINE || fam->nnode != 2) return KD_ERR_USAGE;
    return props_init(p, kind, c, x, L);
}

void kd_element_geometric_stiffness(const kd_element_props* p, const double* S, double* kg) {
    const kd_element_family* fam = p->family;
    const kd_quadrature* q = fam->quadrature(p);
    const int n = p->ndof;
    memset(kg, 0, sizeof(double) * (size_t)n * (size_t)n);
    kd_element_point pt;
    for (int g = 0; g < q->n; g++) {
        fam->eval(p, q->xi[g], &pt);
        add_geometric(kg, n, q->w[g] * pt.measure, S + (size_t)g * KD_GRAD_MAX * KD_GRAD_MAX, &pt);
    }
}

void kd_element_geometric_stiffness_at(const kd_element_props* p, const kd_element_point* pts, const double* S,
                                       double* kg) {
    const kd_quadrature* q = p->family->quadrature(p);
    const int n = p->ndof;
    memset(kg, 0, sizeof(double) * (size_t)n * (size_t)n);
    for (int g = 0; g < q->n; g++)
        add_geometric(kg, n, q->w[g] * pts[g].measure, S + (size_t)g * KD_GRAD_MAX * KD_GRAD_MAX, &pts[g]);
}

void kd_element_mass(const kd_element_props* p, double* m) {
    const int n = p->ndof;
    for (int a = 0; a < n * n; a++) m[a] = p->m_ij[0][0][a] + p->m_ij[1][1][a] + p->m_ij[2][2][a];
}
