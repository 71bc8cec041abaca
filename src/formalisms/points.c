/* Quadrature points of the formalism routes (points.h).
 *
 * Along the axis: the 6-point Gauss-Legendre rule of the element library
 * (exact to degree 11, enough for products of quintic shape functions).
 * Over the section: the integrands are at most quadratic in (y, z) on
 * centroidal principal axes, so points that reproduce int dA = A,
 * int y^2 dA = Iz, int z^2 dA = Iy and the vanishing first and mixed moments
 * integrate them exactly: (+-sqrt(2 Iz / A), 0) and (0, +-sqrt(2 Iy / A)),
 * each of weight A / 4. A planar element needs only a y pair, (+-sqrt(Iz / A),
 * 0) of weight A / 2,
 * and one without rotary inertia (planar Euler-Bernoulli, bars) only the
 * centroid. */
#include "points.h"

#include <math.h>
#include <string.h>

static const double gauss_xi[KD_AXIS_POINTS] = {0.033765242898423986, 0.16939530676686776, 0.38069040695840156,
                                                0.61930959304159844,  0.83060469323313224, 0.96623475710157601};
static const double gauss_w[KD_AXIS_POINTS] = {0.085662246189585178, 0.18038078652406930, 0.23395696728634552,
                                               0.23395696728634552,  0.18038078652406930, 0.085662246189585178};

int formalism_points(const kd_element_props* p, double s0, qpoint* pts) {
    const kd_element_consts* c = &p->c;
    const int rotary = p->kind.theory != KD_THEORY_EULER_BERNOULLI && p->kind.theory != KD_THEORY_BAR;
    double sy[KD_SECTION_POINTS_MAX], sz[KD_SECTION_POINTS_MAX], sw[KD_SECTION_POINTS_MAX];
    int ns;
    if (p->kind.planar && !rotary) {
        ns = 1, sy[0] = sz[0] = 0.0, sw[0] = c->A;
    } else if (p->kind.planar) {
        const double hy = sqrt(c->Iz / c->A);  /* two points of weight A/2: A hy^2 = Iz */
        ns = 2;
        sy[0] = hy, sy[1] = -hy, sz[0] = sz[1] = 0.0, sw[0] = sw[1] = 0.5 * c->A;
    } else {
        const double hy = sqrt(2.0 * c->Iz / c->A), hz = sqrt(2.0 * c->Iy / c->A);
        ns = 4;
        const double y[4] = {hy, -hy, 0.0, 0.0}, z[4] = {0.0, 0.0, hz, -hz};
        for (int k = 0; k < 4; k++) sy[k] = y[k], sz[k] = z[k], sw[k] = 0.25 * c->A;
    }
    int np = 0;
    for (int g = 0; g < KD_AXIS_POINTS; g++) {
        double N[KD_NFIELD][KD_ELEM_DOF_MAX], dN[KD_NFIELD][KD_ELEM_DOF_MAX];
        double N0[3][KD_ELEM_DOF_MAX], Ny[3][KD_ELEM_DOF_MAX], Nz[3][KD_ELEM_DOF_MAX];
        kd_element_shape(p->kind, c, p->L, gauss_xi[g], N, dN);
        kd_element_point_shape(p->kind, N, N0, Ny, Nz);
        for (int s = 0; s < ns; s++) {
            qpoint* q = &pts[np++];
            q->w = c->rho * sw[s] * gauss_w[g] * p->L;
            q->r[0] = s0 + gauss_xi[g] * p->L, q->r[1] = sy[s], q->r[2] = sz[s];
            memset(q->N, 0, sizeof(q->N));
            for (int i = 0; i < p->ncomp; i++)
                for (int a = 0; a < p->ndof; a++) q->N[i][a] = N0[i][a] + sy[s] * Ny[i][a] + sz[s] * Nz[i][a];
        }
    }
    return np;
}
