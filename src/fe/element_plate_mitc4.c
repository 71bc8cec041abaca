/* The MITC4 Mindlin plate (kedyn/element.h; theory.md sec. 10.6): a 4-node
 * quadrilateral with bilinear w, theta_x, theta_y and the assumed transverse
 * shear strains of Bathe and Dvorkin (1985), free of shear locking. Node
 * DOFs w, theta_x, theta_y; a point at height z moves by u = z theta_y,
 * v = -z theta_x (rotary inertia rho t^3 / 12 through Nt). */
#include <string.h>

#include "element_family_list.h"
#include "kedyn/element.h"

/* Covariant transverse shear strain components (g_rz, g_sz) at xi as rows
 * over the 12 DOFs (w, theta_x, theta_y per node): g_kz = w,k + beta . x,k
 * with beta = (theta_y, -theta_x) the rotation of the normal. */
static void covariant_shear(const double xl[4][2], const double xi[3], double g[2][12]) {
    double N[KD_ELEM_NODE_MAX], dN[KD_ELEM_NODE_MAX][2];
    shape_2d(KD_INTERP_Q4, xi, N, dN);
    double J[2][2] = {{0, 0}, {0, 0}};
    for (int a = 0; a < 4; a++)
        for (int k = 0; k < 2; k++)
            for (int d = 0; d < 2; d++) J[k][d] += dN[a][k] * xl[a][d];
    for (int k = 0; k < 2; k++)
        for (int a = 0; a < 4; a++) {
            g[k][3 * a + 0] = dN[a][k];
            g[k][3 * a + 1] = -N[a] * J[k][1];  /* beta_y = -theta_x */
            g[k][3 * a + 2] = N[a] * J[k][0];   /* beta_x = theta_y */
        }
}

double mitc4_rows(const double xl[4][2], const double xi[3], double N[4], double dNx[4][2], double x[2],
                  double Bb[3][12], double Bs[2][12]) {
    double Nf[KD_ELEM_NODE_MAX], dN[KD_ELEM_NODE_MAX][2], dNxf[KD_ELEM_NODE_MAX][2];
    shape_2d(KD_INTERP_Q4, xi, Nf, dN);
    const double det = map_2d(4, xl, Nf, (const double(*)[2])dN, x, dNxf);
    memset(Bb, 0, sizeof(double) * 36);
    for (int a = 0; a < 4; a++) {
        N[a] = Nf[a];
        dNx[a][0] = dNxf[a][0], dNx[a][1] = dNxf[a][1];
        /* kappa = (theta_y,x, -theta_x,y, theta_y,y - theta_x,x) */
        Bb[0][3 * a + 2] = dNx[a][0];
        Bb[1][3 * a + 1] = -dNx[a][1];
        Bb[2][3 * a + 2] = dNx[a][1];
        Bb[2][3 * a + 1] = -dNx[a][0];
    }
    /* tying points: g_rz at A (0, 1), C (0, -1); g_sz at D (1, 0), B (-1, 0) */
    static const double A[3] = {0, 1, 0}, C[3] = {0, -1, 0}, D[3] = {1, 0, 0}, B[3] = {-1, 0, 0};
    double gA[2][12], gC[2][12], gD[2][12], gB[2][12], g[2][12];
    covariant_shear(xl, A, gA);
    covariant_shear(xl, C, gC);
    covariant_shear(xl, D, gD);
    covariant_shear(xl, B, gB);
    const double r = xi[0], s = xi[1];
    for (int i = 0; i < 12; i++) {
        g[0][i] = 0.5 * (1.0 + s) * gA[0][i] + 0.5 * (1.0 - s) * gC[0][i];
        g[1][i] = 0.5 * (1.0 + r) * gD[1][i] + 0.5 * (1.0 - r) * gB[1][i];
    }
    /* Cartesian (g_xz, g_yz) = J^-1 (g_rz, g_sz), J at xi */
    double J[2][2] = {{0, 0}, {0, 0}};
    for (int a = 0; a < 4; a++)
        for (int k = 0; k < 2; k++)
            for (int d = 0; d < 2; d++) J[k][d] += dN[a][k] * xl[a][d];
    const double inv = det != 0.0 ? 1.0 / det : 0.0;
    for (int i = 0; i < 12; i++) {
        Bs[0][i] = inv * (J[1][1] * g[0][i] - J[0][1] * g[1][i]);
        Bs[1][i] = inv * (-J[1][0] * g[0][i] + J[0][0] * g[1][i]);
    }
    return det;
}

void plate_bending_D(const kd_element_consts* c, double Db[3][3], double* ks) {
    const double nu = c->E / (2.0 * c->G) - 1.0;
    plane_stress_D(c->E, nu, c->t * c->t * c->t / 12.0, Db);
    const double kappa = c->kappa_y > 0.0 ? c->kappa_y : 5.0 / 6.0;
    *ks = kappa * c->G * c->t;
}

int plate_node_dofs(kd_element_kind kind, int node, kd_dof_name dofs[KD_NODE_DOF_MAX]) {
    (void)kind, (void)node;
    dofs[0] = KD_DOF_W;
    dofs[1] = KD_DOF_RX;
    dofs[2] = KD_DOF_RY;
    return 3;
}

/* Strain rows: curvatures (3, D_b = E t^3 / (12 (1 - nu^2)) [...]) and
 * transverse shears (2, kappa G t); mass rho t, rotary rho t^3 / 12. */
static kd_status mitc4_init(kd_element_props* p) {
    kd_status st = plate_consts_check(p);
    if (!st) st = plate_nodes_check(p);
    if (st) return st;
    if (p->kind.theory != KD_THEORY_MINDLIN) return KD_ERR_USAGE;
    double Db[3][3], ks;
    plate_bending_D(&p->c, Db, &ks);
    p->ncomp = 3;
    p->nstrain = 5;
    for (int r = 0; r < 3; r++)
        for (int s = 0; s < 3; s++) p->D[r * 5 + s] = Db[r][s];
    p->D[3 * 5 + 3] = p->D[4 * 5 + 4] = ks;
    p->rho0 = p->c.rho * p->c.t;
    p->rho2[0][0] = p->c.rho * p->c.t * p->c.t * p->c.t / 12.0;
    return KD_OK;
}

static const kd_quadrature* mitc4_quadrature(const kd_element_props* p) {
    (void)p;
    return &quadrature_quad_gauss2x2;
}

/* At xi: w (N0 z), u = z theta_y, v = -z theta_x (Nt), the rows of
 * mitc4_rows and the gradient of w for a pre-stress (theory.md sec. 10.9). */
static void mitc4_eval(const kd_element_props* p, const double xi[3], kd_element_point* out) {
    double xl[4][2], N[4], dNx[4][2], Bb[3][12], Bs[2][12];
    memset(out, 0, sizeof(*out));
    for (int a = 0; a < 4; a++) xl[a][0] = p->node_x[a][0], xl[a][1] = p->node_x[a][1];
    out->measure = mitc4_rows((const double(*)[2])xl, xi, N, dNx, out->x, Bb, Bs);
    for (int a = 0; a < 4; a++) {
        out->N0[2][3 * a] = N[a];
        out->Nt[0][0][3 * a + 2] = N[a];
        out->Nt[0][1][3 * a + 1] = -N[a];
        out->G[0][2][3 * a] = dNx[a][0];
        out->G[1][2][3 * a] = dNx[a][1];
    }
    for (int i = 0; i < 12; i++) {
        for (int r = 0; r < 3; r++) out->B[r][i] = Bb[r][i];
        out->B[3][i] = Bs[0][i];
        out->B[4][i] = Bs[1][i];
    }
}

const kd_element_family element_family_plate_mitc4 = {
    .name = "plate-mitc4",
    .domain = KD_DOMAIN_QUADRILATERAL,
    .nnode = 4,
    .node_xi = node_xi_quad4,
    .ntrans = 1,
    .trans_dir = {{0.0, 0.0, 1.0}},  /* thickness z */
    .node_dofs = plate_node_dofs,
    .init = mitc4_init,
    .quadrature = mitc4_quadrature,
    .eval = mitc4_eval,
    .prestress_basis = NULL,
};
