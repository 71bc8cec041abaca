/* Spatial rigid bodies: Euler parameters, rotation matrices, inertia tensors, and the points and
 * axes of a body with their exact Jacobians and velocity-squared terms (theory.md sec.
 * "Spatial rigid mechanisms", S1-S3). */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "spatial_internal.h"

/* A(p) = E(p) G(p)^T = (e0^2 - e.e) I + 2 e e^T + 2 e0 e~ (S1), homogeneous quadratic in p. */
void sp_rot_apply(const double p[4], const double s[3], double out[3]) {
    const double e0 = p[0], *e = p + 1;
    const double ee = e[0] * e[0] + e[1] * e[1] + e[2] * e[2], es = e[0] * s[0] + e[1] * s[1] + e[2] * s[2];
    const double c = e0 * e0 - ee;
    const double x[3] = {e[1] * s[2] - e[2] * s[1], e[2] * s[0] - e[0] * s[2], e[0] * s[1] - e[1] * s[0]};
    for (int i = 0; i < 3; i++) out[i] = c * s[i] + 2.0 * e[i] * es + 2.0 * e0 * x[i];
}

/* d(A(p) s)/dp (3 x 4, S2): column e0: 2 (e0 s + e x s); columns e: 2 [(e.s) I + e s^T - s e^T - e0 s~]. */
void sp_rot_jac(const double p[4], const double s[3], double J[3][4]) {
    const double e0 = p[0], *e = p + 1;
    const double es = e[0] * s[0] + e[1] * s[1] + e[2] * s[2];
    const double x[3] = {e[1] * s[2] - e[2] * s[1], e[2] * s[0] - e[0] * s[2], e[0] * s[1] - e[1] * s[0]};
    const double st[3][3] = {{0, -s[2], s[1]}, {s[2], 0, -s[0]}, {-s[1], s[0], 0}};
    for (int i = 0; i < 3; i++) {
        J[i][0] = 2.0 * (e0 * s[i] + x[i]);
        for (int k = 0; k < 3; k++)
            J[i][1 + k] = 2.0 * ((i == k ? es : 0.0) + e[i] * s[k] - s[i] * e[k] - e0 * st[i][k]);
    }
}

void kd_rot_from_quat(const double p[4], double R[9]) {
    for (int j = 0; j < 3; j++) {
        const double ej[3] = {j == 0, j == 1, j == 2};
        double c[3];
        sp_rot_apply(p, ej, c);
        for (int i = 0; i < 3; i++) R[3 * i + j] = c[i];
    }
}

/* Rodrigues: R = I + sin(t) n~ + (1 - cos(t)) n~^2. */
void kd_rot_axis_angle(const double axis[3], double angle, double R[9]) {
    const double l = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    for (int i = 0; i < 9; i++) R[i] = (i % 4 == 0) ? 1.0 : 0.0;
    if (!(l > 0)) return;
    const double n[3] = {axis[0] / l, axis[1] / l, axis[2] / l};
    const double N[9] = {0, -n[2], n[1], n[2], 0, -n[0], -n[1], n[0], 0};
    const double s = sin(angle), c = 1.0 - cos(angle);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double n2 = 0;
            for (int k = 0; k < 3; k++) n2 += N[3 * i + k] * N[3 * k + j];
            R[3 * i + j] += s * N[3 * i + j] + c * n2;
        }
}

/* R = Rz(a) Ry(b) Rx(c). */
void kd_rot_euler_zyx(const double abc[3], double R[9]) {
    const double ca = cos(abc[0]), sa = sin(abc[0]), cb = cos(abc[1]), sb = sin(abc[1]), cc = cos(abc[2]),
                 sc = sin(abc[2]);
    const double r[9] = {ca * cb, ca * sb * sc - sa * cc, ca * sb * cc + sa * sc,
                         sa * cb, sa * sb * sc + ca * cc, sa * sb * cc - ca * sc,
                         -sb,     cb * sc,                cb * cc};
    memcpy(R, r, sizeof(r));
}

int kd_rot_check(const double R[9], double tol) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double d = 0;
            for (int k = 0; k < 3; k++) d += R[3 * k + i] * R[3 * k + j];
            if (fabs(d - (i == j)) > tol) return 1;
        }
    const double det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
                       R[2] * (R[3] * R[7] - R[4] * R[6]);
    return det > 0 ? 0 : 1;
}

/* Shepperd's method: the largest of 4 e_i^2 first. */
void kd_quat_from_rot(const double R[9], double p[4]) {
    const double tr = R[0] + R[4] + R[8];
    const double d[4] = {1.0 + tr, 1.0 + 2.0 * R[0] - tr, 1.0 + 2.0 * R[4] - tr, 1.0 + 2.0 * R[8] - tr};
    int k = 0;
    for (int i = 1; i < 4; i++)
        if (d[i] > d[k]) k = i;
    const double w = 0.5 * sqrt(d[k]), f = 0.25 / w;
    switch (k) {
    case 0: p[0] = w, p[1] = (R[7] - R[5]) * f, p[2] = (R[2] - R[6]) * f, p[3] = (R[3] - R[1]) * f; break;
    case 1: p[1] = w, p[0] = (R[7] - R[5]) * f, p[2] = (R[1] + R[3]) * f, p[3] = (R[2] + R[6]) * f; break;
    case 2: p[2] = w, p[0] = (R[2] - R[6]) * f, p[1] = (R[1] + R[3]) * f, p[3] = (R[5] + R[7]) * f; break;
    default: p[3] = w, p[0] = (R[3] - R[1]) * f, p[1] = (R[2] + R[6]) * f, p[2] = (R[5] + R[7]) * f; break;
    }
    if (p[0] < 0)
        for (int i = 0; i < 4; i++) p[i] = -p[i];
}

int kd_inertia_tensor(const double I6[6], double J[9]) {
    const double t[9] = {I6[0], I6[3], I6[5], I6[3], I6[1], I6[4], I6[5], I6[4], I6[2]};
    memcpy(J, t, sizeof(t));
    double a[9], w[3];
    memcpy(a, t, sizeof(t));
    if (LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', 3, a, 3, w)) return 1;
    const double scale = fabs(w[2]) > 0 ? fabs(w[2]) : 1.0;
    if (!(w[0] > 1e-12 * scale)) return 1;
    /* principal moments of a real body: each at most the sum of the other two */
    if (w[2] > (w[0] + w[1]) * (1.0 + 1e-9)) return 2;
    return 0;
}

/* G(p) (3 x 4) = [-e, -e~ + e0 I]; E(p) = [-e, e~ + e0 I] (S1). */
void sp_G(const double p[4], double G[3][4]) {
    const double e0 = p[0], e1 = p[1], e2 = p[2], e3 = p[3];
    const double g[3][4] = {{-e1, e0, e3, -e2}, {-e2, -e3, e0, e1}, {-e3, e2, -e1, e0}};
    memcpy(G, g, sizeof(g));
}
void sp_E(const double p[4], double E[3][4]) {
    const double e0 = p[0], e1 = p[1], e2 = p[2], e3 = p[3];
    const double g[3][4] = {{-e1, e0, -e3, e2}, {-e2, e3, e0, -e1}, {-e3, -e2, e1, e0}};
    memcpy(E, g, sizeof(g));
}

/* A body vector: a point (with the translation) or an axis, at (q, q'), S3:
 *   v = [r +] A(p) s,  dv/dp = sp_rot_jac,  v' = [r' +] dv/dp p',  acc = 2 A(p') s
 * where v'' = [r'' +] dv/dp p'' + acc. Ground (b < 0): v = s, everything else zero. */
void sp_term(const kd_smech* m, int b, const double s[3], int point, const double* q, const double* qd, sp_vterm* o) {
    sp_term_at(m, b, s, point, q, qd, 1, o);
}

/* The same; jac = 0 without qd leaves J unset (the value alone: constraint values). */
void sp_term_at(const kd_smech* m, int b, const double s[3], int point, const double* q, const double* qd, int jac,
                sp_vterm* o) {
    (void)m;
    o->body = b, o->point = point;
    if (b < 0) {
        memset(o, 0, sizeof(*o));
        o->body = b, o->point = point;
        memcpy(o->v, s, sizeof(double) * 3);
        return;
    }
    const double* x = q + KD_SPOSE * b;
    const double* p = x + 3;
    sp_rot_apply(p, s, o->v);
    if (jac || qd) sp_rot_jac(p, s, o->J);
    if (point)
        for (int i = 0; i < 3; i++) o->v[i] += x[i];
    if (!qd) {
        memset(o->vd, 0, sizeof(o->vd)), memset(o->acc, 0, sizeof(o->acc));
        return;
    }
    const double* pd = qd + KD_SPOSE * b + 3;
    for (int i = 0; i < 3; i++) {
        double a = point ? qd[KD_SPOSE * b + i] : 0.0;
        for (int k = 0; k < 4; k++) a += o->J[i][k] * pd[k];
        o->vd[i] = a;
    }
    sp_rot_apply(pd, s, o->acc);
    for (int i = 0; i < 3; i++) o->acc[i] *= 2.0;
}

/* jl[7 slot + c] += w^T d(term)/dq_c for the term's body placed in local slot `slot` (0, 1). */
void sp_term_jac_add(const sp_vterm* t, const double w[3], double scale, int slot, double* jl) {
    if (t->body < 0) return;
    double* J = jl + KD_SPOSE * slot;
    if (t->point)
        for (int i = 0; i < 3; i++) J[i] += scale * w[i];
    for (int k = 0; k < 4; k++) J[3 + k] += scale * (w[0] * t->J[0][k] + w[1] * t->J[1][k] + w[2] * t->J[2][k]);
}

void kd_smech_point(const kd_smech* m, int b, const double s[3], const double* q, const double* qd, double r[3],
                    double v[3]) {
    sp_vterm t;
    sp_term(m, b, s, 1, q, qd, &t);
    memcpy(r, t.v, sizeof(t.v));
    if (v) memcpy(v, t.vd, sizeof(t.vd));
}

void kd_smech_omega(const kd_smech* m, int b, const double* q, const double* qd, double w[3]) {
    (void)m;
    double E[3][4];
    sp_E(q + KD_SPOSE * b + 3, E);
    const double* pd = qd + KD_SPOSE * b + 3;
    for (int i = 0; i < 3; i++) w[i] = 2.0 * (E[i][0] * pd[0] + E[i][1] * pd[1] + E[i][2] * pd[2] + E[i][3] * pd[3]);
}

void kd_smech_qd_of(const kd_smech* m, int b, const double* q, const double v[3], const double w[3], double* qd) {
    (void)m;
    double E[3][4];
    const double* p = q + KD_SPOSE * b + 3;
    sp_E(p, E);
    double* x = qd + KD_SPOSE * b;
    const double pp = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3];
    for (int i = 0; i < 3; i++) x[i] = v[i];
    for (int k = 0; k < 4; k++) x[3 + k] = 0.5 * (E[0][k] * w[0] + E[1][k] * w[1] + E[2][k] * w[2]) / pp;
}
