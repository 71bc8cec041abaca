/* The Kirchhoff rectangles, ACM and BFS (theory.md sec. 10.4-10.5), which
 * differ only in their polynomial w and the twist DOF: the two w fields, the
 * rectangle's geometry check and constants, and the evaluation from the w
 * field. The tables are in element_plate_acm.c and element_plate_bfs.c. */
#include <math.h>
#include <string.h>

#include "element_family_list.h"
#include "kedyn/element.h"

/* ACM: complete cubic + x^3 y + x y^3, nodal w, theta_x, theta_y. */
int acm_w_field(double a, double b, plate_poly* P) {
    static const int ex[12][2] = {{0, 0}, {1, 0}, {0, 1}, {2, 0}, {1, 1}, {0, 2},
                                  {3, 0}, {2, 1}, {1, 2}, {0, 3}, {3, 1}, {1, 3}};
    const double xl[4][2] = {{0, 0}, {a, 0}, {a, b}, {0, b}};
    P->n = 12;
    memcpy(P->ex, ex, sizeof(ex));
    P->h = fmax(a, b);
    return plate_poly_nodal(P, 4, xl, 0);
}

/* The element a x b with its sides along x and y, node 1 at the origin,
 * counter-clockwise: the corners must be (a, 0), (a, b), (0, b). */
kd_status kirchhoff_rect_init(kd_element_props* p) {
    kd_status st = plate_consts_check(p);
    if (!st) st = plate_nodes_check(p);
    if (st) return st;
    if (p->kind.theory != KD_THEORY_KIRCHHOFF) return KD_ERR_USAGE;
    const double a = p->node_x[1][0], b = p->node_x[3][1], tol = 1e-9 * p->L;
    if (!(a > tol && b > tol) || fabs(p->node_x[1][1]) > tol || fabs(p->node_x[3][0]) > tol ||
        fabs(p->node_x[2][0] - a) > tol || fabs(p->node_x[2][1] - b) > tol)
        return KD_ERR_INPUT;
    double Db[3][3], ks;
    plate_bending_D(&p->c, Db, &ks);
    p->ncomp = 3;
    p->nstrain = 3;
    for (int r = 0; r < 3; r++)
        for (int s = 0; s < 3; s++) p->D[r * 3 + s] = Db[r][s];
    p->rho0 = p->c.rho * p->c.t;
    p->rho2[0][0] = p->c.rho * p->c.t * p->c.t * p->c.t / 12.0;
    plate_poly P;
    if ((p->kind.interp == KD_INTERP_BFS ? bfs_w_field(a, b, &P) : acm_w_field(a, b, &P)) != 0) return KD_ERR_INPUT;
    plate_poly_store(p, &P);
    return KD_OK;
}

const kd_quadrature* kirchhoff_rect_quadrature(const kd_element_props* p) {
    (void)p;
    return &quadrature_quad_gauss4x4;  /* the mass of the cubic (ACM) or bicubic (BFS) w */
}

/* At xi in [-1, 1]^2: x = (1 + xi) a / 2, y = (1 + eta) b / 2; N0 = w,
 * Nt = (-w,x, -w,y) (u = z theta_y = -z w,x, v = -z theta_x = -z w,y),
 * curvatures (-w,xx, -w,yy, -2 w,xy), G = grad w. */
void kirchhoff_rect_eval(const kd_element_props* p, const double xi[3], kd_element_point* out) {
    const double a = p->node_x[1][0], b = p->node_x[3][1];
    memset(out, 0, sizeof(*out));
    out->measure = 0.25 * a * b;
    out->x[0] = 0.5 * (1.0 + xi[0]) * a;
    out->x[1] = 0.5 * (1.0 + xi[1]) * b;
    plate_poly P;
    plate_poly_load(p, &P);  /* the w field, from kirchhoff_rect_init */
    plate_poly_point w;
    plate_poly_eval(&P, out->x[0], out->x[1], &w);
    for (int c = 0; c < P.ndof; c++) {
        out->N0[2][c] = w.w[c];
        out->Nt[0][0][c] = -w.wx[c];
        out->Nt[0][1][c] = -w.wy[c];
        out->B[0][c] = -w.wxx[c];
        out->B[1][c] = -w.wyy[c];
        out->B[2][c] = -2.0 * w.wxy[c];
        out->G[0][2][c] = w.wx[c];
        out->G[1][2][c] = w.wy[c];
    }
}

/* BFS: bicubic, nodal w, theta_x, theta_y, w,xy. */
int bfs_w_field(double a, double b, plate_poly* P) {
    const double xl[4][2] = {{0, 0}, {a, 0}, {a, b}, {0, b}};
    P->n = 16;
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 4; i++) P->ex[4 * j + i][0] = i, P->ex[4 * j + i][1] = j;
    P->h = fmax(a, b);
    return plate_poly_nodal(P, 4, xl, 1);
}

