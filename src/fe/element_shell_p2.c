/* Quadratic flat shells (kedyn/element.h; theory.md sec. 18): a membrane
 * and a Mindlin plate of the same interpolation on the element's own plane,
 * anywhere in 3D, as the 3- and 4-node shells of element_shell.c.
 *
 *   shell t6   6-node triangle: T6 membrane + T6 Mindlin plate with the
 *              assumed shear of the first-kind Nedelec space of degree 2 (an
 *              MITC6-type element)
 *              (Dunavant degree-4 rule, 6 points)
 *   shell q8   8-node serendipity quadrilateral   } membrane + Mindlin plate with
 *   shell q9   9-node Lagrange quadrilateral      } the MITC9 assumed shear
 *                                                   (Gauss 3 x 3)
 *
 * Node DOFs u, v, w, theta_x, theta_y, theta_z along the element (body) axes.
 * Own axes (p->frame): the normal n from the corners (triangle:
 * (x2 - x1) x (x3 - x1); quadrilateral: the diagonals' cross product), e1
 * the body x axis projected on the plane, e2 = n x e1. Everything is
 * computed in the own axes and rotated back (theory.md sec. 10.7). Nodes off
 * the plane through the corners' centroid (a warped or curved element) are
 * tied to their projections by rigid links over their offsets h_a along n,
 * as the warped 4-node shell (sec. 14.6); beyond |h_a| / sqrt(A) = 0.1 the
 * element is rejected.
 *
 * Bending: w, beta_x = theta_y, beta_y = -theta_x interpolated as u, v;
 * curvatures kappa = (beta_x,x, beta_y,y, beta_x,y + beta_y,x). Transverse
 * shear (theory.md sec. 18.2): the covariant strains g_k = w,k + beta . x,k
 * (k = r, s, the reference coordinates) are replaced by an assumed field
 * tied to them at fixed points, so that a thin plate does not lock:
 *   Q8, Q9 (MITC9, Bucalem and Bathe 1993): g_r linear in r and quadratic in
 *     s, tied at r = +-1/sqrt(3), s = 0, +-sqrt(3/5); g_s the same turned;
 *   T6: the 8-dimensional space P1^2 + {q (s, -r) : q linear homogeneous},
 *     tied to the tangential strain at the two Gauss points of each side and
 *     to the integrals of g_r, g_s over the element.
 * An element off its plane also takes MITC9's assumed membrane strains
 * (quadrilaterals) and the membrane strain of its surface at the offset z0,
 * eps + z0 kappa (theory.md sec. 18.3): without them a thin twisted element locks.
 * Drilling: the row theta_z - (v,x - u,y)/2 with 10^-3 G t (0.1 G t off the
 * plane, sec. 18.5) and the rotary inertia of a fibre along e1 (theory.md
 * sec. 14.3), as the 4-node shell. */
#include <math.h>
#include <string.h>

#include "element_family_list.h"
#include "kedyn/element.h"

#define DRILL_FACTOR 1e-3  /* drilling stiffness / (G t), as element_shell.c */
#define DRILL_KAPPA 64.0   /* l^2 = DRILL_FACTOR A_e / DRILL_KAPPA, as element_shell.c */
/* aux: [0] 1 when nodes are off the plane, [1] the plane's distance from node 1, [2 + a] h_a */
#define WARP_FLAG 0
#define WARP_Z0 1
#define WARP_H 2
#define NB (3 * KD_ELEM_NODE_MAX)  /* bending DOFs: w, theta_x, theta_y per node */

static int p2_node_dofs(kd_element_kind kind, int node, kd_dof_name dofs[KD_NODE_DOF_MAX]) {
    (void)kind, (void)node;
    static const kd_dof_name d[6] = {KD_DOF_U, KD_DOF_V, KD_DOF_W, KD_DOF_RX, KD_DOF_RY, KD_DOF_RZ};
    memcpy(dofs, d, sizeof(d));
    return 6;
}

static void cross(const double a[3], const double b[3], double c[3]) {
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

static double norm3(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

/* The normal n (unit) and the area |.| / 2 of the corners' plane; 0 when degenerate. */
static double corner_normal(int nnode, const double x[][3], double n[3]) {
    double a[3], b[3];
    for (int k = 0; k < 3; k++) {
        if (nnode == 6) a[k] = x[1][k] - x[0][k], b[k] = x[2][k] - x[0][k];
        else a[k] = x[2][k] - x[0][k], b[k] = x[3][k] - x[1][k];
    }
    cross(a, b, n);
    const double len = norm3(n);
    if (!(len > 0.0)) return 0.0;
    for (int k = 0; k < 3; k++) n[k] /= len;
    return 0.5 * len;
}

double shell_p2_warping(int nnode, const double x[][3]) {
    double n[3], z0 = 0.0, hmax = 0.0;
    const int nc = nnode == 6 ? 3 : 4;
    const double area = corner_normal(nnode, x, n);
    if (!(area > 0.0)) return 0.0;
    for (int a = 0; a < nc; a++) z0 += (n[0] * x[a][0] + n[1] * x[a][1] + n[2] * x[a][2]) / nc;
    for (int a = 0; a < nnode; a++) hmax = fmax(hmax, fabs(n[0] * x[a][0] + n[1] * x[a][1] + n[2] * x[a][2] - z0));
    return hmax / sqrt(area);
}

/* The own axes and the area; KD_ERR_INPUT when degenerate or warped beyond the limit. */
static kd_status p2_frame(kd_element_props* p, double* area) {
    const int n = p->nnode, nc = n == 6 ? 3 : 4;
    double nrm[3];
    *area = corner_normal(n, (const double(*)[3])p->node_x, nrm);
    if (!(*area > 0.5e-12 * p->L * p->L)) return KD_ERR_INPUT;
    double z0 = 0.0;
    for (int a = 0; a < nc; a++)
        z0 += (nrm[0] * p->node_x[a][0] + nrm[1] * p->node_x[a][1] + nrm[2] * p->node_x[a][2]) / nc;
    int flat = 1;
    for (int a = 0; a < n; a++) {
        const double h = nrm[0] * p->node_x[a][0] + nrm[1] * p->node_x[a][1] + nrm[2] * p->node_x[a][2];
        if (fabs(h) > 1e-6 * p->L) flat = 0;
    }
    if (!flat) {
        p->aux[WARP_FLAG] = 1.0;
        p->aux[WARP_Z0] = z0;
        for (int a = 0; a < n; a++) {
            const double h = nrm[0] * p->node_x[a][0] + nrm[1] * p->node_x[a][1] + nrm[2] * p->node_x[a][2] - z0;
            if (fabs(h) > SHELL_WARP_LIMIT * sqrt(*area)) return KD_ERR_INPUT;
            p->aux[WARP_H + a] = h;
        }
    }
    double e1[3] = {1.0 - nrm[0] * nrm[0], -nrm[0] * nrm[1], -nrm[0] * nrm[2]};
    if (norm3(e1) < 0.1) e1[0] = -nrm[1] * nrm[0], e1[1] = 1.0 - nrm[1] * nrm[1], e1[2] = -nrm[1] * nrm[2];
    const double l1 = norm3(e1);
    for (int k = 0; k < 3; k++) e1[k] /= l1;
    double e2[3];
    cross(nrm, e1, e2);
    for (int k = 0; k < 3; k++) p->frame[0][k] = e1[k], p->frame[1][k] = e2[k], p->frame[2][k] = nrm[k];
    for (int k = 0; k < 3; k++) p->trans_dir[0][k] = nrm[k], p->trans_dir[1][k] = e1[k];
    return KD_OK;
}

static kd_interp p2_interp(int nnode) {
    return nnode == 6 ? KD_INTERP_T6 : nnode == 8 ? KD_INTERP_Q8 : KD_INTERP_Q9;
}

/* Strain rows: membrane (3, D_m), curvatures (3, D_b), transverse shears
 * (2, kappa G t), drilling (1, 10^-3 G t). */
static kd_status p2_init(kd_element_props* p) {
    kd_status st = plate_consts_check(p);
    double area = 0.0;
    if (!st) st = p2_frame(p, &area);
    if (st) return st;
    const kd_element_consts* c = &p->c;
    const int ns = 9;
    double Dm[3][3], Db[3][3], ks;
    plane_stress_D(c->E, c->E / (2.0 * c->G) - 1.0, c->t, Dm);
    plate_bending_D(c, Db, &ks);
    p->ncomp = 3;
    p->nstrain = ns;
    for (int r = 0; r < 3; r++)
        for (int s = 0; s < 3; s++) {
            p->D[r * ns + s] = Dm[r][s];
            p->D[(3 + r) * ns + 3 + s] = Db[r][s];
        }
    p->D[6 * ns + 6] = p->D[7 * ns + 7] = ks;
    const double drill = p->aux[WARP_FLAG] != 0.0 ? SHELL_DRILL_WARPED : DRILL_FACTOR;
    p->D[8 * ns + 8] = drill * c->G * c->t;
    p->rho0 = c->rho * c->t;
    p->rho2[0][0] = c->rho * c->t * c->t * c->t / 12.0;
    p->rho2[1][1] = c->rho * c->t * drill * area / DRILL_KAPPA;
    return KD_OK;
}

static const kd_quadrature* p2_quadrature(const kd_element_props* p) {
    return p->nnode == 6 ? &quadrature_tri6 : &quadrature_quad_gauss3x3;
}

/* Covariant transverse shears (g_r, g_s) at xi as rows over the bending
 * DOFs (w, theta_x, theta_y per node): g_k = w,k + beta . x,k. */
static void covariant_shear(int n, const double xl[][2], const double xi[3], double g[2][NB]) {
    double N[KD_ELEM_NODE_MAX], dN[KD_ELEM_NODE_MAX][2];
    shape_2d(p2_interp(n), xi, N, dN);
    double J[2][2] = {{0, 0}, {0, 0}};
    for (int a = 0; a < n; a++)
        for (int k = 0; k < 2; k++)
            for (int d = 0; d < 2; d++) J[k][d] += dN[a][k] * xl[a][d];
    for (int k = 0; k < 2; k++)
        for (int a = 0; a < n; a++) {
            g[k][3 * a + 0] = dN[a][k];
            g[k][3 * a + 1] = -N[a] * J[k][1];  /* beta_y = -theta_x */
            g[k][3 * a + 2] = N[a] * J[k][0];   /* beta_x = theta_y */
        }
}

/* MITC9 (Q8, Q9): the assumed (g_r, g_s) at xi. */
static void shear_quad(int n, const double xl[][2], const double xi[3], double g[2][NB]) {
    const double a = 1.0 / sqrt(3.0), b = sqrt(0.6);
    const double lin[2] = {-a, a}, quad[3] = {-b, 0.0, b};
    memset(g, 0, sizeof(double) * 2 * NB);
    for (int k = 0; k < 2; k++) {
        /* g_r: linear in r (xi[k] for k = 0), quadratic in s; g_s the same with r, s swapped */
        const double u = xi[k], v = xi[1 - k];
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++) {
                const double Li = i == 0 ? (a - u) / (2.0 * a) : (u + a) / (2.0 * a);
                const double Qj = j == 0 ? v * (v - b) / (2.0 * b * b) : j == 1 ? (b * b - v * v) / (b * b)
                                                                           : v * (v + b) / (2.0 * b * b);
                double pt[3] = {0.0, 0.0, 0.0}, gt[2][NB];
                pt[k] = lin[i], pt[1 - k] = quad[j];
                covariant_shear(n, xl, pt, gt);
                for (int c = 0; c < 3 * n; c++) g[k][c] += Li * Qj * gt[k][c];
            }
    }
}

/* The T6 space: basis field j at (r, s), covariant components. */
static void t6_basis(int j, double r, double s, double p[2]) {
    static const double lin[6][2][3] = {  /* (constant, r, s) of each component */
        {{1, 0, 0}, {0, 0, 0}}, {{0, 0, 0}, {1, 0, 0}}, {{0, 1, 0}, {0, 0, 0}},
        {{0, 0, 1}, {0, 0, 0}}, {{0, 0, 0}, {0, 1, 0}}, {{0, 0, 0}, {0, 0, 1}},
    };
    if (j < 6) {
        for (int k = 0; k < 2; k++) p[k] = lin[j][k][0] + lin[j][k][1] * r + lin[j][k][2] * s;
    } else {
        const double q = j == 6 ? r : s;  /* q (s, -r) */
        p[0] = q * s, p[1] = -q * r;
    }
}

/* The T6 functionals: tangential strain at the two Gauss points of each
 * side (tangent (1, 0), (-1, 1), (0, -1)), then int g_r, int g_s (tri3 rule,
 * exact for the quadratic fields involved). point_k and the weights of the
 * two components: l_k(g) = sum over points of w . g(point). */
typedef struct t6_functional {
    int npt;
    double pt[3][2];
    double w[3][2];
} t6_functional;

static void t6_functionals(t6_functional f[8]) {
    const double g0 = 0.5 - 0.5 / sqrt(3.0), g1 = 0.5 + 0.5 / sqrt(3.0);
    const double tau[3][2] = {{1, 0}, {-1, 1}, {0, -1}};
    const double start[3][2] = {{0, 0}, {1, 0}, {0, 1}};
    for (int e = 0; e < 3; e++)
        for (int i = 0; i < 2; i++) {
            t6_functional* fk = &f[2 * e + i];
            const double t = i == 0 ? g0 : g1;
            fk->npt = 1;
            fk->pt[0][0] = start[e][0] + t * tau[e][0], fk->pt[0][1] = start[e][1] + t * tau[e][1];
            fk->w[0][0] = tau[e][0], fk->w[0][1] = tau[e][1];
        }
    for (int k = 0; k < 2; k++) {
        t6_functional* fk = &f[6 + k];
        fk->npt = quadrature_tri3.n;
        for (int g = 0; g < fk->npt; g++) {
            fk->pt[g][0] = quadrature_tri3.xi[g][0], fk->pt[g][1] = quadrature_tri3.xi[g][1];
            fk->w[g][0] = k == 0 ? quadrature_tri3.w[g] : 0.0;
            fk->w[g][1] = k == 1 ? quadrature_tri3.w[g] : 0.0;
        }
    }
}

/* Inverse of the 8 x 8 matrix A[k][j] = l_k(p_j) (Gauss-Jordan with partial pivoting; A is
 * regular: the functionals are unisolvent on the space). */
static void t6_dual(double Ainv[8][8]) {
    t6_functional f[8];
    t6_functionals(f);
    double A[8][16];
    for (int k = 0; k < 8; k++)
        for (int j = 0; j < 8; j++) {
            double v = 0.0;
            for (int g = 0; g < f[k].npt; g++) {
                double pj[2];
                t6_basis(j, f[k].pt[g][0], f[k].pt[g][1], pj);
                v += f[k].w[g][0] * pj[0] + f[k].w[g][1] * pj[1];
            }
            A[k][j] = v;
            A[k][8 + j] = k == j ? 1.0 : 0.0;
        }
    for (int c = 0; c < 8; c++) {
        int piv = c;
        for (int r = c + 1; r < 8; r++)
            if (fabs(A[r][c]) > fabs(A[piv][c])) piv = r;
        for (int j = 0; j < 16; j++) {
            const double t = A[c][j];
            A[c][j] = A[piv][j], A[piv][j] = t;
        }
        const double d = A[c][c];
        for (int j = 0; j < 16; j++) A[c][j] /= d;
        for (int r = 0; r < 8; r++)
            if (r != c && A[r][c] != 0.0) {
                const double m = A[r][c];
                for (int j = 0; j < 16; j++) A[r][j] -= m * A[c][j];
            }
    }
    for (int k = 0; k < 8; k++)
        for (int j = 0; j < 8; j++) Ainv[k][j] = A[k][8 + j];
}

/* T6: the assumed (g_r, g_s) at xi: sum_j p_j(xi) sum_k Ainv[j][k] l_k(g). */
static void shear_tri(const double xl[][2], const double xi[3], double g[2][NB]) {
    double Ainv[8][8];
    t6_functional f[8];
    t6_dual(Ainv);
    t6_functionals(f);
    double lk[8][NB];
    memset(lk, 0, sizeof(lk));
    for (int k = 0; k < 8; k++)
        for (int q = 0; q < f[k].npt; q++) {
            const double pt[3] = {f[k].pt[q][0], f[k].pt[q][1], 0.0};
            double gt[2][NB];
            covariant_shear(6, xl, pt, gt);
            for (int c = 0; c < 18; c++) lk[k][c] += f[k].w[q][0] * gt[0][c] + f[k].w[q][1] * gt[1][c];
        }
    memset(g, 0, sizeof(double) * 2 * NB);
    for (int j = 0; j < 8; j++) {
        double pj[2];
        t6_basis(j, xi[0], xi[1], pj);
        for (int k = 0; k < 8; k++) {
            const double a0 = pj[0] * Ainv[j][k], a1 = pj[1] * Ainv[j][k];
            for (int c = 0; c < 18; c++) g[0][c] += a0 * lk[k][c], g[1][c] += a1 * lk[k][c];
        }
    }
}

/* The membrane strains of a quadrilateral off its plane, its nodes tied by the rigid links
 * (in-plane displacement u_bar = sum_a N_a (u - h theta_y, v + h theta_x)_a), as covariant rows
 * at xi over the local DOFs: e[0] = e_rr, e[1] = e_ss, e[2] = e_rs. */
static void membrane_covariant(const kd_element_props* p, const double xl[][2], const double xi[3],
                               double e[3][KD_ELEM_DOF_MAX]) {
    const int n = p->nnode;
    double N[KD_ELEM_NODE_MAX], dN[KD_ELEM_NODE_MAX][2], J[2][2] = {{0, 0}, {0, 0}};
    shape_2d(p2_interp(n), xi, N, dN);
    for (int a = 0; a < n; a++)
        for (int k = 0; k < 2; k++)
            for (int d = 0; d < 2; d++) J[k][d] += dN[a][k] * xl[a][d];
    memset(e, 0, sizeof(double) * 3 * KD_ELEM_DOF_MAX);
    for (int a = 0; a < n; a++) {
        const double h = p->aux[WARP_H + a];
        const int u = 6 * a, v = u + 1, tx = u + 3, ty = u + 4;
        /* u_bar,k . x,l = dN_a,k ((u - h theta_y) J[l][0] + (v + h theta_x) J[l][1]) */
        for (int k = 0; k < 2; k++) {
            e[k][u] = dN[a][k] * J[k][0], e[k][ty] = -h * dN[a][k] * J[k][0];
            e[k][v] = dN[a][k] * J[k][1], e[k][tx] = h * dN[a][k] * J[k][1];
        }
        const double c0 = 0.5 * (dN[a][0] * J[1][0] + dN[a][1] * J[0][0]);
        const double c1 = 0.5 * (dN[a][0] * J[1][1] + dN[a][1] * J[0][1]);
        e[2][u] = c0, e[2][ty] = -h * c0, e[2][v] = c1, e[2][tx] = h * c1;
    }
}

/* The membrane strains of a quadrilateral off its plane, assumed as MITC9's membrane strains
 * (theory.md sec. 18.3): e_rr linear in r, quadratic in s, tied at r = +-1/sqrt(3),
 * s = 0, +-sqrt(3/5); e_ss the same turned; e_rs bilinear, tied at (+-1/sqrt(3), +-1/sqrt(3));
 * then Cartesian (eps_x, eps_y, gamma_xy) = M e M^T (M = J^-1 at xi) into Bm. */
static void membrane_quad(const kd_element_props* p, const double xl[][2], const double xi[3],
                          const double J[2][2], double det, double Bm[][KD_ELEM_DOF_MAX]) {
    const double a = 1.0 / sqrt(3.0), b = sqrt(0.6);
    const double lin[2] = {-a, a}, quad[3] = {-b, 0.0, b};
    double e[3][KD_ELEM_DOF_MAX], et[3][KD_ELEM_DOF_MAX];
    memset(e, 0, sizeof(e));
    const int nd = 6 * p->nnode;
    for (int k = 0; k < 2; k++) {
        const double u = xi[k], v = xi[1 - k];
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++) {
                const double Li = i == 0 ? (a - u) / (2.0 * a) : (u + a) / (2.0 * a);
                const double Qj = j == 0 ? v * (v - b) / (2.0 * b * b) : j == 1 ? (b * b - v * v) / (b * b)
                                                                           : v * (v + b) / (2.0 * b * b);
                double pt[3] = {0.0, 0.0, 0.0};
                pt[k] = lin[i], pt[1 - k] = quad[j];
                membrane_covariant(p, xl, pt, et);
                for (int c = 0; c < nd; c++) e[k][c] += Li * Qj * et[k][c];
            }
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            const double Li = i == 0 ? (a - xi[0]) / (2.0 * a) : (xi[0] + a) / (2.0 * a);
            const double Lj = j == 0 ? (a - xi[1]) / (2.0 * a) : (xi[1] + a) / (2.0 * a);
            const double pt[3] = {lin[i], lin[j], 0.0};
            membrane_covariant(p, xl, pt, et);
            for (int c = 0; c < nd; c++) e[2][c] += Li * Lj * et[2][c];
        }
    const double inv = det != 0.0 ? 1.0 / det : 0.0;
    const double M[2][2] = {{inv * J[1][1], -inv * J[0][1]}, {-inv * J[1][0], inv * J[0][0]}};
    for (int c = 0; c < nd; c++) {
        const double E2[2][2] = {{e[0][c], e[2][c]}, {e[2][c], e[1][c]}};
        double eps[2][2];
        for (int d = 0; d < 2; d++)
            for (int f = 0; f < 2; f++) {
                double sum = 0.0;
                for (int k = 0; k < 2; k++)
                    for (int l = 0; l < 2; l++) sum += M[d][k] * M[f][l] * E2[k][l];
                eps[d][f] = sum;
            }
        Bm[0][c] = eps[0][0], Bm[1][c] = eps[1][1], Bm[2][c] = 2.0 * eps[0][1];
    }
}

static void p2_eval(const kd_element_props* p, const double xi[3], kd_element_point* out) {
    const int n = p->nnode, nd = 6 * n;
    double xl[KD_ELEM_NODE_MAX][2];
    const double z0 = p->aux[WARP_FLAG] != 0.0 ? p->aux[WARP_Z0] : 0.0;
    for (int a = 0; a < n; a++)
        for (int k = 0; k < 2; k++)
            xl[a][k] = p->frame[k][0] * p->node_x[a][0] + p->frame[k][1] * p->node_x[a][1] +
                       p->frame[k][2] * p->node_x[a][2];
    double N0[3][KD_ELEM_DOF_MAX], Nt[3][KD_ELEM_DOF_MAX], Ns[3][KD_ELEM_DOF_MAX], B[KD_STRAIN_MAX][KD_ELEM_DOF_MAX];
    double G[2][3][KD_ELEM_DOF_MAX], x2[2];
    memset(N0, 0, sizeof(N0)), memset(Nt, 0, sizeof(Nt)), memset(Ns, 0, sizeof(Ns));
    memset(B, 0, sizeof(B)), memset(G, 0, sizeof(G));
    double N[KD_ELEM_NODE_MAX], dN[KD_ELEM_NODE_MAX][2], dNx[KD_ELEM_NODE_MAX][2];
    shape_2d(p2_interp(n), xi, N, dN);
    const double det = map_2d(n, (const double(*)[2])xl, N, (const double(*)[2])dN, x2, dNx);
    for (int a = 0; a < n; a++) {
        const int u = 6 * a, v = u + 1, w = u + 2, tx = u + 3, ty = u + 4, tz = u + 5;
        /* membrane (sec. 10.1) */
        N0[0][u] = N[a], N0[1][v] = N[a];
        B[0][u] = dNx[a][0], B[1][v] = dNx[a][1], B[2][u] = dNx[a][1], B[2][v] = dNx[a][0];
        G[0][0][u] = dNx[a][0], G[1][0][u] = dNx[a][1], G[0][1][v] = dNx[a][0], G[1][1][v] = dNx[a][1];
        /* bending: u = z theta_y, v = -z theta_x; kappa = (theta_y,x, -theta_x,y, theta_y,y - theta_x,x) */
        N0[2][w] = N[a];
        Nt[0][ty] = N[a], Nt[1][tx] = -N[a];
        G[0][2][w] = dNx[a][0], G[1][2][w] = dNx[a][1];
        B[3][ty] = dNx[a][0];
        B[4][tx] = -dNx[a][1];
        B[5][ty] = dNx[a][1], B[5][tx] = -dNx[a][0];
        /* drilling: theta_z - (v,x - u,y) / 2; its inertia d u / d s = theta_z e2 (sec. 14.3) */
        B[8][tz] = N[a], Ns[1][tz] = N[a];
        B[8][v] = -0.5 * dNx[a][0], B[8][u] = 0.5 * dNx[a][1];
    }
    /* assumed transverse shear, covariant, then Cartesian (g_x, g_y) = J^-1 (g_r, g_s) */
    double g[2][NB];
    if (n == 6) shear_tri((const double(*)[2])xl, xi, g);
    else shear_quad(n, (const double(*)[2])xl, xi, g);
    double J[2][2] = {{0, 0}, {0, 0}};
    for (int a = 0; a < n; a++)
        for (int k = 0; k < 2; k++)
            for (int d = 0; d < 2; d++) J[k][d] += dN[a][k] * xl[a][d];
    const double inv = det != 0.0 ? 1.0 / det : 0.0;
    for (int a = 0; a < n; a++)
        for (int j = 0; j < 3; j++) {
            const int c = 3 * a + j, col = 6 * a + 2 + j;
            B[6][col] = inv * (J[1][1] * g[0][c] - J[0][1] * g[1][c]);
            B[7][col] = inv * (-J[1][0] * g[0][c] + J[0][0] * g[1][c]);
        }
    if (p->aux[WARP_FLAG] != 0.0) {
        /* nodes off the plane: the flat element's node a at x_a - h_a n, tied to the node by a
         * rigid link, u_bar = u - h theta_y, v_bar = v + h theta_x (theory.md sec. 14.6) */
        double* rows[3 * 3 + KD_STRAIN_MAX + 2 * 3];
        int nr = 0;
        for (int i = 0; i < 3; i++) rows[nr++] = N0[i], rows[nr++] = Nt[i], rows[nr++] = Ns[i];
        for (int r = 0; r < p->nstrain; r++) rows[nr++] = B[r];
        for (int d = 0; d < 2; d++)
            for (int c = 0; c < 3; c++) rows[nr++] = G[d][c];
        for (int r = 0; r < nr; r++) {
            if (n != 6 && rows[r] == B[0]) r += 3;  /* quadrilaterals: the membrane rows below */
            for (int a = 0; a < n; a++) {
                const double h = p->aux[WARP_H + a];
                rows[r][6 * a + 3] += h * rows[r][6 * a + 1];
                rows[r][6 * a + 4] -= h * rows[r][6 * a];
            }
        }
        if (n != 6)  /* quadrilaterals: MITC9's assumed membrane strains (theory.md sec. 18.3) */
            membrane_quad(p, (const double(*)[2])xl, xi, (const double(*)[2])J, det, B);
        /* the membrane strains of the element's surface at the offset z0(xi) = sum N_a h_a from
         * the plane: eps + z0 kappa (sec. 18.3) */
        double z = 0.0;
        for (int a = 0; a < n; a++) z += N[a] * p->aux[WARP_H + a];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < nd; c++) B[r][c] += z * B[3 + r][c];
    }
    shell_point_out(p, N0, Nt, Ns, B, G, det, x2, z0, out);
}

#define P2_TABLE(NAME, STR, DOMAIN, NNODE, NODE_XI)                                                   \
    const kd_element_family NAME = {                                                                \
        .name = STR,                                                                                \
        .domain = DOMAIN,                                                                           \
        .nnode = NNODE,                                                                             \
        .node_xi = NODE_XI,                                                                         \
        .ntrans = 2, /* thickness z; the drilling fibre s (theory.md sec. 14.3) */                  \
        .trans_dir = {{0.0, 0.0, 1.0}, {1.0, 0.0, 0.0}}, /* each element: its normal, e1 */        \
        .node_dofs = p2_node_dofs,                                                                  \
        .init = p2_init,                                                                            \
        .quadrature = p2_quadrature,                                                                \
        .eval = p2_eval,                                                                            \
        .prestress_basis = NULL,                                                                    \
    }

P2_TABLE(element_family_shell_t6, "shell-t6-mitc6", KD_DOMAIN_TRIANGLE, 6, node_xi_tri6);
P2_TABLE(element_family_shell_q8, "shell-q8-mitc9", KD_DOMAIN_QUADRILATERAL, 8, node_xi_quad9);
P2_TABLE(element_family_shell_q9, "shell-q9-mitc9", KD_DOMAIN_QUADRILATERAL, 9, node_xi_quad9);
