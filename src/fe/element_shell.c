/* Flat shells (kedyn/element.h; theory.md sec. 10.7): a membrane and a
 * plate on the element's own plane, anywhere in 3D.
 *
 *   shell dkt    3 nodes: CST membrane + DKT bending   (tri12 rule)
 *   shell mitc4  4 nodes: Q4 membrane + MITC4 bending  (Gauss 2 x 2)
 *
 * Node DOFs u, v, w, theta_x, theta_y, theta_z along the element (body)
 * axes. The element's own axes (p->frame): the normal n from the nodes
 * (triangle: (x2 - x1) x (x3 - x1); quadrilateral: the diagonals' cross
 * product), e1 the body x axis projected on the plane (the body y axis when
 * x is within 84 degrees of n), e2 = n x e1; a plate in the body x-y plane
 * numbered counter-clockwise has the body axes. Everything is computed in
 * the own axes and rotated back, so the invariants, k and the DOFs are in
 * element coordinates and nodes shared by elements of different planes
 * assemble directly. A warped quadrilateral (theory.md sec. 14.6) is the flat
 * element on its mean plane (normal from the diagonals, through the nodes'
 * centroid) tied to its nodes by rigid links over the offsets h_a along the
 * normal; beyond |h_a| / sqrt(A) = 0.1 it is rejected. The in-plane rotation theta_z has a small drilling
 * stiffness: the row theta_z - (v,x - u,y)/2 with 10^-3 G t (zero for rigid
 * rotations; 0.1 G t for a warped quadrilateral, theory.md sec. 18.5) and a
 * small rotary inertia (theory.md sec. 14.3): a second
 * transverse coordinate s along e1 over which the point moves by
 * s theta_z e2 (the fibre of a dumbbell turning about the normal), with
 * int rho s^2 ds = rho t l^2, l^2 = 10^-3 A_e / 64 (A_e the element's
 * area): the drilling spring then resonates at 8 c_s / sqrt(A_e), near the
 * top of the element's own membrane frequencies, and M is regular in
 * theta_z, so explicit integrators run on shells. */
#include <math.h>
#include <string.h>

#include "element_family_list.h"
#include "kedyn/element.h"

#define DRILL_FACTOR 1e-3  /* drilling stiffness / (G t) */
#define DRILL_KAPPA 64.0   /* (drilling frequency sqrt(A_e) / c_s)^2: l^2 = DRILL_FACTOR A_e / DRILL_KAPPA */
/* Warped quadrilaterals (theory.md sec. 14.6): p->aux[WARP_FLAG] = 1, the offsets h_a of the
 * nodes from the mean plane at aux[WARP_H + a], the plane's distance from node 1 at aux[WARP_Z0]. */
#define WARP_FLAG 0
#define WARP_Z0 1
#define WARP_H 2

static int shell_node_dofs(kd_element_kind kind, int node, kd_dof_name dofs[KD_NODE_DOF_MAX]) {
    (void)kind, (void)node;
    static const kd_dof_name d[6] = {KD_DOF_U, KD_DOF_V, KD_DOF_W, KD_DOF_RX, KD_DOF_RY, KD_DOF_RZ};
    memcpy(dofs, d, sizeof(d));
    return 6;
}

double shell_quad_warping(const double x[4][3]) {
    double d1[3], d2[3], nrm[3], c[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) d1[k] = x[2][k] - x[0][k], d2[k] = x[3][k] - x[1][k];
    nrm[0] = d1[1] * d2[2] - d1[2] * d2[1];
    nrm[1] = d1[2] * d2[0] - d1[0] * d2[2];
    nrm[2] = d1[0] * d2[1] - d1[1] * d2[0];
    const double len = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
    if (!(len > 0.0)) return 0.0;
    for (int a = 0; a < 4; a++)
        for (int k = 0; k < 3; k++) c[k] += 0.25 * x[a][k];
    double hmax = 0.0;
    for (int a = 0; a < 4; a++)
        hmax = fmax(hmax, fabs(nrm[0] * (x[a][0] - c[0]) + nrm[1] * (x[a][1] - c[1]) + nrm[2] * (x[a][2] - c[2])) / len);
    return hmax / sqrt(0.5 * len);
}

static void cross(const double a[3], const double b[3], double c[3]) {
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

static double norm3(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

/* The element's own axes from its nodes and its area; KD_ERR_INPUT when
 * degenerate or not flat (a node off the plane by more than 1e-6 L). */
static kd_status shell_frame(kd_element_props* p, double* area) {
    const int n = p->nnode;
    double a[3], b[3], nrm[3];
    for (int k = 0; k < 3; k++) {
        if (n == 3) a[k] = p->node_x[1][k] - p->node_x[0][k], b[k] = p->node_x[2][k] - p->node_x[0][k];
        else a[k] = p->node_x[2][k] - p->node_x[0][k], b[k] = p->node_x[3][k] - p->node_x[1][k];
    }
    cross(a, b, nrm);
    const double len = norm3(nrm);
    if (!(len > 1e-12 * p->L * p->L)) return KD_ERR_INPUT;
    *area = 0.5 * len;  /* triangle: |a x b| / 2; quadrilateral: |d1 x d2| / 2 (on the mean plane) */
    for (int k = 0; k < 3; k++) nrm[k] /= len;
    /* flatness: every node in the plane through node 1; else a warped quadrilateral on its mean
     * plane, whose offsets h_a = n . (x_a - centroid) are +h, -h, +h, -h (n is normal to both
     * diagonals) */
    int flat = 1;
    for (int i = 1; i < n; i++) {
        const double h = nrm[0] * p->node_x[i][0] + nrm[1] * p->node_x[i][1] + nrm[2] * p->node_x[i][2];
        if (fabs(h) > 1e-6 * p->L) flat = 0;
    }
    if (!flat) {
        if (n != 4) return KD_ERR_INPUT;
        double z0 = 0.0;
        for (int i = 0; i < 4; i++)
            z0 += 0.25 * (nrm[0] * p->node_x[i][0] + nrm[1] * p->node_x[i][1] + nrm[2] * p->node_x[i][2]);
        p->aux[WARP_FLAG] = 1.0;
        p->aux[WARP_Z0] = z0;
        for (int i = 0; i < 4; i++) {
            const double h = nrm[0] * p->node_x[i][0] + nrm[1] * p->node_x[i][1] + nrm[2] * p->node_x[i][2] - z0;
            if (fabs(h) > SHELL_WARP_LIMIT * sqrt(*area)) return KD_ERR_INPUT;
            p->aux[WARP_H + i] = h;
        }
    }
    double e1[3] = {1.0 - nrm[0] * nrm[0], -nrm[0] * nrm[1], -nrm[0] * nrm[2]};  /* x - (x.n) n */
    if (norm3(e1) < 0.1) e1[0] = -nrm[1] * nrm[0], e1[1] = 1.0 - nrm[1] * nrm[1], e1[2] = -nrm[1] * nrm[2];
    const double l1 = norm3(e1);
    for (int k = 0; k < 3; k++) e1[k] /= l1;
    double e2[3];
    cross(nrm, e1, e2);
    for (int k = 0; k < 3; k++) p->frame[0][k] = e1[k], p->frame[1][k] = e2[k], p->frame[2][k] = nrm[k];
    for (int k = 0; k < 3; k++) p->trans_dir[0][k] = nrm[k], p->trans_dir[1][k] = e1[k];
    return KD_OK;
}

/* Strain rows: membrane (3, D_m), curvatures (3, D_b), for MITC4 transverse
 * shears (2, kappa G t), drilling (1, 10^-3 G t). */
static kd_status shell_init(kd_element_props* p) {
    kd_status st = plate_consts_check(p);
    double area = 0.0;
    if (!st) st = shell_frame(p, &area);
    if (st) return st;
    const kd_element_consts* c = &p->c;
    const int quad = p->nnode == 4;
    const int ns = quad ? 9 : 7;
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
    if (quad) p->D[6 * ns + 6] = p->D[7 * ns + 7] = ks;
    /* a warped quadrilateral: the stiffer drilling of theory.md sec. 18.5 */
    const double drill = p->aux[WARP_FLAG] != 0.0 ? SHELL_DRILL_WARPED : DRILL_FACTOR;
    p->D[(ns - 1) * ns + ns - 1] = drill * c->G * c->t;
    p->rho0 = c->rho * c->t;
    p->rho2[0][0] = c->rho * c->t * c->t * c->t / 12.0;
    p->rho2[1][1] = c->rho * c->t * drill * area / DRILL_KAPPA; /* drilling (theory.md sec. 14.3) */
    if (!quad) {
        /* the DKT's cubic w in the own axes (element_plate_dkt.c) */
        double xl[3][2];
        for (int a = 0; a < 3; a++)
            for (int k = 0; k < 2; k++)
                xl[a][k] = p->frame[k][0] * p->node_x[a][0] + p->frame[k][1] * p->node_x[a][1] +
                           p->frame[k][2] * p->node_x[a][2];
        plate_poly P;
        if (dkt_w_field((const double(*)[2])xl, p->L, &P) != 0) return KD_ERR_INPUT;
        plate_poly_store(p, &P);
    }
    return KD_OK;
}

static const kd_quadrature* shell_quadrature(const kd_element_props* p) {
    return p->nnode == 4 ? &quadrature_quad_gauss2x2 : &quadrature_tri12;
}

/* Rotate a row over the local DOFs (per node: u, v, w, theta_x, theta_y,
 * theta_z along the own axes) to the element DOFs: d_local = T d per
 * 3-block, T rows = p->frame. */
static void rotate_row(const kd_element_props* p, const double* loc, double* out) {
    for (int a = 0; a < p->nnode; a++)
        for (int blk = 0; blk < 2; blk++) {
            const double* l = loc + 6 * a + 3 * blk;
            double* o = out + 6 * a + 3 * blk;
            for (int j = 0; j < 3; j++) o[j] = l[0] * p->frame[0][j] + l[1] * p->frame[1][j] + l[2] * p->frame[2][j];
        }
}

/* The point of a shell in body axes: its position (z0 the offset of a warped element's mean
 * plane) and its rows N0, Nt, B, G rotated from the own axes (theory.md sec. 10.7). */
void shell_point_out(const kd_element_props* p, double N0[3][KD_ELEM_DOF_MAX],
                     double Nt[3][KD_ELEM_DOF_MAX], double Ns[3][KD_ELEM_DOF_MAX],
                     double B[KD_STRAIN_MAX][KD_ELEM_DOF_MAX], double G[2][3][KD_ELEM_DOF_MAX],
                     double det, const double x2[2], double z0, kd_element_point* out) {
    const int nd = 6 * p->nnode;
    memset(out, 0, sizeof(*out));
    out->measure = det;
    for (int k = 0; k < 3; k++) out->x[k] = p->frame[0][k] * x2[0] + p->frame[1][k] * x2[1] + z0 * p->frame[2][k];
    for (int i = 0; i < 3; i++) {
        /* components: u_body_c = sum_i T[i][c] u_local_i, then the columns */
        double n0[KD_ELEM_DOF_MAX], nt[KD_ELEM_DOF_MAX], ns[KD_ELEM_DOF_MAX];
        for (int a = 0; a < nd; a++) {
            n0[a] = p->frame[0][i] * N0[0][a] + p->frame[1][i] * N0[1][a] + p->frame[2][i] * N0[2][a];
            nt[a] = p->frame[0][i] * Nt[0][a] + p->frame[1][i] * Nt[1][a] + p->frame[2][i] * Nt[2][a];
            ns[a] = p->frame[0][i] * Ns[0][a] + p->frame[1][i] * Ns[1][a] + p->frame[2][i] * Ns[2][a];
        }
        rotate_row(p, n0, out->N0[i]);
        rotate_row(p, nt, out->Nt[0][i]);
        rotate_row(p, ns, out->Nt[1][i]);
    }
    for (int r = 0; r < p->nstrain; r++) rotate_row(p, B[r], out->B[r]);
    for (int d = 0; d < 2; d++)
        for (int c = 0; c < 3; c++) rotate_row(p, G[d][c], out->G[d][c]);
}

/* At xi, in the own axes: membrane u, v and plate w, theta with their rows,
 * then rotated (theory.md sec. 10.7). */
static void shell_eval(const kd_element_props* p, const double xi[3], kd_element_point* out) {
    const int n = p->nnode;
    double xl[KD_ELEM_NODE_MAX][2];
    for (int a = 0; a < n; a++)
        for (int k = 0; k < 2; k++)
            xl[a][k] = p->frame[k][0] * p->node_x[a][0] + p->frame[k][1] * p->node_x[a][1] +
                       p->frame[k][2] * p->node_x[a][2];
    /* local rows */
    double N0[3][KD_ELEM_DOF_MAX], Nt[3][KD_ELEM_DOF_MAX], Ns[3][KD_ELEM_DOF_MAX], B[KD_STRAIN_MAX][KD_ELEM_DOF_MAX];
    double G[2][3][KD_ELEM_DOF_MAX], x2[2];
    memset(N0, 0, sizeof(N0)), memset(Nt, 0, sizeof(Nt)), memset(B, 0, sizeof(B)), memset(G, 0, sizeof(G));
    memset(Ns, 0, sizeof(Ns));
    double N[KD_ELEM_NODE_MAX], dN[KD_ELEM_NODE_MAX][2], dNx[KD_ELEM_NODE_MAX][2];
    const kd_interp mem = n == 4 ? KD_INTERP_Q4 : KD_INTERP_CST;
    shape_2d(mem, xi, N, dN);
    const double det = map_2d(n, (const double(*)[2])xl, N, (const double(*)[2])dN, x2, dNx);
    const int drill = p->nstrain - 1;
    for (int a = 0; a < n; a++) {
        const int u = 6 * a, v = u + 1, tz = u + 5;
        N0[0][u] = N[a], N0[1][v] = N[a];
        B[0][u] = dNx[a][0], B[1][v] = dNx[a][1], B[2][u] = dNx[a][1], B[2][v] = dNx[a][0];
        G[0][0][u] = dNx[a][0], G[1][0][u] = dNx[a][1], G[0][1][v] = dNx[a][0], G[1][1][v] = dNx[a][1];
        /* drilling: theta_z - (v,x - u,y) / 2; its inertia: d u / d s = theta_z e2 */
        B[drill][tz] = N[a];
        Ns[1][tz] = N[a];
        B[drill][v] = -0.5 * dNx[a][0];
        B[drill][u] = 0.5 * dNx[a][1];
    }
    if (n == 4) {
        double Nq[4], dNq[4][2], xq[2], Bb[3][12], Bs[2][12];
        mitc4_rows((const double(*)[2])xl, xi, Nq, dNq, xq, Bb, Bs);
        for (int a = 0; a < 4; a++) {
            const int w = 6 * a + 2, tx = w + 1, ty = w + 2;
            N0[2][w] = Nq[a];
            Nt[0][ty] = Nq[a], Nt[1][tx] = -Nq[a];
            G[0][2][w] = dNq[a][0], G[1][2][w] = dNq[a][1];
            for (int j = 0; j < 3; j++) {
                for (int r = 0; r < 3; r++) B[3 + r][w + j] = Bb[r][3 * a + j];
                B[6][w + j] = Bs[0][3 * a + j];
                B[7][w + j] = Bs[1][3 * a + j];
            }
        }
    } else {
        double bx[9], by[9], Bb[3][9], xt[2];
        dkt_rows((const double(*)[2])xl, xi, xt, bx, by, Bb);
        plate_poly P;
        plate_poly_point w;
        plate_poly_load(p, &P);  /* from shell_init */
        plate_poly_eval(&P, x2[0], x2[1], &w);
        for (int a = 0; a < 3; a++)
            for (int j = 0; j < 3; j++) {
                const int col = 6 * a + 2 + j, c = 3 * a + j;  /* w, theta_x, theta_y */
                N0[2][col] = w.w[c], G[0][2][col] = w.wx[c], G[1][2][col] = w.wy[c];
                Nt[0][col] = bx[c], Nt[1][col] = by[c];
                for (int r = 0; r < 3; r++) B[3 + r][col] = Bb[r][c];
            }
    }
    if (n == 4 && p->aux[WARP_FLAG] != 0.0) {
        /* a warped quadrilateral: the flat element's node a sits at x_a - h_a n, tied to the node
         * by a rigid link: u_bar = u - h theta_y, v_bar = v + h theta_x (theory.md sec. 14.6) */
        double* rows[3 * 3 + KD_STRAIN_MAX + 2 * 3];
        int nr = 0;
        for (int i = 0; i < 3; i++) rows[nr++] = N0[i], rows[nr++] = Nt[i], rows[nr++] = Ns[i];
        for (int r = 0; r < p->nstrain; r++) rows[nr++] = B[r];
        for (int d = 0; d < 2; d++)
            for (int c = 0; c < 3; c++) rows[nr++] = G[d][c];
        for (int r = 0; r < nr; r++)
            for (int a = 0; a < 4; a++) {
                const double h = p->aux[WARP_H + a];
                rows[r][6 * a + 3] += h * rows[r][6 * a + 1];
                rows[r][6 * a + 4] -= h * rows[r][6 * a];
            }
    }
    /* rotate to element coordinates */
    shell_point_out(p, N0, Nt, Ns, B, G, det, x2, n == 4 ? p->aux[WARP_Z0] : 0.0, out);
}

const kd_element_family element_family_shell_tri = {
    .name = "shell-cst-dkt",
    .domain = KD_DOMAIN_TRIANGLE,
    .nnode = 3,
    .node_xi = node_xi_tri3,
    .ntrans = 2,  /* thickness z; the drilling fibre s (theory.md sec. 14.3) */
    .trans_dir = {{0.0, 0.0, 1.0}, {1.0, 0.0, 0.0}},  /* each element: its normal, e1 (p->trans_dir) */
    .node_dofs = shell_node_dofs,
    .init = shell_init,
    .quadrature = shell_quadrature,
    .eval = shell_eval,
    .prestress_basis = NULL,
};

const kd_element_family element_family_shell_q4 = {
    .name = "shell-q4-mitc4",
    .domain = KD_DOMAIN_QUADRILATERAL,
    .nnode = 4,
    .node_xi = node_xi_quad4,
    .ntrans = 2,  /* thickness z; the drilling fibre s (theory.md sec. 14.3) */
    .trans_dir = {{0.0, 0.0, 1.0}, {1.0, 0.0, 0.0}},  /* each element: its normal, e1 (p->trans_dir) */
    .node_dofs = shell_node_dofs,
    .init = shell_init,
    .quadrature = shell_quadrature,
    .eval = shell_eval,
    .prestress_basis = NULL,
};
