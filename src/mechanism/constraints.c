/* Constraint equations of planar joints and drivers: Phi(q, t), the analytic
 * Jacobian Phi_q, Phi_t and gamma (theory.md sec. 6), and the kd_cms view.
 *
 * Notation: body i = the joint's first body, j = its second; r_b the centre
 * of mass, phi_b the angle, A_b its rotation, s_b the joint point from the
 * centre of mass in the body frame, a_b = A_b s_b, P_b = r_b + a_b, and
 * d = P_j - P_i. perp(v) = (-v_y, v_x) is v turned by +90 degrees, so that
 * d(A s)/dphi = perp(A s) and, with q'' = 0, d2(A s)/dt2 = -phi'^2 A s.
 * gamma = -(d2 Phi/dt2 evaluated with q'' = 0), which equals
 * -(Phi_q q')_q q' - 2 Phi_qt q' - Phi_tt. Ground: r = 0, phi = 0, a = s.
 */
#include <math.h>
#include <string.h>

#include "mechanism_internal.h"

typedef struct side {
    double r[2], a[2], pa[2];     /* centre of mass, a = A s, perp(a) */
    double phi, w;                /* angle and angular velocity */
    double v[2];                  /* velocity of the centre of mass */
} side;

static void side_eval(int b, const double* s, const double* q, const double* qd, side* o) {
    memset(o, 0, sizeof(*o));
    if (b < 0) {
        o->a[0] = s[0], o->a[1] = s[1];
    } else {
        o->r[0] = q[3 * b], o->r[1] = q[3 * b + 1], o->phi = q[3 * b + 2];
        const double c = cos(o->phi), sn = sin(o->phi);
        o->a[0] = c * s[0] - sn * s[1];
        o->a[1] = sn * s[0] + c * s[1];
        if (qd) o->v[0] = qd[3 * b], o->v[1] = qd[3 * b + 1], o->w = qd[3 * b + 2];
    }
    o->pa[0] = -o->a[1], o->pa[1] = o->a[0];
}

void kd_mech_point(const kd_mech* m, int b, const double* s, const double* q, const double* qd, double r[2],
                   double v[2]) {
    (void)m;
    side o;
    side_eval(b, s, q, qd, &o);
    r[0] = o.r[0] + o.a[0], r[1] = o.r[1] + o.a[1];
    v[0] = o.v[0] + o.w * o.pa[0], v[1] = o.v[1] + o.w * o.pa[1];
}

void kd_mech_point_acc(const kd_mech* m, int b, const double* s, const double* q, const double* qd, const double* qdd,
                       double a[2]) {
    (void)m;
    side o;
    side_eval(b, s, q, qd, &o);
    const double al = b >= 0 ? qdd[3 * b + 2] : 0.0, ax = b >= 0 ? qdd[3 * b] : 0.0, ay = b >= 0 ? qdd[3 * b + 1] : 0.0;
    a[0] = ax + al * o.pa[0] - o.w * o.w * o.a[0];
    a[1] = ay + al * o.pa[1] - o.w * o.w * o.a[1];
}

static double dot(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1]; }

/* One row e . d - c with e = A_i e_loc fixed in body i: value, local
 * Jacobian, and gamma (without the law's f''). */
static void axis_row(const side* I, const side* J, const double* e_loc, double c, double* phi, double* jl,
                     double* gam) {
    const double cs = cos(I->phi), sn = sin(I->phi);
    const double e[2] = {cs * e_loc[0] - sn * e_loc[1], sn * e_loc[0] + cs * e_loc[1]};
    const double pe[2] = {-e[1], e[0]};
    const double d[2] = {J->r[0] + J->a[0] - I->r[0] - I->a[0], J->r[1] + J->a[1] - I->r[1] - I->a[1]};
    if (phi) *phi = dot(e, d) - c;
    if (jl) {
        jl[0] = -e[0], jl[1] = -e[1], jl[2] = dot(pe, d) - dot(e, I->pa);
        jl[3] = e[0], jl[4] = e[1], jl[5] = dot(e, J->pa);
    }
    if (gam) {
        /* d2/dt2 (e.d) = e''.d + 2 e'.d' + e.d'', e' = w_i perp(e), e'' = -w_i^2 e */
        const double dd[2] = {J->v[0] + J->w * J->pa[0] - I->v[0] - I->w * I->pa[0],
                              J->v[1] + J->w * J->pa[1] - I->v[1] - I->w * I->pa[1]};
        const double d2[2] = {-J->w * J->w * J->a[0] + I->w * I->w * I->a[0],
                              -J->w * J->w * J->a[1] + I->w * I->w * I->a[1]};
        *gam = -(-I->w * I->w * dot(e, d) + 2.0 * I->w * dot(pe, dd) + dot(e, d2));
    }
}

/* Relative angle phi_j - phi_i - c. */
static void angle_row(const side* I, const side* J, double c, double* phi, double* jl, double* gam) {
    if (phi) *phi = J->phi - I->phi - c;
    if (jl) {
        memset(jl, 0, 6 * sizeof(double));
        jl[2] = -1.0, jl[5] = 1.0;
    }
    if (gam) *gam = 0.0;
}

/* The rows of joint k (and of its driver row when drv): phi, jl (6 per row),
 * gam; any may be NULL. */
static void joint_rows(const kd_mech* m, int k, int drv, double t, const double* q, const double* qd, double* phi,
                       double* jl, double* gam) {
    const kd_mjoint* j = &m->joint[k];
    side I, J;
    side_eval(j->body[0], j->s[0], q, qd, &I);
    side_eval(j->body[1], j->s[1], q, qd, &J);
#define ROW(p, r) ((p) ? (p) + (r) : NULL)
#define JROW(r) (jl ? jl + 6 * (r) : NULL)
    if (drv) {
        const kd_mdriver* dr = &m->driver[j->driver];
        double f, df, d2f;
        kd_law_eval(&dr->law, t, &f, &df, &d2f);
        if (j->type == KD_JOINT_REVOLUTE) angle_row(&I, &J, dr->initial + f, phi, jl, gam);
        else axis_row(&I, &J, j->axis, dr->initial + f, phi, jl, gam);
        if (gam) *gam += d2f;
        return;
    }
    switch (j->type) {
    case KD_JOINT_FIXED:
        /* the relative angle is fixed, and the points coincide as in a revolute joint */
        angle_row(&I, &J, j->ref, ROW(phi, 2), JROW(2), ROW(gam, 2));
        /* fall through */
    case KD_JOINT_REVOLUTE:
        /* r_i + a_i - r_j - a_j = 0 */
        for (int c = 0; c < 2; c++) {
            if (phi) phi[c] = I.r[c] + I.a[c] - J.r[c] - J.a[c];
            if (gam) gam[c] = I.w * I.w * I.a[c] - J.w * J.w * J.a[c];
        }
        if (jl) {
            const double rows[12] = {1, 0, I.pa[0], -1, 0, -J.pa[0], 0, 1, I.pa[1], 0, -1, -J.pa[1]};
            memcpy(jl, rows, sizeof(rows));
        }
        break;
    case KD_JOINT_PRISMATIC: {
        /* the normal offset of P_j from the axis line is zero; the relative angle is fixed */
        const double n_loc[2] = {-j->axis[1], j->axis[0]};
        axis_row(&I, &J, n_loc, 0.0, ROW(phi, 0), JROW(0), ROW(gam, 0));
        angle_row(&I, &J, j->ref, ROW(phi, 1), JROW(1), ROW(gam, 1));
        break;
    }
    case KD_JOINT_DISTANCE: {
        /* (d.d - L^2) / (2 L): the multiplier is the force along the link */
        const double L = j->length;
        const double d[2] = {J.r[0] + J.a[0] - I.r[0] - I.a[0], J.r[1] + J.a[1] - I.r[1] - I.a[1]};
        if (phi) phi[0] = (dot(d, d) - L * L) / (2.0 * L);
        if (jl) {
            jl[0] = -d[0] / L, jl[1] = -d[1] / L, jl[2] = -dot(d, I.pa) / L;
            jl[3] = d[0] / L, jl[4] = d[1] / L, jl[5] = dot(d, J.pa) / L;
        }
        if (gam) {
            const double dd[2] = {J.v[0] + J.w * J.pa[0] - I.v[0] - I.w * I.pa[0],
                                  J.v[1] + J.w * J.pa[1] - I.v[1] - I.w * I.pa[1]};
            const double d2[2] = {-J.w * J.w * J.a[0] + I.w * I.w * I.a[0], -J.w * J.w * J.a[1] + I.w * I.w * I.a[1]};
            gam[0] = -(dot(dd, dd) + dot(d, d2)) / L;
        }
        break;
    }
    case KD_JOINT_ROLLING: {
        /* centre of the disc at signed distance R from the line, and the arc
         * rolled equal to R times the relative rotation: u.d + R (phi_j - phi_i) = const */
        const double R = j->radius;
        const double n_loc[2] = {-j->axis[1], j->axis[0]};
        axis_row(&I, &J, n_loc, R, ROW(phi, 0), JROW(0), ROW(gam, 0));
        axis_row(&I, &J, j->axis, j->ref, ROW(phi, 1), JROW(1), ROW(gam, 1));
        if (phi) phi[1] += R * (J.phi - I.phi);
        if (jl) jl[6 + 2] -= R, jl[6 + 5] += R;
        break;
    }
    case KD_JOINT_TYPES: break;
    }
#undef ROW
#undef JROW
}

void kd_mech_phi(const kd_mech* m, double t, const double* q, double* phi) {
    for (int k = 0; k < m->njoint; k++) joint_rows(m, k, 0, t, q, NULL, phi + m->joint[k].row, NULL, NULL);
    for (int k = 0; k < m->ndriver; k++) joint_rows(m, m->driver[k].joint, 1, t, q, NULL, phi + m->driver[k].row, NULL, NULL);
}

void mech_jacobian_local(const kd_mech* m, double t, const double* q, double* jl) {
    for (int k = 0; k < m->njoint; k++) joint_rows(m, k, 0, t, q, NULL, NULL, jl + 6 * m->joint[k].row, NULL);
    for (int k = 0; k < m->ndriver; k++)
        joint_rows(m, m->driver[k].joint, 1, t, q, NULL, NULL, jl + 6 * m->driver[k].row, NULL);
}

void kd_mech_jacobian(const kd_mech* m, double t, const double* q, double* jac) {
    double jl[6 * 3];
    for (int k = 0; k < m->njoint + m->ndriver; k++) {
        const int drv = k >= m->njoint;
        const int jk = drv ? m->driver[k - m->njoint].joint : k;
        const int row = drv ? m->driver[k - m->njoint].row : m->joint[k].row;
        const int nrow = drv ? 1 : m->joint[k].nrow;
        joint_rows(m, jk, drv, t, q, NULL, NULL, jl, NULL);
        for (int r = 0; r < nrow; r++)
            for (int e = m->jac_rowptr[row + r]; e < m->jac_rowptr[row + r + 1]; e++) jac[e] = jl[6 * r + m->jac_slot[e]];
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
    for (int k = 0; k < m->njoint; k++) joint_rows(m, k, 0, t, q, qd, NULL, NULL, gamma + m->joint[k].row);
    for (int k = 0; k < m->ndriver; k++)
        joint_rows(m, m->driver[k].joint, 1, t, q, qd, NULL, NULL, gamma + m->driver[k].row);
}

void kd_mech_jac_dense(const kd_mech* m, const double* jac, int row0, int nrow, double* A, int ld) {
    for (int c = 0; c < m->n; c++)
        for (int r = 0; r < nrow; r++) A[(size_t)c * ld + r] = 0.0;
    for (int r = 0; r < nrow; r++)
        for (int e = m->jac_rowptr[row0 + r]; e < m->jac_rowptr[row0 + r + 1]; e++)
            A[(size_t)m->jac_col[e] * ld + r] = jac[e];
}

/* ---- the kd_cms view --------------------------------------------------- */

static int cms_phi(void* ctx, double t, const double* q, double* phi) {
    kd_mech_phi(ctx, t, q, phi);
    return 0;
}
static int cms_jacobian(void* ctx, double t, const double* q, double* jac) {
    kd_mech_jacobian(ctx, t, q, jac);
    return 0;
}
static int cms_phi_t(void* ctx, double t, const double* q, double* phi_t) {
    kd_mech_phi_t(ctx, t, q, phi_t);
    return 0;
}
static int cms_gamma(void* ctx, double t, const double* q, const double* qd, double* gamma) {
    kd_mech_gamma(ctx, t, q, qd, gamma);
    return 0;
}
static int cms_force(void* ctx, double t, const double* q, const double* qd, double* Q) {
    kd_mech_force(ctx, t, q, qd, Q);
    return 0;
}

void kd_mech_cms(const kd_mech* m, kd_cms* cms) {
    memset(cms, 0, sizeof(*cms));
    cms->n = m->n;
    cms->nc = m->nc;
    cms->mass = m->mass;
    cms->jac_nnz = m->jac_nnz;
    cms->jac_rowptr = m->jac_rowptr;
    cms->jac_col = m->jac_col;
    cms->ctx = (void*)m;  /* callbacks only read it */
    cms->phi = cms_phi;
    cms->jacobian = cms_jacobian;
    cms->phi_t = cms_phi_t;
    cms->gamma = cms_gamma;
    cms->force = cms_force;
}
