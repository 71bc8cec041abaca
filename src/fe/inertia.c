/* Inertia terms of an element in a moving frame from its invariants
 * (kedyn/inertia.h; theory.md sec. 3). */
#include "kedyn/inertia.h"

#include <string.h>

void kd_skew(double S[9], const double v[3]) {
    S[0] = 0, S[1] = -v[2], S[2] = v[1];
    S[3] = v[2], S[4] = 0, S[5] = -v[0];
    S[6] = -v[1], S[7] = v[0], S[8] = 0;
}

void kd_inertia_terms_eval(const kd_element_props* p, double s0, const double w[3], const double e[3],
                           const double a[3], kd_inertia_terms* out) {
    const int n = p->ndof, nc = p->ncomp, nn = n * n;
    double W[9], E[9], WW[9];
    kd_skew(W, w);
    kd_skew(E, e);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) WW[3 * i + j] = W[3 * i] * W[j] + W[3 * i + 1] * W[3 + j] + W[3 * i + 2] * W[6 + j];
    memset(out, 0, sizeof(*out));

    /* Matrices: weighted sums of the m_ij blocks over the displacement
     * components the element has (planar: x, y). */
    for (int i = 0; i < nc; i++)
        for (int j = 0; j < nc; j++) {
            const double cw = 2.0 * W[3 * i + j], ce = E[3 * i + j], cww = WW[3 * i + j];
            if (cw == 0.0 && ce == 0.0 && cww == 0.0) continue;
            const double* mij = p->m_ij[i][j];
            for (int k = 0; k < nn; k++) {
                out->c[k] += cw * mij[k];
                out->k_eps[k] += ce * mij[k];
                out->k_omega[k] += cww * mij[k];
            }
        }

    /* Load vector: frame acceleration plus q_i(eps) + q_i(w) with the
     * point position r = (s0 + x, y, z). */
    for (int i = 0; i < nc; i++) {
        for (int dof = 0; dof < n; dof++) out->q[dof] += a[i] * p->s_i[i][dof];
        for (int j = 0; j < 3; j++) {
            const double coef = E[3 * i + j] + WW[3 * i + j];
            if (coef == 0.0) continue;
            for (int dof = 0; dof < n; dof++) {
                const double X = p->x_ik[i][j][dof] + (j == 0 ? s0 * p->s_i[i][dof] : 0.0);
                out->q[dof] += coef * X;
            }
        }
    }
}
