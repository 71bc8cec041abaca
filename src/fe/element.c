/* Element stiffness and inertia invariants by Gauss quadrature
 * (kedyn/element.h; theory.md sec. 3 and 5). */
#include <string.h>

#include "kedyn/element.h"

/* 6-point Gauss-Legendre rule on [0, 1]: exact to degree 11, enough for the
 * products of quintic shape functions (degree 10) in the mass invariants. */
#define NGAUSS 6
static const double gauss_xi[NGAUSS] = {
    0.033765242898423986, 0.16939530676686776, 0.38069040695840156,
    0.61930959304159844,  0.83060469323313224, 0.96623475710157601};
static const double gauss_w[NGAUSS] = {
    0.085662246189585178, 0.18038078652406930, 0.23395696728634552,
    0.23395696728634552,  0.18038078652406930, 0.085662246189585178};

/* out += s * a^T b over the first n entries (a, b rows of length n). */
static void add_outer(double* out, int n, double s, const double* a, const double* b) {
    if (s == 0.0) return;
    for (int i = 0; i < n; i++) {
        if (a[i] == 0.0) continue;
        const double sa = s * a[i];
        for (int j = 0; j < n; j++) out[i * n + j] += sa * b[j];
    }
}

kd_status kd_element_props_init(kd_element_props* p, kd_element_kind kind, const kd_element_consts* c,
                                double L) {
    if (kind.interp == KD_INTERP_QUINTIC &&
        !(kind.theory == KD_THEORY_EULER_BERNOULLI || kind.theory == KD_THEORY_RAYLEIGH))
        return KD_ERR_USAGE;
    if (!(L > 0.0)) return KD_ERR_USAGE;
    memset(p, 0, sizeof(*p));
    p->kind = kind;
    p->c = *c;
    p->L = L;
    kd_dof_name dofs[KD_NODE_DOF_MAX];
    const int n = 2 * kd_element_node_dofs(kind, dofs);
    p->ndof = n;
    p->ncomp = kind.planar ? 2 : 3;
    p->mass = c->rho * c->A * L;

    const double EA = c->E * c->A, EIy = c->E * c->Iy, EIz = c->E * c->Iz, GJ = c->G * c->J;
    const double kGAy = c->kappa_y * c->G * c->A, kGAz = c->kappa_z * c->G * c->A;
    const double rA = c->rho * c->A, rIy = c->rho * c->Iy, rIz = c->rho * c->Iz;
    const int timo = kind.theory == KD_THEORY_TIMOSHENKO;

    for (int g = 0; g < NGAUSS; g++) {
        const double xi = gauss_xi[g], wdx = gauss_w[g] * L, x = xi * L;
        double N[KD_NFIELD][KD_ELEM_DOF_MAX], dN[KD_NFIELD][KD_ELEM_DOF_MAX];
        kd_element_shape(kind, c, L, xi, N, dN);

        /* Strain energy density (theory.md sec. 5): axial EA u'^2, bending
         * EI theta'^2 in both planes, torsion GJ theta_x'^2, and for
         * Timoshenko shear kappa G A gamma^2 with gamma_y = v' - theta_z,
         * gamma_z = w' + theta_y. */
        add_outer(p->k, n, EA * wdx, dN[KD_F_U], dN[KD_F_U]);
        add_outer(p->k, n, EIz * wdx, dN[KD_F_TZ], dN[KD_F_TZ]);
        add_outer(p->k, n, EIy * wdx, dN[KD_F_TY], dN[KD_F_TY]);
        add_outer(p->k, n, GJ * wdx, dN[KD_F_TX], dN[KD_F_TX]);
        if (timo) {
            double gy[KD_ELEM_DOF_MAX], gz[KD_ELEM_DOF_MAX];
            for (int a = 0; a < n; a++) {
                gy[a] = dN[KD_F_V][a] - N[KD_F_TZ][a];
                gz[a] = dN[KD_F_W][a] + N[KD_F_TY][a];
            }
            add_outer(p->k, n, kGAy * wdx, gy, gy);
            add_outer(p->k, n, kGAz * wdx, gz, gz);
        }

        /* Geometric stiffness invariants: transverse slopes in both planes,
         * weighted by powers of xi (the axial force is quadratic in x). */
        for (int k = 0; k < 3; k++) {
            const double wk = wdx * (k == 0 ? 1.0 : (k == 1 ? xi : xi * xi));
            add_outer(p->g_k[k], n, wk, dN[KD_F_V], dN[KD_F_V]);
            add_outer(p->g_k[k], n, wk, dN[KD_F_W], dN[KD_F_W]);
        }

        /* Inertia invariants over the volume with N_i = N0_i + y Ny_i + z Nz_i
         * on centroidal principal axes (int y dA = int z dA = int yz dA = 0,
         * int y^2 dA = Iz, int z^2 dA = Iy). */
        double N0[3][KD_ELEM_DOF_MAX], Ny[3][KD_ELEM_DOF_MAX], Nz[3][KD_ELEM_DOF_MAX];
        kd_element_point_shape(kind, N, N0, Ny, Nz);
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                add_outer(p->m_ij[i][j], n, rA * wdx, N0[i], N0[j]);
                add_outer(p->m_ij[i][j], n, rIz * wdx, Ny[i], Ny[j]);
                add_outer(p->m_ij[i][j], n, rIy * wdx, Nz[i], Nz[j]);
            }
            for (int a = 0; a < n; a++) {
                p->s_i[i][a] += rA * wdx * N0[i][a];
                p->x_ik[i][0][a] += rA * wdx * x * N0[i][a];
                p->x_ik[i][1][a] += rIz * wdx * Ny[i][a];
                p->x_ik[i][2][a] += rIy * wdx * Nz[i][a];
            }
        }
    }
    return KD_OK;
}

void kd_element_mass(const kd_element_props* p, double* m) {
    const int n = p->ndof;
    for (int a = 0; a < n * n; a++) m[a] = p->m_ij[0][0][a] + p->m_ij[1][1][a] + p->m_ij[2][2][a];
}
