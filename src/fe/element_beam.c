/* The beam family (kedyn/element.h): two-node bars, Euler-Bernoulli,
 * Rayleigh and Timoshenko beams, planar or spatial.
 *
 * Fields of the beam axis: u (axial, linear), theta_x (torsion, linear) and
 * two bending planes. A bending plane carries a deflection w and a slope-like
 * rotation psi (= w' without shear):
 *   cubic Hermite    nodal (w, psi)          Euler-Bernoulli, Rayleigh
 *   quintic Hermite  nodal (w, psi, w'')     Euler-Bernoulli, Rayleigh
 *   Timoshenko       nodal (w, psi)          interdependent interpolation
 *                    (Friedman & Kosmatka 1993): cubic w, quadratic psi with
 *                    phi = 12 EI / (kappa G A L^2); exact for static loads and
 *                    free of shear locking; reduces to cubic Hermite at phi = 0.
 * Plane x-y: (w, psi) = (v, theta_z). Plane x-z: (w, psi) = (w, -theta_y),
 * since a positive rotation about y lowers w.
 */
#include <string.h>

#include "element_family_list.h"
#include "kedyn/element.h"

#define NPOLY 6  /* polynomial coefficients in xi, degree <= 5 */

/* Every node of a beam carries the same DOFs (theory.md sec. 5). */
static int beam_node_dofs(kd_element_kind kind, int node, kd_dof_name dofs[KD_NODE_DOF_MAX]) {
    (void)node;
    static const kd_dof_name planar_bar[] = {KD_DOF_U};
    static const kd_dof_name planar_cubic[] = {KD_DOF_U, KD_DOF_V, KD_DOF_RZ};
    static const kd_dof_name planar_quintic[] = {KD_DOF_U, KD_DOF_V, KD_DOF_RZ, KD_DOF_KZ};
    static const kd_dof_name spatial_bar[] = {KD_DOF_U, KD_DOF_RX};
    static const kd_dof_name spatial_cubic[] = {KD_DOF_U, KD_DOF_V, KD_DOF_W, KD_DOF_RX, KD_DOF_RY, KD_DOF_RZ};
    static const kd_dof_name spatial_quintic[] = {KD_DOF_U,  KD_DOF_V,  KD_DOF_W,  KD_DOF_RX,
                                                  KD_DOF_RY, KD_DOF_RZ, KD_DOF_KZ, KD_DOF_KY};
    const kd_dof_name* src;
    int n;
    if (kind.theory == KD_THEORY_BAR) {
        src = kind.planar ? planar_bar : spatial_bar;
        n = kind.planar ? 1 : 2;
    } else if (kind.interp == KD_INTERP_QUINTIC) {
        src = kind.planar ? planar_quintic : spatial_quintic;
        n = kind.planar ? 4 : 8;
    } else {
        src = kind.planar ? planar_cubic : spatial_cubic;
        n = kind.planar ? 3 : 6;
    }
    memcpy(dofs, src, (size_t)n * sizeof(*dofs));
    return n;
}

/* Value and first two xi-derivatives of a polynomial with NPOLY coefficients. */
static void poly_eval(const double c[NPOLY], double xi, double* p, double* dp, double* d2p) {
    double v = 0, d = 0, d2 = 0;
    for (int k = NPOLY - 1; k >= 0; k--) {
        d2 = d2 * xi + 2.0 * d;
        d = d * xi + v;
        v = v * xi + c[k];
    }
    *p = v;
    *dp = d;
    *d2p = d2;
}

/* One bending plane: shape functions of w and psi over the plane's nodal DOFs
 * (per node: w, psi[, w'']), and their x-derivatives. */
typedef struct plane_shape {
    int nper;                        /* DOFs per node in this plane: 2 or 3 */
    double w[6], dw[6];              /* w and w' */
    double psi[6], dpsi[6];          /* psi and psi' */
} plane_shape;

static void bending_plane(kd_element_kind kind, double phi, double L, double xi, plane_shape* ps) {
    /* Hermite bases in xi; slope DOFs scaled by L, curvature DOFs by L^2. */
    static const double cubic[4][NPOLY] = {
        {1, 0, -3, 2, 0, 0}, {0, 1, -2, 1, 0, 0}, {0, 0, 3, -2, 0, 0}, {0, 0, -1, 1, 0, 0}};
    static const double quintic[6][NPOLY] = {
        {1, 0, 0, -10, 15, -6},        {0, 1, 0, -6, 8, -3},       {0, 0, 0.5, -1.5, 1.5, -0.5},
        {0, 0, 0, 10, -15, 6},         {0, 0, 0, -4, 7, -3},       {0, 0, 0, 0.5, -1, 0.5}};
    const double iL = 1.0 / L;
    if (kind.theory == KD_THEORY_TIMOSHENKO) {
        /* Interdependent interpolation: coefficients in xi of w (scaled by
         * 1/(1+phi), slope DOFs also by L) and of psi. */
        const double f = 1.0 / (1.0 + phi);
        const double cw[4][NPOLY] = {{1 + phi, -phi, -3, 2, 0, 0},
                                     {0, 1 + phi / 2, -(2 + phi / 2), 1, 0, 0},
                                     {0, phi, 3, -2, 0, 0},
                                     {0, -phi / 2, -(1 - phi / 2), 1, 0, 0}};
        const double cp[4][NPOLY] = {{0, -6 * iL, 6 * iL, 0, 0, 0},
                                     {1 + phi, -(4 + phi), 3, 0, 0, 0},
                                     {0, 6 * iL, -6 * iL, 0, 0, 0},
                                     {0, -(2 - phi), 3, 0, 0, 0}};
        ps->nper = 2;
        for (int a = 0; a < 4; a++) {
            double p, dp, d2p, scale = (a % 2) ? L : 1.0;
            poly_eval(cw[a], xi, &p, &dp, &d2p);
            ps->w[a] = f * scale * p;
            ps->dw[a] = f * scale * dp * iL;
            poly_eval(cp[a], xi, &p, &dp, &d2p);
            ps->psi[a] = f * p;
            ps->dpsi[a] = f * dp * iL;
        }
        return;
    }
    /* Euler-Bernoulli / Rayleigh: psi = w'. */
    const int quint = kind.interp == KD_INTERP_QUINTIC;
    const int nper = quint ? 3 : 2;
    ps->nper = nper;
    for (int a = 0; a < 2 * nper; a++) {
        const double* c = quint ? quintic[a] : cubic[a];
        const int order = a % nper;                  /* 0: w, 1: slope, 2: curvature */
        const double scale = order == 0 ? 1.0 : (order == 1 ? L : L * L);
        double p, dp, d2p;
        poly_eval(c, xi, &p, &dp, &d2p);
        ps->w[a] = scale * p;
        ps->dw[a] = scale * dp * iL;
        ps->psi[a] = ps->dw[a];
        ps->dpsi[a] = scale * d2p * iL * iL;
    }
}

void kd_element_shape(kd_element_kind kind, const kd_element_consts* c, double L, double xi,
                      double N[KD_NFIELD][KD_ELEM_DOF_MAX], double dN[KD_NFIELD][KD_ELEM_DOF_MAX]) {
    kd_dof_name dofs[KD_NODE_DOF_MAX];
    const int nd = beam_node_dofs(kind, 0, dofs);
    memset(N, 0, sizeof(double) * KD_NFIELD * KD_ELEM_DOF_MAX);
    memset(dN, 0, sizeof(double) * KD_NFIELD * KD_ELEM_DOF_MAX);

    /* Local index of each DOF name at a node, -1 if absent. */
    int at[KD_DOF_NAMES];
    for (int k = 0; k < KD_DOF_NAMES; k++) at[k] = -1;
    for (int k = 0; k < nd; k++) at[dofs[k]] = k;

    /* Linear fields: axial u, torsion theta_x. */
    const double lin[2] = {1.0 - xi, xi}, dlin[2] = {-1.0 / L, 1.0 / L};
    for (int node = 0; node < 2; node++) {
        N[KD_F_U][node * nd + at[KD_DOF_U]] = lin[node];
        dN[KD_F_U][node * nd + at[KD_DOF_U]] = dlin[node];
        if (at[KD_DOF_RX] >= 0) {
            N[KD_F_TX][node * nd + at[KD_DOF_RX]] = lin[node];
            dN[KD_F_TX][node * nd + at[KD_DOF_RX]] = dlin[node];
        }
    }
    if (kind.theory == KD_THEORY_BAR) return;

    /* Plane x-y: (w, psi, w'') = (v, theta_z, kz), all with sign +1. */
    const double GA = c->G * c->A;
    plane_shape ps;
    double phi = kind.theory == KD_THEORY_TIMOSHENKO ? 12.0 * c->E * c->Iz / (c->kappa_y * GA * L * L) : 0.0;
    bending_plane(kind, phi, L, xi, &ps);
    const kd_dof_name xy[3] = {KD_DOF_V, KD_DOF_RZ, KD_DOF_KZ};
    for (int a = 0; a < 2 * ps.nper; a++) {
        const int col = (a / ps.nper) * nd + at[xy[a % ps.nper]];
        N[KD_F_V][col] = ps.w[a];
        dN[KD_F_V][col] = ps.dw[a];
        N[KD_F_TZ][col] = ps.psi[a];
        dN[KD_F_TZ][col] = ps.dpsi[a];
    }
    if (kind.planar) return;

    /* Plane x-z: (w, psi, w'') = (w, -theta_y, ky); theta_y = -psi. */
    phi = kind.theory == KD_THEORY_TIMOSHENKO ? 12.0 * c->E * c->Iy / (c->kappa_z * GA * L * L) : 0.0;
    bending_plane(kind, phi, L, xi, &ps);
    const kd_dof_name xz[3] = {KD_DOF_W, KD_DOF_RY, KD_DOF_KY};
    const double sign[3] = {1.0, -1.0, 1.0};
    for (int a = 0; a < 2 * ps.nper; a++) {
        const int r = a % ps.nper;
        const int col = (a / ps.nper) * nd + at[xz[r]];
        N[KD_F_W][col] = sign[r] * ps.w[a];
        dN[KD_F_W][col] = sign[r] * ps.dw[a];
        N[KD_F_TY][col] = -sign[r] * ps.psi[a];
        dN[KD_F_TY][col] = -sign[r] * ps.dpsi[a];
    }
}

void kd_element_point_shape(kd_element_kind kind, double N[KD_NFIELD][KD_ELEM_DOF_MAX],
                            double N0[3][KD_ELEM_DOF_MAX], double Ny[3][KD_ELEM_DOF_MAX],
                            double Nz[3][KD_ELEM_DOF_MAX]) {
    /* Displacement of the section point (y, z) under a small rotation theta:
     * theta x (0, y, z) = (z theta_y - y theta_z, -z theta_x, y theta_x). */
    const double bend = kind.theory == KD_THEORY_EULER_BERNOULLI ? 0.0 : 1.0;
    for (int a = 0; a < KD_ELEM_DOF_MAX; a++) {
        N0[0][a] = N[KD_F_U][a];
        N0[1][a] = N[KD_F_V][a];
        N0[2][a] = N[KD_F_W][a];
        Ny[0][a] = -bend * N[KD_F_TZ][a];
        Ny[1][a] = 0.0;
        Ny[2][a] = N[KD_F_TX][a];
        Nz[0][a] = bend * N[KD_F_TY][a];
        Nz[1][a] = -N[KD_F_TX][a];
        Nz[2][a] = 0.0;
    }
}

/* ---- the family table ---------------------------------------------------- */

/* Constants of the strain energy and the section's transverse moments
 * (theory.md sec. 5). Strain rows, in this order (the order of the sums,
 * kept so that the matrices stay the same to the bit):
 *   u' (EA), theta_z' (EIz), theta_y' (EIy), theta_x' (GJ)
 * and for Timoshenko the shear strains gamma_y = v' - theta_z (kappa_y G A),
 * gamma_z = w' + theta_y (kappa_z G A). Transverse coordinates (y, z) on
 * centroidal principal axes: int rho dA = rho A, int rho y dA = int rho z dA
 * = int rho y z dA = 0, int rho y^2 dA = rho Iz, int rho z^2 dA = rho Iy. */
static kd_status beam_init(kd_element_props* p) {
    const kd_element_kind kind = p->kind;
    const kd_element_consts* c = &p->c;
    if (kind.interp == KD_INTERP_QUINTIC &&
        !(kind.theory == KD_THEORY_EULER_BERNOULLI || kind.theory == KD_THEORY_RAYLEIGH))
        return KD_ERR_USAGE;
    if (!(p->L > 0.0)) return KD_ERR_USAGE;
    /* element coordinates: node 1 at the origin, the axis along x */
    if (p->node_x[1][1] != 0.0 || p->node_x[1][2] != 0.0 || p->node_x[0][0] != 0.0) return KD_ERR_USAGE;
    p->ncomp = kind.planar ? 2 : 3;
    const int timo = kind.theory == KD_THEORY_TIMOSHENKO;
    const int ns = timo ? 6 : 4;
    const double d[6] = {c->E * c->A, c->E * c->Iz, c->E * c->Iy, c->G * c->J, c->kappa_y * c->G * c->A,
                         c->kappa_z * c->G * c->A};
    p->nstrain = ns;
    for (int r = 0; r < ns; r++) p->D[r * ns + r] = d[r];
    p->rho0 = c->rho * c->A;
    p->rho2[0][0] = c->rho * c->Iz;
    p->rho2[1][1] = c->rho * c->Iy;
    p->ngeo = kind.theory == KD_THEORY_BAR ? 0 : 3;  /* a bar has no transverse slope */
    p->mass = c->rho * c->A * p->L;                  /* int rho dV, exact */
    return KD_OK;
}

static const kd_quadrature* beam_quadrature(const kd_element_props* p) {
    (void)p;
    return &quadrature_line_gauss6;  /* exact to degree 11: products of quintics */
}

/* At xi: N0, Nt from the six axis fields (N_i = N0_i + y Ny_i + z Nz_i),
 * the strain rows of beam_init, and the transverse slopes v', w' the axial
 * force acts on (theory.md sec. 5). */
static void beam_eval(const kd_element_props* p, const double xi[3], kd_element_point* out) {
    double N[KD_NFIELD][KD_ELEM_DOF_MAX], dN[KD_NFIELD][KD_ELEM_DOF_MAX];
    memset(out, 0, sizeof(*out));
    kd_element_shape(p->kind, &p->c, p->L, xi[0], N, dN);
    out->measure = p->L;
    out->x[0] = xi[0] * p->L;
    kd_element_point_shape(p->kind, N, out->N0, out->Nt[0], out->Nt[1]);
    memcpy(out->B[0], dN[KD_F_U], sizeof(out->B[0]));
    memcpy(out->B[1], dN[KD_F_TZ], sizeof(out->B[1]));
    memcpy(out->B[2], dN[KD_F_TY], sizeof(out->B[2]));
    memcpy(out->B[3], dN[KD_F_TX], sizeof(out->B[3]));
    if (p->kind.theory == KD_THEORY_TIMOSHENKO)
        for (int a = 0; a < p->ndof; a++) {
            out->B[4][a] = dN[KD_F_V][a] - N[KD_F_TZ][a];
            out->B[5][a] = dN[KD_F_W][a] + N[KD_F_TY][a];
        }
    memcpy(out->G[0][1], dN[KD_F_V], sizeof(out->G[0][1]));
    memcpy(out->G[0][2], dN[KD_F_W], sizeof(out->G[0][2]));
}

/* The axial force is quadratic along the element, P = p0 + p1 xi + p2 xi^2
 * (model.h, elem_axial): basis field k is xi^k. */
static void beam_prestress_basis(const kd_element_props* p, int k, const double xi[3],
                                 double S[KD_GRAD_MAX * KD_GRAD_MAX]) {
    (void)p;
    memset(S, 0, sizeof(double) * KD_GRAD_MAX * KD_GRAD_MAX);
    S[0] = k == 0 ? 1.0 : (k == 1 ? xi[0] : xi[0] * xi[0]);
}

static const double beam_node_xi[2][3] = {{0.0, 0.0, 0.0}, {1.0, 0.0, 0.0}};

const kd_element_family element_family_beam = {
    .name = "beam",
    .domain = KD_DOMAIN_LINE,
    .nnode = 2,
    .node_xi = beam_node_xi,
    .ntrans = 2,
    .trans_dir = {{0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}},  /* section y, z */
    .node_dofs = beam_node_dofs,
    .init = beam_init,
    .quadrature = beam_quadrature,
    .eval = beam_eval,
    .prestress_basis = beam_prestress_basis,
};
