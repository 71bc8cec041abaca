/* The discrete Kirchhoff triangle (DKT) of Batoz, Bathe and Ho (1980)
 * (kedyn/element.h; theory.md sec. 10.3): 9 DOFs, w, theta_x, theta_y at
 * the corners. The rotations of the normal beta = (beta_x, beta_y) =
 * (theta_y, -theta_x) (u = z beta_x, v = z beta_y) are quadratic over the
 * six nodes of a T6; at the corners beta = -grad w; at the mid-sides the
 * tangential component is -dw/ds of the cubic Hermite w along the side and
 * the normal component the mean of the corners'. The curvatures
 * kappa = (beta_x,x, beta_y,y, beta_x,y + beta_y,x) are linear; the element
 * passes the patch test on any triangle.
 *
 * Mass and pre-stress use a w inside the element, which the DKT does not
 * define: the reduced cubic Hermite triangle (nodal w and grad w, the
 * centroid value eliminated by w(c) = sum_i [w_i / 3 + grad w_i . (c - a_i) / 6],
 * exact for quadratics), which is the DKT's cubic along every side. N0 = w of
 * that cubic, Nt = (beta_x, beta_y) of the DKT (rotary inertia), G = its
 * gradient. */
#include <math.h>
#include <string.h>

#include "element_family_list.h"
#include "kedyn/element.h"

double dkt_rows(const double xl[3][2], const double xi[3], double x[2], double bx[9], double by[9],
                double Bb[3][9]) {
    /* beta at the six nodes as rows over the 9 DOFs */
    double nbx[6][9], nby[6][9];
    memset(nbx, 0, sizeof(nbx)), memset(nby, 0, sizeof(nby));
    for (int i = 0; i < 3; i++) {
        nbx[i][3 * i + 2] = 1.0;   /* beta_x = theta_y */
        nby[i][3 * i + 1] = -1.0;  /* beta_y = -theta_x */
    }
    for (int m = 0; m < 3; m++) {
        const int i = m, j = (m + 1) % 3;
        const double dx = xl[j][0] - xl[i][0], dy = xl[j][1] - xl[i][1], l = sqrt(dx * dx + dy * dy);
        const double sx = dx / l, sy = dy / l;
        /* beta_k = 3/(2l) (w_i - w_j) s + (beta_i + beta_j)/2 - 3/4 ((beta_i + beta_j) . s) s */
        for (int c = 0; c < 9; c++) {
            const double sbx = nbx[i][c] + nbx[j][c], sby = nby[i][c] + nby[j][c];
            const double bs = sbx * sx + sby * sy;
            nbx[3 + m][c] = 0.5 * sbx - 0.75 * bs * sx;
            nby[3 + m][c] = 0.5 * sby - 0.75 * bs * sy;
        }
        nbx[3 + m][3 * i] += 1.5 / l * sx, nbx[3 + m][3 * j] -= 1.5 / l * sx;
        nby[3 + m][3 * i] += 1.5 / l * sy, nby[3 + m][3 * j] -= 1.5 / l * sy;
    }
    double N[KD_ELEM_NODE_MAX], dN[KD_ELEM_NODE_MAX][2], dNx[KD_ELEM_NODE_MAX][2], x6[6][2];
    for (int a = 0; a < 3; a++) {
        x6[a][0] = xl[a][0], x6[a][1] = xl[a][1];
        x6[3 + a][0] = 0.5 * (xl[a][0] + xl[(a + 1) % 3][0]);
        x6[3 + a][1] = 0.5 * (xl[a][1] + xl[(a + 1) % 3][1]);
    }
    shape_2d(KD_INTERP_T6, xi, N, dN);
    const double det = map_2d(6, (const double(*)[2])x6, N, (const double(*)[2])dN, x, dNx);
    for (int c = 0; c < 9; c++) {
        double v[2] = {0, 0}, bxx = 0, bxy = 0, byx = 0, byy = 0;
        for (int a = 0; a < 6; a++) {
            v[0] += N[a] * nbx[a][c], v[1] += N[a] * nby[a][c];
            bxx += dNx[a][0] * nbx[a][c], bxy += dNx[a][1] * nbx[a][c];
            byx += dNx[a][0] * nby[a][c], byy += dNx[a][1] * nby[a][c];
        }
        bx[c] = v[0], by[c] = v[1];
        Bb[0][c] = bxx;
        Bb[1][c] = byy;
        Bb[2][c] = bxy + byx;
    }
    return det;
}

int dkt_w_field(const double xl[3][2], double L, plate_poly* P) {
    static const int ex[10][2] = {{0, 0}, {1, 0}, {0, 1}, {2, 0}, {1, 1}, {0, 2}, {3, 0}, {2, 1}, {1, 2}, {0, 3}};
    P->n = 10;
    memcpy(P->ex, ex, sizeof(ex));
    P->h = L;
    double A[PLATE_POLY_MAX][PLATE_POLY_MAX];
    memset(A, 0, sizeof(A));
    plate_poly_nodal_rows(P, 3, xl, 0, A);
    /* w(c) - sum_i [w_i / 3 + grad w_i . (c - a_i) / 6] = 0 */
    const double c[2] = {(xl[0][0] + xl[1][0] + xl[2][0]) / 3.0, (xl[0][1] + xl[1][1] + xl[2][1]) / 3.0};
    double r[PLATE_POLY_MAX];
    plate_poly_row(P, c[0], c[1], 0, 0, A[9]);
    for (int i = 0; i < 3; i++) {
        plate_poly_row(P, xl[i][0], xl[i][1], 0, 0, r);
        for (int m = 0; m < 10; m++) A[9][m] -= r[m] / 3.0;
        plate_poly_row(P, xl[i][0], xl[i][1], 1, 0, r);
        for (int m = 0; m < 10; m++) A[9][m] -= (c[0] - xl[i][0]) * r[m] / 6.0;
        plate_poly_row(P, xl[i][0], xl[i][1], 0, 1, r);
        for (int m = 0; m < 10; m++) A[9][m] -= (c[1] - xl[i][1]) * r[m] / 6.0;
    }
    return plate_poly_solve(P, (const double(*)[PLATE_POLY_MAX])A, 9);
}

/* Kirchhoff: curvature rows with D_b; mass rho t, rotary rho t^3 / 12. */
static kd_status dkt_init(kd_element_props* p) {
    kd_status st = plate_consts_check(p);
    if (!st) st = plate_nodes_check(p);
    if (st) return st;
    if (p->kind.theory != KD_THEORY_KIRCHHOFF) return KD_ERR_USAGE;
    double Db[3][3], ks;
    plate_bending_D(&p->c, Db, &ks);
    p->ncomp = 3;
    p->nstrain = 3;
    for (int r = 0; r < 3; r++)
        for (int s = 0; s < 3; s++) p->D[r * 3 + s] = Db[r][s];
    p->rho0 = p->c.rho * p->c.t;
    p->rho2[0][0] = p->c.rho * p->c.t * p->c.t * p->c.t / 12.0;
    double xl[3][2];
    for (int a = 0; a < 3; a++) xl[a][0] = p->node_x[a][0], xl[a][1] = p->node_x[a][1];
    plate_poly P;
    if (dkt_w_field((const double(*)[2])xl, p->L, &P) != 0) return KD_ERR_INPUT;
    plate_poly_store(p, &P);
    return KD_OK;
}

static const kd_quadrature* dkt_quadrature(const kd_element_props* p) {
    (void)p;
    return &quadrature_tri12;  /* degree 6: the mass of the cubic w */
}

static void dkt_eval(const kd_element_props* p, const double xi[3], kd_element_point* out) {
    double xl[3][2], bx[9], by[9], Bb[3][9];
    memset(out, 0, sizeof(*out));
    for (int a = 0; a < 3; a++) xl[a][0] = p->node_x[a][0], xl[a][1] = p->node_x[a][1];
    out->measure = dkt_rows((const double(*)[2])xl, xi, out->x, bx, by, Bb);
    plate_poly P;
    plate_poly_point w;
    plate_poly_load(p, &P);  /* the cubic w, from dkt_init */
    plate_poly_eval(&P, out->x[0], out->x[1], &w);
    for (int c = 0; c < 9; c++) {
        out->N0[2][c] = w.w[c];
        out->G[0][2][c] = w.wx[c];
        out->G[1][2][c] = w.wy[c];
        out->Nt[0][0][c] = bx[c];
        out->Nt[0][1][c] = by[c];
        for (int r = 0; r < 3; r++) out->B[r][c] = Bb[r][c];
    }
}

const kd_element_family element_family_plate_dkt = {
    .name = "plate-dkt",
    .domain = KD_DOMAIN_TRIANGLE,
    .nnode = 3,
    .node_xi = node_xi_tri3,
    .ntrans = 1,
    .trans_dir = {{0.0, 0.0, 1.0}},  /* thickness z */
    .node_dofs = plate_node_dofs,
    .init = dkt_init,
    .quadrature = dkt_quadrature,
    .eval = dkt_eval,
    .prestress_basis = NULL,
};
