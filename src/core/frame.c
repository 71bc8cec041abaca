/* Prescribed frame motion of a body (kedyn/frame.h; theory.md sec. 2). */
#include "kedyn/frame.h"

#include <math.h>
#include <string.h>

#include "core/util.h"

/* out = A b (row-major 3x3). */
static void mat_vec(double out[3], const double A[9], const double b[3]) {
    for (int i = 0; i < 3; i++) out[i] = A[3 * i] * b[0] + A[3 * i + 1] * b[1] + A[3 * i + 2] * b[2];
}

/* out = A^T b. */
static void mat_tvec(double out[3], const double A[9], const double b[3]) {
    for (int i = 0; i < 3; i++) out[i] = A[i] * b[0] + A[3 + i] * b[1] + A[6 + i] * b[2];
}

/* Rodrigues: Rot(n, th) = I + sin th [n] + (1 - cos th) [n]^2. */
static void axis_rotation(double Q[9], const double n[3], double th) {
    const double s = sin(th), c = 1.0 - cos(th);
    const double N[9] = {0, -n[2], n[1], n[2], 0, -n[0], -n[1], n[0], 0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double nn = 0;
            for (int k = 0; k < 3; k++) nn += N[3 * i + k] * N[3 * k + j];
            Q[3 * i + j] = (i == j) + s * N[3 * i + j] + c * nn;
        }
}

static void mat_mul(double out[9], const double A[9], const double B[9]) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* The exponential map and its rates. With theta = |phi|, Phi = [phi]:
 *   Q = Exp(Phi) = I + s Phi + a Phi^2,  J = I + a Phi + b Phi^2 (left Jacobian),
 *   s = sin(th)/th, a = (1 - cos th)/th^2, b = (th - sin th)/th^3,
 *   omega = J phi',  eps = J phi'' + J' phi',
 *   J' = (a'/th)(phi.phi') Phi + a Phi' + (b'/th)(phi.phi') Phi^2 + b (Phi' Phi + Phi Phi'),
 * with Taylor series below th = 0.03 where the closed forms cancel. */
void kd_rotvec_rates(const double phi[3], const double dphi[3], const double d2phi[3], double Q[9], double omega[3],
                     double eps[3]) {
    const double t2 = phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2], th = sqrt(t2);
    double s, a, b, ap, bp;  /* ap = a'/th, bp = b'/th */
    if (th < 0.03) {
        const double t4 = t2 * t2;
        s = 1 - t2 / 6 + t4 / 120;
        a = 0.5 - t2 / 24 + t4 / 720;
        b = 1.0 / 6 - t2 / 120 + t4 / 5040;
        ap = -1.0 / 12 + t2 / 180 - t4 / 6720;
        bp = -1.0 / 60 + t2 / 1260 - t4 / 60480;
    } else {
        const double sn = sin(th), cs = cos(th);
        s = sn / th;
        a = (1 - cs) / t2;
        b = (th - sn) / (t2 * th);
        ap = (th * sn - 2 * (1 - cs)) / (t2 * t2);
        bp = (th * (1 - cs) - 3 * (th - sn)) / (t2 * t2 * th);
    }
    double P[9], P2[9], D[9], DP[9], PD[9];
    util_skew3(P, phi);
    util_skew3(D, dphi);
    mat_mul(P2, P, P);
    mat_mul(DP, D, P);
    mat_mul(PD, P, D);
    const double pd = phi[0] * dphi[0] + phi[1] * dphi[1] + phi[2] * dphi[2];
    double J[9], Jd[9];
    for (int k = 0; k < 9; k++) {
        const double id = (k % 4 == 0);
        Q[k] = id + s * P[k] + a * P2[k];
        J[k] = id + a * P[k] + b * P2[k];
        Jd[k] = ap * pd * P[k] + a * D[k] + bp * pd * P2[k] + b * (DP[k] + PD[k]);
    }
    double e1[3], e2[3];
    mat_vec(omega, J, dphi);
    mat_vec(e1, J, d2phi);
    mat_vec(e2, Jd, dphi);
    for (int i = 0; i < 3; i++) eps[i] = e1[i] + e2[i];
}

void kd_motion_eval(const kd_motion* mo, const double R0[9], const double r0[3], double t, kd_frame* f) {
    memset(f, 0, sizeof(*f));
    f->t = t;
    switch (mo->type) {
    case KD_MOTION_NONE:
        memcpy(f->R, R0, sizeof(f->R));
        memcpy(f->rO, r0, sizeof(f->rO));
        break;
    case KD_MOTION_ROTATION: {
        double th, dth, d2th, Q[9], p0[3], p[3], wxp[3];
        kd_law_eval(&mo->angle, t, &th, &dth, &d2th);
        axis_rotation(Q, mo->axis, th);
        mat_mul(f->R, Q, R0);
        /* arm from the axis point to the origin: rotated initial arm */
        for (int i = 0; i < 3; i++) p0[i] = r0[i] + mo->hub * R0[3 * i] - mo->center[i];
        mat_vec(p, Q, p0);
        for (int i = 0; i < 3; i++) {
            f->rO[i] = mo->center[i] + p[i];
            f->omega[i] = dth * mo->axis[i];
            f->eps[i] = d2th * mo->axis[i];
        }
        /* v = w x p, a = e x p + w x (w x p) */
        util_cross3(f->vO, f->omega, p);
        util_cross3(wxp, f->omega, f->vO);
        util_cross3(f->aO, f->eps, p);
        for (int i = 0; i < 3; i++) f->aO[i] += wxp[i];
        break;
    }
    case KD_MOTION_PLANAR: {
        double phi, dphi, d2phi;
        kd_law_eval(&mo->x, t, &f->rO[0], &f->vO[0], &f->aO[0]);
        kd_law_eval(&mo->y, t, &f->rO[1], &f->vO[1], &f->aO[1]);
        kd_law_eval(&mo->phi, t, &phi, &dphi, &d2phi);
        const double c = cos(phi), s = sin(phi);
        const double R[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
        memcpy(f->R, R, sizeof(R));
        f->omega[2] = dphi;
        f->eps[2] = d2phi;
        break;
    }
    case KD_MOTION_POSE: {
        double phi[3], dphi[3], d2phi[3], Q[9];
        for (int i = 0; i < 3; i++) {
            kd_law_eval(&mo->pose[i], t, &f->rO[i], &f->vO[i], &f->aO[i]);
            kd_law_eval(&mo->pose[3 + i], t, &phi[i], &dphi[i], &d2phi[i]);
        }
        kd_rotvec_rates(phi, dphi, d2phi, Q, f->omega, f->eps);
        mat_mul(f->R, Q, R0);
        break;
    }
    }
    mat_tvec(f->omega_L, f->R, f->omega);
    mat_tvec(f->eps_L, f->R, f->eps);
    mat_tvec(f->vO_L, f->R, f->vO);
    mat_tvec(f->aO_L, f->R, f->aO);
}

int kd_motion_smoothness(const kd_motion* mo) {
    switch (mo->type) {
    case KD_MOTION_ROTATION: return kd_law_smoothness(&mo->angle);
    case KD_MOTION_PLANAR: {
        int s = kd_law_smoothness(&mo->x);
        if (kd_law_smoothness(&mo->y) < s) s = kd_law_smoothness(&mo->y);
        if (kd_law_smoothness(&mo->phi) < s) s = kd_law_smoothness(&mo->phi);
        return s;
    }
    case KD_MOTION_POSE: {
        int s = 2;
        for (int i = 0; i < 6; i++)
            if (kd_law_smoothness(&mo->pose[i]) < s) s = kd_law_smoothness(&mo->pose[i]);
        return s;
    }
    case KD_MOTION_NONE: break;
    }
    return 2;
}

kd_status kd_motion_copy(kd_motion* dst, const kd_motion* src) {
    *dst = *src;
    kd_law* dl[10] = {&dst->angle, &dst->x, &dst->y, &dst->phi};
    const kd_law* sl[10] = {&src->angle, &src->x, &src->y, &src->phi};
    for (int i = 0; i < 6; i++) dl[4 + i] = &dst->pose[i], sl[4 + i] = &src->pose[i];
    kd_status st = KD_OK;
    for (int i = 0; i < 10; i++) dl[i]->t = dl[i]->f = dl[i]->d2 = NULL, dl[i]->n = 0;
    for (int i = 0; i < 10 && !st; i++) st = kd_law_copy(dl[i], sl[i]);
    if (st) kd_motion_free(dst);
    return st;
}

void kd_motion_free(kd_motion* mo) {
    kd_law_free(&mo->angle);
    kd_law_free(&mo->x);
    kd_law_free(&mo->y);
    kd_law_free(&mo->phi);
    for (int i = 0; i < 6; i++) kd_law_free(&mo->pose[i]);
}
