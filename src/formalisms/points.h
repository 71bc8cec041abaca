/* Quadrature points shared by the formalism routes: the element family's
 * quadrature points over its domain times transverse points (a beam's section,
 * a plate's thickness), each with its mass weight rho dV, its position
 * r = r0 + R x in the body frame and the rows of N (displacement of the
 * material point in body components over the body's DOFs, theory.md sec. 2
 * and 3; kedyn/inertia.h for the place r0, R). The routes differ in what they
 * evaluate at these points, not in where. */
#ifndef KEDYN_FORMALISM_POINTS_H
#define KEDYN_FORMALISM_POINTS_H

#include "core/util.h"
#include "kedyn/formalism.h"

#define KD_QRULE_MAX 32            /* points of a family's quadrature rule (beams 6, 3 x 3 Gauss 9, 4 x 4 16) */
#define KD_SECTION_POINTS_MAX 4
#define KD_QPOINTS_MAX (KD_QRULE_MAX * KD_SECTION_POINTS_MAX)

typedef struct qpoint {
    double w;                          /* rho dV, kg */
    double r[3];                       /* position in the body frame, m */
    double N[3][KD_ELEM_DOF_MAX];      /* displacement rows x, y, z over the element DOFs */
} qpoint;

/* Fill pts (KD_QPOINTS_MAX) for element p placed at `at`; returns the count. */
int formalism_points(const kd_element_props* p, const kd_element_place* at, qpoint* pts);

/* Column a of N at a point as a 3-vector. */
static inline void qpoint_column(const qpoint* q, int a, double out[3]) {
    out[0] = q->N[0][a], out[1] = q->N[1][a], out[2] = q->N[2][a];
}


#endif
