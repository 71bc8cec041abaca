/* Constraint equations of planar joints and drivers of the rigid mechanism: Phi(q, t), the
 * analytic Jacobian Phi_q, Phi_t and gamma (theory.md sec. 6). The
 * equations themselves are those of src/mechanism/joints.c, evaluated at the joints' body points
 * (kedyn/body.h); here they are laid out in rows: every joint's, then one per driver.
 */
#include <math.h>
#include <string.h>

#include "joints.h"
#include "mechanism_internal.h"

void kd_mech_point(const kd_mech* m, int b, const double* s, const double* q, const double* qd, double r[2],
                   double v[2]) {
    const kd_mpoint p = {b, -1, {s[0], s[1]}};
    kd_mpoint_state o;
    mpoint_eval(m->bodies, &p, q, qd, &o);
    r[0] = o.r[0] + o.a[0], r[1] = o.r[1] + o.a[1];
    v[0] = o.v[0] + o.w * o.pa[0], v[1] = o.v[1] + o.w * o.pa[1];
}

void kd_mech_point_acc(const kd_mech* m, int b, const double* s, const double* q, const double* qd, const double* qdd,
                       double a[2]) {
    const kd_mpoint p = {b, -1, {s[0], s[1]}};
    kd_mpoint_state o;
    mpoint_eval(m->bodies, &p, q, qd, &o);
    const double al = b >= 0 ? qdd[3 * b + 2] : 0.0, ax = b >= 0 ? qdd[3 * b] : 0.0, ay = b >= 0 ? qdd[3 * b + 1] : 0.0;
    a[0] = ax + al * o.pa[0] - o.w * o.w * o.a[0];
    a[1] = ay + al * o.pa[1] - o.w * o.w * o.a[1];
}

joint_type mech_joint_type(kd_joint_type t) {
    switch (t) {
    case KD_JOINT_REVOLUTE: return JOINT_REVOLUTE;
    case KD_JOINT_PRISMATIC: return JOINT_PRISMATIC;
    case KD_JOINT_FIXED: return JOINT_FIXED;
    case KD_JOINT_DISTANCE: return JOINT_DISTANCE;
    case KD_JOINT_ROLLING: return JOINT_ROLLING;
    case KD_JOINT_TYPES: break;
    }
    return JOINT_TYPES;
}

/* The rows of joint k (and of its driver row when drv): phi, jl (JOINT_SLOTS per row), gam; any
 * may be NULL. A driver prescribes initial + law(t). */
static void mech_rows(const kd_mech* m, int k, int drv, double t, const double* q, const double* qd, double* phi,
                      double* jl, double* gam) {
    const kd_mjoint* j = &m->joint[k];
    const joint_def* def = &m->jdef[drv ? m->njoint + j->driver : k];
    kd_mpoint_state pi, pj;
    mpoint_eval(m->bodies, &j->point[0], q, qd, &pi);
    mpoint_eval(m->bodies, &j->point[1], q, qd, &pj);
    double c = 0.0, d2f = 0.0;
    if (drv) {
        const kd_mdriver* dr = &m->driver[j->driver];
        double f, df;
        kd_law_eval(&dr->law, t, &f, &df, &d2f);
        c = dr->initial + f;
    }
    joint_eval(def, &pi, &pj, c, 0.0, d2f, phi, jl, gam);
}

void kd_mech_phi(const kd_mech* m, double t, const double* q, double* phi) {
    for (int k = 0; k < m->njoint; k++) mech_rows(m, k, 0, t, q, NULL, phi + m->joint[k].row, NULL, NULL);
    for (int k = 0; k < m->ndriver; k++) mech_rows(m, m->driver[k].joint, 1, t, q, NULL, phi + m->driver[k].row, NULL, NULL);
}

void mech_jacobian_local(const kd_mech* m, double t, const double* q, double* jl) {
    for (int k = 0; k < m->njoint; k++) mech_rows(m, k, 0, t, q, NULL, NULL, jl + JOINT_SLOTS * m->joint[k].row, NULL);
    for (int k = 0; k < m->ndriver; k++)
        mech_rows(m, m->driver[k].joint, 1, t, q, NULL, NULL, jl + JOINT_SLOTS * m->driver[k].row, NULL);
}

void kd_mech_jacobian(const kd_mech* m, double t, const double* q, double* jac) {
    double jl[JOINT_SLOTS * 3];
    for (int k = 0; k < m->njoint + m->ndriver; k++) {
        const int drv = k >= m->njoint;
        const int jk = drv ? m->driver[k - m->njoint].joint : k;
        const int row = drv ? m->driver[k - m->njoint].row : m->joint[k].row;
        const int nrow = drv ? 1 : m->joint[k].nrow;
        mech_rows(m, jk, drv, t, q, NULL, NULL, jl, NULL);
        joint_scatter(m->jac_rowptr, m->jac_slot, row, nrow, jl, jac);
    }
}

void kd_mech_phi_t(const kd_mech* m, double t, const double* q, double* phi_t) {
    (void)q;
    memset(phi_t, 0, sizeof(double) * (size_t)m->nc);
    for (int k = 0; k < m->ndriver; k++) {
        double f, df, d2f;
        kd_law_eval(&m->driver[k].law, t, &f, &df, &d2f);
        phi_t[m->driver[k].row] = -df;  /* Phi = coordinate - initial - f(t) */
    }
}

void kd_mech_gamma(const kd_mech* m, double t, const double* q, const double* qd, double* gamma) {
    for (int k = 0; k < m->njoint; k++) mech_rows(m, k, 0, t, q, qd, NULL, NULL, gamma + m->joint[k].row);
    for (int k = 0; k < m->ndriver; k++)
        mech_rows(m, m->driver[k].joint, 1, t, q, qd, NULL, NULL, gamma + m->driver[k].row);
}

void kd_mech_jac_dense(const kd_mech* m, const double* jac, int row0, int nrow, double* A, int ld) {
    for (int c = 0; c < m->n; c++)
        for (int r = 0; r < nrow; r++) A[(size_t)c * ld + r] = 0.0;
    for (int r = 0; r < nrow; r++)
        for (int e = m->jac_rowptr[row0 + r]; e < m->jac_rowptr[row0 + r + 1]; e++)
            A[(size_t)m->jac_col[e] * ld + r] = jac[e];
}
