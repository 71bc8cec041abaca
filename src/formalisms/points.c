/* Quadrature points of the formalism routes (points.h).
 *
 * Over the domain: the family's own rule (beams: 6-point Gauss-Legendre,
 * exact to degree 11, enough for products of quintic shape functions), with
 * N0, Nt and x from the family's eval. Across it (the transverse coordinates
 * t the family integrates analytically): the integrands are at most
 * quadratic in t, so points that reproduce the transverse moments
 * int rho dt = rho0, int rho t_a dt = rho1_a and int rho t_a t_b dt = rho2_ab
 * integrate them exactly. With the centroid c = rho1 / rho0 and the
 * covariance C = rho2 / rho0 - c c^T on its principal axes v_k (variances
 * lambda_k): c +- sqrt(2 lambda_k) v_k of weight rho0 / 4 for two
 * directions, c +- sqrt(lambda) v of weight rho0 / 2 for one (a beam's
 * (+-sqrt(2 Iz / A), 0), (0, +-sqrt(2 Iy / A)) of weight rho A / 4; planar,
 * (+-sqrt(Iz / A), 0) of weight rho A / 2; a plate's +-t / sqrt(12) of weight
 * rho t / 2). A direction along which the displacement does not vary (Nt = 0:
 * Euler-Bernoulli planar beams, bars) needs no spread, only the centroid. */
#include "points.h"

#include <math.h>
#include <string.h>

/* The transverse points: count, coordinates t (ntrans each) and weight fractions. */
static int transverse_points(const kd_element_props* p, const int active[KD_TRANS_MAX],
                             double t[KD_SECTION_POINTS_MAX][KD_TRANS_MAX], double frac[KD_SECTION_POINTS_MAX]) {
    const int nt = p->family->ntrans;
    double c[KD_TRANS_MAX] = {0}, C[KD_TRANS_MAX][KD_TRANS_MAX] = {{0}};
    for (int a = 0; a < nt; a++) c[a] = p->rho1[a] / p->rho0;
    for (int a = 0; a < nt; a++)
        for (int b = 0; b < nt; b++) C[a][b] = p->rho2[a][b] / p->rho0 - c[a] * c[b];
    int act[KD_TRANS_MAX] = {0}, nact = 0;
    for (int a = 0; a < nt; a++) act[a] = active[a];
    if (nt == 2 && C[0][1] != 0.0 && (act[0] || act[1])) act[0] = act[1] = 1;  /* coupled moments */
    for (int a = 0; a < nt; a++) nact += act[a];
    if (nact == 0) {
        for (int a = 0; a < nt; a++) t[0][a] = c[a];
        frac[0] = 1.0;
        return 1;
    }
    if (nact == 1) {
        const int a = act[0] ? 0 : 1;
        const double h = sqrt(C[a][a]);
        for (int s = 0; s < 2; s++) {
            for (int b = 0; b < nt; b++) t[s][b] = c[b];
            t[s][a] += s == 0 ? h : -h;
            frac[s] = 0.5;
        }
        return 2;
    }
    /* two directions: principal axes of C (a rotation by phi) */
    const double phi = C[0][1] == 0.0 ? 0.0 : 0.5 * atan2(2.0 * C[0][1], C[0][0] - C[1][1]);
    const double cs = cos(phi), sn = sin(phi);
    const double l1 = cs * cs * C[0][0] + 2 * cs * sn * C[0][1] + sn * sn * C[1][1];
    const double l2 = sn * sn * C[0][0] - 2 * cs * sn * C[0][1] + cs * cs * C[1][1];
    const double h1 = sqrt(2.0 * (l1 > 0 ? l1 : 0)), h2 = sqrt(2.0 * (l2 > 0 ? l2 : 0));
    const double v[2][2] = {{cs, sn}, {-sn, cs}}, h[2] = {h1, h2};
    for (int k = 0; k < 2; k++)
        for (int s = 0; s < 2; s++) {
            const int i = 2 * k + s;
            const double sg = s == 0 ? 1.0 : -1.0;
            t[i][0] = c[0] + sg * h[k] * v[k][0];
            t[i][1] = c[1] + sg * h[k] * v[k][1];
            frac[i] = 0.25;
        }
    return 4;
}

int formalism_points(const kd_element_props* p, const kd_element_place* at, qpoint* pts) {
    const kd_element_family* fam = p->family;
    const kd_quadrature* rule = fam->quadrature(p);
    const int nt = fam->ntrans, n = p->ndof, ng = rule->n < KD_QRULE_MAX ? rule->n : KD_QRULE_MAX;
    kd_element_point pt;
    /* which transverse directions the displacement varies along */
    int active[KD_TRANS_MAX] = {0};
    for (int g = 0; g < ng; g++) {
        fam->eval(p, rule->xi[g], &pt);
        for (int a = 0; a < nt; a++)
            for (int i = 0; i < p->ncomp && !active[a]; i++)
                for (int k = 0; k < n; k++)
                    if (pt.Nt[a][i][k] != 0.0) {
                        active[a] = 1;
                        break;
                    }
    }
    double t[KD_SECTION_POINTS_MAX][KD_TRANS_MAX], frac[KD_SECTION_POINTS_MAX];
    const int ns = transverse_points(p, active, t, frac);
    int np = 0;
    for (int g = 0; g < ng; g++) {
        fam->eval(p, rule->xi[g], &pt);
        const double dm = p->rho0 * rule->w[g] * pt.measure;
        for (int s = 0; s < ns; s++) {
            qpoint* q = &pts[np++];
            q->w = dm * frac[s];
            double x[3];
            for (int k = 0; k < 3; k++) {
                x[k] = pt.x[k];
                for (int a = 0; a < nt; a++)
                    if (t[s][a] != 0.0) x[k] += t[s][a] * p->trans_dir[a][k];
            }
            memset(q->N, 0, sizeof(q->N));
            for (int i = 0; i < p->ncomp; i++)
                for (int k = 0; k < n; k++) {
                    double v = pt.N0[i][k];
                    for (int a = 0; a < nt; a++)
                        if (t[s][a] != 0.0) v += t[s][a] * pt.Nt[a][i][k];
                    q->N[i][k] = v;
                }
            if (!at->rotated) {
                for (int k = 0; k < 3; k++) q->r[k] = at->r0[k] + x[k];
                continue;
            }
            /* body components r = r0 + R x, N_b = R N_e T (kedyn/inertia.h) */
            for (int k = 0; k < 3; k++)
                q->r[k] = at->r0[k] + at->R[3 * k] * x[0] + at->R[3 * k + 1] * x[1] + at->R[3 * k + 2] * x[2];
            for (int k = 0; k < n; k++) {
                const double c0 = q->N[0][k], c1 = q->N[1][k], c2 = q->N[2][k];
                for (int i = 0; i < 3; i++) q->N[i][k] = at->R[3 * i] * c0 + at->R[3 * i + 1] * c1 + at->R[3 * i + 2] * c2;
            }
            for (int i = 0; i < 3; i++) kd_element_place_vector(p, at, q->N[i]);  /* rows: N T */
        }
    }
    return np;
}
