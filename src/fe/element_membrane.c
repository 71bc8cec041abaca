/* The membrane family (kedyn/element.h): plane-stress elements in the
 * element x-y plane, nodal u, v, thickness t (theory.md sec. 10.1-10.2).
 *
 *   CST  3-node triangle, linear              (tri3 rule)
 *   T6   6-node triangle, quadratic           (tri6 rule)
 *   Q4   4-node bilinear quadrilateral        (Gauss 2 x 2)
 *   Q8   8-node serendipity quadrilateral     (Gauss 3 x 3)
 *   Q9   9-node Lagrange quadrilateral        (Gauss 3 x 3)
 *
 * All isoparametric: the geometry is interpolated with the same shape
 * functions as u and v (so T6, Q8 and Q9 may have curved sides). The rules
 * integrate the stiffness exactly on straight-sided triangles and on
 * parallelograms, and the consistent mass exactly there too. The shape
 * functions and the map x(xi) are shared with the plates and shells
 * (element_family_list.h: shape_2d, map_2d). */
#include <math.h>
#include <string.h>

#include "element_family_list.h"
#include "kedyn/element.h"

/* ---- shape functions on the reference domains (theory.md sec. 10.1) ------- */

/* Quadratic Lagrange polynomials on the nodes -1, 0, 1 and derivatives. */
static void lagrange3(double s, double l[3], double dl[3]) {
    l[0] = 0.5 * s * (s - 1.0), dl[0] = s - 0.5;
    l[1] = 1.0 - s * s, dl[1] = -2.0 * s;
    l[2] = 0.5 * s * (s + 1.0), dl[2] = s + 0.5;
}

int shape_2d(kd_interp interp, const double xi[3], double N[KD_ELEM_NODE_MAX], double dN[KD_ELEM_NODE_MAX][2]) {
    const double r = xi[0], s = xi[1];
    switch (interp) {
    case KD_INTERP_CST:
    case KD_INTERP_DKT: {
        /* area coordinates L1 = 1 - r - s, L2 = r, L3 = s */
        N[0] = 1.0 - r - s, dN[0][0] = -1.0, dN[0][1] = -1.0;
        N[1] = r, dN[1][0] = 1.0, dN[1][1] = 0.0;
        N[2] = s, dN[2][0] = 0.0, dN[2][1] = 1.0;
        return 3;
    }
    case KD_INTERP_T6: {
        const double L[3] = {1.0 - r - s, r, s};
        const double dL[3][2] = {{-1.0, -1.0}, {1.0, 0.0}, {0.0, 1.0}};
        for (int a = 0; a < 3; a++) {
            N[a] = L[a] * (2.0 * L[a] - 1.0);
            for (int k = 0; k < 2; k++) dN[a][k] = (4.0 * L[a] - 1.0) * dL[a][k];
        }
        /* mid-side nodes of sides 1-2, 2-3, 3-1 */
        for (int m = 0; m < 3; m++) {
            const int i = m, j = (m + 1) % 3;
            N[3 + m] = 4.0 * L[i] * L[j];
            for (int k = 0; k < 2; k++) dN[3 + m][k] = 4.0 * (dL[i][k] * L[j] + L[i] * dL[j][k]);
        }
        return 6;
    }
    case KD_INTERP_Q4:
    case KD_INTERP_ACM:
    case KD_INTERP_BFS:
    case KD_INTERP_MITC4: {
        static const double c[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
        for (int a = 0; a < 4; a++) {
            const double fr = 1.0 + c[a][0] * r, fs = 1.0 + c[a][1] * s;
            N[a] = 0.25 * fr * fs;
            dN[a][0] = 0.25 * c[a][0] * fs;
            dN[a][1] = 0.25 * c[a][1] * fr;
        }
        return 4;
    }
    case KD_INTERP_Q8: {
        static const double c[8][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}, {0, -1}, {1, 0}, {0, 1}, {-1, 0}};
        for (int a = 0; a < 4; a++) {
            const double ra = c[a][0], sa = c[a][1];
            const double fr = 1.0 + ra * r, fs = 1.0 + sa * s, g = ra * r + sa * s - 1.0;
            N[a] = 0.25 * fr * fs * g;
            dN[a][0] = 0.25 * ra * fs * (g + fr);
            dN[a][1] = 0.25 * sa * fr * (g + fs);
        }
        for (int a = 4; a < 8; a++) {
            const double ra = c[a][0], sa = c[a][1];
            if (ra == 0.0) {
                N[a] = 0.5 * (1.0 - r * r) * (1.0 + sa * s);
                dN[a][0] = -r * (1.0 + sa * s);
                dN[a][1] = 0.5 * sa * (1.0 - r * r);
            } else {
                N[a] = 0.5 * (1.0 + ra * r) * (1.0 - s * s);
                dN[a][0] = 0.5 * ra * (1.0 - s * s);
                dN[a][1] = -s * (1.0 + ra * r);
            }
        }
        return 8;
    }
    case KD_INTERP_Q9: {
        /* node (i, j) of the 3 x 3 grid (0: -1, 1: 0, 2: +1) in the Q8 order, centre last */
        static const int ij[9][2] = {{0, 0}, {2, 0}, {2, 2}, {0, 2}, {1, 0}, {2, 1}, {1, 2}, {0, 1}, {1, 1}};
        double lr[3], dlr[3], ls[3], dls[3];
        lagrange3(r, lr, dlr);
        lagrange3(s, ls, dls);
        for (int a = 0; a < 9; a++) {
            N[a] = lr[ij[a][0]] * ls[ij[a][1]];
            dN[a][0] = dlr[ij[a][0]] * ls[ij[a][1]];
            dN[a][1] = lr[ij[a][0]] * dls[ij[a][1]];
        }
        return 9;
    }
    case KD_INTERP_CUBIC:
    case KD_INTERP_QUINTIC:
    case KD_INTERPS: break;
    }
    return 0;
}

double map_2d(int n, const double xl[][2], const double N[], const double dN[][2], double x[2],
              double dNx[KD_ELEM_NODE_MAX][2]) {
    double J[2][2] = {{0.0, 0.0}, {0.0, 0.0}};  /* J[k][d] = d x_d / d xi_k */
    x[0] = x[1] = 0.0;
    for (int a = 0; a < n; a++)
        for (int d = 0; d < 2; d++) {
            x[d] += N[a] * xl[a][d];
            for (int k = 0; k < 2; k++) J[k][d] += dN[a][k] * xl[a][d];
        }
    const double det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
    const double inv = det != 0.0 ? 1.0 / det : 0.0;
    /* d/dx = J^-1 d/dxi */
    for (int a = 0; a < n; a++) {
        dNx[a][0] = inv * (J[1][1] * dN[a][0] - J[0][1] * dN[a][1]);
        dNx[a][1] = inv * (-J[1][0] * dN[a][0] + J[0][0] * dN[a][1]);
    }
    return det;
}

void plane_stress_D(double E, double nu, double t, double D[3][3]) {
    const double f = E * t / (1.0 - nu * nu);
    memset(D, 0, sizeof(double) * 9);
    D[0][0] = D[1][1] = f;
    D[0][1] = D[1][0] = f * nu;
    D[2][2] = f * 0.5 * (1.0 - nu);
}

kd_status plate_consts_check(const kd_element_props* p) {
    const kd_element_consts* c = &p->c;
    if (!(c->t > 0.0 && c->E > 0.0 && c->G > 0.0 && c->rho > 0.0)) return KD_ERR_USAGE;
    const double nu = c->E / (2.0 * c->G) - 1.0;
    if (!(nu > -1.0 && nu < 0.5)) return KD_ERR_USAGE;
    return KD_OK;
}

kd_status plate_nodes_check(const kd_element_props* p) {
    for (int a = 0; a < p->nnode; a++)
        if (fabs(p->node_x[a][2]) > 1e-9 * p->L) return KD_ERR_INPUT;
    return KD_OK;
}

/* ---- the family tables ---------------------------------------------------- */

static int membrane_node_dofs(kd_element_kind kind, int node, kd_dof_name dofs[KD_NODE_DOF_MAX]) {
    (void)kind, (void)node;
    dofs[0] = KD_DOF_U;
    dofs[1] = KD_DOF_V;
    return 2;
}

/* Plane stress (theory.md sec. 10.2): strain rows (e_x, e_y, g_xy), D = the
 * plane-stress matrix times t, mass rho t per unit area. */
static kd_status membrane_init(kd_element_props* p) {
    kd_status st = plate_consts_check(p);
    if (!st) st = plate_nodes_check(p);
    if (st) return st;
    const kd_element_consts* c = &p->c;
    double D[3][3];
    plane_stress_D(c->E, c->E / (2.0 * c->G) - 1.0, c->t, D);
    p->ncomp = 2;
    p->nstrain = 3;
    for (int r = 0; r < 3; r++)
        for (int s = 0; s < 3; s++) p->D[r * 3 + s] = D[r][s];
    p->rho0 = c->rho * c->t;
    return KD_OK;
}

static const kd_quadrature* membrane_quadrature(const kd_element_props* p) {
    switch (p->kind.interp) {
    case KD_INTERP_CST: return &quadrature_tri3;
    case KD_INTERP_T6: return &quadrature_tri6;
    case KD_INTERP_Q4: return &quadrature_quad_gauss2x2;
    default: return &quadrature_quad_gauss3x3;
    }
}

/* At xi: u = sum N_a u_a, v = sum N_a v_a; strains e_x = u,x, e_y = v,y,
 * g_xy = u,y + v,x; the in-plane gradients of u and v for a pre-stress
 * (N_x, N_xy; N_xy, N_y) (theory.md sec. 10.2 and 10.9). */
static void membrane_eval(const kd_element_props* p, const double xi[3], kd_element_point* out) {
    double N[KD_ELEM_NODE_MAX], dN[KD_ELEM_NODE_MAX][2], dNx[KD_ELEM_NODE_MAX][2], xl[KD_ELEM_NODE_MAX][2];
    memset(out, 0, sizeof(*out));
    const int n = shape_2d(p->kind.interp, xi, N, dN);
    for (int a = 0; a < n; a++) xl[a][0] = p->node_x[a][0], xl[a][1] = p->node_x[a][1];
    out->measure = map_2d(n, (const double(*)[2])xl, N, (const double(*)[2])dN, out->x, dNx);
    for (int a = 0; a < n; a++) {
        const int iu = 2 * a, iv = 2 * a + 1;
        out->N0[0][iu] = N[a];
        out->N0[1][iv] = N[a];
        out->B[0][iu] = dNx[a][0];
        out->B[1][iv] = dNx[a][1];
        out->B[2][iu] = dNx[a][1];
        out->B[2][iv] = dNx[a][0];
        out->G[0][0][iu] = dNx[a][0];
        out->G[1][0][iu] = dNx[a][1];
        out->G[0][1][iv] = dNx[a][0];
        out->G[1][1][iv] = dNx[a][1];
    }
}

const double node_xi_tri3[3][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
const double node_xi_tri6[6][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.5, 0, 0}, {0.5, 0.5, 0}, {0, 0.5, 0}};
const double node_xi_quad4[4][3] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
const double node_xi_quad9[9][3] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}, {0, -1, 0},
                                    {1, 0, 0},   {0, 1, 0},  {-1, 0, 0}, {0, 0, 0}};

#define MEMBRANE(NAME, DOMAIN, NNODE, NODES)                                                                 \
    {                                                                                                        \
        .name = NAME, .domain = DOMAIN, .nnode = NNODE, .node_xi = NODES, .ntrans = 0,                      \
        .node_dofs = membrane_node_dofs, .init = membrane_init, .quadrature = membrane_quadrature,           \
        .eval = membrane_eval, .prestress_basis = NULL,                                                      \
    }

const kd_element_family element_family_membrane_cst =
    MEMBRANE("membrane-cst", KD_DOMAIN_TRIANGLE, 3, node_xi_tri3);
const kd_element_family element_family_membrane_t6 = MEMBRANE("membrane-t6", KD_DOMAIN_TRIANGLE, 6, node_xi_tri6);
const kd_element_family element_family_membrane_q4 =
    MEMBRANE("membrane-q4", KD_DOMAIN_QUADRILATERAL, 4, node_xi_quad4);
const kd_element_family element_family_membrane_q8 =
    MEMBRANE("membrane-q8", KD_DOMAIN_QUADRILATERAL, 8, node_xi_quad9);
const kd_element_family element_family_membrane_q9 =
    MEMBRANE("membrane-q9", KD_DOMAIN_QUADRILATERAL, 9, node_xi_quad9);
