/* Polynomial w fields of the Kirchhoff plates (element_family_list.h;
 * theory.md sec. 10.3-10.5): the reduced cubic of the DKT triangle's mass
 * and slopes, the ACM 12-term and the BFS bicubic rectangles. A field is a
 * set of monomials (x/h)^i (y/h)^j in coordinates from node 1 scaled by h,
 * and the shape function of each DOF is the combination of monomials whose
 * DOF functionals (a value or a derivative at a node, or a constraint) are
 * the unit vectors; the coefficients come from one small dense solve. */
#include <math.h>
#include <string.h>

#include "element_family_list.h"

/* s^k for small k without pow(). */
static double ipow(double s, int k) {
    double r = 1.0;
    for (int i = 0; i < k; i++) r *= s;
    return r;
}

/* d^(dx+dy) / dx^dx dy^dy of (x/h)^i (y/h)^j at (x, y). */
static double mono_d(int i, int j, int dx, int dy, double x, double y, double h) {
    if (dx > i || dy > j) return 0.0;
    double c = 1.0;
    for (int k = 0; k < dx; k++) c *= (double)(i - k);
    for (int k = 0; k < dy; k++) c *= (double)(j - k);
    return c * ipow(x / h, i - dx) * ipow(y / h, j - dy) / ipow(h, dx + dy);
}

void plate_poly_row(const plate_poly* P, double x, double y, int dx, int dy, double row[PLATE_POLY_MAX]) {
    for (int m = 0; m < P->n; m++) row[m] = mono_d(P->ex[m][0], P->ex[m][1], dx, dy, x, y, P->h);
}

int plate_poly_solve(plate_poly* P, const double A[PLATE_POLY_MAX][PLATE_POLY_MAX], int ndof) {
    /* Gauss-Jordan with partial pivoting on [A | E], E the first ndof unit
     * vectors (the other rows are homogeneous constraints) */
    const int n = P->n;
    double M[PLATE_POLY_MAX][2 * PLATE_POLY_MAX];
    for (int r = 0; r < n; r++) {
        for (int c = 0; c < n; c++) M[r][c] = A[r][c];
        for (int c = 0; c < ndof; c++) M[r][n + c] = r == c ? 1.0 : 0.0;
    }
    for (int col = 0; col < n; col++) {
        int piv = col;
        for (int r = col + 1; r < n; r++)
            if (fabs(M[r][col]) > fabs(M[piv][col])) piv = r;
        if (!(fabs(M[piv][col]) > 1e-12)) return 1;
        if (piv != col)
            for (int c = 0; c < n + ndof; c++) {
                const double t = M[col][c];
                M[col][c] = M[piv][c], M[piv][c] = t;
            }
        const double inv = 1.0 / M[col][col];
        for (int c = 0; c < n + ndof; c++) M[col][c] *= inv;
        for (int r = 0; r < n; r++) {
            if (r == col || M[r][col] == 0.0) continue;
            const double f = M[r][col];
            for (int c = 0; c < n + ndof; c++) M[r][c] -= f * M[col][c];
        }
    }
    P->ndof = ndof;
    for (int m = 0; m < n; m++)
        for (int k = 0; k < ndof; k++) P->C[m][k] = M[m][n + k];
    return 0;
}

void plate_poly_eval(const plate_poly* P, double x, double y, plate_poly_point* out) {
    static const int ord[6][2] = {{0, 0}, {1, 0}, {0, 1}, {2, 0}, {0, 2}, {1, 1}};
    double* dst[6] = {out->w, out->wx, out->wy, out->wxx, out->wyy, out->wxy};
    for (int d = 0; d < 6; d++) {
        double row[PLATE_POLY_MAX];
        plate_poly_row(P, x, y, ord[d][0], ord[d][1], row);
        for (int k = 0; k < P->ndof; k++) {
            double s = 0.0;
            for (int m = 0; m < P->n; m++) s += P->C[m][k] * row[m];
            dst[d][k] = s;
        }
    }
}

int plate_poly_nodal_rows(const plate_poly* P, int nnode, const double xl[][2], int twist,
                         double A[PLATE_POLY_MAX][PLATE_POLY_MAX]) {
    /* per node: w, theta_x = w,y, theta_y = -w,x [, w,xy] */
    const int per = twist ? 4 : 3;
    for (int a = 0; a < nnode; a++) {
        const double x = xl[a][0], y = xl[a][1];
        plate_poly_row(P, x, y, 0, 0, A[per * a]);
        plate_poly_row(P, x, y, 0, 1, A[per * a + 1]);
        plate_poly_row(P, x, y, 1, 0, A[per * a + 2]);
        for (int m = 0; m < P->n; m++) A[per * a + 2][m] = -A[per * a + 2][m];
        if (twist) plate_poly_row(P, x, y, 1, 1, A[per * a + 3]);
    }
    return per * nnode;
}

int plate_poly_nodal(plate_poly* P, int nnode, const double xl[][2], int twist) {
    double A[PLATE_POLY_MAX][PLATE_POLY_MAX];
    memset(A, 0, sizeof(A));
    const int ndof = plate_poly_nodal_rows(P, nnode, xl, twist, A);
    return plate_poly_solve(P, (const double(*)[PLATE_POLY_MAX])A, ndof);
}

_Static_assert(sizeof(plate_poly) <= sizeof(double) * KD_ELEM_AUX_MAX, "plate_poly fits kd_element_props.aux");

void plate_poly_store(kd_element_props* p, const plate_poly* P) { memcpy(p->aux, P, sizeof(*P)); }

void plate_poly_load(const kd_element_props* p, plate_poly* P) { memcpy(P, p->aux, sizeof(*P)); }
